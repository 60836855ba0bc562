"""`pytest.approx` for mappings whose values are tuples: newer pytest refuses nested structures, so compare
the flat mapping {(key, position): number} instead."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def flat(mapping: Mapping[str, Sequence[float]]) -> dict[tuple[str, int], float]:
    return {(key, i): value for key, values in mapping.items() for i, value in enumerate(values)}
