"""The README's two commands install the locked environment: both go through `requirements/lock.txt`, and the
lock pins every requirement pyproject.toml declares (the dependencies and the extras the test command names) at
a version its range admits, so the ranges and the lock cannot drift apart unseen."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "requirements"))

from lock_diff import moved, pins  # noqa: E402
from readme_command import install_steps, readme_commands  # noqa: E402


def _lock() -> dict[str, str]:
    return {canonicalize_name(name): version for name, version in pins(ROOT / "requirements" / "lock.txt").items()}


def test_both_readme_commands_install_torch_first_then_through_the_lock():
    commands = readme_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    for command in commands.values():
        steps = install_steps(command).split(" && ")
        assert steps[0] == f"pip install torch=={_lock()['torch']}"
        assert steps[1].startswith("pip install -c requirements/lock.txt -e ")
    assert commands["test"].endswith(" && python -m pytest")


def test_the_lock_pins_every_declared_requirement_within_its_range():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = install_steps(readme_commands((ROOT / "README.md").read_text(encoding="utf-8"))["test"])
    named = extras.split('-e ".[', 1)[1].split("]", 1)[0].split(",")
    declared = [Requirement(r) for r in project["dependencies"]]
    declared += [Requirement(r) for extra in named for r in project["optional-dependencies"][extra]]
    lock = _lock()
    outside = [f"{r} (locked {lock.get(canonicalize_name(r.name))})" for r in declared
               if canonicalize_name(r.name) not in lock
               or not r.specifier.contains(lock[canonicalize_name(r.name)], prereleases=True)]
    assert outside == [], "refresh the lock: requirements/resolve.sh lock"


def test_the_lock_is_what_this_environment_runs():
    """The tests run in the locked environment (the README's command installs it): every locked package is
    installed at its locked version (torch's local build label, such as +cpu, aside)."""
    from importlib.metadata import PackageNotFoundError, version

    differ = {}
    for name, locked in _lock().items():
        try:
            installed = version(name).split("+")[0]
        except PackageNotFoundError:
            installed = None
        if installed != locked:
            differ[name] = (locked, installed)
    if "CI" in __import__("os").environ:  # CI installs the lock fresh: every package is the locked one
        assert differ == {}
    # anywhere: the packages that compute every score are the locked ones (a developer's extra tools may differ)
    scoring = {"torch", "transformers", "sentence-transformers", "numpy", "scipy", "scikit-learn", "datasets"}
    assert {name: differ[name] for name in scoring & set(differ)} == {}, "reinstall through requirements/lock.txt"


def test_readme_command_prints_the_install_steps_without_the_lock():
    out = subprocess.run([sys.executable, str(ROOT / "requirements" / "readme_command.py"), "test", "--install-only",
                          "--unlocked"], capture_output=True, text=True, check=True).stdout.strip()
    assert out == 'pip install torch==2.13.0 && pip install -e ".[test,mteb,ray,setfit,sifter,browser,docs]"'


@pytest.mark.parametrize("text, problem", [
    ("# x\n", "no '## Two commands' section"),
    ("# x\n## Two commands\n\n    pip install a\n\n## Next\n", "1 indented command lines, not 2"),
])
def test_readme_command_names_a_readme_it_cannot_read(text, problem):
    with pytest.raises(ValueError, match=problem):
        readme_commands(text)


def test_lock_diff_reports_moved_new_and_gone_packages():
    assert moved({"a": "1", "b": "2", "c": "3"}, {"a": "1", "b": "2.1", "d": "4"}) == [
        "b: 2 -> 2.1", "c: 3 -> (no longer installed)", "d: (not in the lock) -> 4"]


def test_the_installed_plug_ins_are_what_pyproject_declares(tmp_path: Path):
    """An editable install keeps the entry points of the day it ran: a plug-in added to pyproject.toml since
    is missing from every process started outside the checkout (the docs' generators, Ray workers), so those
    silently see fewer tasks than CI's fresh install. Checked in a fresh process whose working folder is not
    the checkout (the checkout's own *.egg-info must not stand in for the installed metadata)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {group: dict(points) for group, points in project["entry-points"].items()
                if group.startswith("sentibench.")}
    probe = ("import json, importlib.metadata as m; print(json.dumps("
             f"{{g: {{e.name: e.value for e in m.entry_points(group=g)}} for g in {sorted(declared)!r}}}))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    installed = json.loads(done.stdout)
    stale = {group: sorted(set(points.items()) ^ set(installed[group].items()))
             for group, points in declared.items() if points != installed[group]}
    assert stale == {}, "stale installed entry points: reinstall (`pip install -c requirements/lock.txt -e .`)"
