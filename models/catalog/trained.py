"""`bench train` and trained cards on first use: run a registered method into a checkpoint folder plus a
model card. The method does the learning (through `training.loop`); this module does the bookkeeping:
where the checkpoint goes (atomically: a method's partial output never looks finished), the training
report beside it, and the card recording recipe, data hash and training data.

Safety: a card or command-line name is a file name, never a path; a user's `--output` folder is never
deleted or overwritten (it must be new or empty); only folders this module created are removed.

Stale checkpoints. A cache checkpoint folder is named by card name and recipe (`<name>-<recipe_hash>`), so
a change to a preset's content (or a card's revision) leaves the name unchanged. The training report
therefore records what the checkpoint was trained with (`TrainedWith`): the configuration the method
resolves the recipe to (`resolved_config`, from the `resolve_config(preset, options)` its entry module
defines; a method without one is not checked) and the card's revision (`card_revision`). A finished
checkpoint whose record differs from what the recipe resolves to now is stale: it is never reused, deleted
or overwritten; the model trains into `<name>-<recipe_hash>-<hash of the new record>` instead, with a
one-line message. Reports written before this record existed are read as follows: the configuration is
the method's own `config` entry (every built-in method has always written its resolved configuration
there); a key that record lacks is a field added to the method's configuration later, and counts as the
field's default (fields are added with the default that keeps the earlier behaviour); a revision that was
not recorded is not compared. So an old checkpoint of an unchanged configuration stays in use.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from sentibench.core.errors import BenchError, UnavailableError
from sentibench.core.io import atomic_folder, atomic_write_json, atomic_write_text
from sentibench.core.paths import cache_dir
from sentibench.core.provenance import git_commit, versions
from sentibench.models.catalog.card_schema import check_name
from sentibench.models.catalog.cards import ModelCard, packaged_cards, read_card, user_cards_dir
from sentibench.models.catalog.kinds import model_kind
from sentibench.models.catalog.loaders import load_encoder, load_trainable, sentence_transformer, weights_folder
from sentibench.models.catalog.lookup import card_for
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
        return load_encoder(prepare(self.card), device=device)

    def sentence_transformer(self, device: str | None = None, max_length: int | None = None):
        return sentence_transformer(self.card, max_length, device)


def _cache_folder(name: str, recipe: dict[str, Any]) -> Path:
    return cache_dir("checkpoints") / f"{name}-{recipe_hash(recipe)}"


def _as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


@dataclass(frozen=True)
class TrainedWith:
    """What a checkpoint is trained with beyond its recipe (see the module docstring): the resolved
    configuration (None: the method resolves none), its fields' defaults and the card's revision."""

    config: dict[str, Any] | None
    defaults: dict[str, Any]
    revision: str | None

    def record(self) -> dict[str, Any]:
        """The entries the training report keeps."""
        return {k: v for k, v in (("resolved_config", self.config), ("card_revision", self.revision))
                if v is not None}

    def key(self) -> str:
        return recipe_hash({"config": self.config, "revision": self.revision})

    def differences(self, folder: Path) -> list[str]:
        """How the training report of the finished checkpoint in `folder` differs from this, one entry each."""
        return self.differences_from(training_report(folder))

    def differences_from(self, report: Any) -> list[str]:
        """How a training report (or a record holding its `config`) differs from this, one entry each."""
        if not isinstance(report, dict):
            return ["an unreadable training report"]
        found = []
        recorded_revision = report.get("card_revision")
        if recorded_revision is not None and self.revision is not None and recorded_revision != self.revision:
            found.append(f"revision {json.dumps(recorded_revision)} (now {json.dumps(self.revision)})")
        recorded = report.get("resolved_config", report.get("config"))
        if self.config is None or not isinstance(recorded, dict):
            return found
        missing = object()
        for key in sorted(set(self.config) | set(recorded)):
            before = recorded.get(key, self.defaults.get(key, missing))
            now = self.config.get(key, missing)
            if before != now:
                found.append(f"{json.dumps(key)}={'(none)' if before is missing else json.dumps(before)} "
                             f"(now {'(none)' if now is missing else json.dumps(now)})")
        return found


def training_report(folder: Path) -> Any:
    """The parsed training report of the finished checkpoint in `folder`, or None when it is missing or does
    not parse (callers check its shape)."""
    try:
        return json.loads((Path(folder) / DONE_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def training_trace(folder: Path) -> dict[str, Any] | None:
    """How the checkpoint in `folder` was reached: the one trainer's `training` block (`loss_curve`,
    `history`, `best_step`, ...) from its report, or from the method's own log beside it (`<method>_log.json`,
    where SentiCSE and InfoDCL keep it), with `method` added; None when neither holds a curve."""
    report = training_report(folder)
    report = report if isinstance(report, dict) else {}
    blocks = [report.get("training")]
    for path in sorted(Path(folder).glob("*_log.json")):
        try:
            blocks.append(json.loads(path.read_text(encoding="utf-8")).get("training"))
        except (OSError, UnicodeDecodeError, ValueError, AttributeError):
            continue
    block = next((b for b in blocks if isinstance(b, dict) and (b.get("loss_curve") or b.get("history"))), None)
    if block is None:
        return None
    recipe = report.get("recipe") if isinstance(report.get("recipe"), dict) else {}
    return {**block, "method": report.get("method") or recipe.get("method")}


def trained_with(recipe: dict[str, Any], revision: str | None = None) -> TrainedWith:
    """What `recipe` trains with today: its method's `resolve_config(preset, options)` (when the method's
    entry module defines one) as JSON, with the configuration's field defaults, and the card's revision."""
    method = get_method(recipe["method"])
    check_preset(method, recipe["preset"])
    module = importlib.import_module(method.entry_point.partition(":")[0])
    resolve = getattr(module, "resolve_config", None)
    if resolve is None:
        return TrainedWith(None, {}, revision)
    config = resolve(recipe["preset"], dict(recipe.get("options") or {}))
    defaults = {field.name: field.default if field.default is not dataclasses.MISSING else field.default_factory()
                for field in dataclasses.fields(config)
                if field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING}
    return TrainedWith(_as_json(dataclasses.asdict(config)), _as_json(defaults), revision)


def _checkpoint_folder(name: str, recipe: dict[str, Any], wanted: TrainedWith) -> tuple[Path, str | None]:
    """The cache folder for `name` and `recipe`: `<name>-<recipe_hash>` unless that holds a finished checkpoint
    trained with something else (stale: kept as it is), then `<name>-<recipe_hash>-<key of what it trains
    with>`; and, in that case, one line saying why."""
    return current_checkpoint(_cache_folder(name, recipe), wanted, name)


def current_checkpoint(folder: Path, wanted: TrainedWith, name: str) -> tuple[Path, str | None]:
    """`folder`, unless it holds a finished checkpoint trained with something other than `wanted` (stale: kept
    as it is), then `<folder>-<key of what it trains with>`; and, in that case, one line saying why."""
    if not (folder / DONE_FILE).exists():
        return folder, None
    differences = wanted.differences(folder)
    if not differences:
        return folder, None
    current = folder.with_name(f"{folder.name}-{wanted.key()}")
    if (current / DONE_FILE).exists() and wanted.differences(current):
        raise BenchError(f"checkpoint {current} was not trained with what its name says; move it away and "
                         "run again to retrain it")
    return current, (f"model '{name}': the checkpoint in {folder} was trained with {'; '.join(differences[:4])}"
                     f"{' ...' if len(differences) > 4 else ''}: not reused; training into {current}")


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
          write_card: bool = True, smoke_steps: int | None = None, revision: str | None = None) -> ModelCard | None:
    """Train; write the checkpoint, its training report and (unless `write_card` is False) a card.
    `smoke_steps` caps every training loop of the method (a smoke test of the pipeline, not a model);
    `revision` is the card revision the checkpoint is trained for (recorded in the report)."""
    from sentibench.data import get_dataset
    from sentibench.training.loop import step_budget  # torch: imported when something trains

    chosen = get_method(method)
    check_preset(chosen, preset)
    base_card = card_for(base)  # a card name, a local folder or a hub id; fails early when unknown
    recipe = _full_recipe(method, base, data, preset, seed, options, smoke_steps)
    name = check_name(name or f"{method}-{base_card.name}-{data}-{preset}-s{seed}"
                      + (f"-{recipe_hash(recipe)[:6]}" if options else ""))
    if write_card:
        _check_free(name, recipe)
    wanted = trained_with(recipe, revision)  # bad options fail here, before any data work
    user_folder = out_dir is not None
    if user_folder:
        _check_output(out_dir)
    else:
        out_dir, stale = _checkpoint_folder(name, recipe, wanted)
        if stale:
            print(stale, file=sys.stderr)
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
        report = {**report, "recipe": recipe, **wanted.record(), "data_hash": data_hash,
                  "train_seconds": round(time.time() - started, 1), "versions": versions(),
                  "git_commit": git_commit()}
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


def _check_free(name: str, recipe: dict[str, Any]) -> None:
    """A one-line error when a packaged card takes `name` (the card written would be shadowed by it, its model
    out of reach), unless that card is this very recipe (`bench train ... --name` training it ahead of time)."""
    packaged = packaged_cards().get(name)
    if packaged is None or (packaged.recipe and recipe_hash(_full_recipe(
            packaged.recipe["method"], packaged.recipe["base"], packaged.recipe["data"], packaged.recipe["preset"],
            packaged.recipe.get("seed", 0), packaged.recipe.get("options"), None)) == recipe_hash(recipe)):
        return
    raise BenchError(f"a packaged model card is named '{name}', and a trained card of that name could never be "
                     "reached (the packaged one is found first): choose another --name (nothing was trained)")


def _require_base(card: ModelCard) -> None:
    """Fail in one line, before any training starts, when the recipe's base cannot be had here."""
    recipe = card.recipe
    try:
        weights_folder(card_for(recipe["base"]))
    except UnavailableError as error:
        raise UnavailableError(f"model '{card.name}' must first be trained from '{recipe['base']}': {error} Or "
                               + offline_alternative(recipe["method"], recipe["data"])) from None


