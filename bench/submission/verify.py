"""`bench verify SUBMISSION`: what a maintainer (or CI) runs on a submitted folder or zip.

1. Open it safely (`sentibench.submission.archive`) and check the manifest: every file listed, none extra, each
   sha256 equal, no links.
2. The card, under the loading rules plus a submission's own: no `package` the harness does not ship,
   a checkpoint inside the submission or a sentibench cache (`safety.confined`), weights that are
   safetensors with no custom code, a name no packaged card uses (unless it is that packaged card,
   unchanged: results of our own cards are submitted and re-run like any other).
3. The results, statically (`submission.result_problems`), against the benchmark the manifest names (none:
   `sentibench-v1`, the only one before submissions named theirs): its every task, its pinned task versions and
   dataset hashes, the harness's task versions and data, no `--limit`, committed code, one weights sha256.
4. Where the weights are reachable (the submission, a local cache, the registry, the Hub), every task is
   re-run with `reproduce`, without the embedding cache (or, as an explicit option, a seeded random sample:
   a `fraction` of them, at least `minimum`); any disagreement rejects with the task, both values and the
   tolerance. Where they are not reachable, nothing is re-run.
   The tasks are the submitted results': the benchmark's, and any optional ones the submission includes.
5. The status says what was re-run: `verified` (every task), `sampled` (some; the leaderboard shows
   `(sampled N%)`) or `unverified` (none). Only a re-run makes a result verified.
6. Accepted: the results, the card and a `verification.json` record (naming the benchmark) are staged
   beside `<results>/<model>/<revision>/` and the leaderboard, when one is named (`--leaderboard`; none by default,
   so a file the user did not name is never replaced), is staged beside its file (an unwritable one fails
   here, before anything is published); then the folder is renamed into place and the leaderboard
   replaced. A failure at any step leaves the results folder as it was; a rejection writes nothing. An
   existing folder of that revision is never overwritten.

The sample seed is fresh unless given (`--seed`), so a submitter cannot know which tasks will be re-run;
it is printed and recorded so the verification can be repeated.
"""

from __future__ import annotations

import math
import os
import random
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sentibench.core.errors import BenchError, Rejected, printable
from sentibench.core.hashing import sha256_file
from sentibench.core.io import atomic_folder, atomic_write_json, check_target, new_file_beside
from sentibench.core.provenance import git_commit
from sentibench.core.version import __version__
from sentibench.embed.weights_safety import confined, weights_folder_problems
from sentibench.models.catalog.card_schema import ModelCard, recipe_kind, validate_card
from sentibench.models.catalog.cards import check_card_file, load_card_yaml, packaged_cards
from sentibench.models.catalog.kinds import model_kind
from sentibench.report.leaderboard import render
from sentibench.results.schema import TaskResult
from sentibench.results.store import ResultStore
from sentibench.results.task_result import LEGACY_BENCHMARK, VERIFICATION_FILE
from sentibench.results.unit_values_file import result_files
from sentibench.submission.archive import safe_extract
from sentibench.submission.layout import CARD_FILE, MANIFEST, WEIGHTS, cache_weight_roots
from sentibench.submission.merged import install, store_weights
from sentibench.submission.reproduce import Reproduction, reproduce
from sentibench.submission.submit import manifest_problems, read_manifest, result_problems, results_folder
from sentibench.tasks.benchmarks import BENCHMARKS

DEFAULT_FRACTION = 1.0  # re-run every task; a smaller fraction is an explicit, labelled option
DEFAULT_MINIMUM = 3


@dataclass
class Verdict:
    card: ModelCard
    status: str                    # "verified" (all re-run), "sampled" (some) or "unverified" (none)
    tasks: int
    reruns: list[Reproduction]
    seed: int | None
    reason: str                    # why not verified ("" when verified)
    seconds: float
    merged_into: Path
    installed: str = ""            # what became of the card on this machine (merged.install)
    benchmark: str = LEGACY_BENCHMARK  # the benchmark the submission answers (its manifest's)


def weight_roots(folder: Path) -> list[Path]:
    """Where a submitted card's weights may be: the submission, sentibench's model caches, the Hub cache."""
    return [folder, *cache_weight_roots()]


