#!/usr/bin/env bash
# Build the wheel, install it (not editable, no dependencies) into a scratch folder put first on the path, and
# import every package it contains from outside the source tree: a new method package such as
# models/methods/sifter/ must ship without any edit to pyproject.toml. The dependencies are the active
# environment's (CI's fresh venv).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
pip wheel --quiet --no-deps --no-build-isolation . -w "$scratch/wheel"
pip install --quiet --no-deps --target "$scratch/site" "$scratch"/wheel/*.whl
cd "$scratch"
PYTHONPATH="$scratch/site" python - "$scratch/site" <<'PY'
import importlib, pathlib, sys, zipfile, glob
site = pathlib.Path(sys.argv[1]).resolve()
wheel = glob.glob("wheel/*.whl")[0]
packages = sorted(n[:-len("/__init__.py")].replace("/", ".") for n in zipfile.ZipFile(wheel).namelist()
                  if n.endswith("/__init__.py"))
for name in packages:
    module = importlib.import_module(name)
    assert pathlib.Path(module.__file__).resolve().is_relative_to(site), \
        f"{name} imported from {module.__file__}, not the wheel"
from sentibench.training.methods import methods
from sentibench.models.catalog.cards import all_cards
assert pathlib.Path(all_cards()["all-minilm-l6-v2"].path).exists()
from sentibench.tasks.benchmarks import BENCHMARKS  # the released manifests ship as package data
assert {"sentibench-v1", "sentibench-lite-v1", "sentibench-v2", "sentibench-lite-v2",
        "sentibench-lite-v2.1", "sentibench-multilingual-v1"} <= set(BENCHMARKS.names()), BENCHMARKS.names()
print(f"wheel ok: {len(packages)} packages import from the installed wheel; methods: {', '.join(methods())}")
PY
