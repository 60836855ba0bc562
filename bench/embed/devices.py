"""Where and in which dtype a model runs: the device, checked to exist here, and the inference dtype.

Inference dtypes (`DTYPES`): ``float32`` (the default, and the dtype of every published number) and
``bfloat16``, opt in: weights and matmuls in bf16, the last hidden states cast to float32 before pooling
and normalisation, so only the transformer's rounding changes (about 1.9x faster on CPUs with bf16
matmuls; max abs difference ~3e-3 per coordinate on all-MiniLM-L6-v2). On a CPU without them (AVX2 only)
bf16 is emulated and about 8x slower than float32; the encoder says so when it loads. Fine-tuning always
uses float32.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sentibench.core.errors import BenchError

if TYPE_CHECKING:
    import torch

DTYPES = ("float32", "bfloat16")


def pick_device(device: str | None = None) -> torch.device:
    """The named device, checked to exist here (a one-line error otherwise), or the best available."""
    import torch

    if device:
        return _available_device(device)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def _available_device(name: str) -> torch.device:
    import torch

    try:
        chosen = torch.device(name)
    except (RuntimeError, ValueError):
        raise BenchError(f"unknown device '{name}'; use cpu, cuda, cuda:N or mps") from None
    mps = getattr(torch.backends, "mps", None)
    present = {"cpu": True, "cuda": torch.cuda.is_available(), "mps": mps is not None and mps.is_available()}
    if not present.get(chosen.type, False):
        raise BenchError(f"device '{name}' is not available on this machine; use --device cpu (or leave it out)")
    if chosen.type == "cuda" and chosen.index is not None and chosen.index >= torch.cuda.device_count():
        raise BenchError(f"device '{name}' does not exist: this machine has {torch.cuda.device_count()} GPU(s)")
    return chosen


BF16_FLAGS = ("avx512_bf16", "amx_bf16")  # CPU flags of bf16 matrix instructions


def cpu_bf16_instructions() -> list[str] | None:
    """The bf16 matrix instructions the CPU advertises (Linux's /proc/cpuinfo flags); None where the flags
    cannot be read."""
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        return None
    return [flag for flag in BF16_FLAGS if flag in flags.split(":", 1)[-1].split()]


def cpu_has_bf16() -> bool:
    """Whether the CPU has bf16 matrix instructions; True where that cannot be read (no warning on a guess)."""
    found = cpu_bf16_instructions()
    return found is None or bool(found)


def check_dtype(dtype: str) -> str:
    if dtype not in DTYPES:
        raise BenchError(f"unknown dtype '{dtype}'; choose one of {', '.join(DTYPES)}")
    return dtype
