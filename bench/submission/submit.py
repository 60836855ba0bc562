"""`bench submit NAME`: a model's card and results, checked and packaged with a manifest.

A submission is one folder (or its zip) ready to send as a pull request:

    NAME/
      card.yaml                       the model card (checkpoint: `weights` when the weights are included)
      weights/                        optional (`--with-weights`): safetensors and configs, nothing else
      results/NAME/REVISION/*.json    one result per task, exactly as `bench run` wrote them
      results/NAME/REVISION/*.units.npz  their unit values (`bench compare`, the leaderboard's significance)
      manifest.json                   sha256 of every other file, the code version and the environment

Where the weights come from is decided here, so that `bench verify` on this machine accepts what this
packs: a checkpoint folder outside sentibench's caches (which verify does not read) must be included with
`--with-weights`, and the command says so; weights from a package, the registry, the Hub or a sentibench
cache are referenced, by the weights sha256 every result records (a re-run must load the same bytes).
An existing submission of the same name is an error naming what to do, or, with `--replace`, replaced in
one step (only a folder that is a submission).

A submission answers one benchmark (`sentibench.tasks.benchmarks`; default `CURRENT`), which its manifest
names with the benchmark's manifest sha256. The checks here are the static half of `bench verify` (the other
half re-runs a sample): the submission carries the benchmark's results (and optional ones in no benchmark,
never a task only another benchmark lists); every task of that benchmark has a result, made under the
version and on the dataset content the benchmark pins; every result was made by this model's card and
revision, by the harness's current task version on the current data (dataset content hash), without
`--limit`, from a committed tree, records the same weights sha256, and its `main_score` is the metric the task
names. The optional results are checked like the rest.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from sentibench.core.errors import BenchError, Rejected
from sentibench.core.hashing import sha256_file
from sentibench.core.io import atomic_folder, atomic_write_json
from sentibench.core.provenance import git_commit, versions
from sentibench.core.version import __version__
from sentibench.embed.weights_safety import check_weights_folder
from sentibench.models.catalog.cards import ModelCard, get_card, load_card_yaml
from sentibench.models.catalog.kinds import model_kind
from sentibench.results.schema import TaskResult
from sentibench.results.store import ResultStore
from sentibench.results.task_result import recorded_weights, result_path
from sentibench.results.unit_values_file import result_files
from sentibench.submission.archive import write_zip
from sentibench.submission.layout import CARD_FILE, MANIFEST, WEIGHT_FILES, WEIGHTS, cache_weight_roots
from sentibench.submission.reproduce import check_against_catalog
from sentibench.tasks.benchmarks import Benchmark, get_benchmark, required_tasks

FORMAT = 1


def results_folder(root: Path, card: ModelCard) -> Path:
    """Where a card's results live under a results root (`<root>/<model>/<revision>/`)."""
    return result_path(root, card.name, card.revision, "task").parent


def _score_problems(result: TaskResult) -> list[str]:
    metric = result.provenance.task.main_score
    return [f"{result.task_name}: main_score {entry.main_score} is not its '{metric}' {entry.metric(metric)} "
            f"on split '{split}' (edited?)"
            for split, entries in result.scores.items() for entry in entries
            if metric and entry.main_score != entry.metric(metric)]


def _missing_problems(card: ModelCard, missing: list[str], benchmark: str) -> list[str]:
    """One line for one missing task (the command that makes it); one line for several (the benchmark's run)."""
    if not missing:
        return []
    if len(missing) == 1:
        return [f"{missing[0]}: no result (required); run `bench run -m {card.name} -t {missing[0]}`"]
    names = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    return [f"{len(missing)} tasks of {benchmark} have no result ({names}); run "
            f"`bench run -m {card.name} -b {benchmark}`"]


def pin_problems(result: TaskResult, benchmark: Benchmark) -> list[str]:
    """Why `result` does not count for `benchmark`'s pinned task of that name (empty: it does, or the
    benchmark does not list the task): another task version, or another dataset content (when recorded)."""
    pinned = benchmark.pinned(result.task_name)
    if pinned is None:
        return []
    problems = []
    version = result.provenance.task.version
    if version != pinned.version:
        problems.append(f"{result.task_name}: made by task version {version}, {benchmark.name} pins version "
                        f"{pinned.version}")
    recorded = result.provenance.dataset.content_hash if result.provenance.dataset else None
    if recorded is not None and recorded != pinned.dataset_sha256:
        problems.append(f"{result.task_name}: dataset hash {recorded[:12]} is not the {pinned.dataset_sha256[:12]} "
                        f"{benchmark.name} pins for '{pinned.dataset}'")
    return problems


