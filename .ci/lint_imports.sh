#!/usr/bin/env bash
# The layer contracts in pyproject.toml ([tool.importlinter]), checked by import-linter. import-linter reads
# a package from the file system, and sentibench's three top-level folders (bench/, tasks/, models/) form one
# package only once installed (pyproject's package-dir), so the contracts are checked on a copy laid out as
# the installed package: sentibench/ = bench/, sentibench/tasks = tasks/, sentibench/models = models/.
set -euo pipefail
cd "$(dirname "$0")/.."
tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT
cp -r bench "$tree/sentibench"
cp -r tasks "$tree/sentibench/tasks"
cp -r models "$tree/sentibench/models"
PYTHONPATH="$tree" lint-imports --config pyproject.toml "$@"
