"""`bench card new NAME --from PATH_OR_HUB_ID`: a model card written from the model itself.

The model is loaded once (safely: see `sentibench.embed.weights_safety`) and measured: parameter count, embedding
size (one text encoded), max length and pooling as the loaded pipeline applies them (a sentence-transformers
folder's own config where present). What only a person knows (training data, license, citation) is left
as a `FILL IN:` blank that card validation refuses until it is replaced.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import yaml

from sentibench.core.errors import BenchError
from sentibench.core.io import STDOUT, write_output
from sentibench.embed.torch_encoders import SentenceTransformerEncoder, TransformerEncoder
from sentibench.models.catalog.card_schema import ModelCard, make_card
from sentibench.models.catalog.cards import TO_FILL, all_cards
from sentibench.models.catalog.loaders import build_encoder, weights_folder
from sentibench.models.catalog.lookup import local_folder_card, looks_like_path

CARD_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")


def _source_card(name: str, source: str) -> ModelCard:
    if looks_like_path(source) or Path(source).expanduser().is_dir():
        folder = Path(source).expanduser()
        if not folder.is_dir():
            raise BenchError(f"model folder '{source}' does not exist")
        return local_folder_card(folder, name=name)
    if "/" not in source:
        raise BenchError(f"'{source}' is neither a folder nor a hub id (owner/name)")
    card = make_card(name=name, loader="sentence-transformers", description=f"hub model {source}",
                     revision="main", hub_id=source)
    snapshot = weights_folder(card)  # the hub snapshot, fetched once (fails fast offline)
    return dataclasses.replace(card, revision=snapshot.name)


def _parameters(encoder: object) -> int | None:
    model = getattr(encoder, "model", None)
    return int(sum(p.numel() for p in model.parameters())) if model is not None else None


def _normalizes(encoder: object) -> bool:
    """Whether the model's vectors come out unit-length: a sentence-transformers pipeline with a Normalize
    module (its modules.json), or an encoder built with normalisation."""
    if isinstance(encoder, SentenceTransformerEncoder):
        return any(type(module).__name__ == "Normalize" for module in encoder.model)
    return bool(getattr(encoder, "normalize", False))


def scaffold(name: str, source: str, device: str | None = "cpu") -> str:
    """The YAML text of a new card for `source` (a local folder or a hub id), measured from the model."""
    if not CARD_NAME.fullmatch(name):
        raise BenchError(f"card name '{name}' must be lower-case letters, digits, '.', '_' and '-'")
    if name in all_cards():
        raise BenchError(f"a model card named '{name}' already exists; choose another name")
    card = _source_card(name, source)
    encoder = build_encoder(card, device)
    dimension = int(encoder.encode(["An example sentence."], batch_size=1).shape[1])
    measured = {
        "name": name,
        "description": f"{card.description} (card written by `bench card new`)",
        "loader": card.loader,
        "revision": card.revision,
        **({"checkpoint": card.checkpoint} if card.checkpoint else {"hub_id": card.hub_id}),
        "pooling": encoder.pooling if isinstance(encoder, TransformerEncoder) else None,
        "max_length": getattr(encoder, "max_length", None),
        "normalize": _normalizes(encoder),
        "parameters": _parameters(encoder),
        "embedding_size": dimension,
    }
    if isinstance(encoder, SentenceTransformerEncoder):
        measured.pop("pooling")  # the pipeline pools itself
    human = (
        "# Fields only a person can fill in; `bench card check` refuses the card until every FILL IN is replaced.\n"
        f"training_data: ['{TO_FILL} sentibench dataset names the model was trained or selected on, [] if none']\n"
        f"license: '{TO_FILL} the weights'' license, e.g. Apache-2.0'\n"
        f"citation: '{TO_FILL} paper or model page to cite'\n"
    )
    return yaml.safe_dump(measured, sort_keys=False, allow_unicode=True, width=120) + human


def write_new_card(name: str, source: str, output: Path | str | None, device: str | None = "cpu") -> str:
    from sentibench.models.catalog.cards import user_cards_dir

    target = output or user_cards_dir() / f"{name}.yaml"
    if str(target) != STDOUT and (Path(target).exists() or Path(target).is_symlink()):
        raise BenchError(f"'{target}' already exists; remove it or pass --output elsewhere")
    return write_output(target, scaffold(name, source, device))
