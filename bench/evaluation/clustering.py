"""Clustering as one evaluator (`ClusteringEvaluator`; the shape is `evaluation.evaluator`'s), MTEB's protocol
(Muennighoff et al. 2023, `ClusteringEvaluator`): scikit-learn's `MiniBatchKMeans` with as many clusters as the
texts have labels (batch size 500, k-means++ with one initialisation: MTEB's `n_init="auto"`) on the frozen
vectors, scored by the V-measure (Rosenberg & Hirschberg 2007) of the clusters against the labels; the main
score is the mean over `runs` seeded clusterings of the same vectors (seeds seed, seed + 1, ...).

Units: the texts. With the clusters held fixed (as retrieval holds its lookup fixed), a run's V-measure is a
function of the contingency counts n_ck, and text s's pseudo-value is V + n dV/dn_{c(s) k(s)}
(`v_measure_pseudo_values`, the linearised bootstrap of `evaluation.units`); a text's unit value is its mean
over the runs, so the values average to the score exactly (V is scale-free in the counts: Euler's theorem makes
the derivatives sum to 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentibench.core.hashing import digest
from sentibench.embed.encoders import Encoder
from sentibench.evaluation.evaluator import Scored
from sentibench.evaluation.units import LINEARISED, UnitValues

KMEANS_BATCH_SIZE = 500  # MTEB's clustering_batch_size
RUNS = 10


def _contingency(labels: np.ndarray, clusters: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts n[c, k] and each item's class and cluster index into them."""
    classes, class_of = np.unique(labels, return_inverse=True)
    found, cluster_of = np.unique(clusters, return_inverse=True)
    counts = np.zeros((len(classes), len(found)))
    np.add.at(counts, (class_of, cluster_of), 1.0)
    return counts, class_of, cluster_of


def _xlogx(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0)), 0.0)


def v_measure_pseudo_values(labels: np.ndarray, clusters: np.ndarray) -> tuple[float, np.ndarray]:
    """The V-measure (beta = 1) of `clusters` against `labels` and each item's pseudo-value V + n dV/dn_cell.

    With N H(C|K) = sum_k b_k log b_k - sum n log n, N H(C) = N log N - sum_c a_c log a_c (a, b: class and cluster
    totals), homogeneity h = 1 - H(C|K) / H(C) (1 when H(C) = 0), completeness c likewise with C and K swapped,
    V = 2hc / (h + c) (0 when h + c = 0); d(N H(C|K))/dn_ck = log b_k - log n_ck, d(N H(C))/dn_ck = log N - log a_c.
    """
    counts, class_of, cluster_of = _contingency(np.asarray(labels), np.asarray(clusters))
    total = counts.sum()
    a, b = counts.sum(axis=1), counts.sum(axis=0)
    log_cells = np.log(np.where(counts > 0, counts, 1.0))
    cells = _xlogx(counts).sum()

    def ratio_and_gradient(margin: np.ndarray, other: np.ndarray, along: int) -> tuple[float, np.ndarray]:
        """1 - H(C|K)/H(C) and its gradient over the cells (C: the `margin` side, K: the `other` side)."""
        entropy = _xlogx(np.array(total)) - _xlogx(margin).sum()  # N H(C)
        conditional = _xlogx(other).sum() - cells                    # N H(C|K)
        if entropy <= 0:
            return 1.0, np.zeros_like(counts)
        log_other = np.log(np.where(other > 0, other, 1.0))
        d_conditional = np.expand_dims(log_other, along) - log_cells
        d_entropy = np.log(total) - np.expand_dims(np.log(np.where(margin > 0, margin, 1.0)), 1 - along)
        gradient = -(d_conditional * entropy - conditional * d_entropy) / entropy**2
        return 1.0 - conditional / entropy, gradient

    h, dh = ratio_and_gradient(a, b, 0)
    c, dc = ratio_and_gradient(b, a, 1)
    if h + c <= 0:
        return 0.0, np.zeros(len(class_of))
    v = 2 * h * c / (h + c)
    dv = 2 * (c**2 * dh + h**2 * dc) / (h + c) ** 2
    return float(v), v + total * dv[class_of, cluster_of]


def cluster(vectors: np.ndarray, n_clusters: int, seed: int) -> np.ndarray:
    """MTEB's clustering of frozen vectors: `MiniBatchKMeans` (batch 500, one k-means++ initialisation)."""
    from sklearn.cluster import MiniBatchKMeans

    model = MiniBatchKMeans(n_clusters=n_clusters, batch_size=KMEANS_BATCH_SIZE, n_init=1, random_state=seed)
    return model.fit_predict(vectors)


@dataclass(frozen=True)
class ClusteringEvaluator:
    """V-measure of seeded mini-batch k-means clusterings of `texts` against `labels` (module docstring)."""

    texts: Sequence[str]
    labels: np.ndarray
    seed: int = 0
    runs: int = RUNS
    units_id: Any = None

    def __call__(self, encoder: Encoder, batch_size: int = 32, intervals: bool = True) -> Scored:
        vectors = np.asarray(encoder.encode(list(self.texts), batch_size=batch_size), dtype=np.float32)
        labels = np.asarray(self.labels)
        n_clusters = len(np.unique(labels))
        per_run, unit_sums = [], np.zeros(len(labels))
        for run in range(self.runs):
            v, pseudo = v_measure_pseudo_values(labels, cluster(vectors, n_clusters, self.seed + run))
            per_run.append(v)
            unit_sums += pseudo
        scores = {"v_measure": float(np.mean(per_run)), "v_measure_std": float(np.std(per_run))}
        details = {"texts": len(labels), "clusters": n_clusters, "runs": self.runs,
                   "seeds": [self.seed + r for r in range(self.runs)], "v_measure_per_run": per_run,
                   "kmeans": f"MiniBatchKMeans(n_clusters={n_clusters}, batch_size={KMEANS_BATCH_SIZE}, n_init=1)"}
        units = (UnitValues(unit_sums / self.runs, "text", LINEARISED, digest(self.units_id))
                 if intervals else None)
        return Scored(scores, details, units)
