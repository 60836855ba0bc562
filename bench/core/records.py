"""One validation style for the records sentibench declares (task metadata, benchmarks): a plain dataclass whose
fields carry their rules as `annotated_types` metadata (`Annotated[int, Ge(1)]`, `Interval(ge=0, lt=1)`,
`MinLen(1)`, `Predicate(...)`; a `Literal` for a closed set), checked by `check_fields` whenever one is built (and
so on `dataclasses.replace`). A rule between fields is a method marked `@rule` that yields its problems. A refusal
is one `BenchError` line, `<kind> '<name>': problem; problem`, each field's problem worded once in the class's
`PROBLEMS`. Training presets declare their ranges with the same metadata (`training.options`); pydantic checks
them there, as it also reads the command line's strings. This module imports no pydantic: listing tasks stays
cheap."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any, ClassVar

import annotated_types as at

from sentibench.core.errors import BenchError

Check = Callable[[Any], "str | None"]
"""A field's check: None when the value keeps the field's rules, else why not (`must be at least 1`)."""
_BOUNDS: dict[type, tuple[str, Callable[[Any, Any], bool]]] = {
    at.Gt: ("gt", lambda value, bound: value > bound), at.Ge: ("ge", lambda value, bound: value >= bound),
    at.Lt: ("lt", lambda value, bound: value < bound), at.Le: ("le", lambda value, bound: value <= bound)}
BOUND_WORDS = {"ge": "at least", "gt": "above", "le": "at most", "lt": "below"}
"""How a refusal words each bound (`must be at least 1`), here and in `training.options`."""


class Record:
    """Base of a validated record (a dataclass, frozen or not). A subclass sets `KIND` ("task") and `PROBLEMS`
    ({field: the sentence that refuses a value its declared rules do not allow}; `{input}` is the value given);
    a field without one is refused as `field=value why`."""

    KIND: ClassVar[str] = "record"
    PROBLEMS: ClassVar[dict[str, str]] = {}

    def __post_init__(self) -> None:
        check_fields(self)


def rule(method: Callable[[Any], Iterable[str]]) -> Callable[[Any], Iterable[str]]:
    """Mark a record's method as a rule between its fields: it yields its problems (none: the record keeps the
    rule) and runs once every field has kept its own rules."""
    method.__record_rule__ = True  # type: ignore[attr-defined]
    return method


def check_fields(record: Any) -> None:
    """Every field of `record` against the rules its annotation declares, then the class's `@rule` methods; a
    `BenchError` of one line naming each problem once."""
    cls = type(record)
    checks, rules = _plan(cls)
    problems: list[str] = []
    for name, check in checks:
        value = getattr(record, name)
        why = check(value)
        if why is not None:
            worded = cls.PROBLEMS.get(name) if isinstance(record, Record) else None
            problems.append(worded.format(input=value) if worded else f"{name}={value!r} {why}")
    if not problems:
        problems = [problem for method in rules for problem in method(record)]
    if problems:
        kind, name = getattr(cls, "KIND", cls.__name__), getattr(record, "name", "?")
        raise BenchError(f"{kind} '{name}': {'; '.join(dict.fromkeys(problems))}")


@cache
def _plan(cls: type) -> tuple[list[tuple[str, Check]], list[Callable[[Any], Iterable[str]]]]:
    """`cls`'s field checks (read from its annotations once) and its rule methods in the order they are declared."""
    hints = typing.get_type_hints(cls, include_extras=True)
    checks = [(field.name, _check(hints[field.name])) for field in dataclasses.fields(cls)]
    rules = [method for klass in reversed(cls.__mro__) for method in vars(klass).values()
             if getattr(method, "__record_rule__", False)]
    return checks, rules


def constraints(metadata: Iterable[Any]) -> Iterator[Any]:
    """Each rule in `Annotated` metadata, a grouped one (`Interval`, `Len`) taken apart; documentation skipped."""
    for item in metadata:
        if isinstance(item, at.GroupedMetadata):
            yield from constraints(item)
        elif not isinstance(item, at.DocInfo):
            yield item


def bounds(annotation: Any) -> dict[str, Any]:
    """The range rules (`ge`, `gt`, `le`, `lt`) declared on `annotation`, through unions and `Annotated`."""
    found: dict[str, Any] = {}
    if typing.get_origin(annotation) is typing.Annotated:
        for item in constraints(annotation.__metadata__):
            if type(item) in _BOUNDS:
                key = _BOUNDS[type(item)][0]
                found[key] = getattr(item, key)
    for arg in typing.get_args(annotation):
        found.update(bounds(arg))
    return found


def _check(hint: Any) -> Check:
    """The check of a value against `hint`: a type (plain, tuple, union, `Literal`) and its `Annotated` rules."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        base, rules = _check(args[0]), [_rule(item) for item in constraints(hint.__metadata__)]
        return lambda value: base(value) or next((why for why in (keep(value) for keep in rules) if why), None)
    if origin is typing.Literal:
        return lambda value: None if value in args else f"is not one of {', '.join(map(repr, args))}"
    if origin in (typing.Union, types.UnionType):
        members, names = [_check(arg) for arg in args], " or ".join(map(_name, args))
        return lambda value: None if any(member(value) is None for member in members) else f"is not {names}"
    if origin is tuple:
        return _tuple_check(args)
    if hint is Any:
        return lambda value: None
    if hint in (type(None), None):
        return lambda value: None if value is None else "is not None"
    if hint in (int, float):  # a bool is not a number here; an int is a float
        kinds, why = ((int,) if hint is int else (int, float)), f"is not {_name(hint)}"
        return lambda value: None if isinstance(value, kinds) and not isinstance(value, bool) else why
    if isinstance(hint, type):
        return lambda value: None if isinstance(value, hint) else f"is not {_name(hint)}"
    raise TypeError(f"check_fields cannot check a field of type {hint!r}")


def _tuple_check(args: tuple[Any, ...]) -> Check:
    """A tuple's check: `tuple[X, ...]` (any length, each item an X), `tuple[X, Y]` (these items) or `tuple`."""
    items = [_check(arg) for arg in args if arg is not Ellipsis]
    any_length = len(args) == 2 and args[1] is Ellipsis

    def check(value: Any) -> str | None:
        if not isinstance(value, tuple):
            return "is not a tuple"
        if args and not any_length and len(value) != len(args):
            return f"is not a tuple of {len(args)} items"
        for index, item in enumerate(value):
            why = items[0 if any_length else index](item) if items else None
            if why is not None:
                return f"has item {index} {item!r}, which {why}"
        return None

    return check


def _rule(item: Any) -> Check:
    """The check of one `annotated_types` rule; a rule this module does not know is a `TypeError`, never skipped."""
    if type(item) in _BOUNDS:
        key, keeps = _BOUNDS[type(item)]
        bound = getattr(item, key)
        return lambda value: None if keeps(value, bound) else f"must be {BOUND_WORDS[key]} {bound}"
    if isinstance(item, at.MinLen):
        least = item.min_length
        return lambda value: None if len(value) >= least else f"must have a length of at least {least}"
    if isinstance(item, at.MaxLen):
        most = item.max_length
        return lambda value: None if len(value) <= most else f"must have a length of at most {most}"
    if isinstance(item, at.Predicate):
        return lambda value: None if item.func(value) else f"fails {item!r}"
    raise TypeError(f"check_fields cannot check the rule {item!r}")


def _name(hint: Any) -> str:
    """`hint` as a refusal words it: `an int`, `a str`, `None`."""
    if hint in (type(None), None):
        return "None"
    name = getattr(hint, "__name__", None) or repr(hint).replace("typing.", "")
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"
