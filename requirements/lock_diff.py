"""Which packages a fresh resolution moved against the lock: `python requirements/lock_diff.py LOCK RESOLVED`
prints one line per package that changed version, appeared or disappeared, then a count."""

from __future__ import annotations

import sys
from pathlib import Path


def pins(path: Path) -> dict[str, str]:
    """{normalised name: version} of a `name==version` file (comments and blank lines skipped)."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            found[name.strip().lower().replace("_", "-").replace(".", "-")] = version.strip()
    return found


def moved(locked: dict[str, str], resolved: dict[str, str]) -> list[str]:
    lines = []
    for name in sorted(locked.keys() | resolved.keys()):
        before, after = locked.get(name), resolved.get(name)
        if before == after:
            continue
        lines.append(f"{name}: {before or '(not in the lock)'} -> {after or '(no longer installed)'}")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python requirements/lock_diff.py LOCK RESOLVED", file=sys.stderr)
        return 2
    changes = moved(pins(Path(argv[0])), pins(Path(argv[1])))
    for line in changes:
        print(f"moved  {line}")
    print(f"lock_diff: {len(changes)} package(s) moved against {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
