"""What a model folder must be before sentibench loads it: data, never code.

- safetensors only: a folder whose weights are only pickles (`pytorch_model.bin`, `*.pt`, `*.ckpt`, `*.pkl`)
  is refused, with the one command that converts it (run it where you trust the file);
- no custom code: a `config.json` with `auto_map` (classes shipped as Python files) and a
  sentence-transformers `modules.json` naming a module outside `sentence_transformers` are refused
  (sentence-transformers imports the class a module's `type` names), as is a module folder outside the
  model folder;
- confined paths: a submitted card's weights must lie inside the submission or a sentibench cache
  (`confined`), symlinks resolved first.
"""

from __future__ import annotations

import json
from pathlib import Path

from sentibench.core.errors import BenchError
from sentibench.core.io import read_json

PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
CONVERT_HINT = ("convert them once, where you trust them: python -c \"import sys; from transformers import AutoModel, "
                "AutoTokenizer; m = sys.argv[1]; AutoModel.from_pretrained(m).save_pretrained(sys.argv[2], "
                "safe_serialization=True); AutoTokenizer.from_pretrained(m).save_pretrained(sys.argv[2])\" IN OUT")


def weights_folder_problems(folder: Path) -> list[str]:
    """Every reason `folder` may not be loaded, one line each (empty when it is safe). A config that does
    not parse is left to the loader, which names it."""
    folder = Path(folder)
    problems = []
    files = [p for p in folder.rglob("*") if p.is_file()]
    if not any(p.suffix == ".safetensors" for p in files) and any(p.suffix in PICKLE_SUFFIXES for p in files):
        problems.append(f"{folder} holds pickle weights only, which sentibench never loads (no .safetensors); "
                        + CONVERT_HINT)
    for config in folder.rglob("config.json"):
        if isinstance(_json(config), dict) and "auto_map" in _json(config):
            problems.append(f"{config} maps classes to custom code (auto_map); sentibench never runs a "
                            "model's own code")
    modules_file = folder / "modules.json"
    if modules_file.is_file():
        problems += _modules_problems(folder, modules_file)
    return problems


def _modules_problems(folder: Path, modules_file: Path) -> list[str]:
    """A sentence-transformers `modules.json`: a list of {type, path}, each module a sentence_transformers
    class (the library imports the class `type` names) in a folder inside the model folder."""
    modules = _json(modules_file)
    try:
        entries = [(str(module["type"]), str(module["path"])) for module in modules]
    except (KeyError, TypeError):
        return [f"{modules_file} is not a list of {{type, path}} modules"]
    root = folder.resolve()
    problems = [f"modules.json points outside the model folder ({path!r})" for _, path in entries
                if not (root / path).resolve().is_relative_to(root)]
    foreign = sorted({kind for kind, _ in entries if not kind.startswith("sentence_transformers.")})
    if foreign:
        problems.append(f"{modules_file} names modules outside sentence_transformers {foreign}; sentibench never "
                        "imports a model's own classes")
    return problems


def check_weights_folder(folder: Path, name: str) -> None:
    """Raise the first reason `folder` may not be loaded as model `name`, in one line."""
    problems = weights_folder_problems(folder)
    if problems:
        raise BenchError(f"model '{name}': {problems[0]}")


def confined(path: Path, roots: list[Path], what: str) -> Path:
    """`path` with symlinks resolved, if it lies inside one of `roots`; else a one-line error."""
    resolved = Path(path).resolve()
    if not any(resolved.is_relative_to(Path(root).resolve()) for root in roots):
        raise BenchError(f"{what} '{path}' lies outside {', '.join(str(r) for r in roots)}; weights must be "
                         "inside the submission or a sentibench cache")
    return resolved


def _json(path: Path) -> object:
    """The parsed file, or None when it does not parse."""
    try:
        return read_json(path, "model file")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, BenchError):
        return None
