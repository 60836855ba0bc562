"""Seeds. Every random generator sentibench feeds takes a seed from 0 to 2**32 - 1 (NumPy's `RandomState` and
scikit-learn's `random_state` stop there; torch, NumPy's `Generator` and `random` take more): that is what a
result may record (`SEED_LIMIT`). A seed the user gives is at most 2**31 - 1 (`USER_SEED_LIMIT`), so that every
seed derived from it by adding an offset below 2**31 (a few-shot task's `seed + i`, a sample's `seed +
1_000_003`, a training epoch's `seed + epoch`) is one every generator takes; it is checked once, as it is parsed."""

from __future__ import annotations

import argparse

SEED_LIMIT = 2**32
"""Seeds that reach a generator (and that a result records) are below this."""
USER_SEED_LIMIT = 2**31
"""Seeds a user gives are below this: what is derived from one, by an offset below it, stays below `SEED_LIMIT`."""


def parse_seed(text: str) -> int:
    """An argparse type: a seed, checked as it is parsed (a bad one is argparse's own one-line usage error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value < USER_SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"a seed is from 0 to 2**31 - 1 ({USER_SEED_LIMIT - 1}), got {value}")
    return value
