"""`pytest.approx` for mappings whose values are numbers or (nested) sequences of numbers: pytest refuses
nested structures inside a mapping (9.2 made it an error for every nesting), so compare the flat mapping
{(key, position, ...): number} instead."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def flat(mapping: Mapping[str, Any]) -> dict[tuple, float]:
    """{key: [(1, 2), (3, 4)]} -> {(key, 0, 0): 1, (key, 0, 1): 2, (key, 1, 0): 3, (key, 1, 1): 4}."""
    out: dict[tuple, float] = {}

    def walk(path: tuple, value: Any) -> None:
        if isinstance(value, Sequence) and not isinstance(value, str):
            for i, item in enumerate(value):
                walk((*path, i), item)
        else:
            out[path] = value

    for key, value in mapping.items():
        walk((key,), value)
    return out
