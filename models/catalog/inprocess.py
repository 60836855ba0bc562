"""Models given to `runner.run` as Python objects rather than names: a sentence-transformers model, an
mteb encoder (`mteb.get_model(...)`), a sentibench `TransformerEncoder`, or anything with
`encode(list[str])` returning one row per text. `as_model` names an object from its own metadata (an mteb
encoder's `ModelMeta`, a sentence-transformers model's card data or the folder it was loaded from) unless
the user gives `name=`; results go to `<output>/<name>/<revision>/`.

The revision names the weights: the user's `revision=`, else the sha256 of the object's torch weights as
they are in memory (`sha256-<12 hex>`), else `in-process`. Vectors are cached only under a revision that
pins them (given or hashed): an object whose weights cannot be read is encoded afresh on every run.
Fine-tuning tasks get a trainable copy only from a sentibench `TransformerEncoder`.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.embed.cache import CachedEncoder
from sentibench.embed.encoders import Encoder, ObjectEncoder
from sentibench.embed.torch_encoders import TransformerEncoder
from sentibench.models.catalog.cards import ModelCard, all_cards

UNVERSIONED = "in-process"


def _torch_module(model: Any) -> Any:
    """The torch module holding the object's weights (the object itself, or its `.model`), or None."""
    try:
        import torch
    except ImportError:
        return None
    for candidate in (model, getattr(model, "model", None)):
        if isinstance(candidate, torch.nn.Module):
            return candidate
    return None


def weights_sha256(model: Any) -> str | None:
    """sha256 over the object's torch weights as they are now (names, dtypes, shapes and bytes), or None."""
    import torch

    module = _torch_module(model)
    if module is None:
        return None
    digest = hashlib.sha256()
    for key, tensor in sorted(module.state_dict().items()):
        flat = tensor.detach().cpu().contiguous().reshape(-1)
        digest.update(f"{key}|{flat.dtype}|{tuple(tensor.shape)}\n".encode())
        digest.update(flat.view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class InProcessModel:
    """A model object for `runner.run(models=[InProcessModel("my-model", model), ...])` (or `as_model`)."""

    name: str
    model: Any
    revision: str | None = None  # None: the weights' sha256 where readable, else UNVERSIONED
    weights: str | None = field(default=None, init=False)  # the sha256 of the weights when it was computed

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or "/" in self.name:
            raise BenchError(f"name an in-process model with a plain name (got '{self.name}'); use org__name")
        if self.name in all_cards():
            raise BenchError(f"'{self.name}' is a model card; give the in-process model another name")
        if not callable(getattr(self.model, "encode", None)):
            raise BenchError(f"in-process model '{self.name}' ({type(self.model).__name__}) has no encode method")
        if self.revision is None:
            digest = weights_sha256(self.model)
            object.__setattr__(self, "weights", digest)
            object.__setattr__(self, "revision", f"sha256-{digest[:12]}" if digest else UNVERSIONED)

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
        if self.weights:
            identity["weights"] = self.weights
        return CachedEncoder(self.encoder(), identity, enabled=use_cache and self.revision != UNVERSIONED)

    def trainable(self) -> TransformerEncoder | None:
        """A fresh copy to fine-tune (the user's object is never changed)."""
        return copy.deepcopy(self.model) if isinstance(self.model, TransformerEncoder) else None


def _plain(text: str) -> str:
    """A hub id or folder name as a plain model name (`org/name` -> `org__name`, MTEB's rule)."""
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in text.replace("/", "__")).strip(".-")
    return name or "model"


def _own_name(model: Any) -> str | None:
    """The name an object gives itself: an mteb `ModelMeta` name, a sentence-transformers model's card data
    (model id, then base model), or the folder or hub id its first module was loaded from."""
    meta = getattr(model, "mteb_model_meta", None)
    if meta is not None and getattr(meta, "name", None):
        return _plain(meta.name)
    card_data = getattr(model, "model_card_data", None)
    for key in ("model_id", "base_model"):
        value = getattr(card_data, key, None)
        if isinstance(value, str) and value:
            return _plain(value)
    tokenizer = getattr(model, "tokenizer", None)
    source = getattr(tokenizer, "name_or_path", None)
    if isinstance(source, str) and source:
        path = Path(source).expanduser()
        if path.is_absolute() or source.startswith("."):  # a folder: its name plus a hash of where it is
            where = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]
            return f"{_plain(path.name)}-{where}"
        return _plain(source)
    return None


def as_model(model: Any, name: str | None = None, revision: str | None = None) -> InProcessModel:
    """An object the user holds as an `InProcessModel`, named `name` or from its own metadata; a wrong
    object is a one-line error."""
    if isinstance(model, InProcessModel):
        return model
    if not callable(getattr(model, "encode", None)):
        raise BenchError(f"a model must be a card name, a folder, a hub id, a ModelCard or an object with "
                         f"encode(list[str]) -> array; got a {type(model).__name__}")
    if name is None:
        name = _own_name(model)
        if name is None:
            raise BenchError(f"a {type(model).__name__} object carries no name of its own; pass it as "
                             "InProcessModel('my-name', model) or as_model(model, name='my-name')")
        if name in all_cards():
            name = f"{name}-in-process"  # an object is not the card of the same name (its weights may differ)
    meta_revision = getattr(getattr(model, "mteb_model_meta", None), "revision", None)
    return InProcessModel(name, model, revision if revision is not None else meta_revision)
