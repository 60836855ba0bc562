"""The paper's loss x margin x model grid (Tables 5 and 6) as a list of independent configurations.

`grid(...)` lists the grid's points; `command` hands their `Configuration`s to the engine's sweep
(`Services.sweep`), which trains each (through `bench train`'s bookkeeping, checkpoint in the cache), scores
it with the retrieval task (reference model R = its base) and writes `<output>/<folder>/configuration.json`
plus the task's result JSON. A configuration whose record exists is skipped, so an interrupted sweep resumes
where it stopped; configurations share nothing but the embedding and example caches, so an executor may run
them in any order or in parallel. Besides the losses, each (base, data) pair has a `reference` point (the
untouched base: the tables' first row) and, when asked for, a `setfit` point (the baseline method).
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sentibench.core.errors import BenchError
from sentibench.core.seeds import parse_seed
from sentibench.models.methods.polarity.losses import LOSSES, loss_spec
from sentibench.training.methods import SWEEP_RECORD, Configuration, Services, check_preset, get_method, recipe_hash
from sentibench.training.options import apply_options, parse_option_pairs

BASELINES = ("reference", "setfit")


@dataclass(frozen=True)
class GridPoint:
    """One point of the grid: a loss (or `reference` / `setfit`) with a margin, on a base model and dataset."""

    base: str
    data: str
    loss: str
    margin: float | None = None
    preset: str = "cpu"
    seed: int = 0
    options: dict[str, str] = field(default_factory=dict)   # further method options, the same for every point

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

    def configuration(self) -> Configuration:
        """The point as the engine's sweep runs it: scored by retrieval on its dataset, with the `weights`
        option (if any) applied to the task as well."""
        weights = {"weights": self.options["weights"]} if "weights" in self.options else {}
        return Configuration(base=self.base, data=self.data, method=self.method, folder=self.folder,
                             task=f"retrieval-{self.data}", preset=self.preset, seed=self.seed,
                             options=self.recipe_options, task_options=weights,
                             labels={"loss": self.loss, "margin": self.margin})


def parse_margins(text: str) -> list[float] | str:
    """`paper` (Table 2 per loss), `default` (the library's), or a comma-separated list of numbers."""
    if text in ("paper", "default"):
        return text
    try:
        margins = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        margins = []
    if not margins or not all(math.isfinite(m) and m >= 0 for m in margins):
        raise BenchError(f"--margins expects 'paper', 'default' or non-negative numbers like 0.1,0.5; got {text!r}")
    return margins


def grid(bases: list[str], datasets: list[str], losses: list[str], margins: list[float] | str = "paper",
          preset: str = "cpu", seed: int = 0, options: dict[str, str] | None = None) -> list[GridPoint]:
    """Every configuration of the grid in a stable order that makes a partial sweep informative: per base
    and dataset the reference, then each loss at its default margin (and SetFit), then the other margins."""
    for name in losses:
        if name not in BASELINES:
            loss_spec(name)
    out = []
    for base in bases:
        for data in datasets:
            common = {"base": base, "data": data, "preset": preset, "seed": seed, "options": dict(options or {})}
            first, rest = [GridPoint(loss="reference", **common)], []
            for name in losses:
                if name in BASELINES:
                    first += [] if name == "reference" else [GridPoint(loss=name, **common)]
                    continue
                spec = LOSSES[name]
                chosen = (spec.paper_margins if margins == "paper" else (None,) if margins == "default"
                          else tuple(margins)) if spec.default_margin is not None else (None,)
                default = spec.default_margin if spec.default_margin in chosen else chosen[0]
                first.append(GridPoint(loss=name, margin=default, **common))
                rest += [GridPoint(loss=name, margin=margin, **common) for margin in chosen if margin != default]
            out += first + rest
    return out


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base", default="all-minilm-l6-v2", help="comma-separated base models")
    parser.add_argument("--data", default="mr", help="comma-separated training datasets")
    parser.add_argument("--losses", default="triplet,contrastive,online-contrastive,mnrl",
                        help="comma-separated: triplet, contrastive, online-contrastive, mnrl, setfit")
    parser.add_argument("--margins", default="paper", help="paper (Table 2), default, or numbers like 0.1,0.5")
    parser.add_argument("--preset", default="cpu", help="cpu (this machine) or paper (GPU)")
    parser.add_argument("--seed", type=parse_seed, default=0, help="training seed of every configuration")
    parser.add_argument("--option", action="append", default=[], help="method option KEY=VALUE for every point")
    parser.add_argument("--output", default="sweeps/polarity-st", help="one folder per configuration")
    parser.add_argument("--docs", default="docs/polarity.md", help="markdown file whose generated block is rewritten")
    parser.add_argument("--figure", default="docs/figures/polarity_p_vs_s.png",
                        help="PNG of P against S over every configuration under the output folder")
    parser.add_argument("--device", help="cpu, cuda, mps (default: best available)")
    parser.add_argument("--render-only", action="store_true",
                        help="train nothing: render the tables from the configurations already finished")


def _names(text: str) -> list[str]:
    """The comma-separated names of `text`; none at all, or an empty entry (`a,,b`), is a one-line error."""
    names = [part.strip() for part in text.split(",")]
    if not any(names):
        raise BenchError(f"no name given in {text!r}: give comma-separated names")
    if not all(names):
        raise BenchError(f"an empty name in {text!r}: give comma-separated names without empty entries")
    return names


def _bases(text: str, services: Services) -> list[str]:
    """The base models of `--base`, each resolved as training resolves it (a card, a local folder or a hub id),
    so an unknown name is a one-line error before anything is trained or rendered."""
    bases = _names(text)
    for base in bases:
        services.base(base)
    return bases


def _check_options(points: list[GridPoint]) -> None:
    """Every trained point's preset and options resolved now, so a bad --option or --preset is one line before
    anything is trained or evaluated (the reference point included)."""
    from sentibench.models.methods.polarity import setfit_baseline
    from sentibench.models.methods.polarity.train import resolve_config

    for point in points:
        if point.method == "polarity-st":
            resolve_config(point.preset, point.recipe_options)
        elif point.method == "setfit":
            check_preset(get_method("setfit"), point.preset)
            apply_options(setfit_baseline.PRESETS[point.preset], point.recipe_options, owner="SetFit")


def command(args: argparse.Namespace, services: Services) -> int:
    """`bench sweep polarity-st`: the grid through the engine's sweep, then Tables 5/6 and the scatter."""
    from sentibench.models.methods.polarity.report import render

    points = grid(_bases(args.base, services), _names(args.data), _names(args.losses), parse_margins(args.margins),
                  preset=args.preset, seed=args.seed, options=parse_option_pairs(args.option))
    _check_options(points)
    output = Path(args.output)
    if not args.render_only:
        services.sweep([point.configuration() for point in points], output, device=args.device)
    if not render(output, Path(args.docs), Path(args.figure)):
        raise BenchError(f"no finished configuration under {output} ({SWEEP_RECORD} files): nothing to render; "
                         "run the sweep without --render-only first")
    print(f"{len(points)} configuration(s) {'listed' if args.render_only else 'done'} under {output}; tables in "
          f"{args.docs}, scatter {args.figure}", file=sys.stderr)
    return 0
