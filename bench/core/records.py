"""One validation style for the records code declares (task metadata, benchmarks; training presets use the same
pydantic dataclasses, `training.options`): the rules sit on the fields (`Field(ge=1)`, `Field(pattern=...)`,
a `Literal`), a rule between fields in a field validator, and a refusal is one `BenchError` line,
`<kind> '<name>': problem; problem`, each problem worded once per field in the class's `PROBLEMS`."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import ValidationError, model_validator
from pydantic.dataclasses import dataclass

from sentibench.core.errors import BenchError


@dataclass(frozen=True)
class Record:
    """Base of a validated record. A subclass sets `KIND` ("task") and `PROBLEMS` ({field: the sentence that
    refuses a value its declared rules do not allow}; `{input}` is the value given); a field without one is
    refused in pydantic's words. A rule between fields is a field validator (reading the fields before it in
    `info.data`) whose `ValueError` words its own refusal."""

    KIND: ClassVar[str] = "record"
    PROBLEMS: ClassVar[dict[str, str]] = {}

    @model_validator(mode="wrap")
    @classmethod
    def _one_line(cls, data: Any, handler: Any) -> Any:
        try:
            return handler(data)
        except ValidationError as error:
            raise BenchError(f"{cls.KIND} '{_name(data)}': {'; '.join(_problems(error, cls.PROBLEMS))}") from None


def _name(data: Any) -> Any:
    """The `name` a record was given: by keyword, else its first positional argument (`name` is its first field)."""
    kwargs, args = getattr(data, "kwargs", None) or {}, getattr(data, "args", None) or ()
    return kwargs.get("name", args[0] if args else None)


def _problems(error: ValidationError, worded: dict[str, str]) -> list[str]:
    """Each problem of `error` once, in field order: a validator's own `ValueError` text, else the field's
    sentence from `worded`, else `field: pydantic's message`."""
    out: list[str] = []
    for item in error.errors():
        field = str(item["loc"][0]) if item["loc"] else ""
        if item["type"] == "value_error":
            text = str(item["ctx"]["error"])
        elif field in worded:
            text = worded[field].format(input=item["input"])
        else:
            text = f"{field}: {item['msg']}"
        if text not in out:
            out.append(text)
    return out
