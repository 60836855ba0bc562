"""YAML with limits, for every YAML file the harness reads (model cards today).

`yaml.safe_load` constructs no objects but has no limits: a few hundred bytes of nested aliases (a
"billion laughs") expand to gigabytes, and a duplicated key silently keeps its last value. `load_yaml`
reads at most `max_bytes`, and while composing refuses any alias (nothing sentibench reads needs one),
nesting deeper than `max_depth` and a key given twice in one mapping: each is a `YamlRefused` naming the
line, raised before the document is built, so no input can make parsing slow or large. Where PyYAML was
built with libyaml, its C parser produces the events (about 5x faster on a card) and the same limited composer
builds the document, so the limits and the result are the same either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from sentibench.core.io import NotAFile, open_regular

MAX_BYTES = 256 * 1024  # a model card is about 1 KiB
MAX_DEPTH = 32


class YamlRefused(ValueError):
    """A YAML document refused by a limit (size, depth, alias, duplicate key), or not valid YAML."""


class _Limits:
    """Refuses aliases, deep nesting and duplicate keys while a loader composes and constructs."""

    max_depth = MAX_DEPTH
    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise YamlRefused(f"YAML alias '*{event.anchor}' at line {event.start_mark.line + 1}: aliases "
                              "are not allowed (write the value out)")
        self._depth += 1
        try:
            if self._depth > self.max_depth:
                mark = self.peek_event().start_mark
                raise YamlRefused(f"nested deeper than {self.max_depth} levels at line {mark.line + 1}")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise YamlRefused(f"key {key_node.value!r} appears twice in one mapping (line "
                                      f"{key_node.start_mark.line + 1}); keep one")
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


class _LimitedLoader(_Limits, yaml.SafeLoader):
    """`SafeLoader` (pure Python) under the limits."""


if yaml.__with_libyaml__:
    from yaml.cyaml import CParser

    class _CLimitedLoader(_Limits, Composer, CParser, SafeConstructor, Resolver):
        """libyaml's parser, Python's composer (under the limits), `SafeLoader`'s constructor and resolver."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    LOADER: type = _CLimitedLoader
else:
    LOADER = _LimitedLoader


def load_yaml(path: Path, max_bytes: int = MAX_BYTES) -> Any:
    """The data of one YAML file read under the limits above; `YamlRefused` (one line) or `OSError`."""
    try:
        handle = open_regular(path, "YAML file")
    except NotAFile as error:
        raise YamlRefused(f"{error.kind}, not a file") from None
    with handle:
        raw = handle.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise YamlRefused(f"larger than {max_bytes // 1024} KiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise YamlRefused("not UTF-8 text") from None
    try:
        loader = LOADER(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        # libyaml puts an error at the end of a text without a final newline on the line after it
        line = None if mark is None else min(mark.line + 1, text.count("\n") + 1)
        raise YamlRefused("not valid YAML" + (f" at line {line}" if line else "")) from None
    except RecursionError:
        raise YamlRefused(f"nested deeper than {MAX_DEPTH} levels") from None
