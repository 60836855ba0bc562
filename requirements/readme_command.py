"""The README's two commands, read from its "## Two commands" section, so that CI and the environment scripts
run exactly what a new user copies: `main` sets up and runs the default job, `test` sets up and runs the tests.

    python requirements/readme_command.py test                          # the whole command, as written
    python requirements/readme_command.py test --install-only --unlocked  # its installs, without the lock

`--install-only` keeps the leading `pip install` steps; `--unlocked` drops `-c requirements/lock.txt`, giving
the newest versions pyproject.toml allows (requirements/resolve.sh uses both to write or check the lock).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
LOCK_OPTION = "-c requirements/lock.txt "


def readme_commands(text: str) -> dict[str, str]:
    """The two indented command lines of the README's "## Two commands" section, in order: main, test."""
    if "\n## Two commands\n" not in text:
        raise ValueError("README.md has no '## Two commands' section")
    section = text.split("\n## Two commands\n", 1)[1].split("\n## ", 1)[0]
    lines = [line.strip() for line in section.splitlines() if line.startswith("    ") and line.strip()]
    if len(lines) != 2:
        raise ValueError(f"README.md's '## Two commands' section has {len(lines)} indented command lines, not 2")
    return {"main": lines[0], "test": lines[1]}


def install_steps(command: str) -> str:
    """The leading `pip install ...` steps of a `&&` chain."""
    steps = [step.strip() for step in command.split("&&")]
    kept = []
    for step in steps:
        if not step.startswith("pip install "):
            break
        kept.append(step)
    if not kept:
        raise ValueError(f"the command does not start with `pip install`: {command}")
    return " && ".join(kept)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("which", choices=("main", "test"), help="the README's first (main) or second (test) command")
    parser.add_argument("--install-only", action="store_true", help="only the leading `pip install` steps")
    parser.add_argument("--unlocked", action="store_true", help=f"without `{LOCK_OPTION.strip()}`")
    args = parser.parse_args(argv)
    try:
        command = readme_commands(README.read_text(encoding="utf-8"))[args.which]
        if args.install_only:
            command = install_steps(command)
    except ValueError as error:
        print(f"readme_command: {error}", file=sys.stderr)
        return 1
    if args.unlocked:
        command = command.replace(LOCK_OPTION, "")
    print(command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
