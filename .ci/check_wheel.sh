#!/usr/bin/env bash
# Build the wheel, install it (not editable) into a scratch venv that sees the installed dependencies, and
# import every package it contains from outside the source tree: a new method package such as
# models/methods/sifter/ must ship without any edit to pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
pip wheel --quiet --no-deps --no-build-isolation . -w "$scratch/wheel"
python -m venv --system-site-packages "$scratch/venv"
"$scratch/venv/bin/pip" install --quiet --no-deps "$scratch"/wheel/*.whl
cd "$scratch"
"$scratch/venv/bin/python" - <<'PY'
import importlib, pathlib, zipfile, glob
wheel = glob.glob("wheel/*.whl")[0]
packages = sorted(n[:-len("/__init__.py")].replace("/", ".") for n in zipfile.ZipFile(wheel).namelist()
                  if n.endswith("/__init__.py"))
for name in packages:
    module = importlib.import_module(name)
    assert "site-packages" in module.__file__, f"{name} imported from {module.__file__}, not the wheel"
from sentibench.training.methods import methods
from sentibench.models.catalog.cards import all_cards
assert pathlib.Path(all_cards()["all-minilm-l6-v2"].path).exists()
print(f"wheel ok: {len(packages)} packages import from the installed wheel; methods: {', '.join(methods())}")
PY
