"""Training a registered method into a checkpoint plus a model card (`bench train`, and trained cards
on first use). The method does the learning; this module does the bookkeeping around it."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from sentibench.data import get_dataset
from sentibench.errors import BenchError, UnavailableError
from sentibench.io import atomic_write_json, atomic_write_text
from sentibench.models.cards import ModelCard, get_card, read_card, user_cards_dir
from sentibench.models.methods import TrainRequest, check_preset, get_method
from sentibench.paths import cache_dir

DONE_FILE = "training_report.json"


def recipe_hash(recipe: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:12]


def train(method: str, base: str, data: str, preset: str, seed: int = 0, options: dict[str, Any] | None = None,
          out_dir: Path | None = None, name: str | None = None, device: str | None = None,
          write_card: bool = True) -> ModelCard | None:
    """Train, write the safetensors checkpoint and (unless the caller already has one) a card recording
    base, data, preset, seed and data hash."""
    chosen = get_method(method)
    check_preset(chosen, preset)
    get_card(base)  # fail early on an unknown base
    recipe = {"method": method, "base": base, "data": data, "preset": preset, "seed": seed,
              "options": dict(sorted((options or {}).items()))}
    name = name or f"{method}-{base}-{data}-{preset}-s{seed}" + (f"-{recipe_hash(recipe)[:6]}" if options else "")
    out_dir = Path(out_dir) if out_dir else cache_dir("checkpoints") / f"{name}-{recipe_hash(recipe)}"
    data_hash = get_dataset(data).content_hash
    tmp = out_dir.with_name(f".{out_dir.name}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"training {method} ({preset} preset) from {base} on {data} -> {out_dir}", file=sys.stderr)
    started = time.time()
    report = chosen.train(TrainRequest(method=method, base=base, data=data, preset=preset, seed=seed,
                                       out_dir=tmp, device=device, options=dict(options or {})))
    if not (tmp / "config.json").exists():
        raise BenchError(f"method '{method}' finished without writing a checkpoint to {tmp}")
    report = {**report, "recipe": recipe, "data_hash": data_hash, "train_seconds": round(time.time() - started, 1)}
    atomic_write_json(tmp / DONE_FILE, report)
    shutil.rmtree(out_dir, ignore_errors=True)
    tmp.rename(out_dir)
    base_card = get_card(base)
    card = {
        "name": name, "loader": "trained", "revision": f"{recipe_hash(recipe)}-data-{data_hash[:12]}",
        "description": f"{chosen.description} Trained by sentibench from {base} on {data} ({preset} preset, "
                       f"seed {seed}).",
        "recipe": recipe, "base": base, "checkpoint": str(out_dir),
        "training_data": sorted({data, *base_card.training_data}),
        "max_length": report.get("max_length"), "embedding_size": base_card.embedding_size,
        "parameters": base_card.parameters, "citation": chosen.reference,
        "notes": report.get("notes", ""),
    }
    card = {k: v for k, v in card.items() if v not in (None, "")}
    if not write_card:
        return None
    card_path = user_cards_dir() / f"{name}.yaml"
    atomic_write_text(card_path, yaml.safe_dump(card, sort_keys=False))
    print(f"wrote {card_path}", file=sys.stderr)
    return read_card(card_path)


def _require_base(card: ModelCard) -> None:
    """Fail in one line, before any training starts, when the recipe's base cannot be had here."""
    from sentibench.models.loaders import card_for, weights_folder

    recipe = card.recipe
    try:
        weights_folder(card_for(recipe["base"]))
    except UnavailableError as error:
        raise UnavailableError(
            f"model '{card.name}' must first be trained from '{recipe['base']}': {error} Instead run "
            f"`bench train {recipe['method']} --base all-minilm-l6-v2 --data {recipe['data']} --preset cpu` "
            f"or use a card trained offline (e.g. senticse-minilm).") from None


def ensure_trained(card: ModelCard) -> Path:
    """A trained card's checkpoint folder; trains it on first use (the method shows progress and ETA)."""
    if card.checkpoint and (Path(card.checkpoint) / DONE_FILE).exists():
        return Path(card.checkpoint)
    recipe = card.recipe
    folder = cache_dir("checkpoints") / f"{card.name}-{recipe_hash(recipe)}"
    if not (folder / DONE_FILE).exists():
        _require_base(card)
        print(f"model '{card.name}' has no checkpoint yet: training it now ({recipe['method']}, "
              f"{recipe['preset']} preset).", file=sys.stderr)
        train(recipe["method"], recipe["base"], recipe["data"], recipe["preset"], int(recipe.get("seed", 0)),
              options=recipe.get("options"), out_dir=folder, name=card.name, write_card=False)
    return folder
