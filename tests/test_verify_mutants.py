"""Tests that kill the mutants mutmut left alive in `submission/verify.py` (docs/reliability.md, "Mutation
testing"): the sampling numbers, which tasks a seed picks, when weights count as reachable, the submission's
card rules, the staged merge and its all-or-nothing publish, and every field of the verdict and of
`verification.json`. The submission is the packaged `random` card on the 16-sentence fixture tasks (a re-run
takes a fraction of a second); expected values are worked out by hand from the documented rules."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from one_line import fails
from test_submission import TASK, home, resign, run_cli  # noqa: F401  (`home`: a clean commit, a one-task suite)

import sentibench.submission.verify as verify_module
from sentibench import __version__
from sentibench.core.errors import BenchError, Rejected
from sentibench.core.provenance import git_commit
from sentibench.embed.weights_safety import CONVERT_HINT
from sentibench.models import get_card
from sentibench.models.catalog.card_schema import make_card
from sentibench.submission.reproduce import Reproduction
from sentibench.submission.verify import (
    _stage,
    check_leaderboard,
    check_sampling,
    choose,
    publish,
    staged_file,
    status_of,
    submission_card,
    unreachable,
    verify,
)
from sentibench.tasks.benchmarks import CURRENT

OTHER = "sgts-paper-fixture-reviews"
REVISION = "sha256-seeded-normal-v1"  # the packaged random card's revision
FRACTION_ERROR = "--fraction must be a number from 0 to 1 (1: re-run every task), got {!r}"
MINIMUM_ERROR = "--minimum must be a whole number >= 0, got {!r}"


def _rejected(problems: list[str], call, *args, **kwargs) -> None:
    with pytest.raises(Rejected) as caught:
        call(*args, **kwargs)
    assert caught.value.problems == problems


@pytest.fixture(scope="module")
def stash(tmp_path_factory) -> Path:
    """Where the first test's pristine submission is kept for the others (a run and a submit cost seconds)."""
    return tmp_path_factory.mktemp("pristine")


@pytest.fixture
def submission(home, tmp_path, capsys, stash) -> Path:  # noqa: F811 (`home`: the fixture)
    """A fresh copy of `bench submit random`: the packaged card unchanged, results of TASK and OTHER."""
    pristine = stash / "random"
    if not pristine.is_dir():
        for task in (TASK, OTHER):
            code, _, err = run_cli(capsys, "run", "-m", "random", "-t", task, "--output-folder", str(stash / "runs"))
            assert code == 0, err
        code, _, err = run_cli(capsys, "submit", "random", "--results", str(stash / "runs"),
                               "--output", str(stash))
        assert code == 0, err
    shutil.copytree(pristine, tmp_path / "outbox" / "random")
    return tmp_path / "outbox" / "random"


def _main_score(folder: Path, task: str) -> float:
    (path,) = folder.rglob(f"{task}.json")
    return json.loads(path.read_text())["scores"]["test"][0]["main_score"]


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --- check_sampling, status_of, choose --------------------------------------------------------------------------

@pytest.mark.parametrize("fraction, minimum", [(0, 0), (0.0, 5), (1, 0), (1.0, 3), (0.5, 1)])
def test_fractions_from_0_to_1_and_whole_minimums_from_0_are_accepted(fraction, minimum):
    assert check_sampling(fraction, minimum) is None


@pytest.mark.parametrize("fraction", [-0.1, 1.5, 2.0, float("nan"), float("inf"), "0.5", None])
def test_a_fraction_outside_0_to_1_or_not_a_number_is_one_line(fraction):
    fails(FRACTION_ERROR.format(fraction), check_sampling, fraction, 0)


@pytest.mark.parametrize("minimum", [-1, 2.5, True, "3", None])
def test_a_minimum_below_0_or_not_whole_is_one_line(minimum):
    fails(MINIMUM_ERROR.format(minimum), check_sampling, 1.0, minimum)


def test_the_status_says_how_many_tasks_were_rerun():
    assert [status_of(r, t) for r, t in [(2, 2), (3, 2), (1, 2), (0, 2), (0, 0)]] == [
        "verified", "verified", "sampled", "unverified", "unverified"]


