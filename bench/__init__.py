"""sentibench: a benchmark harness for sentiment-aware sentence embeddings."""

import os

from sentibench.core.version import __version__ as __version__

# Batch invariance on every x86 CPU: on AVX-512 CPUs MKL's float32 matrix products pick kernels by the number of
# rows, so a text's vector would change with its batch-mates; strict conditional numerical reproducibility keeps
# one summation order whatever the shape. MKL reads the variable at its first call, so this holds unless a
# matrix product ran before sentibench was imported, or the user set MKL_CBWR (kept). What it costs:
# benchmarks/bench_strict_gemm.py; what is guaranteed: docs/reliability.md.
os.environ.setdefault("MKL_CBWR", "AUTO,STRICT")

# The public API (sentibench.api), imported on first use so that `import sentibench` and the CLI stay cheap.
__all__ = ["evaluate", "get_benchmark", "get_model", "get_tasks", "load_results"]


def __getattr__(name: str):
    if name in __all__:
        from sentibench import api

        return getattr(api, name)
    raise AttributeError(f"module 'sentibench' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