def submission_card(folder: Path) -> ModelCard:
    """The submission's card, validated as loading does plus a submission's rules, checkpoint resolved."""
    problems = check_card_file(folder / CARD_FILE, label="card")
    if problems:
        raise Rejected(problems)
    data = load_card_yaml(folder / CARD_FILE)
    packaged = packaged_cards()
    if data["name"] in packaged and data != load_card_yaml(Path(packaged[data["name"]].path)):
        problems.append(f"card: the name '{data['name']}' belongs to a packaged card, and this card differs from "
                        "it; choose another name")
    if data.get("package") and data["package"] not in {c.package for c in packaged.values()}:
        problems.append(f"card: package '{data['package']}' is not one sentibench ships; include the weights "
                        "(`bench submit --with-weights`) or give a hub_id")
    if recipe_kind(data["loader"]) and not data.get("checkpoint"):
        problems.append("card: a submitted trained card must include its checkpoint (`bench submit --with-weights`)")
    if data.get("checkpoint"):
        checkpoint = Path(data["checkpoint"])
        checkpoint = checkpoint if checkpoint.is_absolute() else folder / checkpoint
        try:
            data["checkpoint"] = str(confined(checkpoint, weight_roots(folder), "card: checkpoint"))
        except BenchError as error:
            problems.append(str(error))
        else:
            if Path(data["checkpoint"]).is_dir():
                problems += [f"card: {p}" for p in weights_folder_problems(Path(data["checkpoint"]))]
    if problems:
        raise Rejected(problems)
    return validate_card(data, str(folder / CARD_FILE))


def submission_benchmark(folder: Path, manifest: dict) -> str:
    """The benchmark a submission answers, as its manifest names it (none: `LEGACY_BENCHMARK`); a name this
    harness lacks, or a definition other than this harness's (manifest sha256), is a one-line error."""
    name = manifest.get("benchmark", LEGACY_BENCHMARK)
    if not isinstance(name, str) or name not in BENCHMARKS:
        raise BenchError(f"submission {folder}: {MANIFEST} names benchmark '{printable(str(name))}', which this "
                         "harness does not have; see `bench list benchmarks`")
    recorded, here = manifest.get("benchmark_manifest_sha256"), BENCHMARKS.get(name).manifest_sha256
    if recorded is not None and recorded != here:
        raise BenchError(f"submission {folder}: {MANIFEST} answers benchmark '{name}' with manifest sha256 "
                         f"{printable(str(recorded))[:12]}, this harness's '{name}' is {here[:12]}")
    return name


def unreachable(card: ModelCard) -> str | None:
    """Why this machine cannot load the card's weights (None: it can)."""
    from sentibench.models.catalog.loaders import weights_folder

    if not model_kind(card.loader).weights:
        return None
    try:
        folder = weights_folder(card)
    except BenchError as error:
        return str(error)
    return None if Path(folder).is_dir() else f"weights folder '{folder}' is not on this machine"


def check_sampling(fraction: float, minimum: int) -> None:
    """`fraction` a finite number in [0, 1] and `minimum` a whole number >= 0, or a one-line error."""
    if not (isinstance(fraction, (int, float)) and math.isfinite(fraction) and 0 <= fraction <= 1):
        raise BenchError(f"--fraction must be a number from 0 to 1 (1: re-run every task), got {fraction!r}")
    if isinstance(minimum, bool) or not isinstance(minimum, int) or minimum < 0:
        raise BenchError(f"--minimum must be a whole number >= 0, got {minimum!r}")


def status_of(reruns: int, tasks: int) -> str:
    """`verified` only when every task was re-run; `sampled` when some were; `unverified` when none."""
    if tasks and reruns >= tasks:
        return "verified"
    return "sampled" if reruns else "unverified"


def choose(results: list[TaskResult], fraction: float, minimum: int, seed: int) -> list[TaskResult]:
    """A seeded sample of ceil(fraction * n) results, at least `minimum` (all, when there are fewer)."""
    ordered = sorted(results, key=lambda r: r.task_name)
    count = min(len(ordered), max(minimum, math.ceil(fraction * len(ordered))))
    return random.Random(seed).sample(ordered, count)


def _stage(folder: Path, card: ModelCard, staged: Path, record: dict) -> None:
    """Copy the results (with their unit values), the card and the verification record into `staged`."""
    for result in ResultStore.load(folder / "results").results:
        if result.path.parent == results_folder(folder / "results", card):
            for source in result_files(result):
                shutil.copyfile(source, staged / source.name)
    shutil.copyfile(folder / CARD_FILE, staged / CARD_FILE)
    atomic_write_json(staged / VERIFICATION_FILE, record)


