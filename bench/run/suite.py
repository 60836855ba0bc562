"""The required suite: the tasks every submitted model must have results for.

The default suite (`sgts`) plus every frozen-embedding group (`retrieval`, `probe`, `sts`, `senteval`,
`align`, and the frozen twins in the default `fewshot` group), on the datasets that ship in pinned
registry packages (a hub-only dataset cannot be required of a submitter, or re-run by a verifier,
offline). Fine-tuning tasks (`fewshot-full`) and the larger-N frozen twins outside the `fewshot` group are
optional: a submission may include them, and they are checked like the rest.
"""

from __future__ import annotations

from sentibench.data import get_spec
from sentibench.tasks.base import Task
from sentibench.tasks.registry import all_tasks

REQUIRED_GROUPS = ("sgts", "retrieval", "probe", "sts", "senteval", "align", "fewshot")


def is_required(task: Task) -> bool:
    meta = task.metadata
    return (bool(set(meta.groups) & set(REQUIRED_GROUPS)) and not meta.fine_tunes
            and get_spec(meta.dataset).offline)


def required_tasks() -> list[Task]:
    return [task for task in all_tasks().values() if is_required(task)]


def expand_required(names: list[str]) -> list[str]:
    """Task and group names with `required` replaced by the required suite's task names."""
    out: list[str] = []
    for name in names:
        out += [task.name for task in required_tasks()] if name == "required" else [name]
    return out
