"""Hand-written metrics of the frozen-embedding tasks: the ones no library computes as the papers define them.

- Polarity Score P and Semantic Similarity Score S with linear-discount weights
  (Polarity-aware semantic retrieval (anonymous, under review) §3.1, Eq. 1-2);
- label-relevance precision@k, MRR@k and nDCG@k of a ranked list (MTEB's metric names, binary relevance);
- alignment and uniformity (Wang & Isola 2020, alpha = 2, t = 2) and tolerance (Wang & Liu 2021;
  InfoDCL (Zhang et al., 2023) Appendix G), on L2-normalised embeddings.

All functions are vectorised numpy; the tests check them against slow, obvious loops.
"""

from __future__ import annotations

import numpy as np


def l2_normalise(x: np.ndarray, dtype: type = np.float32) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero), as `dtype` (float32 for faiss)."""
    x = np.asarray(x, dtype=dtype)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norms, 1e-12)


def row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """cos(a[i], b[i]) for each row i, in float64."""
    return np.sum(l2_normalise(a, np.float64) * l2_normalise(b, np.float64), axis=1)


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def correlations(predicted: np.ndarray, gold: np.ndarray, spearman: bool = True) -> dict[str, float | None]:
    """Spearman and Pearson of predicted vs gold (scipy.stats), under MTEB's names; None (never NaN) when
    either side is constant or there are fewer than two items. `spearman=False` leaves Spearman out (None)
    for a caller that computes it another way, and takes Pearson from `pearson` (scipy's value to within
    1e-15; scipy is not imported)."""
    predicted, gold = np.asarray(predicted, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    if len(gold) < 2 or np.ptp(gold) == 0 or np.ptp(predicted) == 0:
        return {"cosine_spearman": None, "cosine_pearson": None}
    if not spearman:  # scipy.stats costs more to import (~1.3 s) than Pearson on SgTS's 8M pairs
        return {"cosine_spearman": None, "cosine_pearson": _finite(pearson(predicted, gold))}
    from scipy import stats

    return {"cosine_spearman": _finite(stats.spearmanr(predicted, gold).statistic) if spearman else None,
            "cosine_pearson": _finite(stats.pearsonr(predicted, gold).statistic)}


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r = <x - mean x, y - mean y> / (|x - mean x| |y - mean y|), in float64 with two centred
    copies and three dot products: on 8M pairs `numpy.corrcoef`'s stacked copies cost 5x as much."""
    x_centred, y_centred = x - x.mean(), y - y.mean()
    return float(np.dot(x_centred, y_centred) / np.sqrt(np.dot(x_centred, x_centred) * np.dot(y_centred, y_centred)))


def linear_discount_weights(k: int) -> np.ndarray:
    """w_i = 2(k+1-i) / (k(k+1)) for i = 1..k: the i-th neighbour counts k+1-i, normalised to sum 1 (§3.1.1)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    i = np.arange(1, k + 1, dtype=np.float64)
    return 2.0 * (k + 1 - i) / (k * (k + 1))


RANK_WEIGHTS = ("linear-discount", "uniform")


def rank_weights(k: int, scheme: str = "linear-discount") -> np.ndarray:
    """The weights of P and S: the paper's linear discount (§3.1.1), or "uniform" 1/k, what the
    authors' code used by default (its `use_discounting=False`)."""
    if scheme == "uniform":
        return np.full(k, 1.0 / k)
    if scheme != "linear-discount":
        raise ValueError(f"unknown rank weights '{scheme}'; choose {', '.join(RANK_WEIGHTS)}")
    return linear_discount_weights(k)


def polarity_scores(query_labels: np.ndarray, neighbour_labels: np.ndarray, weights: np.ndarray | None = None
                    ) -> np.ndarray:
    """P_M(s) = sum_i w_i * [label(s_i) == label(s)] per query (Eq. 1); neighbour_labels is [n, k], rank order;
    `weights` default to the linear discount."""
    same = (np.asarray(neighbour_labels) == np.asarray(query_labels)[:, None]).astype(np.float64)
    return same @ (linear_discount_weights(same.shape[1]) if weights is None else weights)


def semantic_scores(query_ref: np.ndarray, neighbour_ref: np.ndarray, weights: np.ndarray | None = None
                    ) -> np.ndarray:
    """S_M(s) = sum_i w_i * cos_R(s, s_i) per query (Eq. 2). `query_ref` [n, d] and `neighbour_ref`
    [n, k, d] are the reference model R's vectors of the query and of model M's k neighbours; `weights`
    default to the linear discount."""
    q = l2_normalise(query_ref, np.float64)
    n, k, d = neighbour_ref.shape
    r = l2_normalise(neighbour_ref.reshape(n * k, d), np.float64).reshape(n, k, d)
    cosines = np.einsum("nd,nkd->nk", q, r)
    return cosines @ (linear_discount_weights(k) if weights is None else weights)


