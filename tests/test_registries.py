"""Tasks, datasets and encoder kinds live in `core.registry.Registry` instances filled through entry points:
task families select datasets by catalog facts (STS and SentEval included), each task says which MTEB type
it is, the current benchmark (not the task) says what is required, and the data layer imports without a
cycle. Expected values are written from the protocols' sources (SentEval's per-dataset protocols, the STS
splits), not read from the code."""

from __future__ import annotations

import hashlib
import pkgutil
import subprocess
import sys
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import sentibench.tasks
from sentibench.core.errors import BenchError
from sentibench.data import DatasetSpec, get_spec, register_dataset
from sentibench.data.parsers import labelled_csv
from sentibench.data.registry import DATASETS
from sentibench.data.sources import PackageFile
from sentibench.tasks.benchmarks import expand_required, required_tasks
from sentibench.tasks.registry import FAMILIES, all_tasks, register_family
from sentibench.training.checkpoint import ENCODER_KINDS, register_encoder_kind

# SentEval (Conneau & Kiela 2018, Table 1 and senteval/*.py): MR, CR, SUBJ, MPQA have no standard split
# (10-fold); TREC and MRPC a train/test split (C by CV on train); SST a train/dev/test split (C on dev).
SENTEVAL = {"mr": "kfold", "vader-amazon": "kfold", "subj": "kfold", "mpqa": "kfold", "trec": "cv-then-test",
            "mrpc": "cv-then-test", "sst2": "splits", "sst5": "splits"}
# STS-B is scored on test and dev; STS12-16 and SICK-R on test only.
STS = {"stsb": ("test", "validation"), "sts12": ("test",), "sts13": ("test",), "sts14": ("test",),
       "sts15": ("test",), "sts16": ("test",), "sick-r": ("test",)}
PACKAGED = {"mr", "vader-amazon", "trec", "stsb"}  # of the two families' datasets, those with an offline source


def test_senteval_and_sts_tasks_come_from_catalog_tags():
    tasks = all_tasks()
    senteval = {name.removeprefix("senteval-"): task for name, task in tasks.items() if name.startswith("senteval-")}
    sts = {name.removeprefix("sts-"): task for name, task in tasks.items() if name.startswith("sts-")}
    assert {name: task.protocol for name, task in senteval.items()} == SENTEVAL
    assert {name: task.metadata.eval_splits for name, task in sts.items()} == STS
    assert senteval["mrpc"].metadata.type == "PairClassification" and senteval["sst5"].metadata.type == "Classification"
    assert senteval["vader-amazon"].metadata.description.startswith(
        "SentEval transfer, CR-like (Amazon review snippets, not SentEval's CR labels): ")
    assert sts["stsb"].metadata.description.startswith("STS Benchmark (Cer et al. 2017): Spearman")
    required = set(expand_required(["required"], "sentibench-v1"))
    in_v1 = {name for name in senteval if f"senteval-{name}" in required} | {name for name in sts
                                                                            if f"sts-{name}" in required}
    assert in_v1 == PACKAGED


def test_a_new_sts_or_senteval_dataset_needs_only_its_catalog_entry():
    pairs = [{"sentence1": f"a {i}", "sentence2": f"b {i}", "score": i % 5} for i in range(20)]
    register_dataset(DatasetSpec(name="new-sts", description="test", kind="pairs", license="test", citation="test",
                                 tags=("sts",), standard_splits=("train", "validation", "test"), title="New STS",
                                 load_rows=lambda: {"all": pairs}))
    register_dataset(DatasetSpec(name="new-topics", description="test", kind="classification", license="test",
                                 citation="test", label_names=("a", "b"), tags=("topic", "senteval"),
                                 standard_splits=("train", "test"), load_rows=lambda: {"all": []}))
    tasks = all_tasks()
    assert tasks["sts-new-sts"].metadata.eval_splits == ("test", "validation")
    assert tasks["sts-new-sts"].metadata.description.startswith("New STS: ")
    assert tasks["senteval-new-topics"].protocol == "cv-then-test"
    assert tasks["senteval-new-topics"].metadata.description.startswith("SentEval transfer, new-topics: ")
    # a new dataset adds tasks users can run, and no task to any released benchmark
    assert not {"sts-new-sts", "senteval-new-topics"} & set(expand_required(["required"]))


def test_required_is_the_current_benchmarks_task_list():
    required = {task.name for task in required_tasks()}
    tasks = all_tasks()
    assert {"sgts-mr", "probe-mr", "retrieval-mr", "align-mr", "sts-stsb", "docsim-lee"} <= required
    assert not {"sgts-paper-mr", "senteval-sst2", "sts-sts12"} & required  # another design; hub-only data
    assert not any(tasks[name].metadata.fine_tunes for name in required)
    assert not hasattr(tasks["sgts-mr"].metadata, "required")  # membership lives in the benchmark alone
    assert expand_required(["required"]) == sorted(required)
    assert len(required_tasks("sentibench-lite-v1")) < len(required)


