"""The docs' generated blocks: where they are, which committed script writes each, and whether they are current.

A generated block in a Markdown page is

    <!-- generated NAME by: python benchmarks/SCRIPT.py --docs -->
    ...
    <!-- end generated -->

and a generated file (JSON, a figure) is written whole. Every script in `GENERATORS` has a function
`doc_blocks(root) -> {page: {block name: text} | whole file text | file bytes}` that reads committed files only
(results/, benchmarks/results/, the benchmark manifests), and a `--docs` flag that rewrites what it owns (`write`).

    python benchmarks/doc_blocks.py --check [SCRIPT ...]  # regenerated in memory; differences named, exit 1
    python benchmarks/doc_blocks.py --write [SCRIPT ...]  # every (or each named) generator's `--docs`

`--smoke` (CI: the script still runs) lists the blocks found in the docs and regenerates nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import io
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("README.md", "docs/*.md")
GENERATORS = ("mteb_readback", "choose_lite", "plateau_training", "suite_time", "v2_alternatives", "doc_numbers",
              "choose_lite_v2", "choose_lite_v2_1", "cold_cost", "doc_timings", "doc_results")
"""The scripts under benchmarks/ that write docs, each owning the blocks and files its `doc_blocks` returns."""
BLOCK = re.compile(r"<!-- generated (?P<name>[\w-]+) by: (?P<command>[^>]*?) -->\n(?P<body>.*?)<!-- end generated -->",
                   re.S)
Generated = dict[str, dict[str, str] | str | bytes]


@dataclass(frozen=True)
class Block:
    page: str
    name: str
    command: str
    body: str


def command(script: str) -> str:
    """The command that refreshes everything `script` generates."""
    return f"python benchmarks/{script}.py --docs"


def marker(name: str, script: str) -> str:
    return f"<!-- generated {name} by: {command(script)} -->"


def pages(root: Path = ROOT) -> list[Path]:
    return sorted({path for pattern in PAGES for path in root.glob(pattern)})


def find_blocks(root: Path = ROOT) -> list[Block]:
    """Every generated block in the README and docs/, in page order."""
    return [Block(str(path.relative_to(root)), found["name"], found["command"], found["body"])
            for path in pages(root) for found in BLOCK.finditer(path.read_text(encoding="utf-8"))]


def generate(script: str, root: Path = ROOT) -> Generated:
    """What `script` writes, regenerated in memory from the committed files under `root`."""
    sys.path.insert(0, str(root / "benchmarks"))
    try:
        return importlib.import_module(script).doc_blocks(root)
    finally:
        sys.path.remove(str(root / "benchmarks"))


def differences(script: str, generated: Generated, root: Path = ROOT) -> list[str]:
    """How the committed pages differ from `generated`: one message per block, naming the refreshing command."""
    refresh = f"run `{command(script)}` and commit the result"
    out = []
    for page, content in generated.items():
        path = root / page
        if isinstance(content, bytes):
            if not path.is_file() or path.read_bytes() != content:
                out.append(f"{page} is not what {script} draws from the committed files ({refresh})")
            continue
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        if isinstance(content, str):
            if text != content:
                diff = "".join(difflib.unified_diff(text.splitlines(True), content.splitlines(True), page, "now", n=0))
                out.append(f"{page} is not what {script} generates from the committed files ({refresh}):\n"
                           f"{diff[:2000]}")
            continue
        found = {b.name: b for b in find_blocks(root) if b.page == page}
        for name, body in content.items():
            block = found.get(name)
            if block is None:
                out.append(f"{page} has no block `{marker(name, script)}` ({refresh})")
            elif block.command != command(script):
                out.append(f"{page}'s block {name} names `{block.command}`, not `{command(script)}`")
            elif block.body != body:
                diff = "".join(difflib.unified_diff(block.body.splitlines(True), body.splitlines(True),
                                                    f"{page} [{name}]", "now", n=0))
                out.append(f"{page}'s block {name} differs from the committed files ({refresh}):\n{diff[:2000]}")
    return out


def unclaimed(claimed: dict[str, Generated], root: Path = ROOT) -> list[str]:
    """Blocks in the pages that no generator writes (a renamed or removed generator leaves them behind)."""
    owned = {(page, name) for generated in claimed.values() for page, content in generated.items()
             if isinstance(content, dict) for name in content}
    return [f"{b.page}: block {b.name} (`{b.command}`) is written by no generator in benchmarks/doc_blocks.py"
            for b in find_blocks(root) if (b.page, b.name) not in owned]


def write(generated: Generated, root: Path = ROOT) -> list[str]:
    """Rewrite every page and block in `generated`; the pages written."""
    written = []
    for page, content in generated.items():
        path = root / page
        if isinstance(content, bytes):
            if not path.is_file() or path.read_bytes() != content:
                path.write_bytes(content)
                written.append(page)
            continue
        if isinstance(content, str):
            new = content
        else:
            new = path.read_text(encoding="utf-8")
            for name, body in content.items():
                if not re.fullmatch(r"[\w-]+", name):
                    raise SystemExit(f"error: block name {name!r} in {page}: letters, digits, '_' and '-' only "
                                     "(the check could not find it)")
                pattern = re.compile(rf"(<!-- generated {re.escape(name)} by: [^>]*? -->\n).*?(<!-- end generated -->)",
                                     re.S)
                if not pattern.search(new):
                    raise SystemExit(f"error: {page} has no block <!-- generated {name} by: ... --> to rewrite")
                new = pattern.sub(lambda m, body=body: m.group(1) + body + m.group(2), new, count=1)
        if not path.is_file() or path.read_text(encoding="utf-8") != new:
            path.write_text(new, encoding="utf-8")
            written.append(page)
    return written


def printed_block(report: Callable[[list[str]], object], root: Path) -> str:
    """What a script's `report(["--results", ROOT/results])` prints, as an indented block (paths made relative)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        report(["--results", str(root / "results")])
    lines = [line.replace(str(root) + "/", "") for line in printed.getvalue().splitlines() if line.strip()]
    return "".join(f"    {line}\n" for line in lines)


