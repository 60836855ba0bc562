"""The resampling unit: a task's main score as one value per evaluation unit (docs/tasks.md, "Uncertainty").

Every task with a bootstrap interval reduces its main score to **unit values**: one number per evaluation
unit (a test item, a query, an STS pair, an SgTS sentence) whose mean is the score.
- For a score that is a mean over units (accuracy, Polarity Score P) the values are the per-unit scores
  (`mean_units`) and resampling them is the ordinary nonparametric bootstrap (`evaluation.bootstrap`).
- For a score that is not a mean (a Spearman correlation over pairs, a mean over sentence pairs) the values
  are pseudo-values theta + L_s, with L_s = n * d theta(w) / d w_s at w = 1 the empirical influence of unit
  s when every unit carries a weight w_s (the infinitesimal jackknife, Efron 1982, ch. 6). Resampling
  them is the linearised bootstrap (`LINEARISED`): a multinomial resample w* gives
  theta + mean_s (w*_s - 1) L_s, the first-order expansion of the statistic recomputed on the resample. It
  needs no re-ranking per resample, so an SgTS interval over millions of pairs costs a few passes over
  them (`evaluation.spearman`); tests check it against the recomputed bootstrap.
A result's unit values are stored beside its JSON by the results layer (`results.unit_values_file`), so paired
comparisons can read them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sentibench.core.hashing import digest

MEAN = "percentile bootstrap of the mean"
LINEARISED = "linearised bootstrap (infinitesimal-jackknife pseudo-values), percentile interval"


@dataclass(frozen=True)
class UnitValues:
    """Per-unit values whose mean is a task's main score, and what the units are."""

    values: np.ndarray
    unit: str            # what one unit is, e.g. "test item", "query", "sentence"
    method: str          # how the interval resamples them: MEAN or LINEARISED
    units_hash: str      # identifies the units (and their order): paired comparisons need equal hashes


def mean_units(values: np.ndarray, unit: str, ids: object) -> UnitValues:
    """Unit values of a score that is a plain mean over units; `ids` identify the units (hashed)."""
    return UnitValues(np.asarray(values, dtype=np.float64), unit, MEAN, digest(ids))
