#!/bin/bash
# The test suite on a CUDA machine (never in CI, which has no GPU), twice side by side: with the GPU visible,
# where every test that does not pin a device runs on CUDA (`--device` defaults to the best available), and
# with it hidden. A failure only in the first is CUDA's. Needs the test extra and pytest-xdist installed;
# results under ${OUT:-/tmp/gpu-check}.
#     bash .ci/gpu_check.sh [pytest arguments, default: tests]
out=${OUT:-/tmp/gpu-check}; mkdir -p "$out"
python -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'no CUDA device here')" || exit 2
workers=$(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 ))
run() {  # $1: name, then the environment's CUDA_VISIBLE_DEVICES setting
  env $2 python -m pytest -q -p no:cacheprovider -n "$workers" --basetemp="/tmp/gpu-check-$1" -r fE "${@:3}" \
    > "$out/$1.log" 2>&1
  grep -E "^(FAILED|ERROR) " "$out/$1.log" | sed 's/ - .*//' | sort > "$out/$1_failed.txt"
}
args=("${@:-tests}")
run hidden CUDA_VISIBLE_DEVICES= "${args[@]}" &
run visible PATH="$PATH" "${args[@]}"
wait
tail -n 1 "$out/hidden.log" "$out/visible.log"
echo "--- failing only with the GPU visible:"; comm -13 "$out/hidden_failed.txt" "$out/visible_failed.txt"
echo "--- failing only with the GPU hidden:"; comm -23 "$out/hidden_failed.txt" "$out/visible_failed.txt"
! comm -13 "$out/hidden_failed.txt" "$out/visible_failed.txt" | grep -q .