def test_the_mteb_type_comes_from_the_task_type():
    tasks = all_tasks()
    assert tasks["sgts-mr"].metadata.mteb_type == "STS"
    assert tasks["fewshot-frozen-senticse-k1-mr"].metadata.mteb_type == "Classification"
    assert tasks["retrieval-mr"].metadata.mteb_type == "Retrieval"
    assert tasks["align-mr"].metadata.mteb_type is None


def test_a_task_name_built_by_two_families_is_an_error():
    sgts_mr = all_tasks()["sgts-mr"]
    register_family("copycat", lambda spec: sgts_mr if spec.name == "mr" else None)
    with pytest.raises(BenchError, match="built by two families"):
        all_tasks()


def test_unknown_names_suggest_near_ones():
    with pytest.raises(BenchError, match="unknown dataset 'vader-tweet'. Did you mean: vader-tweets"):
        get_spec("vader-tweet")
    with pytest.raises(BenchError, match="unknown encoder kind 'sifter-lsmt'. Did you mean: sifter-lstm"):
        ENCODER_KINDS.get("sifter-lsmt")
    with pytest.raises(BenchError, match="dataset 'mr' is registered twice"):
        register_dataset(DatasetSpec(name="mr", description="t", kind="sentences", license="t", citation="t"))


def test_snapshot_and_restore_undo_registrations():
    saved = DATASETS.snapshot(), FAMILIES.snapshot(), ENCODER_KINDS.snapshot()
    register_dataset(DatasetSpec(name="passing", description="t", kind="sentences", license="t", citation="t"))
    register_family("passing", lambda spec: None)
    register_encoder_kind("passing", "a.module:load")
    DATASETS.restore(saved[0])
    FAMILIES.restore(saved[1])
    ENCODER_KINDS.restore(saved[2])
    assert "passing" not in DATASETS and "passing" not in FAMILIES and "passing" not in ENCODER_KINDS


def test_the_data_layer_imports_without_the_catalog():
    """`import sentibench.data` no longer runs data -> store -> catalog -> data; the catalog loads when a
    dataset is first looked up (through its entry point)."""
    code = ("import sys, sentibench.data as d; assert 'sentibench.data.catalog' not in sys.modules; "
            "d.get_spec('mr'); assert 'sentibench.data.catalog' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_package_file_is_read_only_when_its_sha256_matches(tmp_path, monkeypatch):
    package = tmp_path / "shipped_data"
    package.mkdir()
    (package / "__init__.py").write_text("")
    text = "text,label\nnice,positive\nawful,negative\n"
    (package / "rows.csv").write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    pinned = hashlib.sha256(text.encode()).hexdigest()
    rows = labelled_csv(PackageFile("shipped_data", "rows.csv", pinned).read(), ("negative", "positive"))
    assert rows == [{"text": "nice", "label": 1}, {"text": "awful", "label": 0}]
    with pytest.raises(BenchError, match="does not match the pinned"):
        PackageFile("shipped_data", "rows.csv", "0" * 64).read()
    with pytest.raises(BenchError, match="not installed"):
        PackageFile("no_such_package_here", "rows.csv", pinned).read()
    with pytest.raises(BenchError, match="not a plain relative path"):
        PackageFile("shipped_data", "../rows.csv", pinned)
    with pytest.raises(BenchError, match="label 'meh' is not one of"):
        (package / "bad.csv").write_text("text,label\nok,meh\n", encoding="utf-8")
        labelled_csv(package / "bad.csv", ("negative", "positive"))


def test_every_task_module_is_declared_as_an_entry_point():
    """A task module missing from `[project.entry-points."sentibench.tasks"]` would silently add no tasks (and an
    installation made before an entry point was added misses it: reinstall)."""
    modules = {f"sentibench.tasks.{info.name}" for info in pkgutil.iter_modules(sentibench.tasks.__path__)
               if info.name not in ("base", "registry", "benchmarks")}
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    declared = pyproject["project"]["entry-points"]
    assert set(declared["sentibench.tasks"].values()) == modules
    installed = {point.value for point in entry_points(group="sentibench.tasks") if point.dist.name == "sentibench"}
    assert installed == modules
    for group in ("sentibench.datasets", "sentibench.encoders", "sentibench.methods", "sentibench.benchmarks"):
        assert {p.value for p in entry_points(group=group) if p.dist.name == "sentibench"} == set(
            declared[group].values())


def test_an_installation_without_sentibenchs_own_entry_points_says_to_reinstall(monkeypatch):
    from sentibench.core import registry

    monkeypatch.setattr(registry, "group_entry_points", lambda group: [])
    monkeypatch.setattr(registry, "_LOADED", set())
    with pytest.raises(BenchError, match=r"declares no 'sentibench.tasks' entry points .* reinstall"):
        registry.load_plugins("sentibench.tasks")
