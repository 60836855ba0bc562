"""Model cards: one small YAML file per model, validated on load, found by name.

Packaged cards live in `models/catalog/cards/`; cards written by `bench train` (or by hand) in
`$SENTIBENCH_HOME/cards/` are found too. A card says what the model is, where its weights come from
(installed package, pinned registry parts, hub id), how to pool, and what it was trained on.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Any

from sentibench.core.errors import BenchError, printable, unknown_name
from sentibench.core.paths import cache_dir
from sentibench.core.safe_yaml import YamlRefused, load_yaml
from sentibench.models.catalog.card_schema import TO_FILL, ModelCard, card_problems, seed_variants, validate_card

__all__ = ["PACKAGED_CARDS", "TO_FILL", "ModelCard", "all_cards", "card_problems", "check_card_file",
           "get_card", "load_card_yaml", "packaged_cards", "read_card"]
PACKAGED_CARDS = Path(__file__).parent / "cards"
CARD_MAX_BYTES = 64 * 1024  # a card is about 1 KiB


def load_card_yaml(path: Path) -> Any:
    """A card file's YAML data (`core.safe_yaml`: size, depth, no aliases, no duplicate keys), or a one-line
    error naming the file (and line)."""
    try:
        return load_yaml(Path(path), max_bytes=CARD_MAX_BYTES)
    except YamlRefused as error:
        raise BenchError(f"model card {path}: {error}") from None
    except OSError as error:
        raise BenchError(f"model card {path}: cannot be read ({error.strerror or error})") from None


def read_card(path: Path) -> ModelCard:
    """A card file, validated by `sentibench.models.catalog.card_schema`; anything malformed is a one-line error."""
    return validate_card(load_card_yaml(path), str(path))


def check_card_file(path: Path, label: str | None = None) -> list[str]:
    """`bench card check`: every problem `read_card` refuses the file for, one line each (the blanks and
    `trust_remote_code` one per line, then the schema's first), each prefixed by `label` (default: the path)."""
    data = load_card_yaml(path)
    problems = card_problems(data)
    if not problems:
        try:
            validate_card(data, str(path))
        except BenchError as error:
            problems = [str(error).removeprefix(f"model card {path}: ")]
    return [f"{label or path}: {problem}" for problem in problems]


def user_cards_dir() -> Path:
    return cache_dir("cards")


@cache
def _packaged() -> dict[str, ModelCard]:
    cards: dict[str, ModelCard] = {}
    for card in map(read_card, sorted(PACKAGED_CARDS.glob("*.yaml"))):
        for variant in seed_variants(card):
            if variant.name in cards:
                raise BenchError(f"model card {card.path}: '{variant.name}' is also {cards[variant.name].path}")
            cards[variant.name] = variant
    return cards


_warned: set[str] = set()


def packaged_cards() -> dict[str, ModelCard]:
    """The cards that ship in `models/catalog/cards/`."""
    return dict(_packaged())


def _user_cards() -> tuple[dict[str, ModelCard], dict[str, BenchError]]:
    """User cards by name, and the malformed ones by file stem (each named once on stderr, then skipped:
    one bad card must not block commands that do not use it)."""
    cards: dict[str, ModelCard] = {}
    broken: dict[str, BenchError] = {}
    for path in sorted(user_cards_dir().glob("*.yaml")):
        try:
            card = read_card(path)
        except BenchError as error:
            broken[path.stem] = error
            if str(path) not in _warned:
                _warned.add(str(path))
                print(printable(f"warning: skipping {error}"), file=sys.stderr)
            continue
        for variant in seed_variants(card):
            cards.setdefault(variant.name, variant)
    return cards, broken


def all_cards() -> dict[str, ModelCard]:
    """Packaged cards, then user cards (a user card never replaces a packaged one of the same name)."""
    cards = dict(_packaged())
    for name, card in _user_cards()[0].items():
        cards.setdefault(name, card)
    return dict(sorted(cards.items()))


def get_card(name: str) -> ModelCard:
    cards = all_cards()
    if name not in cards:
        broken = _user_cards()[1]
        if name in broken:
            raise broken[name]
        raise unknown_name("model", name, cards)
    return cards[name]