def _tasks(*names: str) -> list[SimpleNamespace]:
    return [SimpleNamespace(task_name=name) for name in names]


def test_choose_takes_ceil_of_the_fraction_at_least_the_minimum_at_most_all():
    results = _tasks("e", "c", "a", "d", "b")
    counts = [len(choose(results, f, m, seed=0)) for f, m in [(0.5, 0), (0.2, 0), (0.21, 0), (0.5, 4), (0.0, 9),
                                                             (0.0, 0), (1.0, 0)]]
    assert counts == [3, 1, 2, 4, 5, 0, 5]  # ceil(2.5), ceil(1.0), ceil(1.05), the minimum, all, none, all


def test_choose_is_repeatable_from_the_seed_whatever_order_the_results_come_in():
    """The documented recipe, so anyone can repeat a verification: the results sorted by task name, then
    Python's `random.Random(seed).sample`."""
    names = ["e", "c", "a", "d", "b"]
    for seed in range(6):
        expected = random.Random(seed).sample(sorted(names), 2)
        for order in (names, sorted(names), sorted(names, reverse=True)):
            assert [r.task_name for r in choose(_tasks(*order), 0.4, 0, seed)] == expected


# --- unreachable ------------------------------------------------------------------------------------------------

def test_bow_and_random_cards_need_no_weights():
    assert unreachable(get_card("random")) is None
    assert unreachable(get_card("bow-tfidf-svd")) is None


def test_a_checkpoint_folder_is_reachable_only_when_it_is_on_this_machine(tmp_path):
    card = make_card(name="x", loader="transformers", description="d", revision="r", checkpoint=str(tmp_path))
    assert unreachable(card) is None
    missing = tmp_path / "gone"
    card = make_card(name="x", loader="transformers", description="d", revision="r", checkpoint=str(missing))
    assert unreachable(card) == f"weights folder '{missing}' is not on this machine"


def test_an_offline_hub_card_is_unreachable_with_the_loaders_reason(home):  # noqa: F811
    card = make_card(name="x", loader="transformers", description="d", revision="r", hub_id="someone/nothing")
    reason = unreachable(card)
    assert reason is not None and "someone/nothing" in reason and "Hugging Face Hub" in reason


# --- submission_card ----------------------------------------------------------------------------------------------

def _submitted(folder: Path, card: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "card.yaml").write_text(yaml.safe_dump(card), encoding="utf-8")
    return folder


def _weights(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"{}" if name.endswith(".json") else b"\x80\x04")
    return folder


RECIPE = {"method": "m", "base": "b", "data": "d", "preset": "cpu"}
MINE = {"name": "mine", "loader": "random", "description": "d", "revision": "r1", "embedding_size": 8}


def test_the_packaged_card_unchanged_is_accepted_and_its_path_is_the_submitted_file(home, tmp_path):  # noqa: F811
    packaged = yaml.safe_load(Path(get_card("random").path).read_text())
    folder = _submitted(tmp_path.resolve() / "sub", packaged)
    card = submission_card(folder)
    assert (card.name, card.revision, card.path) == ("random", REVISION, str(folder / "card.yaml"))


def test_a_card_of_its_own_name_without_package_or_checkpoint_is_accepted(home, tmp_path):  # noqa: F811
    folder = _submitted(tmp_path.resolve() / "sub", MINE)
    card = submission_card(folder)
    assert (card.name, card.loader, card.checkpoint, card.path) == ("mine", "random", None,
                                                                    str(folder / "card.yaml"))


def test_a_card_that_fails_the_loading_rules_is_rejected_with_each_problem_labelled_card(home, tmp_path):  # noqa: F811
    folder = _submitted(tmp_path / "sub", {**MINE, "trust_remote_code": True, "license": "FILL IN: a licence"})
    _rejected(["card: 'trust_remote_code' is not allowed: sentibench never runs a model's own code",
               "card: 'license' is still a blank to fill in (FILL IN: ...)"], submission_card, folder)


