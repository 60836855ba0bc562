"""The executors `bench run --executor NAME` offers (the seam itself is `sentibench.core.executors`)."""

from __future__ import annotations

from sentibench.core.errors import BenchError
from sentibench.core.executors import Executor, LocalExecutor

EXECUTORS = ("local", "ray")


def get_executor(name: str = "local", address: str | None = None) -> Executor:
    """The executor `bench run --executor NAME [--address ADDR]` asks for."""
    if name == "local":
        if address:
            raise BenchError("--address is for --executor ray; the local executor runs in this process")
        return LocalExecutor()
    if name == "ray":
        from sentibench.run.ray_executor import RayExecutor

        return RayExecutor(address=address)
    raise BenchError(f"unknown executor '{name}'; choose one of {', '.join(EXECUTORS)}")
