"""Typed presets and `--option KEY=VALUE` overrides, shared by every trainable method.

A preset class is declared with `@preset`: a frozen pydantic dataclass whose fields carry their types and
ranges as `annotated_types` metadata, the rules task metadata and benchmarks declare too (`core.records`):
`Count`, a count or size, at least 1; `Rate`, above 0; `Fraction`, a probability or fraction within [0, 1];
every float finite. A preset is validated when it is built, replaced or overridden. `apply_options`
replaces fields by name and pydantic converts the command line's strings to each field's type (`bool` takes
true/false/1/0/yes/no/on/off and never turns the string "false" into True); this module reads only the
command line's own syntax: "none" (or "null") for a field that may be None, a comma-separated list for a
tuple. Unknown keys, unparsable values and values out of range are one-line errors naming what is allowed,
raised before any training starts.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from annotated_types import Ge, Gt, Interval
from pydantic import ConfigDict, ValidationError
from pydantic.dataclasses import dataclass, is_pydantic_dataclass
from pydantic_core import ErrorDetails

from sentibench.core.errors import BenchError
from sentibench.core.records import BOUND_WORDS, bounds

Preset = TypeVar("Preset")
Count = Annotated[int, Ge(1)]
"""A count or size (steps, epochs, batch size, token limit, neighbours ...): at least 1."""
Rate = Annotated[float, Gt(0)]
"""A learning rate, temperature or clipping norm: above 0."""
Fraction = Annotated[float, Interval(ge=0, le=1)]
"""A probability or fraction (dropout, masking, warm-up, validation share): within [0, 1]."""
_PRESETS = ConfigDict(allow_inf_nan=False, coerce_numbers_to_str=True)


def preset(cls: type[Preset]) -> type[Preset]:
    """`cls` as a preset class: a frozen dataclass that pydantic validates on every construction and `replace`."""
    return dataclass(frozen=True, config=_PRESETS)(cls)


def apply_options(config: Preset, options: Mapping[str, Any], owner: str, extra: tuple[str, ...] = ()) -> Preset:
    """`config` (a preset) with the fields named in `options` replaced, typed and range-checked; keys in
    `extra` are the caller's own (e.g. "ablation") and are skipped here."""
    if not is_pydantic_dataclass(type(config)):
        raise TypeError(f"{type(config).__name__} is not a preset class (declare it with @preset)")
    annotations = typing.get_type_hints(type(config), include_extras=True)
    fields = [field.name for field in dataclasses.fields(config)]
    changes: dict[str, Any] = {}
    for key, value in options.items():
        if key in extra:
            continue
        if key not in fields:
            raise BenchError(f"unknown {owner} option '{key}'; options: {', '.join([*extra, *fields])}")
        changes[key] = _command_line(value, annotations[key], key)
    try:
        return dataclasses.replace(config, **changes)
    except ValidationError as error:
        raise BenchError(_refusal(error.errors()[0], annotations)) from None


def _members(annotation: Any) -> list[Any]:
    """The types a value of `annotation` may have: the members of a union, each without its `Annotated` rules."""
    if typing.get_origin(annotation) is Annotated:
        return _members(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [member for arg in typing.get_args(annotation) for member in _members(arg)]
    return [annotation]


def _command_line(value: Any, annotation: Any, key: str) -> Any:
    """`value` with the command line's syntax read: none/null for a field that may be None, a comma-separated
    list for a tuple. A boolean given for a number is refused (pydantic would read True as 1)."""
    members = _members(annotation)
    if isinstance(value, str):
        if type(None) in members and value.strip().lower() in ("none", "null"):
            return None
        if any(typing.get_origin(member) is tuple for member in members):
            return [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, bool) and bool not in members and members[0] in (int, float):
        raise BenchError(f"option {key}={value!r} is not a {members[0].__name__}")
    return value


def _refusal(problem: ErrorDetails, annotations: dict[str, Any]) -> str:
    """One pydantic problem with an option as the line the user reads: `option KEY=VALUE <why>`."""
    key, kind = str(problem["loc"][0]), problem["type"]
    given = f"option {key}={problem['input']!r}"
    if kind == "literal_error":
        choices = [arg for member in _members(annotations[key]) if typing.get_origin(member) is typing.Literal
                   for arg in typing.get_args(member)]
        return f"{given}: choose one of {', '.join(map(str, choices))}"
    if kind == "finite_number":
        return f"{given} is not a finite number"
    if kind.startswith("bool_"):
        return f"{given} is not a boolean (use true or false)"
    if kind.startswith(("int_", "float_")):
        return f"{given} is not a {kind.partition('_')[0]}"
    declared = bounds(annotations[key])
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal") and declared:
        if {"ge", "le"} <= set(declared):
            return f"{given} must be between {declared['ge']:g} and {declared['le']:g}"
        return f"{given} must be " + " and ".join(f"{BOUND_WORDS[name]} {value:g}" for name, value in declared.items())
    return f"{given}: {problem['msg']}"


def parse_option_pairs(pairs: list[str]) -> dict[str, str]:
    """`["lr=1e-4", "ablation=no-word"]` -> a dict; a malformed pair is a one-line error."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise BenchError(f"--option expects KEY=VALUE, got '{pair}'")
        options[key.strip()] = value.strip()
    return options
