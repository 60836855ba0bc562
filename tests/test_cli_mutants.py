"""Tests that kill the mutants mutmut left alive in the command line's own argument checks (bench/cli.py;
docs/reliability.md, "Mutation testing"): comma-separated names, whole-number options, and the checks and
hand-offs of `leaderboard`, `compare`, `reproduce`, `submit` and `verify`. Each runs `main([...])` and reads
the exact one-line message and exit code; the commands' engines are replaced by recorders where only what the
command line passes them is under test. Every expected line is written out by hand from the documented rule."""

from __future__ import annotations

import argparse
import io
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from sentibench.cli import _split_names, at_least, main
from sentibench.results.task_result import NOT_RESULTS

COMMITTED_RESULT = next(p for p in sorted((Path(__file__).parents[1] / "results").rglob("*.json"))
                        if p.name not in NOT_RESULTS)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def usage_error(capsys, *argv: str) -> str:
    """argparse's own refusal: exit 2 and its last stderr line."""
    with pytest.raises(SystemExit) as caught:
        main(list(argv))
    assert caught.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


# --- comma-separated names and whole numbers -----------------------------------------------------------------------

def test_names_are_split_on_commas_stripped_and_blanks_dropped():
    assert _split_names(" a, ,b ,") == ["a", "b"]
    assert _split_names("x") == ["x"]


@pytest.mark.parametrize("text, what, message", [
    (" , ", "model", "no model given in ' , ': give comma-separated names"),
    (",", None, "no name given in ',': give comma-separated names"),
])
def test_a_list_that_names_nothing_is_one_line(text, what, message):
    from sentibench.core.errors import BenchError

    with pytest.raises(BenchError) as caught:
        _split_names(text) if what is None else _split_names(text, what)
    assert str(caught.value) == message


def test_at_least_accepts_its_minimum_and_refuses_below_it_or_a_non_whole_number():
    assert at_least(1)("1") == 1 and at_least(0)("0") == 0 and at_least(1)(" 12 ") == 12
    assert at_least(1).__name__ == "whole number >= 1"
    for parse, text, message in [(at_least(1), "0", "must be at least 1, got 0"),
                                 (at_least(0), "-1", "must be at least 0, got -1"),
                                 (at_least(1), "2.5", "expected a whole number, got '2.5'"),
                                 (at_least(1), "x", "expected a whole number, got 'x'")]:
        with pytest.raises(argparse.ArgumentTypeError) as caught:
            parse(text)
        assert str(caught.value) == message


@pytest.mark.parametrize("argv, line", [
    (["run", "--batch-size", "0"], "bench run: error: argument --batch-size: must be at least 1, got 0"),
    (["run", "--seed", "-1"], "bench run: error: argument --seed: a seed is from 0 to 2**31 - 1 (2147483647), got -1"),
    (["run", "--limit", "many"], "bench run: error: argument --limit: expected a whole number, got 'many'"),
    (["reproduce", "r.json", "--batch-size", "0"],
     "bench reproduce: error: argument --batch-size: must be at least 1, got 0"),
])
def test_whole_number_options_are_refused_by_argparse_with_exit_2(capsys, argv, line):
    assert usage_error(capsys, *argv) == line


# --- leaderboard ---------------------------------------------------------------------------------------------------

def test_leaderboard_without_a_results_folder_is_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("not a folder")
    for missing in (tmp_path / "none", tmp_path / "file"):
        code, out, err = run_cli(capsys, "leaderboard", "--results", str(missing), "--output", str(tmp_path / "lb.md"))
        assert (code, out, err) == (2, "", f"error: no results folder '{missing}'; run `bench run` first\n")
    assert not (tmp_path / "lb.md").exists()


def test_leaderboard_of_a_folder_without_json_is_one_line_and_writes_nothing(tmp_path, capsys):
    results = tmp_path / "results"
    (results / "model").mkdir(parents=True)
    (results / "model" / "notes.txt").write_text("{}")
    code, out, err = run_cli(capsys, "leaderboard", "--results", str(results), "--output", str(tmp_path / "lb.md"))
    assert (code, out) == (2, "")
    assert err == f"error: no results under '{results}'; run `bench run` first (nothing was written)\n"
    assert not (tmp_path / "lb.md").exists()


def test_leaderboard_finds_a_result_in_a_subfolder_and_says_what_it_wrote(tmp_path, capsys):
    results = tmp_path / "results" / "model" / "deeper"
    results.mkdir(parents=True)
    shutil.copy(COMMITTED_RESULT, results / COMMITTED_RESULT.name)
    board = tmp_path / "lb.md"
    code, out, err = run_cli(capsys, "leaderboard", "--results", str(tmp_path / "results"), "--output", str(board))
    assert (code, out, err) == (0, "", f"wrote {board}\n")
    assert board.read_text().startswith("#")


