"""`bench train` and trained cards on first use: run a registered method into a checkpoint folder plus a
model card. The method does the learning (through `training.loop`); this module does the bookkeeping:
where the checkpoint goes (atomically: a method's partial output never looks finished), the training
report beside it, and the card recording recipe, data hash and training data.

Safety: a card or command-line name is a file name, never a path; a user's `--output` folder is never
deleted or overwritten (it must be new or empty); only folders this module created are removed.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from sentibench.core.errors import BenchError, UnavailableError
from sentibench.core.io import atomic_folder, atomic_write_json, atomic_write_text
from sentibench.core.paths import cache_dir
from sentibench.models.card_schema import check_name
from sentibench.models.cards import ModelCard, read_card, user_cards_dir
from sentibench.models.loaders import card_for, load_encoder, load_trainable, sentence_transformer, weights_folder
from sentibench.training.checkpoint import checkpoint_kind
from sentibench.training.methods import (
    TrainRequest,
    check_preset,
    get_method,
    make_recipe,
    offline_alternative,
    recipe_hash,
)

DONE_FILE = "training_report.json"


@dataclass(frozen=True)
class CardBase:
    """A method's starting model (`training.methods.BaseModel`) backed by a model card: every method loads its
    base through here."""

    name: str          # as the user named it
    card: ModelCard

    def trainable(self, device: str | None = None):
        return load_trainable(self.card, device=device)

    def frozen(self, device: str | None = None):
        return load_encoder(ready(self.card), device=device)

    def sentence_transformer(self, device: str | None = None, max_length: int | None = None):
        return sentence_transformer(self.card, max_length, device)


def _cache_folder(name: str, recipe: dict[str, Any]) -> Path:
    return cache_dir("checkpoints") / f"{name}-{recipe_hash(recipe)}"


def _check_output(out_dir: Path) -> None:
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise BenchError(f"--output {out_dir} already exists and is not an empty folder; sentibench never "
                         "overwrites a folder it did not create: choose a new path")


def _full_recipe(method: str, base: str, data: str, preset: str, seed: int, options: dict[str, Any] | None,
                 smoke_steps: int | None) -> dict[str, Any]:
    """The recipe, with the smoke-training budget when there is one (its own checkpoint and revision)."""
    recipe = make_recipe(method, base, data, preset, seed, options)
    return {**recipe, "smoke_steps": smoke_steps} if smoke_steps else recipe


def train(method: str, base: str, data: str, preset: str, seed: int = 0, options: dict[str, Any] | None = None,
          out_dir: Path | None = None, name: str | None = None, device: str | None = None,
          write_card: bool = True, smoke_steps: int | None = None) -> ModelCard | None:
    """Train; write the checkpoint, its training report and (unless `write_card` is False) a card.
    `smoke_steps` caps every training loop of the method (a smoke test of the pipeline, not a model)."""
    from sentibench.data import get_dataset
    from sentibench.training.loop import step_budget  # torch: imported when something trains

    chosen = get_method(method)
    check_preset(chosen, preset)
    base_card = card_for(base)  # a card name, a local folder or a hub id; fails early when unknown
    recipe = _full_recipe(method, base, data, preset, seed, options, smoke_steps)
    name = check_name(name or f"{method}-{base_card.name}-{data}-{preset}-s{seed}"
                      + (f"-{recipe_hash(recipe)[:6]}" if options else ""))
    user_folder = out_dir is not None
    out_dir = Path(out_dir) if user_folder else _cache_folder(name, recipe)
    if user_folder:
        _check_output(out_dir)
    data_hash = get_dataset(data).content_hash
    if user_folder and out_dir.exists():
        out_dir.rmdir()  # empty (checked above); recreated atomically below
    # our own cache folder may hold an earlier, unfinished run of the same recipe: replaced
    with atomic_folder(out_dir, replace=not user_folder) as tmp:
        print(f"training {method} ({preset} preset) from {base} on {data} -> {out_dir}", file=sys.stderr)
        started = time.time()
        with step_budget(smoke_steps):
            report = chosen.train(TrainRequest(method=method, base=CardBase(base, base_card), data=data,
                                               preset=preset, seed=seed, out_dir=tmp, device=device,
                                               options=dict(options or {})))
        if checkpoint_kind(tmp) is None:
            raise BenchError(f"method '{method}' finished without writing a checkpoint")
        report = {**report, "recipe": recipe, "data_hash": data_hash,
                  "train_seconds": round(time.time() - started, 1)}
        atomic_write_json(tmp / DONE_FILE, report)
    if not write_card:
        return None
    card = {
        "name": name, "loader": "trained", "revision": f"{recipe_hash(recipe)}-data-{data_hash[:12]}",
        "description": f"{chosen.description} Trained by sentibench from {base} on {data} ({preset} preset, "
                       f"seed {seed}).",
        "recipe": recipe, "base": base, "checkpoint": str(out_dir.resolve()),
        "training_data": sorted({data, *report.get("training_data", []), *base_card.training_data}),
        "max_length": report.get("max_length"), "embedding_size": report.get("embedding_size")
        or base_card.embedding_size, "parameters": report.get("parameters") or base_card.parameters,
        "citation": chosen.reference, "notes": report.get("notes", ""),
    }
    card = {k: v for k, v in card.items() if v not in (None, "")}
    card_path = user_cards_dir() / f"{name}.yaml"
    atomic_write_text(card_path, yaml.safe_dump(card, sort_keys=False))
    print(f"wrote {card_path}", file=sys.stderr)
    return read_card(card_path)


def _require_base(card: ModelCard) -> None:
    """Fail in one line, before any training starts, when the recipe's base cannot be had here."""
    recipe = card.recipe
    try:
        weights_folder(card_for(recipe["base"]))
    except UnavailableError as error:
        raise UnavailableError(f"model '{card.name}' must first be trained from '{recipe['base']}': {error} Or "
                               + offline_alternative(recipe["method"], recipe["data"])) from None


