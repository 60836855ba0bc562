"""The out-of-tree plug-in (tests/fixtures/plugin): a third-party package adds a dataset, a task and a method
through sentibench's entry points, with no edit to sentibench, and every command takes them like its own.
Run both ways a user meets a plug-in: built and `pip install`ed from its pyproject.toml into a throw-away
target (offline: no dependencies, no build isolation), and from its folder on PYTHONPATH with a hand-made
dist-info beside it. Nothing is downloaded."""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

PLUGIN = Path(__file__).parent / "fixtures" / "plugin"
DIST_INFO = PLUGIN / "sentibench_plugin_example-0.1.0.dist-info"


def bench(*args: str, cwd: Path, home: Path, plugin: Path = PLUGIN) -> str:
    """`bench ...` in a fresh process that sees the plug-in at `plugin`; its stdout (a failure shows stderr)."""
    env = {**os.environ, "SENTIBENCH_HOME": str(home), "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(plugin), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "sentibench.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_dist_info_declares_the_entry_points_of_the_plugin_pyproject():
    declared = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]["entry-points"]
    found = configparser.ConfigParser()
    found.read(DIST_INFO / "entry_points.txt")
    assert {group: dict(found[group]) for group in found.sections()} == declared


def pip_installed(tmp_path: Path) -> Path:
    """The fixture built and installed by pip from a copy of its folder into a throw-away target; the target."""
    source, target = tmp_path / "source", tmp_path / "site"
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns("*.dist-info", "__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                           "--quiet", "--target", str(target), str(source)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (target / "sentibench_plugin_example" / "reviews.csv").is_file(), "the package data is installed"
    assert list(target.glob("sentibench_plugin_example-0.1.0.dist-info/entry_points.txt"))
    return target


@pytest.mark.parametrize("how", ["pip-installed", "on PYTHONPATH"])
def test_an_out_of_tree_plugin_adds_a_dataset_a_task_and_a_method(tmp_path, how):
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    plugin = pip_installed(tmp_path) if how == "pip-installed" else PLUGIN
    assert "centroid-plugin-reviews" in bench("list", "tasks", cwd=work, home=home, plugin=plugin)
    assert "plugin-reviews" in bench("list", "datasets", cwd=work, home=home, plugin=plugin)
    assert "plugin-contrastive" in bench("list", "methods", cwd=work, home=home, plugin=plugin)

    bench("train", "plugin-contrastive", "--base", "all-minilm-l6-v2", "--data", "plugin-reviews", "--preset", "cpu",
          "--name", "plugin-minilm", cwd=work, home=home, plugin=plugin)
    (report,) = (home / "checkpoints").rglob("training_report.json")
    losses = json.loads(report.read_text())["losses"]
    assert len(losses) == 4 and all(loss > 0 for loss in losses)

    bench("run", "-m", "plugin-minilm", "-t", "centroid-plugin-reviews", cwd=work, home=home, plugin=plugin)
    (result,) = (work / "results" / "plugin-minilm").rglob("centroid-plugin-reviews.json")
    accuracy = json.loads(result.read_text())["scores"]["test"][0]["accuracy"]
    assert 0.5 < accuracy <= 1  # 18 test sentences of two plain polarities: a sentence encoder beats chance

    bench("leaderboard", cwd=work, home=home, plugin=plugin)
    board = (work / "leaderboard.md").read_text()
    assert "centroid-plugin-reviews" in board and "plugin-minilm" in board
