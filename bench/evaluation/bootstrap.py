"""Percentile bootstrap intervals and paired bootstrap tests over unit values (`evaluation.units`), and
the t-interval over seeds.

Resampling the units' values with replacement is the ordinary nonparametric bootstrap (Efron & Tibshirani
1993, ch. 13, percentile interval); for pseudo-values it is the linearised bootstrap. Paired comparisons of
two models on the same units resample the per-unit differences of their values with one set of resampling
weights. Seed-based tasks (few-shot) use the t-distribution over seeds instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sentibench.evaluation.units import UnitValues

LEVEL = 0.95
RESAMPLES = 1000
BOOTSTRAP_SEED = 0
_CHUNK = 100  # resamples drawn at a time (memory: CHUNK x n indices)


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
