"""Typed presets and `--option KEY=VALUE` overrides, shared by every trainable method.

A preset is a frozen dataclass. `apply_options` replaces fields by name, converting the command line's
strings to each field's declared type (read from the annotations, so `bool` accepts true/false/1/0/yes/no
and never turns the string "false" into True; `int | None` accepts "none"; `tuple[str, ...]` takes a
comma-separated list). Unknown keys and unparsable values are one-line errors listing what is allowed, and
so are values out of range, checked before any training starts: a count or size (`POSITIVE`) must be at
least 1, a rate (`POSITIVE_FLOAT`) above 0, a probability or fraction (`UNIT_INTERVAL`) within [0, 1],
and every float finite.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

from sentibench.core.errors import BenchError

Preset = TypeVar("Preset")
POSITIVE = frozenset({"batch_size", "max_length", "epochs", "max_steps", "steps", "hidden_size", "k", "pool_size",
                      "samples_per_epoch", "sentences"})
POSITIVE_FLOAT = frozenset({"lr", "temperature", "max_grad_norm"})
UNIT_INTERVAL = frozenset({"dropout", "example_dropout", "slp_dropout", "mask_ratio", "mlm_probability",
                           "validation_fraction", "warmup_ratio"})
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def parse_value(text: Any, annotation: Any, key: str = "value") -> Any:
    """`text` (usually a string from the command line) as a value of type `annotation`."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if type(None) in typing.get_args(annotation) and (text is None or str(text).lower() in ("none", "null")):
            return None
        errors = []
        for member in members:
            try:
                return parse_value(text, member, key)
            except BenchError as error:
                errors.append(str(error))
        raise BenchError(errors[0] if errors else f"option {key}={text!r} cannot be parsed")
    if origin is tuple:
        (item, *_rest) = typing.get_args(annotation) or (str,)
        parts = text if isinstance(text, (list, tuple)) else [p.strip() for p in str(text).split(",") if p.strip()]
        return tuple(parse_value(p, item, key) for p in parts)
    if origin is typing.Literal:
        allowed = typing.get_args(annotation)
        if text not in allowed:
            raise BenchError(f"option {key}={text!r}: choose one of {', '.join(map(str, allowed))}")
        return text
    if annotation is bool:
        if isinstance(text, bool):
            return text
        word = str(text).strip().lower()
        if word in _TRUE | _FALSE:
            return word in _TRUE
        raise BenchError(f"option {key}={text!r} is not a boolean (use true or false)")
    if annotation in (int, float):
        if isinstance(text, bool):
            raise BenchError(f"option {key}={text!r} is not a {annotation.__name__}")
        try:
            value = annotation(text) if annotation is float or isinstance(text, int) else int(str(text), 10)
        except (TypeError, ValueError):
            raise BenchError(f"option {key}={text!r} is not a {annotation.__name__}") from None
        if annotation is float and not math.isfinite(value):
            raise BenchError(f"option {key}={text!r} is not a finite number")
        return value
    if annotation is str:
        return str(text)
    raise BenchError(f"option {key} has a type the command line cannot set ({annotation})")


def option_types(preset_class: type) -> dict[str, Any]:
    """Field name -> resolved type annotation of a preset dataclass."""
    hints = typing.get_type_hints(preset_class)
    return {f.name: hints[f.name] for f in dataclasses.fields(preset_class)}


def apply_options(preset: Preset, options: Mapping[str, Any], owner: str, extra: tuple[str, ...] = ()) -> Preset:
    """`preset` with the fields named in `options` replaced (typed); keys in `extra` are the caller's own
    (e.g. "ablation") and are skipped here."""
    types_by_name = option_types(type(preset))
    changes: dict[str, Any] = {}
    for key, value in options.items():
        if key in extra:
            continue
        if key not in types_by_name:
            known = ", ".join([*extra, *types_by_name])
            raise BenchError(f"unknown {owner} option '{key}'; options: {known}")
        changes[key] = check_range(key, parse_value(value, types_by_name[key], key), value)
    return dataclasses.replace(preset, **changes)


def check_range(key: str, value: Any, text: Any) -> Any:
    """`value` if it is in the range its option's name implies (None always is), else a one-line error."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if key in POSITIVE and value < 1:
        raise BenchError(f"option {key}={text!r} must be at least 1")
    if key in POSITIVE_FLOAT and not value > 0:
        raise BenchError(f"option {key}={text!r} must be above 0")
    if key in UNIT_INTERVAL and not 0 <= value <= 1:
        raise BenchError(f"option {key}={text!r} must be between 0 and 1")
    return value


def parse_option_pairs(pairs: list[str]) -> dict[str, str]:
    """`["lr=1e-4", "ablation=no-word"]` -> a dict; a malformed pair is a one-line error."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise BenchError(f"--option expects KEY=VALUE, got '{pair}'")
        options[key.strip()] = value.strip()
    return options
