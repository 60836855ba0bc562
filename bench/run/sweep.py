"""A method's grid of configurations, trained and scored one configuration at a time, resumably.

A method declares its grid as data (`Configuration`s: what to train, which task scores it) through its own
command (`training.methods.Command`); this module does the rest for every method alike: train the recipe
through `bench train`'s bookkeeping (checkpoint in the cache, `models.trained`), score the configuration's
task with the runner's own `evaluate_one` (reference model R = the trained model's base) and write
`<output>/<folder>/configuration.json` beside the task's result JSON and unit values. A configuration whose
record exists is skipped, so an interrupted sweep resumes where it stopped; configurations share nothing
but the embedding and example caches, so they may run in any order.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.core.io import atomic_write_json, read_json
from sentibench.core.paths import cache_dir
from sentibench.models import card_for, load_encoder
from sentibench.models.catalog.cards import ModelCard
from sentibench.models.catalog.trained import DONE_FILE, current_checkpoint, train, trained_with
from sentibench.results.folder import ResultsFolder
from sentibench.results.schema import TaskResult
from sentibench.run.runner import EncoderPool, evaluate_one, with_reference
from sentibench.tasks.base import EvalContext
from sentibench.tasks.registry import resolve
from sentibench.training.methods import SWEEP_RECORD, Configuration, make_recipe, recipe_hash


def _trained_card(configuration: Configuration, device: str | None) -> tuple[ModelCard, dict[str, Any]]:
    """The configuration's model card (the base itself when nothing is trained), trained into the cache
    when needed, and its training report."""
    base = card_for(configuration.base)
    if configuration.method is None:
        return base, {}
    recipe = make_recipe(configuration.method, configuration.base, configuration.data, configuration.preset,
                         configuration.seed, configuration.options)
    checkpoint, stale = current_checkpoint(cache_dir("sweeps") / f"{configuration.method}-{recipe_hash(recipe)}",
                                           trained_with(recipe), configuration.folder)
    if stale:
        print(stale, file=sys.stderr)
    if not (checkpoint / DONE_FILE).exists():
        train(configuration.method, configuration.base, configuration.data, configuration.preset,
              configuration.seed, options=configuration.options, out_dir=checkpoint, device=device,
              write_card=False)
    report = read_json(checkpoint / DONE_FILE, "training record")
    name = (f"{configuration.method}-{base.name}-{configuration.folder.rsplit('/', 1)[-1]}-"
            f"{recipe_hash(recipe)[:6]}")
    card = dataclasses.replace(
        base, name=name, loader="trained", revision=f"{recipe_hash(recipe)}-data-{report['data_hash'][:12]}",
        checkpoint=str(checkpoint), base=base.name, recipe=recipe, package="", registry=[], hub_id=None,
        training_data=sorted({configuration.data, *base.training_data}), max_length=report.get("max_length"))
    return card, report


def _score(configuration: Configuration, card: ModelCard, folder: Path, device: str | None) -> TaskResult:
    """The configuration's task on `card` (R = its base), written into `folder` as the runner writes results."""
    (task,) = resolve([configuration.task])
    task = dataclasses.replace(task, **configuration.task_options)
    encoder = load_encoder(card, device=device)
    context = EvalContext(seed=configuration.seed, batch_size=64, model_name=card.name,
                          reference_model=card.reference_model)
    context = with_reference(context, task, card, EncoderPool({card.name: encoder}, device, True))
    result, unit_values = evaluate_one(card, encoder, task, context)
    ResultsFolder(folder).save(folder / f"{task.name}.json", result, unit_values)
    return result


def _finished(configuration: Configuration, folder: Path) -> bool:
    """Whether `folder` holds this configuration's readable record, trained with what its recipe resolves to
    now (a record that cannot be read, or from an earlier content of its preset, is run again and replaced)."""
    if not (folder / SWEEP_RECORD).exists():
        return False
    try:
        record = read_json(folder / SWEEP_RECORD, "sweep record")
    except (OSError, UnicodeDecodeError, ValueError, BenchError):
        return False  # unreadable: run again, and replace it
    if not isinstance(record, dict):
        return False
    if configuration.method is None:
        return True
    recipe = make_recipe(configuration.method, configuration.base, configuration.data, configuration.preset,
                         configuration.seed, configuration.options)
    return not trained_with(recipe).differences_from({"config": record.get("config")})


def run_configuration(configuration: Configuration, output: Path, device: str | None = None) -> dict[str, Any]:
    """Train (unless `method` is None) and score one configuration; its record. Skipped when finished."""
    folder = Path(output) / configuration.folder
    if _finished(configuration, folder):
        return read_json(folder / SWEEP_RECORD, "sweep record")
    started = time.perf_counter()
    card, report = _trained_card(configuration, device)
    result = _score(configuration, card, folder, device)
    record = {"configuration": asdict(configuration), "folder": configuration.folder, "model": card.name,
              "recipe": card.recipe or None, "training": report.get("training"),
              "examples": report.get("examples"), "config": report.get("config"),
              "scores": result.scores["test"][0].to_json(), "git_commit": result.provenance.git_commit,
              "seconds": round(time.perf_counter() - started, 1)}
    atomic_write_json(folder / SWEEP_RECORD, record)
    return record


def run_sweep(configurations: list[Configuration], output: Path, device: str | None = None) -> list[dict[str, Any]]:
    """Every configuration in turn (finished ones skipped); their records."""
    records = []
    for number, configuration in enumerate(configurations, 1):
        done = _finished(configuration, Path(output) / configuration.folder)
        print(f"[{number}/{len(configurations)}] {configuration.folder}: {'already done' if done else 'running'}",
              file=sys.stderr)
        records.append(run_configuration(configuration, output, device))
    return records
