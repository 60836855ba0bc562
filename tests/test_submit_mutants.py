"""Tests that kill the mutants mutmut left alive in `submission/submit.py` (docs/reliability.md, "Mutation
testing"): which results `bench submit` refuses and the exact line for each, where the weights come from,
when an existing output is replaced, the exact folder, card, manifest and zip it writes, and how a manifest
is read back and checked. The module's functions are called directly on tiny hand-written inputs (a
`random`-loader card, results written as JSON); every expected value is worked out by hand from the
documented rule, not read off the code's output."""

from __future__ import annotations

import hashlib
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from huggingface_hub.constants import HF_HUB_CACHE
from one_line import fails

import sentibench.submission.submit as submit_module
from sentibench import __version__
from sentibench.core.errors import BenchError, Rejected
from sentibench.models.catalog.card_schema import ModelCard
from sentibench.results.schema import TaskResult
from sentibench.submission.layout import cache_weight_roots
from sentibench.submission.submit import (
    _card_data,
    _copy_weights,
    _replaceable,
    manifest_for,
    manifest_problems,
    read_manifest,
    result_problems,
    results_folder,
    submit,
    weights_decision,
)
from sentibench.tasks.benchmarks import get_benchmark

REFERENCED = "weights referenced (the card's package, registry parts or hub id; sha256 recorded in each result)"
INCLUDED = "weights included (weights/, safetensors and configs)"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A fresh sentibench home with symlinks resolved; a two-task required suite (`t-a`, `t-b`) whose
    catalog check passes every result."""
    root = tmp_path.resolve() / "home"
    monkeypatch.setenv("SENTIBENCH_HOME", str(root))
    monkeypatch.setattr(submit_module, "required_tasks", lambda benchmark=None: [SimpleNamespace(name="t-a"),
                                                                                  SimpleNamespace(name="t-b")])
    monkeypatch.setattr(submit_module, "check_against_catalog", lambda result: [])
    return root


def _card(loader: str = "random", **fields: Any) -> ModelCard:
    return ModelCard(name="m", loader=loader, description="d", revision="r1", **fields)


def _data(task: str = "t-a", main: float | None = 0.5, model: dict[str, Any] | None = None,
          **provenance: Any) -> dict[str, Any]:
    """A result file's JSON: `task` scored `main` on split `test` (its `cosine_spearman` the same), made by
    model `m` revision r1 unless `model` says otherwise."""
    return {"task_name": task, "scores": {"test": [{"main_score": main, "cosine_spearman": main}]},
            "sentibench": {"model": {"name": "m", "revision": "r1"} if model is None else model,
                           "task": {"main_score": "cosine_spearman"}, "git_commit": "c0ffee", **provenance}}


def _result(*args: Any, **kwargs: Any) -> TaskResult:
    return TaskResult.model_validate_json(json.dumps(_data(*args, **kwargs)))


def _both(**provenance: Any) -> list[TaskResult]:
    return [_result("t-a", **provenance), _result("t-b", **provenance)]


# --- results_folder, result_problems -------------------------------------------------------------------------------

def test_results_folder_is_root_model_revision(tmp_path):
    assert results_folder(tmp_path, _card()) == tmp_path / "m" / "r1"


def test_a_missing_required_task_names_the_command_that_makes_it(home):
    assert result_problems(_card(), [_result("t-a")]) == ["t-b: no result (required); run `bench run -m m -t t-b`"]
    assert result_problems(_card(), _both()) == []


def test_a_result_of_another_model_or_revision_or_none_is_refused(home):
    results = [_result("t-a", model={"name": "other", "revision": "r1"}),
               _result("t-b", model={"name": "m", "revision": "r2"}),
               TaskResult.model_validate_json(json.dumps({**_data("t-c"), "sentibench": {}}))]  # no model block
    assert result_problems(_card(), results) == [
        "t-a: made by 'other' revision r1, not 'm' revision r1",
        "t-b: made by 'm' revision r2, not 'm' revision r1",
        "t-c: made by 'None' revision None, not 'm' revision r1"]


def test_a_smoke_run_names_its_flag_and_value(home):
    results = [_result("t-a", limit=8),
               _result("t-b", model={"name": "m", "revision": "r1", "recipe": {"smoke_steps": 5}})]
    assert result_problems(_card(), results) == [
        "t-a: a smoke run (--limit 8); rerun without --limit",
        "t-b: a smoke run (--smoke-training 5); rerun without --smoke-training"]
    both = _result("t-a", limit=3, model={"name": "m", "revision": "r1", "recipe": {"smoke_steps": 5}})
    assert result_problems(_card(), [both, _result("t-b")]) == ["t-a: a smoke run (--limit 3); rerun without --limit"]


def test_a_result_from_a_dirty_tree_is_refused(home):
    results = [_result("t-a", git_commit="abc-dirty"), _result("t-b")]
    assert result_problems(_card(), results) == [
        "t-a: made from a tree with uncommitted changes (abc-dirty); commit, then rerun"]


def test_an_edited_main_score_names_split_metric_and_both_values(home):
    data = _data("t-a")
    data["scores"] = {"dev": [{"main_score": 0.3, "cosine_spearman": 0.3}],
                      "test": [{"main_score": 0.5, "cosine_spearman": 0.5},
                               {"main_score": 0.2, "cosine_spearman": 0.1, "hf_subset": "other"}]}
    edited = TaskResult.model_validate_json(json.dumps(data))
    assert result_problems(_card(), [edited, _result("t-b")]) == [
        "t-a: main_score 0.2 is not its 'cosine_spearman' 0.1 on split 'test' (edited?)"]


def test_without_a_named_metric_the_main_score_is_not_compared(home):
    data = _data("t-a", main=0.7)
    data["scores"]["test"][0]["cosine_spearman"] = 0.1
    data["sentibench"]["task"] = {}
    assert result_problems(_card(), [TaskResult.model_validate_json(json.dumps(data)), _result("t-b")]) == []
    data["sentibench"]["task"] = {"main_score": "main_score"}  # the metric is the main score itself
    assert result_problems(_card(), [TaskResult.model_validate_json(json.dumps(data)), _result("t-b")]) == []


def test_every_problem_of_a_result_is_listed_in_order_then_the_weights(home, monkeypatch):
    monkeypatch.setattr(submit_module, "check_against_catalog", lambda result: [f"{result.task_name}: catalog"])
    data = _data("t-a", main=0.5, model={"name": "x", "revision": "r1", "weights_sha256": "a" * 64},
                 limit=2, git_commit="c-dirty")
    data["scores"]["test"][0]["cosine_spearman"] = 0.25
    results = [TaskResult.model_validate_json(json.dumps(data)),
               _result("t-b", model={"name": "m", "revision": "r1", "weights_sha256": "b" * 64})]
    assert result_problems(_card(), results) == [
        "t-a: made by 'x' revision r1, not 'm' revision r1",
        "t-a: a smoke run (--limit 2); rerun without --limit",
        "t-a: made from a tree with uncommitted changes (c-dirty); commit, then rerun",
        "t-a: main_score 0.5 is not its 'cosine_spearman' 0.25 on split 'test' (edited?)",
        "t-a: catalog",
        "t-b: catalog",
        "the results record 2 different weights sha256: one model, one set of weights"]


def _with_sha(*shas: str | None) -> list[TaskResult]:
    return [_result(task, model={"name": "m", "revision": "r1", "weights_sha256": sha})
            for task, sha in zip(("t-a", "t-b", "t-c"), shas)]


def test_the_results_must_record_one_weights_sha256(home):
    two = "the results record 2 different weights sha256: one model, one set of weights"
    assert result_problems(_card("transformers"), _with_sha("a" * 64, "b" * 64)) == [two]
    assert result_problems(_card("random"), _with_sha("a" * 64, None)) == [two]
    assert result_problems(_card(), _with_sha("a" * 64, "b" * 64, "c" * 64)) == [
        "the results record 3 different weights sha256: one model, one set of weights"]
    assert result_problems(_card("transformers"), _with_sha("a" * 64, "a" * 64)) == []


def test_no_weights_sha256_is_refused_except_for_models_without_weights(home):
    none = "the results record no weights sha256 (made before sentibench recorded it); rerun them"
    assert result_problems(_card("transformers"), _with_sha(None, None)) == [none]
    assert result_problems(_card("onnx-bert"), _with_sha(None, None)) == [none]
    assert result_problems(_card("bow"), _with_sha(None, None)) == []
    assert result_problems(_card("random"), _with_sha(None, None)) == []
    assert result_problems(_card("transformers"), []) == [  # nothing recorded is not "recorded None"
        "2 tasks of sentibench-v2 have no result (t-a, t-b); run `bench run -m m -b sentibench-v2`"]


# --- where the weights come from -----------------------------------------------------------------------------------

def test_the_caches_verify_reads_weights_from(home):
    assert cache_weight_roots() == [home / "models", home / "checkpoints", Path(HF_HUB_CACHE)]


def test_weights_are_included_or_referenced_from_a_cache(home):
    assert weights_decision(_card(checkpoint="/anywhere"), with_weights=True) == INCLUDED
    assert weights_decision(_card(), with_weights=False) == REFERENCED
    for checkpoint in (home / "models" / "tiny", home / "checkpoints" / "a" / "b",
                       Path(HF_HUB_CACHE) / "models--x--y" / "snapshots" / "0"):
        assert weights_decision(_card(checkpoint=str(checkpoint)), with_weights=False) == (
            f"weights referenced (checkpoint {checkpoint} in a sentibench cache; sha256 recorded in each result)")


def test_a_checkpoint_outside_the_caches_needs_with_weights(home, tmp_path):
    outside = tmp_path.resolve() / "elsewhere"
    fails(f"model 'm': its checkpoint {outside} is outside sentibench's caches, where `bench verify` does not "
           "read weights; pass --with-weights to include them",
           weights_decision, _card(checkpoint=str(outside)), with_weights=False)


def test_checkpoint_and_caches_are_compared_with_links_and_relative_paths_resolved(home, tmp_path, monkeypatch):
    (home / "models" / "tiny").mkdir(parents=True)
    monkeypatch.chdir(home / "models")
    assert weights_decision(_card(checkpoint="tiny"), with_weights=False) == (
        f"weights referenced (checkpoint {home / 'models' / 'tiny'} in a sentibench cache; sha256 recorded in "
        "each result)")
    linked_home = tmp_path / "linked-home"
    linked_home.symlink_to(home)
    monkeypatch.setenv("SENTIBENCH_HOME", str(linked_home))  # the roots are links; the checkpoint is resolved
    assert weights_decision(_card(checkpoint=str(home / "models" / "tiny")), with_weights=False).startswith(
        "weights referenced (checkpoint")


def _weights(folder: Path, config: dict[str, Any] | None = None) -> Path:
    (folder / "a" / "b").mkdir(parents=True)
    (folder / "model.safetensors").write_bytes(b"tensors")
    (folder / "config.json").write_text(json.dumps(config or {"model_type": "bert"}))
    (folder / "vocab.txt").write_text("[PAD]\n")
    (folder / "spiece.model").write_bytes(b"sp")
    (folder / "a" / "b" / "tokenizer.json").write_text("{}")  # two folders deep: parents are made
    (folder / "sub.json").mkdir()                              # a folder with a weight suffix is not a file
    (folder / "sub.json" / "merges.txt").write_text("m")
    (folder / "modeling.py").write_text("import os")           # code, a pickle and a readme are never copied
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04")
    (folder / "README.md").write_text("hi")
    return folder


def test_copy_weights_copies_weights_and_configs_only(tmp_path):
    source = _weights(tmp_path / "w")
    _copy_weights(_card(checkpoint=str(source)), tmp_path / "out" / "weights")
    assert _files(tmp_path / "out" / "weights") == {
        "model.safetensors": b"tensors", "config.json": b'{"model_type": "bert"}', "vocab.txt": b"[PAD]\n",
        "spiece.model": b"sp", "a/b/tokenizer.json": b"{}", "sub.json/merges.txt": b"m"}


def test_copy_weights_refuses_custom_code_before_copying(tmp_path):
    source = _weights(tmp_path / "w", {"auto_map": {"AutoModel": "modeling.Evil"}})
    fails(f"model 'm': {source / 'config.json'} maps classes to custom code (auto_map); sentibench never runs a "
           "model's own code", _copy_weights, _card(checkpoint=str(source)), tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_card_data_points_the_checkpoint_at_the_included_weights(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("name: m\nloader: random\ncheckpoint: /somewhere\n")
    card = _card(path=str(path))
    assert _card_data(card, with_weights=False) == {"name": "m", "loader": "random", "checkpoint": "/somewhere"}
    assert _card_data(card, with_weights=True) == {"name": "m", "loader": "random", "checkpoint": "weights"}


# --- _replaceable ----------------------------------------------------------------------------------------------------

def _submission_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text("{}")
    (folder / "card.yaml").write_text("name: m\n")
    return folder


def test_an_absent_target_is_not_replaced(tmp_path):
    assert _replaceable(tmp_path / "m", replace=False) is False
    assert _replaceable(tmp_path / "m", replace=True) is False


def test_an_existing_submission_is_replaced_only_with_replace(tmp_path):
    target = _submission_folder(tmp_path / "m")
    fails(f"'{target}' already exists; pass --replace to replace it, or pass another --output",
           _replaceable, target, replace=False)
    assert _replaceable(target, replace=True) is True


@pytest.mark.parametrize("make", ["plain folder", "manifest is a folder", "file", "link to a submission",
                                  "broken link"])
def test_anything_else_in_the_way_is_never_replaced(tmp_path, make):
    target = tmp_path / "m"
    if make == "plain folder":
        target.mkdir()
    elif make == "manifest is a folder":
        (target / "manifest.json").mkdir(parents=True)
    elif make == "file":
        target.write_text("mine")
    elif make == "link to a submission":
        target.symlink_to(_submission_folder(tmp_path / "real"), target_is_directory=True)
    else:
        target.symlink_to(tmp_path / "nowhere")
    fails(f"'{target}' already exists; remove it, or pass another --output", _replaceable, target, replace=False)
    fails(f"'{target}' exists and is not a submission (no manifest.json); --replace replaces only a submission: "
           "remove it or pass another --output", _replaceable, target, replace=True)


# --- manifest_for, read_manifest, manifest_problems ------------------------------------------------------------------

def test_manifest_lists_every_other_file_by_relative_path_with_its_sha256(home, tmp_path, monkeypatch):
    monkeypatch.setattr(submit_module, "git_commit", lambda: "c0ffee")
    monkeypatch.setattr(submit_module, "versions", lambda: {"python": "3.x"})
    folder = tmp_path / "m"
    contents = {"card.yaml": b"name: m\n", "results/m/r1/t-a.json": b"{}", "results/m/r1/t-a.units.npz": b"npz",
                "weights/z.json": b"z", "weights/a.safetensors": b"a", "b.txt": b"b"}
    for name, data in contents.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (folder / "manifest.json").write_text("an old manifest is not listed")
    before = datetime.now(UTC).replace(microsecond=0)
    manifest = manifest_for(folder, _card())
    after = datetime.now(UTC)
    assert {key: value for key, value in manifest.items() if key != "created_at"} == {
        "format": 1, "model": "m", "revision": "r1", "code": {"sentibench": __version__, "git_commit": "c0ffee"},
        "environment": {"python": "3.x"}, "benchmark": "sentibench-v2",
        "benchmark_manifest_sha256": get_benchmark("sentibench-v2").manifest_sha256, "required_suite": ["t-a", "t-b"],
        "files": {name: _sha(data) for name, data in contents.items()}}
    assert list(manifest["files"]) == sorted(contents)  # written in path order
    created = manifest["created_at"]
    assert len(created) == len("2026-01-01T00:00:00+00:00") and created.endswith("+00:00")
    assert before <= datetime.fromisoformat(created) <= after


def test_read_manifest_returns_a_format_1_manifest(tmp_path):
    manifest = {"format": 1, "files": {"card.yaml": "0" * 64}, "model": "m"}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert read_manifest(tmp_path) == manifest


@pytest.mark.parametrize("content, problem", [
    (None, "no manifest.json"),
    (b"{not json", "manifest.json does not parse"),
    (b'{"format": 1, "files": {"\xff": 1}}', "manifest.json does not parse"),
    (b"[]", "manifest.json is not a format-1 manifest"),
    (b'{"format": 2, "files": {}}', "manifest.json is not a format-1 manifest"),
    (b'{"files": {}}', "manifest.json is not a format-1 manifest"),
    (b'{"format": 1, "files": []}', "manifest.json is not a format-1 manifest"),
    (b'{"format": 1}', "manifest.json is not a format-1 manifest"),
])
def test_read_manifest_refuses_a_missing_or_malformed_manifest_in_one_line(tmp_path, content, problem):
    if content is not None:
        (tmp_path / "manifest.json").write_bytes(content)
    fails(f"submission {tmp_path}: {problem}", read_manifest, tmp_path)


def test_manifest_problems_lists_links_missing_extra_and_edited_files(tmp_path):
    folder = tmp_path / "m"
    (folder / "results").mkdir(parents=True)
    (folder / "sub").mkdir()
    (folder / "card.yaml").write_text("name: m\n")
    (folder / "results" / "a.json").write_text("edited")
    (folder / "extra.txt").write_text("x")
    (folder / "sub" / "manifest.json").write_text("{}")  # only the top-level manifest is not listed
    (folder / "manifest.json").write_text("{}")
    (folder / "link").symlink_to(folder / "card.yaml")
    (folder / "listed-link").symlink_to(folder / "card.yaml")
    (folder / "broken-link").symlink_to(tmp_path / "nowhere")
    listed = {"card.yaml": _sha(b"name: m\n"), "results/a.json": _sha(b"original"), "gone.txt": _sha(b"g"),
              "listed-link": _sha(b"name: m\n"), "broken-link": _sha(b"")}
    assert manifest_problems(folder, {"files": listed}) == [
        "'broken-link' is a symbolic link", "'link' is a symbolic link", "'listed-link' is a symbolic link",
        "'gone.txt' is listed in the manifest but missing",
        "'extra.txt' is not listed in the manifest", "'link' is not listed in the manifest",
        "'sub/manifest.json' is not listed in the manifest",
        "'results/a.json' sha256 differs from the manifest (edited after packaging?)"]


def test_manifest_problems_needs_a_card_and_passes_an_intact_folder(tmp_path):
    (tmp_path / "card.yaml").write_text("name: m\n")
    (tmp_path / "manifest.json").write_text("{}")
    assert manifest_problems(tmp_path, {"files": {"card.yaml": _sha(b"name: m\n")}}) == []
    (tmp_path / "card.yaml").unlink()
    (tmp_path / "weights.json").write_text("{}")
    assert manifest_problems(tmp_path, {"files": {"weights.json": _sha(b"{}")}}) == ["no card.yaml"]


# --- submit ------------------------------------------------------------------------------------------------------

DESCRIPTION = "Ünïcödé model trained on the tiny fixture reviews, written to check that the card is copied exactly"
# "description: " and DESCRIPTION make 112 characters: over PyYAML's default width (80), within 120
NOTES = "word " * 22 + "last"  # "notes: " and these are 121 characters before the next space
CARD = f"name: m\nloader: random\ndescription: {DESCRIPTION}\nrevision: r1\nnotes: {NOTES} end\n"
WRAPPED = CARD.replace(" last end", " last\n  end")  # PyYAML breaks at a space once a line is over 120 characters
RESULTS = ("results/m/r1/t-a.json", "results/m/r1/t-a.units.npz", "results/m/r1/t-b.json")


@pytest.fixture
def runs(home, tmp_path, monkeypatch) -> Path:
    """User card `m` (keys not in sorted order) and its two results, `t-a` with unit values, `t-b` without."""
    monkeypatch.setattr(submit_module, "git_commit", lambda: "c0ffee")
    (home / "cards").mkdir(parents=True)
    (home / "cards" / "m.yaml").write_text(CARD, encoding="utf-8")
    folder = tmp_path / "runs" / "m" / "r1"
    folder.mkdir(parents=True)
    for task in ("t-a", "t-b"):
        (folder / f"{task}.json").write_text(json.dumps(_data(task)))
    (folder / "t-a.units.npz").write_bytes(b"units")
    return tmp_path / "runs"


def _expected(runs: Path, card: str = WRAPPED) -> dict[str, bytes]:
    return {"card.yaml": card.encode("utf-8"),
            **{name: (runs / name.removeprefix("results/")).read_bytes() for name in RESULTS}}


def _check_manifest(folder: Path, expected: dict[str, bytes]) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    assert (manifest["format"], manifest["model"], manifest["revision"]) == (1, "m", "r1")
    assert manifest["files"] == {name: _sha(data) for name, data in expected.items()}


def test_submit_writes_card_results_units_manifest_and_zip(runs, tmp_path):
    outbox = tmp_path / "outbox"
    assert submit("m", runs, outbox, archive=True) == (outbox / "m", REFERENCED)
    written = _files(outbox / "m")
    expected = _expected(runs)
    assert {name: data for name, data in written.items() if name != "manifest.json"} == expected
    _check_manifest(outbox / "m", expected)
    with zipfile.ZipFile(outbox / "m.zip") as archive:
        assert {name: archive.read(name) for name in archive.namelist()} == {
            f"m/{name}": data for name, data in written.items()}
    assert sorted(p.name for p in outbox.iterdir()) == ["m", "m.zip"]


def test_submit_with_weights_carries_them_and_points_the_card_at_them(runs, home, tmp_path):
    weights = _weights(home / "models" / "w")
    card = CARD + f"checkpoint: {weights}\n"
    (home / "cards" / "m.yaml").write_text(card, encoding="utf-8")
    outbox = tmp_path / "outbox"
    assert submit("m", runs, outbox) == (outbox / "m", f"weights referenced (checkpoint {weights} in a sentibench "
                                                       "cache; sha256 recorded in each result)")
    assert set(_files(outbox / "m")) == {"card.yaml", "manifest.json", *RESULTS}
    assert submit("m", runs, tmp_path / "with", with_weights=True) == (tmp_path / "with" / "m", INCLUDED)
    expected = {**_expected(runs, WRAPPED + "checkpoint: weights\n"), "weights/model.safetensors": b"tensors",
                "weights/config.json": b'{"model_type": "bert"}', "weights/vocab.txt": b"[PAD]\n",
                "weights/spiece.model": b"sp", "weights/a/b/tokenizer.json": b"{}", "weights/sub.json/merges.txt": b"m"}
    assert {name: data for name, data in _files(tmp_path / "with" / "m").items() if name != "manifest.json"} == expected
    _check_manifest(tmp_path / "with" / "m", expected)
    assert [p.name for p in (tmp_path / "with").iterdir()] == ["m"]  # no zip unless asked, nothing half-written


def test_submit_refuses_a_model_without_a_card_file(home, tmp_path, monkeypatch):
    monkeypatch.setattr(submit_module, "get_card", lambda name: _card())
    fails("model 'm' has no card file; write one with `bench card new`", submit, "m", tmp_path, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_submit_without_results_names_the_missing_tasks_in_one_line_and_writes_nothing(runs, tmp_path):
    with pytest.raises(Rejected) as caught:
        submit("m", tmp_path / "no-runs", tmp_path / "out")
    assert caught.value.problems == [
        "2 tasks of sentibench-v2 have no result (t-a, t-b); run `bench run -m m -b sentibench-v2`"]
    assert not (tmp_path / "out").exists()


def test_submit_refuses_unreachable_weights_before_writing(runs, home, tmp_path):
    outside = tmp_path.resolve() / "elsewhere"
    (home / "cards" / "m.yaml").write_text(CARD + f"checkpoint: {outside}\n", encoding="utf-8")
    with pytest.raises(BenchError, match="is outside sentibench's caches"):
        submit("m", runs, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_resubmitting_needs_replace_which_swaps_folder_and_zip(runs, tmp_path):
    outbox = tmp_path / "outbox"
    submit("m", runs, outbox)
    (outbox / "m" / "stray.txt").write_text("not part of the new submission")
    fails(f"'{outbox / 'm'}' already exists; pass --replace to replace it, or pass another --output",
           submit, "m", runs, outbox)
    (outbox / "m.zip").write_bytes(b"an old zip")
    assert submit("m", runs, outbox, archive=True, replace=True) == (outbox / "m", REFERENCED)
    assert "stray.txt" not in _files(outbox / "m")
    with zipfile.ZipFile(outbox / "m.zip") as archive:
        assert "m/card.yaml" in archive.namelist()
    assert sorted(p.name for p in outbox.iterdir()) == ["m", "m.zip"]


def test_an_existing_zip_is_an_error_only_when_a_zip_is_asked_for(runs, tmp_path):
    outbox = tmp_path / "outbox"
    outbox.mkdir()
    (outbox / "m.zip").write_bytes(b"someone's zip")
    fails(f"'{outbox / 'm.zip'}' already exists; pass --replace to replace it, or pass another --output",
           submit, "m", runs, outbox, archive=True)
    assert sorted(p.name for p in outbox.iterdir()) == ["m.zip"]
    submit("m", runs, outbox)
    assert (outbox / "m.zip").read_bytes() == b"someone's zip"


@pytest.fixture
def latin1_locale(monkeypatch):
    """A machine whose locale encoding is Latin-1: a text file opened without an encoding is read and written
    in Latin-1 (pathlib asks `io.text_encoding` for the default)."""
    import io

    monkeypatch.setattr(io, "text_encoding", lambda encoding, stacklevel=2: encoding or "latin-1")


def test_the_card_is_written_in_utf8_whatever_the_locale(runs, tmp_path, latin1_locale):
    submit("m", runs, tmp_path / "outbox")
    assert (tmp_path / "outbox" / "m" / "card.yaml").read_bytes() == WRAPPED.encode("utf-8")


def test_the_manifest_is_read_as_utf8_whatever_the_locale(tmp_path, latin1_locale):
    manifest = {"format": 1, "files": {"résumé.txt": "0" * 64}}
    (tmp_path / "manifest.json").write_bytes(json.dumps(manifest, ensure_ascii=False).encode("utf-8"))
    assert read_manifest(tmp_path) == manifest


def test_replace_replaces_a_zip_left_without_its_folder_but_never_a_folder_or_link(runs, tmp_path):
    outbox = tmp_path / "outbox"
    outbox.mkdir()
    (outbox / "m.zip").write_bytes(b"an old zip")
    assert submit("m", runs, outbox, archive=True, replace=True) == (outbox / "m", REFERENCED)
    with zipfile.ZipFile(outbox / "m.zip") as archive:
        assert "m/manifest.json" in archive.namelist()
    for name, make in (("dir", lambda p: p.mkdir()), ("link", lambda p: p.symlink_to(tmp_path / "elsewhere.zip"))):
        other = tmp_path / name
        other.mkdir()
        make(other / "m.zip")
        fails(f"'{other / 'm.zip'}' exists and is not a file; --replace replaces only a submission's zip: remove it "
               "or pass another --output", submit, "m", runs, other, archive=True, replace=True)
        assert [p.name for p in other.iterdir()] == ["m.zip"]
    assert not (tmp_path / "elsewhere.zip").exists()


def test_a_nested_manifest_json_is_listed_and_checked_like_any_other_file(home, tmp_path, monkeypatch):
    monkeypatch.setattr(submit_module, "git_commit", lambda: "abc")
    folder = tmp_path / "sub"
    (folder / "weights").mkdir(parents=True)
    (folder / "card.yaml").write_text("name: m\n")
    (folder / "weights" / "manifest.json").write_text("{}")
    manifest = manifest_for(folder, _card())
    assert manifest["files"] == {"card.yaml": _sha(b"name: m\n"), "weights/manifest.json": _sha(b"{}")}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert manifest_problems(folder, manifest) == []
