"""The one mechanism that checks declared records (`core.records`): the rules on the fields as annotated_types
metadata, the rules between fields after them, a refusal on one line, and `dataclasses.replace` checked too."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, ClassVar, Literal

import pytest
from annotated_types import Ge, Gt, Interval, MaxLen, MinLen, Predicate

from sentibench.core.errors import BenchError
from sentibench.core.records import Record, bounds, check_fields, rule


@dataclass(frozen=True)
class Toy(Record):
    KIND: ClassVar[str] = "toy"
    PROBLEMS: ClassVar[dict[str, str]] = {"size": "size must be a positive count, not {input!r}"}

    name: Annotated[str, Predicate(str.islower)]
    size: Annotated[int, Ge(1)] = 1
    share: Annotated[float, Interval(ge=0, lt=1)] = 0.5
    tags: Annotated[tuple[Annotated[str, MinLen(1)], ...], MaxLen(2)] = ()
    mode: Literal["a", "b"] = "a"
    parent: str | None = None
    pair: tuple[str, int] = ("x", 1)

    @rule
    def _tags_differ(self) -> Iterator[str]:
        if len(set(self.tags)) != len(self.tags):
            yield "a tag is listed twice"


def _refused(message: str, **fields) -> None:
    with pytest.raises(BenchError) as caught:
        Toy(**{"name": "toy", **fields})
    assert str(caught.value) == message


def test_each_rule_on_a_field_is_checked_and_worded_on_one_line():
    assert Toy("toy", 2, 0.0, ("a", "b"), "b", None, ("y", 2)).size == 2  # positional construction
    _refused("toy 'toy': size must be a positive count, not 0", size=0)
    _refused("toy 'toy': size must be a positive count, not True", size=True)  # a bool is not a count
    _refused("toy 'toy': share=1.0 must be below 1", share=1.0)
    _refused("toy 'toy': share=nan must be at least 0", share=float("nan"))
    _refused("toy 'toy': share='0.5' is not a float", share="0.5")
    _refused("toy 'Toy': name='Toy' fails Predicate(str.islower)", name="Toy")
    _refused("toy 'toy': tags=('a', '') has item 1 '', which must have a length of at least 1", tags=("a", ""))
    _refused("toy 'toy': tags=('a', 'b', 'c') must have a length of at most 2", tags=("a", "b", "c"))
    _refused("toy 'toy': tags=['a'] is not a tuple", tags=["a"])
    _refused("toy 'toy': mode='c' is not one of 'a', 'b'", mode="c")
    _refused("toy 'toy': parent=3 is not a str or None", parent=3)
    _refused("toy 'toy': pair=('x',) is not a tuple of 2 items", pair=("x",))
    _refused("toy 'toy': size must be a positive count, not 0; share=2 must be below 1", size=0, share=2)


def test_the_rules_between_fields_run_once_every_field_keeps_its_own():
    _refused("toy 'toy': a tag is listed twice", tags=("a", "a"))
    _refused("toy 'toy': size must be a positive count, not 0", size=0, tags=("a", "a"))


def test_replace_is_checked_and_keeps_the_fields():
    toy = Toy("toy", tags=("a",))
    assert dataclasses.replace(toy, size=3) == Toy("toy", 3, tags=("a",))
    with pytest.raises(BenchError, match="size must be a positive count"):
        dataclasses.replace(toy, size=0)


def test_a_rule_the_mechanism_does_not_know_is_an_error_not_skipped():
    @dataclass
    class Odd:
        value: Annotated[float, "positive please"]

    with pytest.raises(TypeError, match="cannot check the rule 'positive please'"):
        check_fields(Odd(1.0))


def test_bounds_reads_the_declared_range_through_unions():
    assert bounds(Annotated[float, Interval(ge=0, le=1)] | None) == {"ge": 0, "le": 1}
    assert bounds(Annotated[float, Gt(0)]) == {"gt": 0}