def test_a_changed_packaged_card_an_unshipped_package_and_a_trained_card_without_weights_all_show(
        home, tmp_path):  # noqa: F811
    packaged = yaml.safe_load(Path(get_card("random").path).read_text())
    folder = _submitted(tmp_path / "sub", {**packaged, "notes": "mine now", "package": "os/..", "loader": "trained",
                                                  "recipe": RECIPE})
    _rejected(["card: the name 'random' belongs to a packaged card, and this card differs from it; choose another "
               "name",
               "card: package 'os/..' is not one sentibench ships; include the weights (`bench submit "
               "--with-weights`) or give a hub_id",
               "card: a submitted trained card must include its checkpoint (`bench submit --with-weights`)"],
              submission_card, folder)


def test_a_package_sentibench_ships_is_accepted_under_another_name(home, tmp_path):  # noqa: F811
    shipped = get_card("all-minilm-l6-v2").package
    card = submission_card(_submitted(tmp_path / "sub", {**MINE, "loader": "transformers", "package": shipped}))
    assert card.package == shipped


def test_a_relative_checkpoint_is_resolved_inside_the_submission(home, tmp_path):  # noqa: F811
    folder = _submitted(tmp_path.resolve() / "sub", {**MINE, "loader": "trained", "checkpoint": "weights"})
    _weights(folder / "weights", "config.json", "model.safetensors")
    card = submission_card(folder)
    assert card.checkpoint == str(folder / "weights")


def test_an_absolute_checkpoint_inside_the_submission_is_kept(home, tmp_path):  # noqa: F811
    folder = _submitted(tmp_path.resolve() / "sub", {**MINE, "loader": "trained",
                                                     "checkpoint": str(tmp_path.resolve() / "sub" / "weights")})
    _weights(folder / "weights", "config.json", "model.safetensors")
    assert submission_card(folder).checkpoint == str(folder / "weights")


def test_a_checkpoint_outside_the_submission_and_the_caches_is_one_labelled_problem(home, tmp_path):  # noqa: F811
    folder = _submitted(tmp_path.resolve() / "sub", {**MINE, "checkpoint": str(tmp_path.resolve() / "elsewhere")})
    with pytest.raises(Rejected) as caught:
        submission_card(folder)
    (problem,) = caught.value.problems
    assert problem.startswith(f"card: checkpoint '{tmp_path.resolve() / 'elsewhere'}' lies outside {folder}, ")
    assert problem.endswith("; weights must be inside the submission or a sentibench cache")


def test_pickle_weights_are_refused_beside_the_other_problems(home, tmp_path):  # noqa: F811
    folder = _submitted(tmp_path.resolve() / "sub", {**MINE, "package": "os/..", "checkpoint": "weights"})
    weights = _weights(folder / "weights", "config.json", "pytorch_model.bin")
    _rejected(["card: package 'os/..' is not one sentibench ships; include the weights (`bench submit "
               "--with-weights`) or give a hub_id",
               f"card: {weights} holds pickle weights only, which sentibench never loads (no .safetensors); "
               + CONVERT_HINT], submission_card, folder)


# --- staged_file, check_leaderboard -------------------------------------------------------------------------------

def test_staged_file_is_an_empty_hidden_temporary_file_beside_the_target(tmp_path):
    staged = staged_file(str(tmp_path / "board.md"))
    assert staged.parent == tmp_path and staged.read_bytes() == b""
    assert staged.name.startswith(".board.md.") and staged.name.endswith(".tmp")
    assert not (tmp_path / "board.md").exists()


