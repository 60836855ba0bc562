"""Every number the docs quote from committed files is what its committed generator writes now: each generator
(benchmarks/doc_blocks.py's registry) regenerates its blocks in memory, in a fresh process, and the docs must match
them byte for byte; a difference fails naming the command that refreshes it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import doc_blocks  # noqa: E402  (a script of benchmarks/, not a package)

NEEDS = {"mteb_readback": "mteb"}  # generators that need an optional extra


@pytest.mark.parametrize("script", doc_blocks.GENERATORS)
def test_generated_blocks_are_current(script: str, tmp_path: Path):
    """In a fresh process: this session's test plug-ins must not change what the generators read."""
    if script in NEEDS and importlib.util.find_spec(NEEDS[script]) is None:
        message = f"{script} needs the optional extra {NEEDS[script]}"
        assert not os.environ.get("CI"), message  # CI installs every extra the README's test command names
        # without the extra the block cannot be regenerated here; it must still name the command that refreshes it
        found = [b for b in doc_blocks.find_blocks(ROOT) if b.command == doc_blocks.command(script)]
        assert found, f"no block names `{doc_blocks.command(script)}`"
        return
    env = {**os.environ, "SENTIBENCH_HOME": str(tmp_path / "home"), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "doc_blocks.py"), "--check", script],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]


def test_every_block_in_the_docs_has_a_generator():
    found = doc_blocks.find_blocks()
    assert len(found) >= 6
    owners = {doc_blocks.command(script) for script in doc_blocks.GENERATORS}
    strays = [f"{b.page}: {b.name} ({b.command})" for b in found if b.command not in owners]
    assert not strays, f"blocks whose command is no registered generator: {strays}"


def test_an_edited_number_fails_naming_the_command(tmp_path: Path):
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    marker = doc_blocks.marker("numbers", "plateau_training")
    page.write_text(f"intro\n{marker}\nSentiment 62.32\n<!-- end generated -->\n", encoding="utf-8")
    generated = {"docs/page.md": {"numbers": "Sentiment 62.32\n"}}
    assert doc_blocks.differences("plateau_training", generated, tmp_path) == []
    page.write_text(page.read_text(encoding="utf-8").replace("62.32", "62.33"), encoding="utf-8")
    (problem,) = doc_blocks.differences("plateau_training", generated, tmp_path)
    assert "run `python benchmarks/plateau_training.py --docs`" in problem and "62.33" in problem
    page.write_text("intro\n", encoding="utf-8")  # the block deleted
    (problem,) = doc_blocks.differences("plateau_training", generated, tmp_path)
    assert "has no block" in problem and "plateau_training.py --docs" in problem


def test_write_rewrites_only_the_block(tmp_path: Path):
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    marker = doc_blocks.marker("numbers", "plateau_training")
    page.write_text(f"before 1.0\n{marker}\nold 1\n<!-- end generated -->\nafter 2.0\n", encoding="utf-8")
    assert doc_blocks.write({"docs/page.md": {"numbers": "new 2\n"}}, tmp_path) == ["docs/page.md"]
    assert page.read_text(encoding="utf-8") == f"before 1.0\n{marker}\nnew 2\n<!-- end generated -->\nafter 2.0\n"
    assert doc_blocks.write({"docs/page.md": {"numbers": "new 2\n"}}, tmp_path) == []