def ensure_trained(card: ModelCard) -> Path:
    """A trained card's checkpoint folder; trains it on first use (the method shows progress and ETA)."""
    if card.checkpoint and ((Path(card.checkpoint) / DONE_FILE).exists() or not card.recipe):
        return Path(card.checkpoint)  # trained here, or a user's own checkpoint folder
    recipe = card.recipe
    smoke_steps = recipe.get("smoke_steps")
    folder = _cache_folder(check_name(card.name), _full_recipe(
        recipe["method"], recipe["base"], recipe["data"], recipe["preset"], recipe.get("seed", 0),
        recipe.get("options"), smoke_steps))
    if not (folder / DONE_FILE).exists():
        _require_base(card)
        budget = f", smoke training: at most {smoke_steps} step(s) per loop" if smoke_steps else ""
        print(f"model '{card.name}' has no checkpoint yet: training it now ({recipe['method']}, "
              f"{recipe['preset']} preset{budget}).", file=sys.stderr)
        train(recipe["method"], recipe["base"], recipe["data"], recipe["preset"], int(recipe.get("seed", 0)),
              options=recipe.get("options"), name=card.name, write_card=False, smoke_steps=smoke_steps)
    return folder


def smoke_trained(card: ModelCard, steps: int) -> ModelCard:
    """A trained card's smoke-training twin: the same recipe with every training loop capped at `steps`,
    trained into its own checkpoint and filed under its own revision (`<revision>-smoke<steps>`); its
    results are smoke runs (never on the leaderboard, never submitted). Any other card is returned as is."""
    if card.loader != "trained" or not card.recipe:
        return card
    return dataclasses.replace(card, revision=f"{card.revision}-smoke{steps}", checkpoint=None,
                               recipe={**card.recipe, "smoke_steps": steps})


def ready(card: ModelCard) -> ModelCard:
    """The card with its weights in place: a trained card gets its checkpoint (training it on first use),
    so loaders never call back into training."""
    if card.loader != "trained":
        return card
    return dataclasses.replace(card, checkpoint=str(ensure_trained(card)))
