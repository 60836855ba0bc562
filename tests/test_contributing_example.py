"""The task docs/contributing.md shows a contributor, run as written: its code block is executed, the family it
registers builds the task for a sentiment dataset, and the `random` model (Gaussian vectors, norms far from 1)
gets a valid result, i.e. the example's main score lies in the range the result schema accepts."""

from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs" / "contributing.md"


def _task_example() -> str:
    section = DOCS.read_text(encoding="utf-8").split("## A task: one short file", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_docs_example_task_runs_on_the_random_model(fixture_task, tmp_path):
    from sentibench.results.task_result import read_result
    from sentibench.run.runner import run
    from sentibench.tasks.registry import all_tasks

    exec(compile(_task_example(), str(DOCS), "exec"), {})  # safe: this repo's own checked-in docs, not user input
    task = all_tasks()["centroid-cosine-fixture-reviews"]
    report = run(["random"], [task], tmp_path / "results")
    assert report.written and not report.failed, report.failed
    (result,) = [read_result(path) for path in report.written]
    assert -1 <= result.main_score() <= 1 and result.provenance.task.main_score == "centroid_cosine"
