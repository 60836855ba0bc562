"""Trainable methods (SentiCSE, ...): each registers a `Method`; `bench train` and trained cards call it."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from sentibench.core.errors import BenchError, unknown_name
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


def load_entry_point(entry_point: str) -> Any:
    """The object a "package.module:attribute" string names (a registered, in-package name, never user input)."""
    module, _, attribute = entry_point.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Method:
    """A trainable method. Its training code is named by `entry_point` ("module:function", taking a
    `TrainRequest` and returning a JSON-able training report) and imported only when the method trains, so
    that listing or resolving methods never imports torch. `presets` must equal the entry module's
    `PRESETS` keys (a test holds every registered method to it)."""

    name: str
    presets: tuple[str, ...]
    entry_point: str
    description: str
    reference: str

    def train(self, request: TrainRequest) -> dict[str, Any]:
        return load_entry_point(self.entry_point)(request)


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