def checkpoint_of(card: ModelCard) -> Path:
    """The checkpoint folder a trained card uses, finished or not (nothing is trained here)."""
    if card.checkpoint and ((Path(card.checkpoint) / DONE_FILE).exists() or not card.recipe):
        return Path(card.checkpoint)  # trained here, or a user's own checkpoint folder
    recipe = card.recipe
    full = _full_recipe(recipe["method"], recipe["base"], recipe["data"], recipe["preset"], recipe.get("seed", 0),
                        recipe.get("options"), recipe.get("smoke_steps"))
    return _checkpoint_folder(check_name(card.name), full, trained_with(full, card.revision))[0]


def ensure_trained(card: ModelCard) -> Path:
    """A trained card's checkpoint folder; trains it on first use (the method shows progress and ETA)."""
    folder = checkpoint_of(card)
    if card.recipe and not (folder / DONE_FILE).exists():
        recipe = card.recipe
        smoke_steps = recipe.get("smoke_steps")
        _require_base(card)
        budget = f", smoke training: at most {smoke_steps} step(s) per loop" if smoke_steps else ""
        options = "".join(f" --option {key}={value}" for key, value in sorted((recipe.get("options") or {}).items()))
        print(f"model '{card.name}' has no checkpoint yet: training it now, before anything else runs "
              f"({recipe['method']}, {recipe['preset']} preset, from {recipe['base']} on {recipe['data']}{budget}); "
              "this takes minutes on a CPU (Ctrl-C stops it; `bench train "
              f"{recipe['method']} --base {recipe['base']} --data {recipe['data']} --preset {recipe['preset']} --name "
              f"{card.name}{options}` trains it ahead of time).", file=sys.stderr, flush=True)
        train(recipe["method"], recipe["base"], recipe["data"], recipe["preset"], int(recipe.get("seed", 0)),
              options=recipe.get("options"), name=card.name, write_card=False, smoke_steps=smoke_steps,
              revision=card.revision)
    return folder


def smoke_trained(card: ModelCard, steps: int) -> ModelCard:
    """A trained card's smoke-training twin: the same recipe with every training loop capped at `steps`,
    trained into its own checkpoint and filed under its own revision (`<revision>-smoke<steps>`); its
    results are smoke runs (never on the leaderboard, never submitted). Any other card is returned as is."""
    if not model_kind(card.loader).from_recipe or not card.recipe:
        return card
    return dataclasses.replace(card, revision=f"{card.revision}-smoke{steps}", checkpoint=None,
                               recipe={**card.recipe, "smoke_steps": steps})


def prepare(card: ModelCard) -> ModelCard:
    """The card with its weights in place: a trained card gets its checkpoint (training it on first use),
    so loaders never call back into training."""
    if not model_kind(card.loader).from_recipe:
        return card
    return dataclasses.replace(card, checkpoint=str(ensure_trained(card)))
