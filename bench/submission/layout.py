"""What a submission folder holds, by name, and where the weights it references may live: shared by
`bench submit` (which packs it), `bench verify` (which checks it) and `merged` (which installs it)."""

from __future__ import annotations

from pathlib import Path

from sentibench.core.paths import cache_dir

MANIFEST = "manifest.json"
CARD_FILE = "card.yaml"
WEIGHTS = "weights"
WEIGHT_FILES = (".safetensors", ".json", ".txt", ".model")  # weights, configs, vocabularies; never code


def cache_weight_roots() -> list[Path]:
    """The caches `bench verify` reads a referenced checkpoint from: sentibench's model and checkpoint
    caches and the Hugging Face Hub cache."""
    from huggingface_hub.constants import HF_HUB_CACHE

    return [cache_dir("models"), cache_dir("checkpoints"), Path(HF_HUB_CACHE)]
