"""Models given to `runner.run` as Python objects rather than names: a sentence-transformers model, an
mteb encoder (`mteb.get_model(...)`), or anything with `encode(texts, batch_size, show_progress_bar)`
returning one row per text. The user names it; results go to `<output>/<name>/<revision>/`.

An in-process model has no weights folder to fingerprint, so its vectors are cached only when the user
gives a `revision` (vouching that name + revision pin the weights); without one it is encoded afresh.
Fine-tuning tasks get a trainable copy only from a sentibench `TransformerEncoder`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.embed.cache import CachedEncoder
from sentibench.embed.encoders import Encoder, ObjectEncoder, TransformerEncoder
from sentibench.models.cards import ModelCard, all_cards

UNVERSIONED = "in-process"


@dataclass(frozen=True)
class InProcessModel:
    """A model object for `runner.run(models=[InProcessModel("my-model", model), ...])`."""

    name: str
    model: Any
    revision: str = UNVERSIONED

    def __post_init__(self) -> None:
        if not self.name or "/" in self.name:
            raise BenchError(f"name an in-process model with a plain name (got '{self.name}'); use org__name")
        if self.name in all_cards():
            raise BenchError(f"'{self.name}' is a model card; give the in-process model another name")
        if not callable(getattr(self.model, "encode", None)):
            raise BenchError(f"in-process model '{self.name}' ({type(self.model).__name__}) has no encode method")

    @property
    def card(self) -> ModelCard:
        return ModelCard(name=self.name, loader="in-process", revision=self.revision,
                         description=f"in-process {type(self.model).__module__}.{type(self.model).__name__}")

    def encoder(self) -> Encoder:
        if isinstance(self.model, TransformerEncoder) or not hasattr(self.model, "mteb_model_meta"):
            return ObjectEncoder(self.name, self.model)
        from sentibench.embed.mteb_model import MtebModelEncoder  # an mteb encoder: its own encode protocol

        return MtebModelEncoder(self.model)

    def open(self, use_cache: bool = True) -> CachedEncoder:
        identity = {"model": self.name, "loader": "in-process", "revision": self.revision}
        return CachedEncoder(self.encoder(), identity, enabled=use_cache and self.revision != UNVERSIONED)

    def trainable(self) -> TransformerEncoder | None:
        """A fresh copy to fine-tune (the user's object is never changed)."""
        return copy.deepcopy(self.model) if isinstance(self.model, TransformerEncoder) else None
