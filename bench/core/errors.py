"""User-facing errors: the CLI prints them as one line and exits with code 2."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


def printable(text: str) -> str:
    """`text` on one line with control, format (bidirectional) and separator characters escaped (`\\x07`,
    `\\u202e`, `\\n`): user text shown in an error, a warning or a listing never rings, reorders or breaks
    the terminal line."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


class BenchError(Exception):
    """An error the user can fix (bad name, bad file, missing data); never shown as a traceback."""


class UnavailableError(BenchError):
    """A resource exists but cannot be reached from here (e.g. a hub-only model or dataset offline)."""


def unknown_name(kind: str, name: str, known: Iterable[str]) -> BenchError:
    """An error for an unknown `name` of some `kind`, suggesting the closest known names."""
    known = sorted(known)
    near = difflib.get_close_matches(name.lower(), known, n=3, cutoff=0.5)
    near += [k for k in known if name.lower() in k and k not in near][: 3 - len(near)]
    hint = f" Did you mean: {', '.join(near)}?" if near else ""
    return BenchError(f"unknown {kind} '{name}'.{hint} See `bench list {kind}s`.")


class Rejected(BenchError):
    """Several independent problems with one input (a card, a submission): the CLI prints one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(problems[0] if len(problems) == 1 else f"{problems[0]} (and {len(problems) - 1} more)")
        self.problems = problems


def one_line(error: ValidationError) -> str:
    """A pydantic error as `field: problem; field: problem` on one line (a key with control characters
    written as Python escapes)."""
    parts = []
    for item in error.errors()[:3]:
        where = ".".join(str(part) if str(part).isprintable() else ascii(part) for part in item["loc"]) or "file"
        parts.append(f"{where}: {item['msg']}")
    more = error.error_count() - len(parts)
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")
