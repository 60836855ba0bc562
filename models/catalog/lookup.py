"""A model's name to its card: a registered card (packaged or the user's), a local checkpoint folder, or a hub id
pinned to a commit. The first step of `catalog.opening`; nothing here loads weights."""

from __future__ import annotations

import hashlib
from pathlib import Path

from sentibench.core.errors import BenchError
from sentibench.data.hub import hub_snapshot
from sentibench.embed.weights_digest import weights_digest
from sentibench.models.catalog.card_schema import make_card
from sentibench.models.catalog.cards import ModelCard, get_card
from sentibench.training.checkpoint import MODULE_CONFIG, checkpoint_kind


def looks_like_path(name: str) -> bool:
    return name.startswith((".", "/", "~")) or "/" in name and Path(name).expanduser().exists()


def card_for(name: str) -> ModelCard:
    """A registered card; else an ad-hoc card for a local checkpoint folder or a hub id.

    A bare name is a card first (a folder in the working directory never shadows a card); write `./name`
    for the folder. A local folder's model name is its basename plus a hash of its absolute path, so two
    folders called `model` never share results or cache entries. A hub id (`org/name`, or
    `org/name@revision`) is pinned to the commit its revision resolves to, local cache first.
    """
    if not looks_like_path(name):
        try:
            return get_card(name)
        except BenchError as unknown:
            if not Path(name).is_dir() and not ("/" in name and not name.startswith((".", "/", "~"))):
                raise unknown from None
    path = Path(name).expanduser()
    if path.is_dir():
        return local_folder_card(path)
    if "/" in name and not name.startswith((".", "/", "~")):
        repo_id, _, revision = name.partition("@")
        commit = hub_snapshot(repo_id, revision or "main", f"hub model '{repo_id}'").name
        return make_card(name=repo_id.replace("/", "__"), loader="sentence-transformers",
                         description=f"hub model {repo_id}", revision=commit, hub_id=repo_id)
    raise BenchError(f"model folder '{name}' does not exist")


def local_folder_card(path: Path, name: str | None = None) -> ModelCard:
    """A card for a local checkpoint folder of any kind (transformers, sentence-transformers, sentibench
    module checkpoint); the revision is a digest of its weight files."""
    path = path.resolve()
    kind = checkpoint_kind(path)
    if kind is None:
        raise BenchError(f"'{path}' is not a model folder (no config.json, modules.json or {MODULE_CONFIG})")
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
    loader = {"module": "trained", "sentence-transformers": "sentence-transformers"}.get(kind, "transformers")
    return make_card(name=name or f"{safe_name(path.name)}-{digest}", loader=loader,
                     description=f"local checkpoint {path}", revision=weights_digest(path)[:12],
                     checkpoint=str(path), pooling="mean" if kind == "transformers" else None)


def safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in text).strip(".-") or "model"
