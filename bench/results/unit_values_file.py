"""A result's unit-values sidecar, `<task>.units.npz` beside its JSON: written and read here alone, so the
runner, the sweep, the board, `bench compare` and submissions share one format (issue 43: the results layer
owns every file a result is made of). The values are `evaluation.units.UnitValues`; the file holds them as
float32 with their unit, resampling method and units hash.

`results.folder.ResultsFolder.save` writes a result with its sidecar, sidecar first. `files_digest` is the
sha256 of a result's JSON and sidecar bytes, computed once per read result: the keys of the board's caches,
which are pure functions of those files.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING

from sentibench.core.io import UNITS_MAX_BYTES, atomic_write_bytes, read_regular
from sentibench.results.schema import TaskResult
from sentibench.results.task_result import file_bytes

if TYPE_CHECKING:  # numpy loads only where values are saved or read: a run with nothing to do never pays for it
    from sentibench.evaluation.units import UnitValues

SUFFIX = ".units.npz"


def units_path(result_path: Path) -> Path:
    """Where a result's unit values live: beside its JSON, `<task>.units.npz`."""
    return Path(result_path).with_suffix(SUFFIX)


def save_units(path: Path, units: UnitValues) -> None:
    import numpy as np

    buffer = io.BytesIO()
    meta = json.dumps({"unit": units.unit, "method": units.method, "units_hash": units.units_hash}).encode()
    np.savez_compressed(buffer, values=np.asarray(units.values, dtype=np.float32),
                        meta=np.frombuffer(meta, dtype=np.uint8))
    atomic_write_bytes(path, buffer.getvalue())


def load_units(path: Path) -> UnitValues:
    """The values saved at `path`; a file over `UNITS_MAX_BYTES` is a one-line error, unread."""
    data = read_regular(path, UNITS_MAX_BYTES, "unit-values file", "; delete it and rerun its task with "
                        "--overwrite-strategy always")
    import numpy as np

    from sentibench.evaluation.units import UnitValues

    with np.load(io.BytesIO(data), allow_pickle=False) as stored:
        meta = json.loads(stored["meta"].tobytes().decode())
        return UnitValues(stored["values"].astype(np.float64), meta["unit"], meta["method"], meta["units_hash"])


def result_units(result: TaskResult) -> UnitValues | None:
    """The unit values stored beside a read result, or None when it has none."""
    path = units_path(result.path)
    return load_units(path) if path.exists() else None


def result_files(result: TaskResult) -> list[Path]:
    """The files a read result is made of: its JSON, and its sidecar when it has one."""
    return [path for path in (result.path, units_path(result.path)) if path.is_file()]


def files_digest(result: TaskResult) -> bytes:
    """sha256 over the result's JSON bytes and its sidecar's bytes (b"-" for none), remembered on the read
    result, so a board that keys three caches by the same results reads each file once."""
    known = result._files_digest
    if known is None:
        digest = hashlib.sha256(result._json_sha256 or hashlib.sha256(file_bytes(result.path)).digest())
        digest.update(hashlib.sha256(file_bytes(units_path(result.path))).digest())
        known = digest.digest()
        result._files_digest = known
    return known
