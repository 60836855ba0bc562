"""Confidence intervals and paired comparisons over a task's evaluation units (docs/tasks.md, "Uncertainty").

Every task with a bootstrap interval reduces its main score to **unit values**: one number per evaluation
unit (a test item, a query, an STS pair, an SgTS sentence) whose mean is the score.
- For a score that is a mean over units (accuracy, Polarity Score P) the values are the per-unit scores
  and resampling them is the ordinary nonparametric bootstrap (Efron & Tibshirani 1993, ch. 13,
  percentile interval).
- For a score that is not a mean (a Spearman correlation over pairs, a mean over sentence pairs) the values
  are pseudo-values theta + L_s, with L_s = n * d theta(w) / d w_s at w = 1 the empirical influence of unit
  s when every unit carries a weight w_s (the infinitesimal jackknife, Efron 1982, ch. 6). Resampling
  them is the linearised bootstrap: a multinomial resample w* gives theta + mean_s (w*_s - 1) L_s, the
  first-order expansion of the statistic recomputed on the resample. It needs no re-ranking per resample,
  so an SgTS interval over millions of pairs costs a few passes over them; tests check it against the
  recomputed bootstrap.
Paired comparisons of two models on the same units resample the per-unit differences of their values with
one set of resampling weights. Seed-based tasks (few-shot) use the t-distribution over seeds instead.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sentibench.io import atomic_write_bytes

LEVEL = 0.95
RESAMPLES = 1000
BOOTSTRAP_SEED = 0
_CHUNK = 100  # resamples drawn at a time (memory: CHUNK x n indices)
LINEARISED = "linearised bootstrap (infinitesimal-jackknife pseudo-values), percentile interval"


@dataclass(frozen=True)
class UnitValues:
    """Per-unit values whose mean is a task's main score, and what the units are."""

    values: np.ndarray
    unit: str            # what one unit is, e.g. "test item", "query", "sentence"
    method: str          # "percentile bootstrap of the mean" or "linearised bootstrap (...)"
    units_hash: str      # identifies the units (and their order): paired comparisons need equal hashes

    def save(self, path: Path) -> None:
        buffer = io.BytesIO()
        np.savez_compressed(buffer, values=np.asarray(self.values, dtype=np.float32),
                            meta=np.frombuffer(json.dumps({"unit": self.unit, "method": self.method,
                                                           "units_hash": self.units_hash}).encode(), dtype=np.uint8))
        atomic_write_bytes(path, buffer.getvalue())

    @classmethod
    def load(cls, path: Path) -> UnitValues:
        with np.load(path, allow_pickle=False) as stored:
            meta = json.loads(stored["meta"].tobytes().decode())
            return cls(stored["values"].astype(np.float64), meta["unit"], meta["method"], meta["units_hash"])


def units_path(result_path: Path) -> Path:
    """Where a result's unit values live: beside its JSON, `<task>.units.npz`."""
    return Path(result_path).with_suffix(".units.npz")


def digest(payload: object) -> str:
    """sha256 of a JSON-serialisable payload (ids, texts, hashes)."""
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False, default=str).encode()).hexdigest()


def bootstrap_means(values: np.ndarray, resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """Means of `resamples` resamples (n units drawn with replacement) of the rows of `values` ([n] or
    [n, c]: columns share the resampled units, as a paired comparison needs)."""
    values = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, resamples, _CHUNK):
        index = rng.integers(0, len(values), size=(min(_CHUNK, resamples - start), len(values)))
        out.append(values[index].mean(axis=1))
    return np.concatenate(out)


def interval(values: np.ndarray, resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED,
             level: float = LEVEL) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of `values`."""
    replicates = bootstrap_means(values, resamples, seed)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(replicates, [tail, 100 - tail])
    return float(low), float(high)


def describe(units: UnitValues, resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED,
             level: float = LEVEL) -> dict:
    """The record a result carries: the interval and how it was made."""
    low, high = interval(units.values, resamples, seed, level)
    return {"low": low, "high": high, "level": level, "method": units.method, "unit": units.unit,
            "n_units": len(units.values), "resamples": resamples, "seed": seed, "units_hash": units.units_hash}


def t_interval(values: Sequence[float], level: float = LEVEL) -> dict:
    """Student-t interval of the mean of per-seed scores (seeds are the units); None bounds for < 2 seeds."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return {"low": None, "high": None, "level": level, "method": "t-interval over seeds", "unit": "seed",
                "n_units": len(values)}
    from scipy.special import stdtrit  # Student t's quantile function: much lighter to import than scipy.stats

    half = stdtrit(len(values) - 1, (1 + level) / 2) * values.std(ddof=1) / np.sqrt(len(values))
    return {"low": float(values.mean() - half), "high": float(values.mean() + half), "level": level,
            "method": "t-interval over seeds", "unit": "seed", "n_units": len(values)}


