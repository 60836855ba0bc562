"""The label-relation matrix of InfoDCL's corpus-aware contrastive loss (§3.3, B.1 eq. 8, D.2).

Counts are taken over the tweets that carry **two or more** distinct labels (hashtags). The paper says
"at least two" in §3.7 and "at least one" in D.2; we take two: only those tweets can show a co-occurrence,
and counting single-label tweets inflates p(y) for the frequent labels and pushes every npmi down.
With N such tweets, f(y) the number carrying y and f(y, y') the number carrying both:

    npmi(y, y') = log(p(y, y') / (p(y) p(y'))) / -log p(y, y'),   p = f / N     (Bouma 2009; eq. 8)

and npmi = 1 when p(y, y') = 1. A pair is kept in row y only when f(y, y') >= `min_count` and
f(y, y') >= `min_ratio` x f(y) (D.2: "less than 20 times or 0.02 x frequency of y_i" are filtered; the row's
own frequency makes the filter, and so the matrix, asymmetric). Dropped and unseen pairs count as
unrelated (npmi 0). The weight of eq. 4 is w[y, y'] = 1 - max(0, npmi(y, y')).

The diagonal: npmi(y, y) = 1 would give w[y, y] = 0, and the authors' code multiplies the positives' terms
by w[y_i, y_i], which zeroes them. Eq. 4 as printed weights only the denominator, where the same-label
terms are SCL's ordinary positives, so we set w[y, y] = 1: the matrix re-weights negatives of *other*
labels only (see `losses.CorpusAwareContrastiveLoss`).

The matrix is saved as JSON with the sha256 of its canonical content (labels, weights, thresholds).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path

import torch

from sentibench.core.errors import BenchError

NPMI_FILE = "infodcl_npmi.json"


@dataclass(frozen=True)
class NpmiMatrix:
    labels: tuple[str, ...]
    weights: tuple[tuple[float, ...], ...]    # w[i][a] = 1 - max(0, npmi) for kept pairs, else 1; diagonal 1
    kept: tuple[tuple[str, str, float, int], ...]  # (y, y', npmi, f(y, y')) for every kept ordered pair
    tweets: int                               # N: tweets with >= min_labels distinct labels
    min_labels: int
    min_count: int
    min_ratio: float

    @property
    def sha256(self) -> str:
        content = {"labels": self.labels, "weights": self.weights, "min_labels": self.min_labels,
                   "min_count": self.min_count, "min_ratio": self.min_ratio}
        return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()

    def tensor(self) -> torch.Tensor:
        return torch.tensor(self.weights, dtype=torch.float32)

    def top_pairs(self, k: int = 10) -> list[tuple[str, str, float, int]]:
        """The k most related unordered pairs (highest npmi; each pair once)."""
        seen, out = set(), []
        for y, other, value, count in sorted(self.kept, key=lambda r: (-r[2], r[0], r[1])):
            if frozenset((y, other)) not in seen:
                seen.add(frozenset((y, other)))
                out.append((y, other, value, count))
        return out[:k]

    def save(self, path: Path) -> None:
        Path(path).write_text(json.dumps({**asdict(self), "sha256": self.sha256}, indent=1))

    @classmethod
    def load(cls, path: Path) -> NpmiMatrix:
        try:
            record = json.loads(Path(path).read_text(encoding="utf-8"))
            matrix = cls(tuple(record["labels"]), tuple(tuple(map(float, row)) for row in record["weights"]),
                         tuple((a, b, float(v), int(n)) for a, b, v, n in record["kept"]), int(record["tweets"]),
                         int(record["min_labels"]), int(record["min_count"]), float(record["min_ratio"]))
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise BenchError(f"{path}: not an InfoDCL NPMI matrix ({error})") from None
        if record.get("sha256") != matrix.sha256:
            raise BenchError(f"{path}: its sha256 does not match its content (edited or truncated)")
        return matrix


def npmi(joint: float, p_a: float, p_b: float) -> float:
    """Eq. 8 for probabilities in (0, 1]; 1 when the pair occurs in every counted tweet."""
    if joint >= 1.0:
        return 1.0
    return math.log(joint / (p_a * p_b)) / -math.log(joint)


def build_npmi(label_sets: Iterable[Iterable[str]], labels: Sequence[str], min_count: int, min_ratio: float,
               min_labels: int = 2) -> NpmiMatrix:
    """The weight matrix over `labels` from the label sets of a corpus' tweets (see the module docstring)."""
    counted = [frozenset(tags) for tags in label_sets if len(frozenset(tags)) >= min_labels]
    if not counted:
        raise BenchError(f"no tweet carries {min_labels} or more labels: the NPMI matrix cannot be counted")
    wanted = set(labels)
    single = Counter(tag for tags in counted for tag in tags if tag in wanted)
    pairs = Counter(pair for tags in counted for pair in combinations(sorted(tags & wanted), 2))
    n = len(counted)
    index = {name: i for i, name in enumerate(labels)}
    weights = [[1.0] * len(labels) for _ in labels]
    kept = []
    for (a, b), both in sorted(pairs.items()):
        value = npmi(both / n, single[a] / n, single[b] / n)
        for row, column in ((a, b), (b, a)):
            if both >= min_count and both >= min_ratio * single[row]:
                weights[index[row]][index[column]] = 1.0 - max(0.0, value)
                kept.append((row, column, value, both))
    return NpmiMatrix(tuple(labels), tuple(tuple(row) for row in weights), tuple(kept), n, min_labels, min_count,
                      float(min_ratio))