def result_problems(card: ModelCard, results: list[TaskResult], benchmark: str | None = None) -> list[str]:
    """One line per reason these results cannot be submitted for `card` to `benchmark` (default: the current
    one; empty: they can)."""
    answered = get_benchmark(benchmark)
    have = {r.task_name for r in results}
    missing = [task.name for task in required_tasks(answered.name) if task.name not in have]
    problems = _missing_problems(card, missing, answered.name)
    for result in results:
        provenance = result.provenance
        name, revision = (provenance.model.name, provenance.model.revision) if provenance.model else (None, None)
        if (name, revision) != (card.name, card.revision):
            problems.append(f"{result.task_name}: made by '{name}' revision {revision}, "
                            f"not '{card.name}' revision {card.revision}")
        if result.smoke:
            flag, value = (("--limit", provenance.limit) if provenance.limit is not None
                           else ("--smoke-training", provenance.model.recipe["smoke_steps"]))
            problems.append(f"{result.task_name}: a smoke run ({flag} {value}); rerun without {flag}")
        if provenance.from_dirty_tree:
            problems.append(f"{result.task_name}: made from a tree with uncommitted changes "
                            f"({provenance.git_commit}); commit, then rerun")
        problems += pin_problems(result, answered) + _score_problems(result) + check_against_catalog(result)
    recorded = {recorded_weights(r) for r in results}
    if len(recorded) > 1:
        problems.append(f"the results record {len(recorded)} different weights sha256: one model, one set of weights")
    elif model_kind(card.loader).weights and recorded == {None}:
        problems.append("the results record no weights sha256 (made before sentibench recorded it); rerun them")
    return problems


def _card_data(card: ModelCard, with_weights: bool) -> dict[str, Any]:
    data = load_card_yaml(Path(card.path))
    if with_weights:  # the weights travel in the submission: the card names them, and no other source
        data = {key: value for key, value in data.items() if key not in ("package", "registry")}
        data["checkpoint"] = WEIGHTS
    return data


def _copy_weights(card: ModelCard, target: Path) -> None:
    from sentibench.models.catalog.loaders import weights_folder

    source = weights_folder(card)
    check_weights_folder(source, card.name)
    for path in sorted(p for p in source.rglob("*") if p.is_file() and p.suffix in WEIGHT_FILES):
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)