def test_staged_file_refuses_a_folder_as_a_file_error_naming_it(tmp_path):
    with pytest.raises(IsADirectoryError) as caught:
        staged_file(tmp_path)
    assert (caught.value.errno, caught.value.strerror, caught.value.filename) == (21, "is a folder", str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_staged_file_in_a_missing_folder_names_the_target_not_the_temporary_name(tmp_path):
    target = tmp_path / "missing" / "board.md"
    with pytest.raises(FileNotFoundError) as caught:
        staged_file(target)
    assert (caught.value.errno, caught.value.strerror, caught.value.filename) == (
        2, "No such file or directory", str(target))


def test_check_leaderboard_accepts_none_and_a_writable_file_and_leaves_nothing(tmp_path):
    assert check_leaderboard(None) is None
    assert check_leaderboard(tmp_path / "board.md") is None
    assert list(tmp_path.iterdir()) == []


def test_check_leaderboard_names_an_unwritable_file_and_what_to_pass(tmp_path):
    for board, why in [(tmp_path / "no" / "board.md", "No such file or directory"), (tmp_path, "is a folder")]:
        fails(f"cannot write the leaderboard '{board}' ({why}); pass a writable --leaderboard, or none",
               check_leaderboard, board)


# --- _stage and publish -------------------------------------------------------------------------------------------

RECORD = {"status": "verified", "note": "written as given"}


def test_stage_copies_the_results_their_unit_values_the_card_and_the_record(submission, tmp_path):
    card = get_card("random")
    staged = tmp_path / "staged"
    staged.mkdir()
    (submission / "results" / "random" / REVISION / "notes.txt").write_text("not a result")
    _stage(submission, card, staged, RECORD)
    source = _files(submission / "results" / "random" / REVISION)
    assert sorted(_files(staged)) == sorted([f"{TASK}.json", f"{TASK}.units.npz", f"{OTHER}.json", "card.yaml",
                                             "verification.json"])  # the paper-protocol task has no unit values
    assert all(_files(staged)[name] == data for name, data in source.items() if name != "notes.txt")
    assert (staged / "card.yaml").read_bytes() == (submission / "card.yaml").read_bytes()
    assert json.loads((staged / "verification.json").read_text()) == RECORD


def test_stage_copies_a_result_without_unit_values(submission, tmp_path):
    (submission / "results" / "random" / REVISION / f"{TASK}.units.npz").unlink()
    staged = tmp_path / "staged"
    staged.mkdir()
    _stage(submission, get_card("random"), staged, RECORD)
    assert sorted(_files(staged)) == sorted([f"{TASK}.json", f"{OTHER}.json", "card.yaml", "verification.json"])


def test_publish_puts_the_folder_and_the_leaderboard_in_place(submission, tmp_path):
    results, board = tmp_path / "results", tmp_path / "board.md"
    target = publish(submission, get_card("random"), results, RECORD, board)
    assert target == results / "random" / REVISION
    assert json.loads((target / "verification.json").read_text()) == RECORD
    assert "\n| random (unverified) |" in board.read_text(encoding="utf-8")  # RECORD has no rerun_count
    assert _left(tmp_path) == ["board.md", "outbox", "results"]  # no temporary left


def test_publish_without_a_leaderboard_writes_none(submission, tmp_path):
    target = publish(submission, get_card("random"), tmp_path / "results", RECORD, None)
    assert (target / "card.yaml").is_file()
    assert _left(tmp_path) == ["outbox", "results"]


def _left(folder: Path) -> list[str]:
    """What is in a test's folder besides the sentibench home."""
    return sorted(p.name for p in folder.iterdir() if p.name != "home")


def _failing_render(error: BaseException):
    def render(_root):
        raise error
    return render


@pytest.mark.parametrize("error, shown", [
    (PermissionError(13, "Permission denied", "/elsewhere/board.md"), "Permission denied: '/elsewhere/board.md'"),
    (OSError("the disk went away"), "the disk went away: '{board}'"),
])
def test_a_failing_leaderboard_takes_the_merged_folder_and_the_folders_it_made_back_out(
        submission, tmp_path, monkeypatch, error, shown):
    monkeypatch.setattr(verify_module, "render", _failing_render(error))
    results, board = tmp_path / "deep" / "results", tmp_path / "board.md"
    fails(f"could not publish the verified submission ({shown.format(board=board)}); nothing was merged",
           publish, submission, get_card("random"), results, RECORD, board)
    assert _left(tmp_path) == ["outbox"]  # no results/, no deep/, no board, no temp


def test_a_merged_folder_that_cannot_be_taken_back_out_is_named_not_denied(submission, tmp_path, monkeypatch):
    monkeypatch.setattr(verify_module, "render", _failing_render(OSError(28, "No space left on device")))
    monkeypatch.setattr(verify_module.shutil, "rmtree", lambda path, ignore_errors=False: None)  # a delete that fails
    results, board = tmp_path / "results", tmp_path / "board.md"
    target = results / "random" / get_card("random").revision
    fails(f"could not publish the verified submission (No space left on device: '{board}'); the merged folder "
           f"'{target}' could not be taken back out: remove it", publish, submission, get_card("random"), results,
           RECORD, board)
    assert target.is_dir()


def test_a_failure_keeps_a_results_root_that_existed_even_empty(submission, tmp_path, monkeypatch):
    monkeypatch.setattr(verify_module, "render", _failing_render(OSError(28, "No space left on device")))
    results = tmp_path / "results"
    results.mkdir()
    with pytest.raises(BenchError):
        publish(submission, get_card("random"), results, RECORD, tmp_path / "board.md")
    assert results.is_dir() and list(results.iterdir()) == []


def test_a_leaderboard_that_is_a_folder_fails_before_any_folder_is_made(submission, tmp_path):
    board = tmp_path / "a-folder"
    board.mkdir()
    fails(f"could not publish the verified submission (is a folder: '{board}'); nothing was merged",
           publish, submission, get_card("random"), tmp_path / "results", RECORD, board)
    assert _left(tmp_path) == ["a-folder", "outbox"]


def test_an_error_that_is_not_a_file_error_is_raised_as_it_is_and_nothing_stays(submission, tmp_path, monkeypatch):
    monkeypatch.setattr(verify_module, "render", _failing_render(KeyError("a bug")))
    with pytest.raises(KeyError):
        publish(submission, get_card("random"), tmp_path / "results", RECORD, tmp_path / "board.md")
    assert _left(tmp_path) == ["outbox"]


# --- verify -------------------------------------------------------------------------------------------------------

def _manifest(submission: Path) -> dict:
    return json.loads((submission / "manifest.json").read_text())


def test_a_verified_submission_its_verdict_and_its_record(submission, tmp_path):
    manifest_sha = hashlib.sha256((submission / "manifest.json").read_bytes()).hexdigest()
    results, board = tmp_path / "results", tmp_path / "board.md"
    verdict = verify(submission, results, board, seed=5)
    target = results / "random" / REVISION
    assert (verdict.card.name, verdict.status, verdict.tasks, verdict.seed, verdict.reason) == (
        "random", "verified", 2, 5, "")
    assert (verdict.merged_into, verdict.installed, verdict.benchmark) == (
        target, "card 'random' is already known here", CURRENT)
    assert 0 <= verdict.seconds < 60
    assert sorted(r.task for r in verdict.reruns) == sorted([TASK, OTHER])
    assert all(r.rerun == r.stored == _main_score(submission, r.task) for r in verdict.reruns)
    record = json.loads((target / "verification.json").read_text())
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", record.pop("verified_at"))
    assert record == {
        "benchmark": CURRENT, "status": "verified", "reason": "", "tasks": 2, "rerun_count": 2,
        "sample_seed": 5,
        "sample_fraction": 1.0, "sample_minimum": 3,
        "reruns": [{"task": r.task, "stored": r.stored, "rerun": r.rerun, "tolerance": r.tolerance}
                   for r in verdict.reruns],
        "version_changes": [],
        "manifest_sha256": manifest_sha, "submitted_code": _manifest(submission)["code"],
        "verified_by": {"sentibench": __version__, "git_commit": git_commit()}}
    assert re.search(r"\n\| random +\|", board.read_text(encoding="utf-8"))  # every task re-run: no label


def test_a_sample_follows_the_seed_and_says_so(submission, tmp_path):
    for seed in range(8):
        verdict = verify(submission, tmp_path / f"results-{seed}", None, fraction=0.5, minimum=0, seed=seed)
        assert [r.task for r in verdict.reruns] == random.Random(seed).sample(sorted([TASK, OTHER]), 1)
        assert (verdict.status, verdict.reason) == ("sampled", "sampled: re-ran 1 of 2 task(s)")
        record = json.loads((verdict.merged_into / "verification.json").read_text())
        assert (record["status"], record["reason"], record["sample_fraction"], record["sample_minimum"]) == (
            "sampled", "sampled: re-ran 1 of 2 task(s)", 0.5, 0)


def test_no_rerun_is_unverified_and_says_which_flags_did_it(submission, tmp_path):
    verdict = verify(submission, tmp_path / "results", None, fraction=0, minimum=0, seed=1)
    assert (verdict.status, verdict.reason, verdict.reruns, verdict.seed) == (
        "unverified", "no task re-run (--fraction 0 --minimum 0)", [], 1)
    record = json.loads((verdict.merged_into / "verification.json").read_text())
    assert (record["status"], record["reason"], record["rerun_count"]) == (
        "unverified", "no task re-run (--fraction 0 --minimum 0)", 0)


def test_unreachable_weights_rerun_nothing_and_record_no_seed(submission, tmp_path, monkeypatch):
    monkeypatch.setattr(verify_module, "unreachable", lambda card: "the weights are on another machine")
    monkeypatch.setattr(verify_module, "reproduce", lambda *a, **k: pytest.fail("nothing may be re-run"))
    verdict = verify(submission, tmp_path / "results", None, seed=4)
    assert (verdict.status, verdict.reason, verdict.reruns, verdict.seed) == (
        "unverified", "the weights are on another machine", [], None)
    record = json.loads((verdict.merged_into / "verification.json").read_text())
    assert (record["reason"], record["sample_seed"], record["reruns"]) == (
        "the weights are on another machine", None, [])


class _Secrets:
    """A stand-in for `secrets`: the largest value below the bound it is asked for."""

    def __init__(self) -> None:
        self.bounds: list[int] = []

    def randbelow(self, bound: int) -> int:
        self.bounds.append(bound)
        return bound - 1


def test_without_a_seed_a_fresh_31_bit_one_is_drawn_and_recorded(submission, tmp_path, monkeypatch):
    fresh = _Secrets()
    monkeypatch.setattr(verify_module, "secrets", fresh)
    verdict = verify(submission, tmp_path / "results", None)
    assert (fresh.bounds, verdict.seed) == ([2**31], 2**31 - 1)
    assert json.loads((verdict.merged_into / "verification.json").read_text())["sample_seed"] == 2**31 - 1
    given = verify(submission, tmp_path / "results-2", None, seed=9)
    assert (fresh.bounds, given.seed) == ([2**31], 9)


def test_each_task_is_rerun_with_the_submitted_card_on_the_device_asked_for(submission, tmp_path, monkeypatch):
    calls = []

    def rerun(stored, card=None, device=None):
        calls.append((stored.task_name, card.name, card.path, device))
        return Reproduction(stored.task_name, 0.25, 0.25, 0.005, ())
    monkeypatch.setattr(verify_module, "reproduce", rerun)
    verify(submission, tmp_path / "results", None, seed=2, device="cpu:1")
    card_file = str(submission / "card.yaml")
    assert sorted(calls) == sorted([(TASK, "random", card_file, "cpu:1"), (OTHER, "random", card_file, "cpu:1")])


def test_a_disagreeing_rerun_rejects_with_its_line_and_merges_nothing(submission, tmp_path, monkeypatch):
    monkeypatch.setattr(verify_module, "reproduce",
                        lambda stored, card=None, device=None: Reproduction(stored.task_name, 0.5, 0.625, 0.005, ()))
    lines = [f"re-run disagrees: {task}: stored 0.50000, re-run 0.62500, |difference| 0.12500 (tolerance 0.005): "
             "DISAGREE" for task in random.Random(3).sample(sorted([TASK, OTHER]), 2)]
    _rejected(lines, verify, submission, tmp_path / "results", tmp_path / "board.md", seed=3)
    assert _left(tmp_path) == ["outbox"]


def test_included_weights_are_stored_for_the_name_and_revision(submission, tmp_path, home):  # noqa: F811
    _weights(submission / "weights", "config.json", "model.safetensors")
    resign(submission)
    verify(submission, tmp_path / "results", None, seed=1)
    stored = home / "models" / "submitted" / "random" / REVISION
    assert sorted(_files(stored)) == ["config.json", "model.safetensors"]


def test_a_zip_is_opened_in_a_scratch_folder_of_verifys_own(submission, tmp_path):
    from sentibench.submission.archive import write_zip

    archive = write_zip(submission, tmp_path / "random.zip")
    verdict = verify(archive, tmp_path / "results", None, seed=1)
    assert verdict.status == "verified"
    scratch = Path(verdict.card.path).parent.parent
    assert scratch.name.startswith("sentibench-verify-") and not scratch.exists()


def test_a_card_that_cannot_be_installed_is_merged_with_a_warning(submission, tmp_path, monkeypatch):
    def refuse(card_file):
        raise BenchError("no room for cards")
    monkeypatch.setattr(verify_module, "install", refuse)
    verdict = verify(submission, tmp_path / "results", None, seed=1)
    assert verdict.installed == "warning: the card was merged but not installed here (no room for cards)"
    assert (verdict.merged_into / "card.yaml").is_file()


def test_a_missing_submission_is_one_line(tmp_path):
    fails(f"no submission folder or zip at '{tmp_path / 'nothing'}'", verify, tmp_path / "nothing",
           tmp_path / "results", None)


def test_a_submission_without_results_names_the_missing_task(submission, tmp_path):
    shutil.rmtree(submission / "results")
    resign(submission)
    _rejected([f"{TASK}: no result (required); run `bench run -m random -t {TASK}`"], verify, submission,
              tmp_path / "results", None)


def test_a_manifest_problem_is_prefixed_and_nothing_is_merged(submission, tmp_path):
    (submission / "extra.txt").write_text("x")
    _rejected(["manifest: 'extra.txt' is not listed in the manifest"], verify, submission, tmp_path / "results", None)
    assert not (tmp_path / "results").exists()


def test_an_existing_revision_is_never_overwritten(submission, tmp_path):
    target = tmp_path / "results" / "random" / REVISION
    target.mkdir(parents=True)
    fails(f"'{target}' already holds results of 'random' revision {REVISION}; a submission never overwrites "
           "results", verify, submission, tmp_path / "results", None)
    assert list(target.iterdir()) == []


def test_bad_sampling_numbers_and_an_unwritable_leaderboard_fail_before_the_submission_is_read(tmp_path):
    fails(FRACTION_ERROR.format(2.0), verify, tmp_path / "nothing", tmp_path / "results", None, fraction=2.0)
    fails(MINIMUM_ERROR.format(-1), verify, tmp_path / "nothing", tmp_path / "results", None, minimum=-1)
    board = tmp_path / "no" / "board.md"
    fails(f"cannot write the leaderboard '{board}' (No such file or directory); pass a writable --leaderboard, or "
           "none", verify, tmp_path / "nothing", tmp_path / "results", board)


def test_the_leaderboard_is_the_same_utf8_bytes_where_the_locale_is_ascii(submission, tmp_path, home):  # noqa: F811
    """Published here (a UTF-8 locale) and by a process whose locale encoding is ASCII (the C locale, with
    Python's UTF-8 coercion and UTF-8 mode off): the same UTF-8 text, the confidence interval's `±` included."""
    here, board = tmp_path / "here" / "board.md", tmp_path / "ascii" / "board.md"
    here.parent.mkdir()
    board.parent.mkdir()
    publish(submission, get_card("random"), here.parent / "results", {}, here)
    code = ("import sys; from pathlib import Path; from sentibench.models import get_card; "
            "from sentibench.submission.verify import publish; "
            "publish(Path(sys.argv[1]), get_card('random'), Path(sys.argv[2]), {}, Path(sys.argv[3]))")
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0",
           "SENTIBENCH_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-P", "-c", code, str(submission), str(board.parent / "results"),
                           str(board)],
                          env=env, capture_output=True, timeout=120)  # -P: sentibench from this sys.path only
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-2000:]
    header = here.read_text(encoding="utf-8").split("\n\n")[:3]  # the rest counts this process's fixture tasks
    assert board.read_bytes().decode("utf-8").split("\n\n")[:3] == header and "±" in "".join(header)
