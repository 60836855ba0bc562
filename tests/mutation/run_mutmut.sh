#!/usr/bin/env bash
# Mutation testing of the validation modules (docs/reliability.md, "Mutation testing").
#
# mutmut names a module by its file path and puts its mutated copy first on sys.path, but this repo
# installs bench/, models/ and tasks/ as one package `sentibench` (package-dir). So the run happens in a
# staging folder, .mutmut/, laid out the way the package is imported (sentibench/, sentibench/models/,
# sentibench/tasks/), with the tests, the committed results and pyproject.toml ([tool.mutmut]) beside it.
# Usage: bash tests/mutation/run_mutmut.sh [python] [MUTANT-PATTERN...]   (then: cd .mutmut && python -m mutmut results)
# A pattern limits the run to some functions' mutants (fnmatch on mutmut's names), e.g. the cache's read path:
#   'sentibench.embed.cache.xǁEmbeddingStoreǁget__mutmut_*' 'sentibench.embed.cache.x_check_*'
# (a whole run of every module in pyproject's [tool.mutmut] is about 1,800 mutants: hours on two cores).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="${1:-python}"
shift $(( $# > 0 ? 1 : 0 ))
stage="$root/.mutmut"
rm -rf "$stage"
mkdir -p "$stage/sentibench"
cp -r "$root/bench/." "$stage/sentibench/"
cp -r "$root/models" "$stage/sentibench/models"
cp -r "$root/tasks" "$stage/sentibench/tasks"
cp -r "$root/tests" "$root/results" "$root/pyproject.toml" "$stage/"
find "$stage" -name __pycache__ -prune -exec rm -rf {} +
cd "$stage"
OMP_NUM_THREADS=1 "$python" -m mutmut run --max-children "${MUTMUT_CHILDREN:-2}" "$@"
"$python" -m mutmut results --all true 2>/dev/null || "$python" -m mutmut results
