"""Trainable methods (SentiCSE, ...): each registers a `Method`; `bench train` and trained cards call it."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from sentibench.errors import BenchError, unknown_name
from sentibench.models.cards import ModelCard


@dataclass(frozen=True)
class TrainRequest:
    method: str
    base: str               # the starting model as the user named it (card name, folder or hub id)
    base_card: ModelCard    # ... resolved once, by the caller
    data: str               # dataset name
    preset: str
    seed: int
    out_dir: Path           # the method writes its checkpoint here (see `sentibench.training.checkpoint`)
    device: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # method-specific, e.g. {"ablation": "no-word"}


@dataclass(frozen=True)
class Method:
    name: str
    presets: tuple[str, ...]
    train: Callable[[TrainRequest], dict[str, Any]]  # returns a JSON-able training report
    description: str
    reference: str


_METHODS: dict[str, Method] = {}


def register_method(method: Method) -> Method:
    _METHODS[method.name] = method
    return method


@cache
def _discover() -> None:
    """Import every method subpackage of `sentibench.models`; each registers itself."""
    import sentibench.models as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.ispkg and info.name != "cards":
            importlib.import_module(f"sentibench.models.{info.name}")


def methods() -> dict[str, Method]:
    _discover()
    return dict(sorted(_METHODS.items()))


def get_method(name: str) -> Method:
    known = methods()
    if name not in known:
        raise unknown_name("method", name, known)
    return known[name]


def check_preset(method: Method, preset: str) -> None:
    if preset not in method.presets:
        raise BenchError(f"method '{method.name}' has no preset '{preset}'; choose {', '.join(method.presets)}")


def offline_alternative(method: str, data: str) -> str:
    """The one piece of advice when a recipe's base cannot be had here (hub-only, offline)."""
    return (f"train the same recipe from a base that ships in a registry package instead: "
            f"`bench train {method} --base all-minilm-l6-v2 --data {data} --preset cpu`.")
