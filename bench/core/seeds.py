"""Seeds: whole numbers from 0 to 2**32 - 1, the range every random generator sentibench feeds accepts (NumPy's
`RandomState` and scikit-learn's `random_state` stop there; torch, NumPy's `Generator` and `random` take more)."""

from __future__ import annotations

import argparse

SEED_LIMIT = 2**32
"""Seeds are below this."""


def parse_seed(text: str) -> int:
    """An argparse type: a seed, checked as it is parsed (a bad one is argparse's own one-line usage error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value < SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"a seed is from 0 to 2**32 - 1 ({SEED_LIMIT - 1}), got {value}")
    return value
