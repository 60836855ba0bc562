"""The paper's loss x margin x model grid (Tables 5 and 6) as a list of independent units.

`units(...)` lists the configurations; `run_unit(unit, output)` trains one (through `bench train`'s
bookkeeping, checkpoint in the cache), scores it with the retrieval task (reference model R = its base)
and writes `<output>/<unit.folder>/unit.json` plus the task's result JSON. A unit whose `unit.json` exists
is skipped, so an interrupted sweep resumes where it stopped; units share nothing but the embedding and
example caches, so an executor may run them in any order or in parallel. Besides the losses, each (base,
data) pair has a `reference` unit (the untouched base: the tables' first row) and, when asked for, a
`setfit` unit (the baseline method).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sentibench.core.errors import BenchError
from sentibench.core.io import atomic_write_json
from sentibench.models.polarity.losses import LOSSES, loss_spec
from sentibench.models.trained import DONE_FILE, make_recipe, recipe_hash

UNIT_FILE = "unit.json"
BASELINES = ("reference", "setfit")


@dataclass(frozen=True)
class Unit:
    """One configuration: a loss (or `reference` / `setfit`) with a margin, on a base model and dataset."""

    base: str
    data: str
    loss: str
    margin: float | None = None
    preset: str = "cpu"
    seed: int = 0
    options: dict[str, str] = field(default_factory=dict)   # further method options, the same for every unit

    @property
    def method(self) -> str | None:
        return {"reference": None, "setfit": "setfit"}.get(self.loss, "polarity-st")

    @property
    def recipe_options(self) -> dict[str, str]:
        if self.method != "polarity-st":
            return dict(self.options)
        extra = {"margin": f"{self.margin:g}"} if self.margin is not None else {}
        return {**self.options, "loss": self.loss, **extra}

    @property
    def folder(self) -> str:
        """`<base>-<data>-<preset>-s<seed>[-<options hash>]/<loss>[-m<margin>]`."""
        group = f"{self.base}-{self.data}-{self.preset}-s{self.seed}"
        if self.options:
            group += "-" + recipe_hash(dict(self.options))[:6]
        return f"{group}/{self.loss}" + (f"-m{self.margin:g}" if self.margin is not None else "")


def parse_margins(text: str) -> list[float] | str:
    """`paper` (Table 2 per loss), `default` (the library's), or a comma-separated list of numbers."""
    if text in ("paper", "default"):
        return text
    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise BenchError(f"--margins expects 'paper', 'default' or numbers like 0.1,0.5; got '{text}'") from None


def units(bases: list[str], datasets: list[str], losses: list[str], margins: list[float] | str = "paper",
          preset: str = "cpu", seed: int = 0, options: dict[str, str] | None = None) -> list[Unit]:
    """Every configuration of the grid in a stable order that makes a partial sweep informative: per base
    and dataset the reference, then each loss at its default margin (and SetFit), then the other margins."""
    for name in losses:
        if name not in BASELINES:
            loss_spec(name)
    out = []
    for base in bases:
        for data in datasets:
            common = {"base": base, "data": data, "preset": preset, "seed": seed, "options": dict(options or {})}
            first, rest = [Unit(loss="reference", **common)], []
            for name in losses:
                if name in BASELINES:
                    first += [] if name == "reference" else [Unit(loss=name, **common)]
                    continue
                spec = LOSSES[name]
                chosen = (spec.paper_margins if margins == "paper" else (None,) if margins == "default"
                          else tuple(margins)) if spec.default_margin is not None else (None,)
                default = spec.default_margin if spec.default_margin in chosen else chosen[0]
                first.append(Unit(loss=name, margin=default, **common))
                rest += [Unit(loss=name, margin=margin, **common) for margin in chosen if margin != default]
            out += first + rest
    return out


def run_unit(unit: Unit, output: Path, device: str | None = None) -> dict:
    """Train (unless `reference`) and score one unit; its record. Skipped when already finished."""
    folder = Path(output) / unit.folder
    if (folder / UNIT_FILE).exists():
        return json.loads((folder / UNIT_FILE).read_text())
    started = time.perf_counter()
    card, report = _trained_card(unit, device)
    result = _retrieval(unit, card, folder, device)
    record = {"unit": asdict(unit), "folder": unit.folder, "model": card.name, "recipe": card.recipe or None,
              "training": report.get("training"), "examples": report.get("examples"),
              "config": report.get("config"), "scores": result["scores"]["test"][0],
              "git_commit": result["sentibench"]["git_commit"], "seconds": round(time.perf_counter() - started, 1)}
    atomic_write_json(folder / UNIT_FILE, record)
    return record


def _trained_card(unit: Unit, device: str | None):
    """The unit's model card (the base itself for `reference`), trained into the cache when needed."""
    import dataclasses

    from sentibench.core.paths import cache_dir
    from sentibench.models.loaders import card_for
    from sentibench.models.trained import train

    base = card_for(unit.base)
    if unit.method is None:
        return base, {}
    recipe = make_recipe(unit.method, unit.base, unit.data, unit.preset, unit.seed, unit.recipe_options)
    checkpoint = cache_dir("sweeps") / f"{unit.method}-{recipe_hash(recipe)}"
    if not (checkpoint / DONE_FILE).exists():
        train(unit.method, unit.base, unit.data, unit.preset, unit.seed, options=unit.recipe_options,
              out_dir=checkpoint, device=device, write_card=False)
    report = json.loads((checkpoint / DONE_FILE).read_text())
    name = f"{unit.method}-{base.name}-{unit.folder.rsplit('/', 1)[-1]}-{recipe_hash(recipe)[:6]}"
    card = dataclasses.replace(
        base, name=name, loader="trained", revision=f"{recipe_hash(recipe)}-data-{report['data_hash'][:12]}",
        checkpoint=str(checkpoint), base=base.name, recipe=recipe, package="", registry=[], hub_id=None,
        training_data=sorted({unit.data, *base.training_data}), max_length=report.get("max_length"))
    return card, report


def _retrieval(unit: Unit, card, folder: Path, device: str | None) -> dict:
    """The retrieval task of the unit's dataset on `card` (R = its base), written beside `unit.json`."""
    import dataclasses

    from sentibench.evaluation.uncertainty import units_path
    from sentibench.models.loaders import load_encoder
    from sentibench.results.task_result import write_result
    from sentibench.run.runner import EncoderPool, evaluate_one
    from sentibench.tasks.base import EvalContext
    from sentibench.tasks.registry import resolve

    (task,) = resolve([f"retrieval-{unit.data}"])
    task = dataclasses.replace(task, weights=unit.options.get("weights", task.weights))
    encoder = load_encoder(card, device=device)
    context = EvalContext(seed=unit.seed, batch_size=64, model_name=card.name, reference_model=card.reference_model,
                          load_encoder=EncoderPool({card.name: encoder}, device, True).get)
    result, units = evaluate_one(card, encoder, task, context)
    path = folder / f"{task.name}.json"
    if units is not None:  # first, as the runner does: a result never points at missing unit values
        units.save(units_path(path))
    write_result(path, result)
    return result


def run_sweep(grid: list[Unit], output: Path, device: str | None = None) -> list[dict]:
    """Every unit in turn (finished ones skipped); their records."""
    records = []
    for number, unit in enumerate(grid, 1):
        done = (Path(output) / unit.folder / UNIT_FILE).exists()
        print(f"[{number}/{len(grid)}] {unit.folder}: {'already done' if done else 'running'}", file=sys.stderr)
        records.append(run_unit(unit, output, device))
    return records