def paired_bootstrap(a: np.ndarray, b: np.ndarray, resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED,
                     level: float = LEVEL) -> dict:
    """Difference mean(a) - mean(b) over the same units: percentile interval of the resampled difference
    and the two-sided p-value (1 + #{|d* - d| >= |d|}) / (B + 1) of the null "no difference" (the
    resampled differences centred on the observed one stand in for the null distribution; Efron &
    Tibshirani 1993, §16.4)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    observed = float(a.mean() - b.mean())
    replicates = bootstrap_means(a - b, resamples, seed)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(replicates, [tail, 100 - tail])
    extreme = np.sum(np.abs(replicates - observed) >= abs(observed))
    return {"difference": observed, "low": float(low), "high": float(high),
            "p_value": float((1 + extreme) / (resamples + 1)), "test": "paired bootstrap", "resamples": resamples,
            "seed": seed, "level": level}


def mean_units(values: np.ndarray, unit: str, ids: object) -> UnitValues:
    """Unit values of a score that is a plain mean over units; `ids` identify the units (hashed)."""
    return UnitValues(np.asarray(values, dtype=np.float64), unit, "percentile bootstrap of the mean", digest(ids))


def _midranks(values: np.ndarray) -> tuple[np.ndarray, Callable[..., np.ndarray]]:
    """Mid-ranks of `values` (the items below plus half the item's tie group, itself included: ranks minus
    1/2, an offset Pearson ignores) and `contract(f, out)` = sum_k a_mk f_k per item m, with a_mk = 1 when
    values[k] > values[m] and 1/2 when tied: the derivative of every item's weighted mid-rank in item m's
    weight, contracted with f (written into `out`, which must not be f).

    Both are computed along the sorted order (one argsort; per tie group: a sum, then a suffix sum) and
    scattered back once, with no per-item group index, in buffers reused from call to call: on SgTS's 8M
    pairs each fresh 64 MB array costs more than the arithmetic on it. Every f contracted here (ones, a 0/1
    gold, mid-ranks) holds half-integers, so each sum is exact and does not depend on the order of
    summation."""
    values = np.asarray(values)
    order = np.argsort(values)  # tie groups come from the sorted values, so stability is not needed
    size = len(order)
    work = values[order]  # the sorted values, then the sorted f of each contraction
    starts = np.flatnonzero(np.concatenate([[True], work[1:] != work[:-1]]))
    ties = len(starts) < size
    counts = np.diff(np.append(starts, size)) if ties else None
    along = np.empty(size)  # the contraction in sorted order

    def along_sorted(f_sorted: np.ndarray, half: np.ndarray) -> np.ndarray:
        if ties:
            per_group = np.add.reduceat(f_sorted, starts)
            return np.repeat(per_group.sum() - np.cumsum(per_group) + per_group / 2, counts)
        np.cumsum(f_sorted, out=along)
        np.subtract(f_sorted.sum(), along, out=along)  # the items above
        np.add(along, np.multiply(f_sorted, 0.5, out=half), out=along)  # plus half of itself (x/2 == x*0.5)
        return along

    if ties:
        ranks_sorted = np.subtract(size, along_sorted(np.ones(size), work))
    else:  # item r of the sorted order has mid-rank r + 1/2 (what the formula above gives, exactly)
        ranks_sorted = np.ones(size)
        np.cumsum(ranks_sorted, out=ranks_sorted)
        ranks_sorted -= 0.5
    ranks = np.empty(size)
    ranks[order] = ranks_sorted

    def contract(f: np.ndarray, out: np.ndarray) -> np.ndarray:
        if f is ranks:
            f_sorted = ranks_sorted
        else:
            f_sorted = np.take(np.asarray(f, dtype=np.float64), order, out=work)
        out[order] = along_sorted(f_sorted, work)
        return out

    return ranks, contract


def spearman_pseudo_values(similarity: np.ndarray, gold: np.ndarray, first: np.ndarray,
                           second: np.ndarray | None, n_units: int) -> tuple[float, np.ndarray]:
    """Spearman's rho of `similarity` vs `gold` over items k, and its pseudo-values per unit (module
    docstring), when item k carries weight w[first[k]] * w[second[k]] (units are sentences, items their
    pairs: SgTS) or w[first[k]] (second None: the items are the units, STS).

    The weighted rho is the weighted Pearson correlation of weighted mid-ranks X (of the similarity) and
    Y (of the gold; a 0/1 gold is used as is, an affine map of its ranks), X_k = sum_l W_l a_lk with
    a_lk = 1 below, 1/2 tied. At W = 1 (P items, means over items) its derivative in W_m is, with
    C = cov(X, Y), A = var X, B = var Y and the contractions U_m = sum_k a_mk, V_m = sum_k a_mk Y_k,
    Z_m = sum_k a_mk X_k (`_midranks`; the same with b for Y's ranks: U'_m, T_m = sum_k b_mk X_k,
    Z'_m):
      P dC = X_m Y_m - E[XY] + V_m + T_m - E[Y] (X_m - E[X] + U_m) - E[X] (Y_m - E[Y] + U'_m)
      P dA = X_m^2 - E[X^2] + 2 Z_m - 2 E[X] (X_m - E[X] + U_m)        (dB likewise with Y)
      d rho = dC / sqrt(AB) - rho (dA / A + dB / B) / 2,
    and a unit's derivative sums those of its items. `tests/test_uncertainty.py` checks it against
    finite differences of a slow weighted Spearman.

    Evaluated operation by operation in six reused buffers (x_c, y_c, scratch, d_cov, d_var_x, d_var_y):
    the same IEEE operations in the same order as the formulas written out (so the same bits), without a
    fresh array per operation."""
    gold = np.asarray(gold, dtype=np.float64)
    n = len(gold)
    x, contract_x = _midranks(similarity)
    binary = bool(((gold == 0.0) | (gold == 1.0)).all())
    y, contract_y = (gold, None) if binary else _midranks(gold)
    mx, my = x.mean(), y.mean()
    x_c, y_c, scratch = np.subtract(x, mx), np.subtract(y, my), np.empty(n)
    cov = np.mean(np.multiply(x_c, y_c, out=scratch))
    var_x = np.mean(np.multiply(x_c, x_c, out=scratch))  # = x.var(): numpy's var is this mean
    var_y = np.mean(np.multiply(y_c, y_c, out=scratch))
    rho = cov / np.sqrt(var_x * var_y)
    x_c += np.subtract(n, x, out=scratch)  # X_m - E[X] + U_m, U_m = n - X_m: items above m, half its ties
    d_cov = np.multiply(x, y)
    d_cov -= np.mean(d_cov)
    d_cov += contract_x(y, scratch)
    d_cov -= np.multiply(x_c, my, out=scratch)
    d_cov -= np.multiply(y_c, mx, out=scratch)
    d_var_x = np.multiply(x, x)
    d_var_x -= np.mean(d_var_x)
    d_var_x += np.multiply(contract_x(x, scratch), 2, out=scratch)
    d_var_x -= np.multiply(x_c, 2 * mx, out=scratch)
    d_var_y = np.multiply(y, y)
    d_var_y -= np.mean(d_var_y)
    d_var_y -= np.multiply(y_c, 2 * my, out=scratch)
    if contract_y is not None:
        u_y = np.subtract(n, y, out=x_c)  # x_c and y_c are done with
        contracted = contract_y(x, scratch)
        contracted -= np.multiply(u_y, mx, out=y_c)
        d_cov += contracted
        contracted = np.multiply(contract_y(y, scratch), 2, out=scratch)
        contracted -= np.multiply(u_y, 2 * my, out=y_c)
        d_var_y += contracted
    d_var_x /= var_x
    d_var_y /= var_y
    d_var_x += d_var_y
    d_var_x *= rho
    d_var_x /= 2
    per_item = np.divide(d_cov, np.sqrt(var_x * var_y), out=d_cov)
    per_item -= d_var_x
    per_item /= n
    per_unit = np.bincount(first, weights=per_item, minlength=n_units)
    if second is not None:
        per_unit += np.bincount(second, weights=per_item, minlength=n_units)
    return float(rho), rho + n_units * per_unit
