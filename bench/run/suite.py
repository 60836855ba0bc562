"""The required suite: the tasks every submitted model must have results for, each task saying so itself
(`TaskMetadata.required`: the built-in families set it for their default group, `sgts`, `retrieval`, `probe`, `sts`,
`senteval`, `align` and the frozen twins in the default `fewshot` group, on the datasets that ship in pinned
registry packages). Fine-tuning tasks (`fewshot-full`) and the larger-N frozen twins outside the `fewshot`
group are optional: a submission may include them, and they are checked like the rest.
"""

from __future__ import annotations

from sentibench.tasks.base import Task
from sentibench.tasks.registry import all_tasks


def required_tasks() -> list[Task]:
    return [task for task in all_tasks().values() if task.metadata.required]


def expand_required(names: list[str]) -> list[str]:
    """Task and group names with `required` replaced by the required suite's task names."""
    out: list[str] = []
    for name in names:
        out += [task.name for task in required_tasks()] if name == "required" else [name]
    return out
