"""The layer contracts (pyproject.toml [tool.importlinter]) catch what they exist to catch: the checkout passes
`.ci/lint_imports.sh`, and the same check fails, naming the contract, when a method imports a model-catalogue
module or an engine module imports a method (a deliberately bad module added to a copy of the tree)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")


def _lint(tmp_path: Path, bad: dict[str, str]) -> subprocess.CompletedProcess:
    """lint-imports on a copy of the tree laid out as the installed package, with the `bad` modules added."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "bench", tree / "sentibench", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("tasks", "models"):
        shutil.copytree(ROOT / folder, tree / "sentibench" / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for module, source in bad.items():
        (tree / (module.replace(".", "/") + ".py")).write_text(source)
    return subprocess.run([LINT, "--config", str(ROOT / "pyproject.toml")], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": str(tree), "PATH": str(Path(LINT).parent)})


@pytest.mark.parametrize(("bad", "broken"), [
    ({"sentibench.models.methods.senticse.bad": "from sentibench.models.catalog.kinds import MODEL_KINDS\n"},
     "A method holds only its ideas"),
    ({"sentibench.models.methods.polarity.bad": "import sentibench.models.catalog.onnx_convert\n"},
     "A method holds only its ideas"),
    ({"sentibench.report.bad": "import sentibench.models.methods.infodcl\n"},
     "No engine module imports a method"),
])
def test_a_method_importing_the_catalogue_or_the_engine_importing_a_method_breaks_a_contract(tmp_path, bad, broken):
    done = _lint(tmp_path, bad)
    assert done.returncode != 0, done.stdout[-2000:]
    assert f"{broken}" in done.stdout and "BROKEN" in done.stdout, done.stdout[-2000:]


def test_the_checkout_keeps_every_contract(tmp_path):
    done = _lint(tmp_path, {})
    assert done.returncode == 0 and "4 kept, 0 broken" in done.stdout, done.stdout[-2000:]