# --- compare -------------------------------------------------------------------------------------------------------

@pytest.fixture
def compared(monkeypatch) -> list[tuple]:
    """The compare engine replaced by a recorder: what the command line asked for, and a one-line rendering."""
    calls: list[tuple] = []
    monkeypatch.setattr("sentibench.report.compare.compare", lambda *args: calls.append(args) or ["row"])
    monkeypatch.setattr("sentibench.report.compare.render", lambda *args: calls.append(args) or "table")
    return calls


def test_compare_without_a_results_folder_or_with_one_model_twice_is_one_line(tmp_path, capsys, compared):
    code, out, err = run_cli(capsys, "compare", "a", "b", "--results", str(tmp_path / "none"))
    assert (code, out, err) == (2, "", f"error: no results folder '{tmp_path / 'none'}'; run `bench run` first\n")
    code, out, err = run_cli(capsys, "compare", "a", "a", "--results", str(tmp_path))
    assert (code, out, err) == (2, "", "error: compare needs two different models; got 'a' twice\n")
    code, out, err = run_cli(capsys, "compare", "a", "b", "--results", str(tmp_path), "--tasks", " , ")
    assert (code, out, err) == (2, "", "error: no name given in ' , ': give comma-separated names\n")
    assert compared == []


def test_compare_passes_its_models_tasks_and_format(tmp_path, capsys, compared):
    code, out, _ = run_cli(capsys, "compare", "a", "b", "--results", str(tmp_path), "--tasks", "t1, t2")
    assert (code, out) == (0, "table\n")
    assert compared[0] == ([tmp_path], "a", "b", ["t1", "t2"])
    assert compared[1] == (["row"], "a", "b", "github")  # the default table format
    code, _, _ = run_cli(capsys, "compare", "a", "b", "--results", str(tmp_path), "--format", "latex")
    assert code == 0 and compared[2:] == [([tmp_path], "a", "b", None),  # no --tasks: every task both have
                                          (["row"], "a", "b", "latex")]


# --- reproduce, submit, verify: what the command line hands over and prints ----------------------------------------

@dataclass
class Outcome:
    agrees: bool
    name: str
    version_changes: tuple[str, ...] = ()

    def line(self) -> str:
        return f"{self.name}: {'agree' if self.agrees else 'DISAGREE'}"


def test_reproduce_passes_its_options_prints_each_line_and_fails_if_any_disagrees(tmp_path, capsys, monkeypatch):
    calls: list[tuple] = []

    def reproduce_file(path, device=None, batch_size=32, use_cache=False, model=None):
        calls.append((path, device, batch_size, use_cache, model))
        return Outcome(path.name != "bad.json", path.name)

    monkeypatch.setattr("sentibench.submission.reproduce.reproduce_file", reproduce_file)
    assert run_cli(capsys, "reproduce", "good.json") == (0, "good.json: agree\n", "")
    assert calls == [(Path("good.json"), None, 32, False, None)]
    code, out, err = run_cli(capsys, "reproduce", "good.json", "bad.json", "--device", "cpu", "--batch-size", "4",
                             "--use-cache")
    assert (code, err) == (1, "")
    assert out == "good.json: agree\nbad.json: DISAGREE\n1 of 2 result(s) agree\n"
    assert calls[1:] == [(Path("good.json"), "cpu", 4, True, None), (Path("bad.json"), "cpu", 4, True, None)]
    assert run_cli(capsys, "reproduce", "bad.json")[:2] == (1, "bad.json: DISAGREE\n")
    assert run_cli(capsys, "reproduce", "good.json", "-m", "./my-model")[0] == 0
    assert calls[-1] == (Path("good.json"), None, 32, False, "./my-model"), "--model is handed over"