def precision_at_k(relevant: np.ndarray, k: int) -> np.ndarray:
    """Fraction of the top k that is relevant, per query; `relevant` is a boolean [n, >=k] in rank order."""
    return np.asarray(relevant[:, :k], dtype=np.float64).mean(axis=1)


def mrr_at_k(relevant: np.ndarray, k: int) -> np.ndarray:
    """1 / rank of the first relevant item within the top k (0 when none), per query."""
    top = np.asarray(relevant[:, :k], dtype=bool)
    first = top.argmax(axis=1)
    return np.where(top.any(axis=1), 1.0 / (first + 1), 0.0)


def ndcg_at_k(relevant: np.ndarray, k: int, n_relevant: np.ndarray) -> np.ndarray:
    """Binary-relevance nDCG@k with DCG = sum_i rel_i / log2(i + 1) (Järvelin & Kekäläinen; pytrec_eval's
    `ndcg_cut`): the ideal ranking puts min(k, n_relevant) relevant items first. 0 when nothing is relevant."""
    top = np.asarray(relevant[:, :k], dtype=np.float64)
    discounts = 1.0 / np.log2(np.arange(2, top.shape[1] + 2))
    dcg = top @ discounts
    ideal_cumulative = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, k + 2)))])
    idcg = ideal_cumulative[np.minimum(np.asarray(n_relevant), k)]
    return np.divide(dcg, idcg, out=np.zeros_like(dcg), where=idcg > 0)


def _pair_cosines(x: np.ndarray, labels: np.ndarray | None) -> np.ndarray:
    """Cosines of every pair i < j of L2-normalised rows (only same-label pairs when `labels` is given),
    read off the Gram matrix so memory stays O(n^2) scalars, never O(n^2 d)."""
    x = l2_normalise(x, np.float64)
    upper = np.triu(np.ones((len(x), len(x)), dtype=bool), k=1)
    if labels is not None:
        labels = np.asarray(labels)
        upper &= labels[:, None] == labels[None, :]
    return (x @ x.T)[upper]


def alignment(x: np.ndarray, labels: np.ndarray, alpha: float = 2.0) -> float:
    """Wang & Isola (2020) alignment E_{(x,y) positive} ||f(x) - f(y)||_2^alpha, with the positive pairs
    taken as every pair (i < j) of same-label examples; rows are L2-normalised first, so
    ||f(x) - f(y)||^2 = 2 - 2 cos. Lower is better."""
    cosines = _pair_cosines(x, labels)
    if len(cosines) == 0:
        raise ValueError("alignment needs at least one pair of examples with the same label")
    squared = np.maximum(2.0 - 2.0 * cosines, 0.0)
    return float(np.mean(squared ** (alpha / 2.0)))


def uniformity(x: np.ndarray, t: float = 2.0) -> float:
    """Wang & Isola (2020) uniformity log E_{x,y} exp(-t ||f(x) - f(y)||_2^2) over every pair i < j of the
    set (their `torch.pdist` form), on L2-normalised rows. Lower (more negative) is more uniform."""
    if len(x) < 2:
        raise ValueError("uniformity needs at least two examples")
    from scipy.special import logsumexp

    squared = np.maximum(2.0 - 2.0 * _pair_cosines(x, None), 0.0)
    return float(logsumexp(-t * squared) - np.log(len(squared)))


def tolerance(x: np.ndarray, labels: np.ndarray) -> float:
    """Wang & Liu (2021) tolerance: the mean cosine f(x)^T f(y) over same-label pairs (i < j) of
    L2-normalised rows. (InfoDCL, Zhang et al. 2023, Eq. 12, writes E over all pairs of cos * 1[same label];
    that equals this value times the fraction of same-label pairs; we report the same-label mean, as Wang &
    Liu define it.)"""
    cosines = _pair_cosines(x, labels)
    if len(cosines) == 0:
        raise ValueError("tolerance needs at least one pair of examples with the same label")
    return float(np.mean(cosines))


def tolerance_pseudo_values(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per-example pseudo-values theta + n dtheta/dw_s of the tolerance when each example s carries a weight
    w_s and each same-label pair w_i w_j (`sentibench.evaluation.units`, linearised bootstrap): with
    a_s = sum_{j != s, same label} cos(x_s, x_j), b_s = (size of s's class) - 1 and D the number of
    same-label pairs, dtheta/dw_s = (a_s - theta b_s) / D."""
    x, labels = l2_normalise(x, np.float64), np.asarray(labels)
    same = labels[:, None] == labels[None, :]
    np.fill_diagonal(same, False)
    a = np.where(same, x @ x.T, 0.0).sum(axis=1)
    b = same.sum(axis=1).astype(np.float64)
    pairs = b.sum() / 2
    theta = a.sum() / 2 / pairs
    return theta + len(x) * (a - theta * b) / pairs
