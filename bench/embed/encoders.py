"""Encoders: one protocol, `encode(texts) -> float32 [n, d]`, like sentence-transformers.

`Encoder` is what every task, evaluator and cache takes; `ObjectEncoder` makes one of any object with an
`encode(list[str])`. The harness's own encoders are in `torch_encoders` (how their texts are cut into forward
passes: `batching`; devices and dtypes: `devices`), a checkpoint's identity in `weights_digest`. numpy and
torch are imported by the code that runs a model, never by importing these modules (`bench list` reads model
cards, which import `devices.DTYPES`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class Encoder(Protocol):
    """Anything that turns texts into one float32 row each. Optional, and forwarded by the embedding cache:
    `fit(texts)` for encoders that learn from a task's train split (bag-of-words), `max_length` and
    `truncated_count(texts)` for encoders with a token limit (results record how many texts were cut)."""

    name: str

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray: ...


class ObjectEncoder:
    """Any object with an `encode(list[str])` as a sentibench encoder; `batch_size` and `show_progress_bar`
    are passed when its `encode` takes them (a sentence-transformers model does, a plain function may not)."""

    def __init__(self, name: str, model: Any) -> None:
        import inspect

        self.name, self.model = name, model
        try:
            parameters = inspect.signature(model.encode).parameters
        except (TypeError, ValueError):  # a builtin without a signature: pass the texts only
            parameters = {}
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        self._accepted = {"batch_size", "show_progress_bar"} if takes_any else set(parameters)

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray:
        import numpy as np

        options = {"batch_size": batch_size, "show_progress_bar": bool(show_progress_bar)}
        vectors = self.model.encode(list(texts), **{k: v for k, v in options.items() if k in self._accepted})
        if hasattr(vectors, "detach"):  # a torch tensor
            vectors = vectors.detach().cpu().float().numpy()
        return np.asarray(vectors, dtype=np.float32)
