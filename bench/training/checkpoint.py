"""What a trained checkpoint folder is, and how it loads back as an `Encoder`.

Three kinds, told apart by the files in the folder:
- a transformers folder (`config.json` + safetensors, `TransformerEncoder.save`), with sentibench's
  pooling record;
- a sentence-transformers folder (`modules.json`);
- a sentibench module checkpoint (`sentibench_encoder.json` + `model.safetensors`): any encoder that is not a
  transformer (SIFTER-LSTM, for one). The JSON names a registered encoder *kind* and holds its
  constructor config; the kind's loader rebuilds the module from that config and the safetensors weights.
  Nothing is unpickled and no code named by the file is imported: the kind must be one a package registered
  with `register_encoder_kind` (`ENCODER_KINDS`; packages are found through the `sentibench.encoders` entry
  points).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.core.io import read_json
from sentibench.core.registry import Registry

MODULE_CONFIG = "sentibench_encoder.json"
MODULE_WEIGHTS = "model.safetensors"

ModuleLoader = Callable[[Path, dict[str, Any], str | None], Any]  # (folder, config, device) -> Encoder
ENCODER_KINDS: Registry[ModuleLoader | str] = Registry("encoder kind", group="sentibench.encoders")


def register_encoder_kind(kind: str, loader: ModuleLoader | str) -> None:
    """Declare how a module checkpoint of `kind` loads (a method package calls this at import). The loader may
    be named as "module:function", imported only when such a checkpoint is loaded."""
    ENCODER_KINDS.register(kind, loader)


def checkpoint_kind(folder: Path) -> str | None:
    """"module", "sentence-transformers", "transformers", or None when the folder holds no checkpoint."""
    folder = Path(folder)
    if (folder / MODULE_CONFIG).is_file():
        return "module"
    if (folder / "modules.json").is_file():
        return "sentence-transformers"
    if (folder / "config.json").is_file():
        return "transformers"
    return None


def save_module_checkpoint(folder: Path, kind: str, config: dict[str, Any], state: dict[str, Any],
                           extra_files: dict[str, str] | None = None) -> None:
    """Write a module checkpoint: safetensors weights plus a JSON config naming its `kind`."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    save_file({k: v.detach().contiguous().cpu() for k, v in state.items()}, str(folder / MODULE_WEIGHTS))
    for name, text in (extra_files or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / MODULE_CONFIG).write_text(json.dumps({"kind": kind, "config": config}, indent=2, sort_keys=True))


def read_module_checkpoint(folder: Path) -> tuple[str, dict[str, Any]]:
    try:
        record = read_json(Path(folder) / MODULE_CONFIG, "checkpoint record")
        return str(record["kind"]), dict(record["config"])
    except (OSError, ValueError, KeyError, TypeError, BenchError) as error:
        raise BenchError(f"checkpoint {folder}: {MODULE_CONFIG} is not a valid record ({error})") from None


def load_state(folder: Path, device: str | None = None) -> dict[str, Any]:
    """A module checkpoint's tensors, from safetensors only."""
    from safetensors.torch import load_file

    path = Path(folder) / MODULE_WEIGHTS
    if not path.is_file():
        raise BenchError(f"checkpoint {folder}: no {MODULE_WEIGHTS} (module checkpoints are safetensors only)")
    return load_file(str(path), device=device or "cpu")


def load_module_checkpoint(folder: Path, device: str | None = None):
    """The encoder a module checkpoint describes, through its registered kind."""
    kind, config = read_module_checkpoint(folder)
    if kind not in ENCODER_KINDS:
        raise BenchError(f"checkpoint {folder}: unknown encoder kind '{kind}'; known: "
                         f"{', '.join(ENCODER_KINDS.names())}")
    loader = ENCODER_KINDS.get(kind)
    if isinstance(loader, str):
        from sentibench.training.methods import load_entry_point

        loader = load_entry_point(loader)
    return loader(Path(folder), config, device)