def publish(folder: Path, card: ModelCard, results_root: Path, record: dict, leaderboard: Path | None) -> Path:
    """Stage the merged folder and the leaderboard, then put both in place; any failure leaves
    `results_root` as it was (a folder already renamed into place is taken back out)."""
    target = results_folder(results_root, card)
    missing = [p for p in (target.parent, *target.parent.parents) if not p.exists()]  # deepest first
    board_tmp: Path | None = None
    placed = False
    try:
        board_tmp = staged_file(leaderboard) if leaderboard is not None else None
        with atomic_folder(target) as staged:
            _stage(folder, card, staged, record)
        placed = True
        if leaderboard is not None and board_tmp is not None:
            try:
                board_tmp.write_text(render(results_root), encoding="utf-8")
                os.replace(board_tmp, leaderboard)
            except BaseException:
                shutil.rmtree(target, ignore_errors=True)
                raise
    except BaseException as error:
        for parent in missing:
            if parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
        if not isinstance(error, OSError):
            raise
        left = (f"the merged folder '{target}' could not be taken back out: remove it" if placed and target.exists()
                else "nothing was merged")
        raise BenchError(f"could not publish the verified submission ({error.strerror or error}: "
                         f"'{error.filename or leaderboard}'); {left}") from None
    finally:
        if board_tmp is not None:
            board_tmp.unlink(missing_ok=True)
    return target


def staged_file(path: Path) -> Path:
    """An empty temporary file beside `path`, which proves its folder writable before anything is published."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(21, "is a folder", str(path))
    try:
        fd, name = new_file_beside(path)
    except OSError as error:
        raise type(error)(error.errno, error.strerror, str(path)) from None
    os.close(fd)
    return name


def check_leaderboard(path: Path | None) -> None:
    """Fail before any re-run when the leaderboard file cannot be written (or is not a file: `check_target`)."""
    if path is not None:
        try:
            staged_file(path).unlink()
        except OSError as error:
            raise BenchError(f"cannot write the leaderboard '{path}' ({error.strerror}); pass a writable "
                             "--leaderboard, or none") from None
        check_target(path)


def verify(submission: Path, results_root: Path, leaderboard: Path | None, fraction: float = DEFAULT_FRACTION,
           minimum: int = DEFAULT_MINIMUM, seed: int | None = None, device: str | None = None) -> Verdict:
    started = time.perf_counter()
    check_sampling(fraction, minimum)
    check_leaderboard(leaderboard)
    submission = Path(submission)
    with tempfile.TemporaryDirectory(prefix="sentibench-verify-") as scratch:
        if submission.is_file():
            folder = safe_extract(submission, Path(scratch))
        elif submission.is_dir():
            folder = submission
        else:
            raise BenchError(f"no submission folder or zip at '{submission}'")
        manifest = read_manifest(folder)
        problems = manifest_problems(folder, manifest)
        if problems:
            raise Rejected([f"manifest: {p}" for p in problems])
        benchmark = submission_benchmark(folder, manifest)
        card = submission_card(folder)
        source = results_folder(folder / "results", card)
        results = ResultStore.load(source).results
        problems = result_problems(card, results, benchmark)
        if problems:
            raise Rejected(problems)
        if results_folder(results_root, card).exists():
            raise BenchError(f"'{results_folder(results_root, card)}' already holds results of '{card.name}' "
                             f"revision {card.revision}; a submission never overwrites results")
        reason = unreachable(card)
        reruns: list[Reproduction] = []
        if reason is None:
            seed = secrets.randbelow(2**31) if seed is None else seed
            reruns = [reproduce(r, card=card, device=device) for r in choose(results, fraction, minimum, seed)]
            disagreements = [f"re-run disagrees: {r.line()}" for r in reruns if not r.agrees]
            if disagreements:
                raise Rejected(disagreements)
        else:
            seed = None
        status = status_of(len(reruns), len(results))
        if status == "sampled":
            reason = f"sampled: re-ran {len(reruns)} of {len(results)} task(s)"
        elif status == "unverified" and reason is None:
            reason = "no task re-run (--fraction 0 --minimum 0)"
        record = {
            "benchmark": benchmark, "status": status, "reason": reason or "", "tasks": len(results),
            "rerun_count": len(reruns), "sample_seed": seed,
            "sample_fraction": fraction, "sample_minimum": minimum,
            "reruns": [{"task": r.task, "stored": r.stored, "rerun": r.rerun, "tolerance": r.tolerance}
                       for r in reruns],
            "version_changes": sorted({change for r in reruns for change in r.version_changes}),
            "manifest_sha256": sha256_file(folder / MANIFEST), "submitted_code": manifest.get("code"),
            "verified_by": {"sentibench": __version__, "git_commit": git_commit()},
            "verified_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if (folder / WEIGHTS).is_dir():  # the cache is not results/: kept even if publishing fails
            store_weights(folder / WEIGHTS, card.name, card.revision)
        merged = publish(folder, card, results_root, record, leaderboard)
    try:
        installed = install(merged / CARD_FILE)
    except (BenchError, OSError) as error:
        installed = f"warning: the card was merged but not installed here ({error})"
    return Verdict(card, status, len(results), reruns, seed, reason or "", time.perf_counter() - started, merged,
                   installed, benchmark)
