"""The exact one-line error a call must raise (the mutation tests check every refusal's wording)."""

from __future__ import annotations

import pytest

from sentibench.core.errors import BenchError


def fails(message: str, call, *args, **kwargs) -> None:
    """`call(*args, **kwargs)` raises a `BenchError` whose text is exactly `message`."""
    with pytest.raises(BenchError) as caught:
        call(*args, **kwargs)
    assert str(caught.value) == message
