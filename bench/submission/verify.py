"""`bench verify SUBMISSION`: what a maintainer (or CI) runs on a submitted folder or zip.

1. Open it safely (`sentibench.submission.archive`) and check the manifest: every file listed, none extra, each
   sha256 equal, no links.
2. The card, under the loading rules plus a submission's own: no `package` the harness does not ship,
   a checkpoint inside the submission or a sentibench cache (`safety.confined`), weights that are
   safetensors with no custom code, a name no packaged card uses.
3. The results, statically (`submission.result_problems`): required suite, task versions, dataset hashes,
   no `--limit`, committed code, one weights sha256.
4. Where the weights are reachable (the submission, a local cache, the registry, the Hub), a seeded random
   sample of the tasks (a `fraction` of them, at least `minimum`) is re-run with `reproduce`, without the
   embedding cache; any disagreement rejects with the task, both values and the tolerance. Where they are
   not reachable, nothing is re-run and the entry is marked unverified.
5. Accepted: the results, the card and a `verification.json` record go to `<results>/<model>/<revision>/`
   in one atomic step (an existing folder of that revision is never overwritten), and the leaderboard is
   regenerated. A rejection writes nothing.

The sample seed is fresh unless given (`--seed`), so a submitter cannot know which tasks will be re-run;
it is printed and recorded so the verification can be repeated.
"""

from __future__ import annotations

import math
import random
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sentibench import __version__
from sentibench.core.errors import BenchError, Rejected
from sentibench.core.hashing import sha256_file
from sentibench.core.io import atomic_folder, atomic_write_json
from sentibench.core.paths import cache_dir
from sentibench.core.provenance import git_commit
from sentibench.models.card_schema import ModelCard, validate_card
from sentibench.models.cards import check_card_file, load_card_yaml, packaged_cards
from sentibench.models.safety import confined, weights_folder_problems
from sentibench.report.leaderboard import write_leaderboard
from sentibench.results.schema import TaskResult
from sentibench.results.task_result import VERIFICATION_FILE, iter_results
from sentibench.submission.archive import safe_extract
from sentibench.submission.reproduce import Reproduction, reproduce
from sentibench.submission.submit import (
    CARD_FILE,
    MANIFEST,
    manifest_problems,
    read_manifest,
    result_problems,
    results_folder,
)

DEFAULT_FRACTION = 0.2
DEFAULT_MINIMUM = 3


@dataclass
class Verdict:
    card: ModelCard
    status: str                    # "verified" or "unverified"
    tasks: int
    reruns: list[Reproduction]
    seed: int | None
    reason: str                    # why unverified ("" when verified)
    seconds: float
    merged_into: Path


def weight_roots(folder: Path) -> list[Path]:
    """Where a submitted card's weights may be: the submission, sentibench's model caches, the Hub cache."""
    from huggingface_hub.constants import HF_HUB_CACHE

    return [folder, cache_dir("models"), cache_dir("checkpoints"), Path(HF_HUB_CACHE)]


def submission_card(folder: Path) -> ModelCard:
    """The submission's card, validated as loading does plus a submission's rules, checkpoint resolved."""
    problems = check_card_file(folder / CARD_FILE, label="card")
    if problems:
        raise Rejected(problems)
    data = load_card_yaml(folder / CARD_FILE)
    packaged = packaged_cards()
    if data["name"] in packaged:
        problems.append(f"card: the name '{data['name']}' belongs to a packaged card; choose another")
    if data.get("package") and data["package"] not in {c.package for c in packaged.values()}:
        problems.append(f"card: package '{data['package']}' is not one sentibench ships; include the weights "
                        "(`bench submit --with-weights`) or give a hub_id")
    if data["loader"] == "trained" and not data.get("checkpoint"):
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


def unreachable(card: ModelCard) -> str | None:
    """Why this machine cannot load the card's weights (None: it can)."""
    from sentibench.models.loaders import weights_folder

    if card.loader in ("bow", "random"):
        return None
    try:
        folder = weights_folder(card)
    except BenchError as error:
        return str(error)
    return None if Path(folder).is_dir() else f"weights folder '{folder}' is not on this machine"


def choose(results: list[TaskResult], fraction: float, minimum: int, seed: int) -> list[TaskResult]:
    """A seeded sample of ceil(fraction * n) results, at least `minimum` (all, when there are fewer)."""
    ordered = sorted(results, key=lambda r: r.task_name)
    count = min(len(ordered), max(minimum, math.ceil(fraction * len(ordered))))
    return random.Random(seed).sample(ordered, count)


def _merge(folder: Path, card: ModelCard, results_root: Path, record: dict) -> Path:
    """Copy the results, the card and the verification record to `<results>/<model>/<revision>/` at once."""
    target = results_folder(results_root, card)
    with atomic_folder(target) as tmp:
        for path in sorted(results_folder(folder / "results", card).glob("*.json")):
            shutil.copyfile(path, tmp / path.name)
        shutil.copyfile(folder / CARD_FILE, tmp / CARD_FILE)
        atomic_write_json(tmp / VERIFICATION_FILE, record)
    return target


def verify(submission: Path, results_root: Path, leaderboard: Path | None, fraction: float = DEFAULT_FRACTION,
           minimum: int = DEFAULT_MINIMUM, seed: int | None = None, device: str | None = None) -> Verdict:
    started = time.perf_counter()
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
        card = submission_card(folder)
        source = results_folder(folder / "results", card)
        results = iter_results(source) if source.is_dir() else []
        problems = result_problems(card, results)
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
        status = "verified" if reason is None else "unverified"
        record = {
            "status": status, "reason": reason or "", "tasks": len(results), "sample_seed": seed,
            "sample_fraction": fraction, "sample_minimum": minimum,
            "reruns": [{"task": r.task, "stored": r.stored, "rerun": r.rerun, "tolerance": r.tolerance}
                       for r in reruns],
            "manifest_sha256": sha256_file(folder / MANIFEST), "submitted_code": manifest.get("code"),
            "verified_by": {"sentibench": __version__, "git_commit": git_commit()},
            "verified_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        merged = _merge(folder, card, results_root, record)
    if leaderboard is not None:
        write_leaderboard(results_root, leaderboard)
    return Verdict(card, status, len(results), reruns, seed, reason or "", time.perf_counter() - started, merged)