def manifest_for(folder: Path, card: ModelCard, benchmark: str | None = None) -> dict[str, Any]:
    """The manifest of a submission folder: its files' sha256, the code, the environment and the benchmark
    it answers (name, manifest sha256 and task names)."""
    answered = get_benchmark(benchmark)
    files = {p.relative_to(folder).as_posix(): sha256_file(p)
             for p in sorted(folder.rglob("*")) if p.is_file() and p.relative_to(folder).as_posix() != MANIFEST}
    return {"format": FORMAT, "model": card.name, "revision": card.revision,
            "code": {"sentibench": __version__, "git_commit": git_commit()}, "environment": versions(),
            "benchmark": answered.name, "benchmark_manifest_sha256": answered.manifest_sha256,
            "required_suite": [task.name for task in required_tasks(answered.name)],
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"), "files": files}


def weights_decision(card: ModelCard, with_weights: bool) -> str:
    """How the submission carries `card`'s weights (one line for the user), or a one-line error when
    `bench verify` could not reach them without `--with-weights`."""
    if with_weights:
        return "weights included (weights/, safetensors and configs)"
    if not card.checkpoint:
        return "weights referenced (the card's package, registry parts or hub id; sha256 recorded in each result)"
    checkpoint = Path(card.checkpoint).resolve()
    if any(checkpoint.is_relative_to(root.resolve()) for root in cache_weight_roots()):
        return f"weights referenced (checkpoint {checkpoint} in a sentibench cache; sha256 recorded in each result)"
    raise BenchError(f"model '{card.name}': its checkpoint {checkpoint} is outside sentibench's caches, where "
                     "`bench verify` does not read weights; pass --with-weights to include them")


def _replaceable(target: Path, replace: bool) -> bool:
    """Whether `target` is to be replaced: absent is False; an existing folder is an error unless `replace`
    and it is a submission (a manifest beside a card)."""
    if not target.exists() and not target.is_symlink():
        return False
    is_submission = target.is_dir() and not target.is_symlink() and (target / MANIFEST).is_file()
    if not replace:
        hint = "pass --replace to replace it" if is_submission else "remove it"
        raise BenchError(f"'{target}' already exists; {hint}, or pass another --output")
    if not is_submission:
        raise BenchError(f"'{target}' exists and is not a submission (no {MANIFEST}); --replace replaces only "
                         "a submission: remove it or pass another --output")
    return True


def _check_replaceable_zip(zipped: Path, replace: bool) -> None:
    """An existing `zipped` is replaced only with `replace`, and only when it is a regular file."""
    if not replace:
        raise BenchError(f"'{zipped}' already exists; pass --replace to replace it, or pass another --output")
    if zipped.is_symlink() or not zipped.is_file():
        raise BenchError(f"'{zipped}' exists and is not a file; --replace replaces only a submission's zip: "
                         "remove it or pass another --output")


def archive_path(folder: Path) -> Path:
    """The zip beside a submission folder: its whole name plus `.zip` (`m.v1` -> `m.v1.zip`, never `m.zip`), so
    two cards' archives never share a name."""
    return folder.with_name(f"{folder.name}.zip")


def _answering(results: list[TaskResult], benchmark: str) -> list[TaskResult]:
    """The results a submission to `benchmark` carries: its tasks, and optional ones that no registered benchmark
    lists (fine-tuning tasks); a task only another benchmark lists stays home, so `bench verify` never re-runs
    more than the benchmark asked for."""
    from sentibench.tasks.benchmarks import BENCHMARKS

    mine = set(get_benchmark(benchmark).task_names)
    elsewhere = {name for other in BENCHMARKS.items().values() for name in other.task_names} - mine
    return [result for result in results if result.task_name not in elsewhere]


def submit(name: str, results_root: Path, output: Path, with_weights: bool = False,
           archive: bool = False, replace: bool = False, benchmark: str | None = None) -> tuple[Path, str]:
    """Check `name`'s results under `results_root` against `benchmark` (default: the current one) and write
    the submission folder (and zip) under `output`; returns the folder and how it carries the weights."""
    benchmark = get_benchmark(benchmark).name
    card = get_card(name)
    if not card.path:
        raise BenchError(f"model '{name}' has no card file; write one with `bench card new`")
    source = results_folder(results_root, card)
    results = _answering(ResultStore.load(source).results, benchmark)
    problems = result_problems(card, results, benchmark)
    if problems:
        raise Rejected(problems)
    decision = weights_decision(card, with_weights)
    target = Path(output) / card.name
    replacing = _replaceable(target, replace)
    zipped = archive_path(target)
    if archive and (zipped.exists() or zipped.is_symlink()):
        _check_replaceable_zip(zipped, replace)
    with atomic_folder(target, replace=replacing) as tmp:
        (tmp / CARD_FILE).write_text(yaml.safe_dump(_card_data(card, with_weights), sort_keys=False,
                                                    allow_unicode=True, width=120), encoding="utf-8")
        if with_weights:
            _copy_weights(card, tmp / WEIGHTS)
        copied = results_folder(tmp / "results", card)
        copied.mkdir(parents=True)
        for result in results:
            for path in result_files(result):
                shutil.copyfile(path, copied / path.name)
        atomic_write_json(tmp / MANIFEST, manifest_for(tmp, card, benchmark))
        if archive:  # zipped before the folder is renamed into place: both are written, or neither
            write_zip(tmp, zipped, name=card.name)
    return target, decision


def read_manifest(folder: Path) -> dict[str, Any]:
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BenchError(f"submission {folder}: no {MANIFEST}") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise BenchError(f"submission {folder}: {MANIFEST} does not parse") from None
    valid = isinstance(manifest, dict) and manifest.get("format") == FORMAT and isinstance(manifest.get("files"), dict)
    if not valid:
        raise BenchError(f"submission {folder}: {MANIFEST} is not a format-{FORMAT} manifest")
    return manifest


def manifest_problems(folder: Path, manifest: dict[str, Any]) -> list[str]:
    """Files missing, extra, or not matching their sha256; links anywhere in the folder."""
    listed: dict[str, str] = manifest["files"]
    present = {p.relative_to(folder).as_posix(): p for p in folder.rglob("*")
               if (p.is_file() or p.is_symlink()) and p.relative_to(folder).as_posix() != MANIFEST}
    problems = [f"'{name}' is a symbolic link" for name, p in sorted(present.items()) if p.is_symlink()]
    problems += [f"'{name}' is listed in the manifest but missing" for name in sorted(set(listed) - set(present))]
    problems += [f"'{name}' is not listed in the manifest" for name in sorted(set(present) - set(listed))]
    problems += [f"'{name}' sha256 differs from the manifest (edited after packaging?)"
                 for name in sorted(set(listed) & set(present))
                 if not present[name].is_symlink() and sha256_file(present[name]) != listed[name]]
    if CARD_FILE not in listed:
        problems.append(f"no {CARD_FILE}")
    return problems
