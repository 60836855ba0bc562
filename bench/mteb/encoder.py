"""Encoders across the two interfaces (sentibench's `Encoder` and mteb's encoder).

- `SentibenchEncoder`: a sentibench model card (packaged, trained on first use, local folder, hub id) as an
  mteb encoder (`mteb.models.AbsEncoder`), with the card's `ModelMeta` (cosine as `ScoringFunction`), behind
  our embedding cache. `get_model(name)` builds it; `mteb.evaluate(get_model("senticse-minilm"), tasks)` runs
  any mteb task on it (MTEB's own tasks need the Hub for their data; `sentibench.mteb.get_tasks` never does).
  The bag-of-words baseline fits on a sentibench task's train split first, so it runs on our tasks only.
- `MtebModelEncoder` (the other direction) lives in `sentibench.embed.mteb_model`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sentibench.core.errors import BenchError
from sentibench.embed.encoders import Encoder
from sentibench.embed.mteb_model import require_mteb
from sentibench.mteb.meta import model_meta


def _texts(inputs) -> list[str]:
    return [text for batch in inputs for text in batch["text"]]


def _encoder_class() -> type:
    require_mteb()
    from mteb.models.abs_encoder import AbsEncoder

    class SentibenchEncoder(AbsEncoder):
        """A sentibench model inside mteb (see the module docstring)."""

        def __init__(self, model_name: str, revision: str | None = None, *, device: str | None = None,
                     use_cache: bool = True, encoder: Encoder | None = None, **kwargs: Any) -> None:
            """`model_name`: a card, local folder or hub id; or any name for an in-process `encoder`."""
            from sentibench.models import card_for, load_encoder, prepare
            from sentibench.models.catalog.cards import ModelCard
            from sentibench.mteb.meta import mteb_revision

            if encoder is not None:
                card = ModelCard(name=model_name, loader="in-process", description="in-process encoder",
                                 revision=revision or "in-process")
            else:
                card = prepare(card_for(model_name))
                if revision is not None and revision not in (card.revision, card.hub_revision, mteb_revision(card)):
                    raise BenchError(f"model '{card.name}' is at revision {card.revision}, not {revision}")
                encoder = load_encoder(card, device=device, use_cache=use_cache)
            self.card, self.model = card, encoder
            self.mteb_model_meta = model_meta(card)
            self._fitted_on: str | None = None

        def encode(self, inputs, *, task_metadata, hf_split: str, hf_subset: str, prompt_type=None,
                   **kwargs: Any) -> np.ndarray:
            self._fit_for(task_metadata.name)
            return self.model.encode(_texts(inputs), batch_size=kwargs.get("batch_size", 32),
                                     show_progress_bar=kwargs.get("show_progress_bar"))

        def _fit_for(self, task_name: str) -> None:
            """Bag-of-words: fit on the sentibench task's train split, as `bench run` does
            (`models.kinds.fit_on_train_split`)."""
            if not getattr(self.model, "learns_from_data", False) or self._fitted_on == task_name:
                return
            from sentibench.models.catalog.kinds import fit_on_train_split
            from sentibench.tasks.registry import all_tasks

            task = all_tasks().get(task_name)
            if task is None:
                raise BenchError(f"model '{self.card.name}' fits on a sentibench task's train split; "
                                 f"mteb task '{task_name}' has none here")
            fit_on_train_split(self.model, task.metadata.dataset)
            self._fitted_on = task_name

    return SentibenchEncoder


def get_model(name: str, device: str | None = None, use_cache: bool = True, encoder: Encoder | None = None):
    """The sentibench model `name` (card, local folder or hub id), or an in-process sentibench `encoder`
    called `name`, as an mteb encoder."""
    return _encoder_class()(name, device=device, use_cache=use_cache, encoder=encoder)