class FlushedStream(io.StringIO):
    """Standard output that records what had been flushed, and so had reached the terminal."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed = ""

    def flush(self) -> None:
        self.flushed = self.getvalue()


def test_reproduce_shows_each_line_before_the_next_result_is_re_run(monkeypatch):
    stream = FlushedStream()
    seen: list[str] = []

    def reproduce_file(path, device=None, batch_size=32, use_cache=False, model=None):
        seen.append(stream.flushed)
        return Outcome(True, path.name)

    monkeypatch.setattr("sentibench.submission.reproduce.reproduce_file", reproduce_file)
    monkeypatch.setattr("sys.stdout", stream)
    assert main(["reproduce", "one.json", "two.json"]) == 0
    assert seen == ["", "one.json: agree\n"]


@pytest.mark.parametrize("flags, expected", [
    ([], ({"with_weights": False, "archive": False, "replace": False, "benchmark": None}, "")),
    (["--with-weights", "--archive", "--replace", "--benchmark", "sentibench-lite-v1"],
     ({"with_weights": True, "archive": True, "replace": True, "benchmark": "sentibench-lite-v1"},
      " and {folder}.zip")),
])
def test_submit_passes_its_options_and_names_what_it_wrote(tmp_path, capsys, monkeypatch, flags, expected):
    calls: list[tuple] = []
    folder = tmp_path / "out" / "tiny"

    def submit(name, results, output, **options):
        calls.append((name, results, output, options))
        return folder, "weights by reference"

    monkeypatch.setattr("sentibench.submission.submit.submit", submit)
    code, out, err = run_cli(capsys, "submit", "tiny", "--results", str(tmp_path / "r"), "--output",
                             str(tmp_path / "out"), *flags)
    options, zipped = expected
    assert (code, err) == (0, "")
    assert out == (f"wrote {folder}{zipped.format(folder=folder)}; weights by reference; "
                   f"check it with `bench verify {folder}`\n")
    assert calls == [("tiny", tmp_path / "r", tmp_path / "out", options)]


@dataclass
class Card:
    name: str = "tiny"


@dataclass
class Rerun:
    task: str
    version_changes: tuple[str, ...] = ()

    def line(self) -> str:
        return f"{self.task}: agree"


@dataclass
class FakeVerdict:
    status: str
    reruns: list[Rerun] = field(default_factory=lambda: [Rerun("t1"), Rerun("t2")])
    card: Card = field(default_factory=Card)
    tasks: int = 5
    seed: int | None = 7
    reason: str = "no task re-run"
    seconds: float = 1.34
    merged_into: Path = Path("res")
    installed: str = "installed card\x07"


@pytest.mark.parametrize("status, line", [
    ("verified", "verified 'tiny': re-ran 2 of 5 task(s), all within tolerance; 1.3s; merged into res"),
    ("sampled", "accepted 'tiny' SAMPLED, not verified: re-ran 2 of 5 task(s) (sample seed 7), all within "
                "tolerance; 1.3s; merged into res and marked sampled on the leaderboard"),
    ("unverified", "accepted 'tiny' UNVERIFIED (no task re-run); no task re-run; merged into res and marked "
                   "unverified on the leaderboard"),
])
def test_verify_prints_each_rerun_its_verdict_and_the_card_escaped(tmp_path, capsys, monkeypatch, status, line):
    monkeypatch.setattr("sentibench.submission.verify.verify", lambda *args, **kwargs: FakeVerdict(status))
    code, out, err = run_cli(capsys, "verify", str(tmp_path / "sub"))
    assert (code, err) == (0, "")
    assert out == f"t1: agree\nt2: agree\n{line}\ninstalled card\\x07\n"


@pytest.mark.parametrize("flags, expected", [
    ([], (None, 1.0, 3, None, None)),
    (["--leaderboard", "board.md", "--fraction", "0.5", "--minimum", "2", "--seed", "9", "--device", "cpu"],
     (Path("board.md"), 0.5, 2, 9, "cpu")),
    (["--leaderboard", "", "--fraction", "0", "--minimum", "0"], (None, 0.0, 0, None, None)),
])
def test_verify_passes_its_defaults_or_the_users_choices(tmp_path, capsys, monkeypatch, flags, expected):
    calls: list[tuple] = []

    def verify(submission, results, leaderboard, fraction, minimum, seed, device):
        calls.append((submission, results, leaderboard, fraction, minimum, seed, device))
        return FakeVerdict("verified")

    monkeypatch.setattr("sentibench.submission.verify.verify", verify)
    assert run_cli(capsys, "verify", str(tmp_path / "sub"), "--results", str(tmp_path / "r"), *flags)[0] == 0
    assert calls == [(tmp_path / "sub", tmp_path / "r", *expected)]


def test_verify_names_moved_versions_once_after_the_reruns(capsys, monkeypatch):
    verdict = FakeVerdict("verified", reruns=[Rerun("t1", ("numpy 1 -> 2",)), Rerun("t2", ("numpy 1 -> 2",))])
    monkeypatch.setattr("sentibench.submission.verify.verify", lambda *a, **k: verdict)
    code, out, _ = run_cli(capsys, "verify", "sub")
    lines = out.splitlines()
    assert code == 0 and lines[:3] == ["t1: agree", "t2: agree", (
        "note: installed versions differ from the result's (numpy 1 -> 2); the scores are compared within each "
        "task's tolerance all the same")]