def generator_main(blocks: Callable[[Path], Generated], description: str, argv: list[str] | None = None) -> int:
    """The command line of a script that only generates blocks: print them; `--docs` rewrites them in the pages,
    `--smoke` (CI) lists them and writes nothing."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--docs", action="store_true", help="rewrite the blocks in the README and docs/")
    parser.add_argument("--smoke", action="store_true", help="list the blocks; write nothing")
    args = parser.parse_args(argv)
    generated = blocks(ROOT)
    for page, found in generated.items():
        for block, text in found.items():
            print(f"{page}: {block} ({len(text)} characters)" if args.smoke else f"--- {page}: {block}\n{text}")
    if args.docs and not args.smoke:
        for page in write(generated, ROOT):
            print(f"rewrote {page}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="regenerate in memory and report differences")
    mode.add_argument("--write", action="store_true", help="rewrite every generated block and file")
    mode.add_argument("--smoke", action="store_true", help="list the blocks found; regenerate nothing")
    parser.add_argument("scripts", nargs="*", metavar="SCRIPT",
                        help=f"only these generators (default: all of {', '.join(GENERATORS)})")
    args = parser.parse_args(argv)
    if unknown := sorted(set(args.scripts) - set(GENERATORS)):
        parser.error(f"not a generator: {', '.join(unknown)} (generators: {', '.join(GENERATORS)})")
    if args.smoke:
        for block in find_blocks():
            print(f"{block.page}: {block.name} <- {block.command}")
        return 0
    claimed = {script: generate(script) for script in args.scripts or GENERATORS}
    if args.write:
        for generated in claimed.values():
            for page in write(generated):
                print(f"rewrote {page}", file=sys.stderr)
        return 0
    problems = [p for script, generated in claimed.items() for p in differences(script, generated)]
    if not args.scripts:
        problems += unclaimed(claimed)
    print("\n".join(problems) or "every generated block is current", file=sys.stderr if problems else sys.stdout)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
