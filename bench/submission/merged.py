"""A verified submission as a first-class model afterwards.

`bench verify` merges a submission's results, unit values and `card.yaml` into
`<results>/<model>/<revision>/`. Its included weights go to sentibench's model cache
(`submitted_weights`), and the card is installed among the user cards with its checkpoint pointing
there (`install`), so `bench run -m NAME` adds tasks to the same results folder and `bench reproduce`
and `bench compare` work on it. Where the card is not installed (results merged on another machine),
`merged_card` reads the `card.yaml` beside a result under the same rules as verification.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

from sentibench.core.errors import BenchError, Rejected
from sentibench.core.io import atomic_folder, atomic_write_text
from sentibench.core.paths import cache_dir
from sentibench.embed.weights_safety import check_weights_folder, confined
from sentibench.models.catalog.card_schema import ModelCard, validate_card
from sentibench.models.catalog.cards import all_cards, check_card_file, load_card_yaml, user_cards_dir
from sentibench.submission.layout import CARD_FILE, WEIGHT_FILES, WEIGHTS, cache_weight_roots


def submitted_weights(name: str, revision: str) -> Path:
    """Where a verified submission's included weights are kept on this machine."""
    return cache_dir("models", "submitted", name) / revision


def store_weights(source: Path, name: str, revision: str) -> Path:
    """Copy a submission's `weights/` (safetensors and configs only) into `submitted_weights`, at once."""
    target = submitted_weights(name, revision)
    with atomic_folder(target, replace=True) as tmp:
        for path in sorted(p for p in source.rglob("*") if p.is_file() and p.suffix in WEIGHT_FILES):
            destination = tmp / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)
    return target


def _resolved(data: dict[str, Any]) -> dict[str, Any]:
    """The card data with a relative checkpoint (`weights`) resolved to the stored weights, and any
    checkpoint confined to sentibench's caches."""
    if data.get("checkpoint"):
        checkpoint = Path(data["checkpoint"])
        if not checkpoint.is_absolute():
            if checkpoint.parts[:1] != (WEIGHTS,):
                raise BenchError(f"card: a submitted checkpoint lies under {WEIGHTS}/, not '{checkpoint}'")
            checkpoint = submitted_weights(data["name"], data["revision"]).joinpath(*checkpoint.parts[1:])
        data["checkpoint"] = str(confined(checkpoint, cache_weight_roots(), "card: checkpoint"))
        check_weights_folder(Path(data["checkpoint"]), data["name"])
    return data


def merged_card(folder: Path) -> ModelCard:
    """The card merged beside a verified model's results, checked as verification checks it."""
    path = Path(folder) / CARD_FILE
    if not path.is_file():
        raise BenchError(f"no {CARD_FILE} beside the results in {folder}")
    problems = check_card_file(path, label="card")
    if problems:
        raise Rejected(problems)
    return validate_card(_resolved(load_card_yaml(path)), str(path))


def install(card_file: Path) -> str:
    """Make the merged card a user card (checkpoint resolved), unless a card of that name exists already;
    returns one line saying which."""
    data = load_card_yaml(card_file)
    known = all_cards().get(data["name"])
    if known is not None:
        same = known.revision == data["revision"]
        return (f"card '{data['name']}' is already known here" + ("" if same else
                f" with revision {known.revision} (not {data['revision']}); the merged card was not installed"))
    target = user_cards_dir() / f"{data['name']}.yaml"
    atomic_write_text(target, yaml.safe_dump(_resolved(data), sort_keys=False, allow_unicode=True, width=120))
    return f"installed card '{data['name']}' as {target}"
