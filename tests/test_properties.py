"""Property tests (hypothesis, derandomised and bounded): any input to the argument parser, card loading,
result loading or the leaderboard ends in a result or a one-line error with exit 2; never a traceback,
never a write outside the output folder and the cache, never a change to an existing result unless
`--overwrite-strategy always`."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sentibench.cli import main
from sentibench.core.errors import BenchError
from sentibench.models.catalog.card_schema import ModelCard, validate_card
from sentibench.models.catalog.cards import read_card
from sentibench.results.task_result import read_result, result_path

BOUNDED = settings(max_examples=40, derandomize=True, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
TASK = "sgts-fixture-reviews"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6)


def exit_code(argv: list[str]) -> int:
    """`bench`'s exit code; argparse's usage errors exit through SystemExit."""
    try:
        return main(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def one_error_line(err: str) -> bool:
    """Whatever else went to stderr (progress, warnings), the last line is the error, and no traceback."""
    lines = err.strip().splitlines()
    return "Traceback" not in err and bool(lines) and (lines[-1].startswith("error:") or ": error: " in lines[-1])


run_arguments = st.fixed_dictionaries({
    "-m": st.sampled_from(["random", "nope", ",,", "", "..", "./nowhere", "org/x", "random,random", "random,"]),
    "-t": st.sampled_from([TASK, ",,", "nope", f"{TASK},nope", "", f" {TASK} ", "senteval-sst2"]),
    "--batch-size": st.integers(-3, 64).map(str) | st.sampled_from(["abc", "1e3", ""]),
    "--limit": st.none() | st.integers(-2, 40).map(str),
    "--seed": st.integers(-2, 5).map(str),
    "--overwrite-strategy": st.sampled_from(["always", "never", "only-missing", "bogus"]),
    "--device": st.none() | st.sampled_from(["cpu", "cuda", "tpu", "cuda:3", ""]),
})


def well_formed(arguments: dict[str, str | None]) -> bool:
    """Whether the arguments ask for something that can run here: the fixture task on the random model."""
    def whole(text: str | None, minimum: int) -> bool:
        return text is None or (text.lstrip("-").isdigit() and int(text) >= minimum)

    models = [m.strip() for m in arguments["-m"].split(",") if m.strip()]
    tasks = [t.strip() for t in arguments["-t"].split(",") if t.strip()]
    return (bool(models) and set(models) == {"random"} and bool(tasks) and set(tasks) == {TASK}
            and whole(arguments["--batch-size"], 1) and whole(arguments["--limit"], 1)
            and whole(arguments["--seed"], 0) and arguments["--overwrite-strategy"] != "bogus"
            and arguments["--device"] in (None, "", "cpu"))


@BOUNDED
@given(arguments=run_arguments)
@example(arguments={"-m": "random", "-t": TASK, "--batch-size": "8", "--limit": None, "--seed": "0",
                    "--overwrite-strategy": "always", "--device": None})
def test_any_run_command_ends_in_results_or_one_error_and_writes_only_its_folder(fixture_task, capsys, arguments):
    from sentibench.models.catalog.cards import get_card

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "precious.txt").write_text("mine")
        existing = result_path(root / "out", "random", get_card("random").revision, TASK)
        existing.parent.mkdir(parents=True)
        existing.write_text(json.dumps({"task_name": TASK, "scores": {"test": [{"main_score": 0.25}]},
                                        "sentibench": {"main_split": "test"}}))
        before = tree(root)
        argv = ["run", "--output-folder", str(root / "out")]
        for option, value in arguments.items():
            argv += [option, value] if value is not None else []
        code = exit_code(argv)
        err = capsys.readouterr().err
        assert code == (0 if well_formed(arguments) else 2), err
        if code == 2:
            assert one_error_line(err), err
        else:
            assert read_result(existing).main_score() is not None
        after = tree(root)
        outside = {k for k in set(before) | set(after) if not k.startswith("out/") and before.get(k) != after.get(k)}
        assert not outside
        if arguments["--overwrite-strategy"] != "always":
            assert existing.read_bytes() == before[str(existing.relative_to(root))]


card_fields = st.sampled_from([*ModelCard.__dataclass_fields__, "colour", "path", ""])
VALID_CARD = {"name": "p", "loader": "random", "description": "d", "revision": "r"}


@BOUNDED
@given(changes=st.dictionaries(card_fields, json_values, max_size=4))
def test_any_card_data_is_a_card_or_one_error(changes):
    try:
        card = validate_card({**VALID_CARD, **changes}, "card.yaml")
    except BenchError as error:
        assert "\n" not in str(error) and str(error).startswith("model card card.yaml:")
    else:
        assert isinstance(card.name, str) and "/" not in card.name and card.name not in (".", "..")


@BOUNDED
@given(text=st.text(max_size=200) | st.sampled_from(["!!python/object/apply:os.system ['x']", "a: &a [*a]"]))
def test_any_card_file_is_a_card_or_one_error(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "card.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            read_card(path)
        except BenchError as error:
            assert "\n" not in str(error)


def result_documents() -> st.SearchStrategy:
    """A valid result with up to two places replaced by arbitrary JSON values."""
    valid = {"task_name": TASK, "dataset_revision": "x", "evaluation_time": 1.0,
             "scores": {"test": [{"main_score": 0.5, "hf_subset": "default"}]},
             "sentibench": {"main_split": "test", "limit": None, "task": {"groups": ["sgts"], "version": 1}}}
    places = st.sampled_from(["task_name", "scores", "scores.test", "scores.test.0", "scores.test.0.main_score",
                              "sentibench", "sentibench.main_split", "sentibench.limit", "sentibench.task",
                              "sentibench.task.groups", "evaluation_time"])

    def replace(document: dict, place: str, value: object) -> dict:
        document = json.loads(json.dumps(document))
        *parents, last = place.split(".")
        node = document
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[int(last) if isinstance(node, list) else last] = value
        return document

    return st.lists(st.tuples(places, json_values), max_size=2).map(
        lambda edits: _apply(valid, edits, replace))


def _apply(document, edits, replace):
    for place, value in edits:
        try:
            document = replace(document, place, value)
        except (KeyError, IndexError, TypeError, ValueError):
            continue
    return document


@BOUNDED
@given(documents=st.lists(result_documents(), min_size=1, max_size=3))
def test_any_result_files_give_a_leaderboard_of_finite_scores_or_one_error(documents, capsys):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for number, document in enumerate(documents):
            path = root / "results" / f"model-{number}" / "r" / f"{TASK}.json"
            path.parent.mkdir(parents=True)
            path.write_text(json.dumps(document))
        before = tree(root / "results")
        code = exit_code(["leaderboard", "--results", str(root / "results"), "--output", str(root / "board.md")])
        err = capsys.readouterr().err
        assert code in (0, 2), err
        assert tree(root / "results") == before
        if code == 2:
            assert one_error_line(err) and not (root / "board.md").exists()
            return
        board = (root / "board.md").read_text()
        assert not re.search(r"\b(nan|inf|infinity)\b", board.lower()), "a non-finite number on the board"
        for path in (root / "results").rglob("*.json"):
            score = read_result(path).main_score()
            assert score is None or -1 <= score <= 1
