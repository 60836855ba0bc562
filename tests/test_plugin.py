"""The out-of-tree plug-in (tests/fixtures/plugin): a third-party package adds a dataset, a task and a method
through sentibench's entry points, with no edit to sentibench, and every command takes them like its own.
The package is put on PYTHONPATH with a hand-made dist-info beside it (how an installed package's entry points
are found), so nothing is installed or downloaded."""

from __future__ import annotations

import configparser
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

PLUGIN = Path(__file__).parent / "fixtures" / "plugin"
DIST_INFO = PLUGIN / "sentibench_plugin_example-0.1.0.dist-info"


def bench(*args: str, cwd: Path, home: Path) -> str:
    """`bench ...` in a fresh process that sees the plug-in; its stdout (a failure shows stderr)."""
    env = {**os.environ, "SENTIBENCH_HOME": str(home), "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(PLUGIN), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "sentibench.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_dist_info_declares_the_entry_points_of_the_plugin_pyproject():
    declared = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]["entry-points"]
    found = configparser.ConfigParser()
    found.read(DIST_INFO / "entry_points.txt")
    assert {group: dict(found[group]) for group in found.sections()} == declared


def test_an_out_of_tree_plugin_adds_a_dataset_a_task_and_a_method(tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    assert "centroid-plugin-reviews" in bench("list", "tasks", cwd=work, home=home)
    assert "plugin-reviews" in bench("list", "datasets", cwd=work, home=home)
    assert "plugin-contrastive" in bench("list", "methods", cwd=work, home=home)

    bench("train", "plugin-contrastive", "--base", "all-minilm-l6-v2", "--data", "plugin-reviews", "--preset", "cpu",
          "--name", "plugin-minilm", cwd=work, home=home)
    (report,) = (home / "checkpoints").rglob("training_report.json")
    losses = json.loads(report.read_text())["losses"]
    assert len(losses) == 4 and all(loss > 0 for loss in losses)

    bench("run", "-m", "plugin-minilm", "-t", "centroid-plugin-reviews", cwd=work, home=home)
    (result,) = (work / "results" / "plugin-minilm").rglob("centroid-plugin-reviews.json")
    accuracy = json.loads(result.read_text())["scores"]["test"][0]["accuracy"]
    assert 0.5 < accuracy <= 1  # 18 test sentences of two plain polarities: a sentence encoder beats chance

    bench("leaderboard", cwd=work, home=home)
    board = (work / "leaderboard.md").read_text()
    assert "centroid-plugin-reviews" in board and "plugin-minilm" in board
