"""Every script in benchmarks/ still runs: each one's `--smoke` mode (a handful of texts, no timing that
means anything) as its own process, offline, in an empty SENTIBENCH_HOME. A new script is picked up here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("*.py"))


def test_the_benchmarks_folder_is_found():
    assert len(SCRIPTS) >= 7


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_benchmark_smoke_mode_runs(script: Path, tmp_path: Path):
    env = {**os.environ, "SENTIBENCH_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1",
           "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    done = subprocess.run([sys.executable, str(script), "--smoke"], cwd=BENCHMARKS.parent, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{script.name} --smoke exited {done.returncode}:\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr
