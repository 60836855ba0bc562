"""Every code block of the README and docs/ is checked, or marked `<!-- illustrative: REASON -->` on the line
before it. Shell: each `bench` command parses (argparse accepts it; the job is not run), each `python
benchmarks/X.py` names a script and options it declares, each `pip install` names extras pyproject.toml has.
Python: compiles, and every name it imports exists (docs/contributing.md's task example is also executed, by
tests/test_contributing_example.py). TOML and YAML: parse."""

from __future__ import annotations

import ast
import importlib
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ILLUSTRATIVE = re.compile(r"<!-- illustrative: .+ -->")
EXTRAS = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
             ["optional-dependencies"])


@dataclass(frozen=True)
class CodeBlock:
    page: str
    line: int
    language: str
    text: str
    marked: bool


def code_blocks(page: Path) -> list[CodeBlock]:
    """Fenced blocks, and blocks indented by four spaces after a blank line (outside fences)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    out, i = [], 0

    def marked(at: int) -> bool:
        before = [x for x in lines[:at] if x.strip()]
        return bool(before) and bool(ILLUSTRATIVE.fullmatch(before[-1].strip()))

    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            out.append(CodeBlock(page.name, i + 1, line[3:].strip(), "\n".join(lines[i + 1:end]), marked(i)))
            i = end + 1
            continue
        if line.startswith("    ") and line.strip() and (i == 0 or not lines[i - 1].strip()):
            end = i
            while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
                end += 1
            body = [x[4:] for x in lines[i:end]]
            out.append(CodeBlock(page.name, i + 1, "shell", "\n".join(body).strip(), marked(i)))
            i = end
            continue
        i += 1
    return out


BLOCKS = [block for page in PAGES for block in code_blocks(page)]


def commands(text: str) -> list[list[str]]:
    """The shell commands of a block: continuation lines joined, comments dropped, `&&` split, env prefixes off;
    in a transcript (lines starting `$ `) only those lines. A synopsis's `[optional]` parts are dropped and its
    `a|b` alternatives read as `a`."""
    joined = re.sub(r"\\\n\s*", " ", text)
    lines = joined.splitlines()
    if any(line.startswith("$ ") for line in lines):
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    out = []
    for line in lines:
        line = re.split(r"(?:^|\s)#\s", line, maxsplit=1)[0].strip()
        line = re.sub(r"(?<=\S)\|\S+", "", re.sub(r"\s*\[[^\]]*\]", "", line))
        for part in filter(None, (p.strip() for p in line.split("&&"))):
            words = shlex.split(part)
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                words = words[1:]
            out.append(words)
    return out


def check_bench(words: list[str]) -> None:
    from sentibench.cli import build_parser

    try:
        build_parser().parse_args(words[1:])
    except SystemExit as error:
        raise AssertionError(f"`{shlex.join(words)}` does not parse (exit {error.code})") from None


def check_script(words: list[str]) -> None:
    script = ROOT / words[1]
    assert script.is_file(), f"{words[1]} does not exist"
    source = script.read_text(encoding="utf-8")
    unknown = [w.split("=")[0] for w in words[2:] if w.startswith("--") and f'"{w.split("=")[0]}"' not in source]
    assert not unknown, f"{words[1]} declares no option {unknown}"


def check_pip(words: list[str]) -> None:
    for word in words[2:]:
        if found := re.fullmatch(r"\.\[([\w,-]+)\]", word):
            missing = set(found[1].split(",")) - EXTRAS
            assert not missing, f"pyproject.toml has no extra {missing}"


def check_shell(text: str) -> None:
    for words in commands(text):
        if not words:
            continue
        if words[0] == "bench":
            check_bench(words)
        elif words[:1] == ["python"] and len(words) > 1 and words[1].startswith("benchmarks/"):
            check_script(words)
        elif words[:2] == ["pip", "install"]:
            check_pip(words)
        elif words[:3] == ["python", "-m", "pytest"]:
            continue
        else:
            raise AssertionError(f"`{shlex.join(words)}` is not checked: mark the block illustrative with a reason")


def check_python(text: str) -> None:
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name) or importlib.util.find_spec(f"{node.module}.{alias.name}"), (
                    f"{node.module} has no {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                importlib.import_module(alias.name)


def test_the_pages_have_code_blocks():
    assert len(BLOCKS) > 50


@pytest.mark.parametrize("block", [b for b in BLOCKS if not b.marked], ids=lambda b: f"{b.page}:{b.line}")
def test_code_block(block: CodeBlock):
    if block.language == "python":
        needs = {"mteb": "mteb", "ray": "ray"}
        for module, extra in needs.items():
            if re.search(rf"^\s*(import|from) {module}\b", block.text, re.M):
                pytest.importorskip(module, reason=f"pip install -e '.[{extra}]'")
        check_python(block.text)
    elif block.language == "toml":
        tomllib.loads(block.text)
    elif block.language == "yaml":
        yaml.safe_load(block.text)
    elif block.language in ("", "shell", "bash", "sh"):
        check_shell(block.text)
    else:
        raise AssertionError(f"a {block.language} block: mark it illustrative with a reason")
