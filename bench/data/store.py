"""Materialise a declared dataset once into the local cache as Hugging Face datasets, with a content hash.

Splits the source does not define are made here, once, deterministically (stratified, `spec.split_seed`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from sentibench.core.errors import BenchError
from sentibench.core.hashing import sha256_file
from sentibench.core.io import atomic_write_json, read_json
from sentibench.core.paths import cache_dir
from sentibench.data.hub import hub_access, hub_unavailable, refuse_uncached_dataset
from sentibench.data.registry import get_spec
from sentibench.data.spec import UNSPLIT, DatasetSpec, Row, RowsBySplit

if TYPE_CHECKING:
    import datasets

SPLITS = ("train", "validation", "test")
META_FILE = "sentibench.json"


@dataclass(frozen=True)
class PreparedDataset:
    """A prepared, verified dataset folder. Its splits load as Hugging Face datasets on first use
    (`splits`, `split`); `columns` reads a split's columns straight from its Arrow files with pyarrow, so a
    task that only needs columns (SgTS) never imports `datasets` (about 1 s of a warm run)."""

    spec: DatasetSpec
    folder: Path
    content_hash: str  # sha256 over every split's rows, in order
    split_names: tuple[str, ...]
    sources: tuple[str, ...] = ()  # where the rows came from: the spec's pinned sources, or `hub <id>@<commit>`

    @cached_property
    def splits(self) -> datasets.DatasetDict:
        import datasets

        datasets.disable_progress_bars()  # loading a prepared copy is quick; its bars are noise
        # in memory (the largest packaged set is 62 MB): a `map` or `filter` on a memory-mapped split would
        # write its `cache-*.arrow` into this verified folder, which then no longer matches its record
        return datasets.load_from_disk(str(self.folder), keep_in_memory=True)

    def split(self, name: str) -> datasets.Dataset:
        self._check_split(name)
        return self.splits[name]

    def columns(self, split: str, names: Sequence[str]) -> dict[str, list]:
        """The named columns of a split as Python lists, in row order (the same values as
        `split(split).data.column(name).to_pylist()`), read from the split's Arrow stream files in the
        order its `state.json` lists them. The files were verified against their recorded hashes."""
        import pyarrow as pa

        self._check_split(split)
        folder = self.folder / split
        files = [entry["filename"] for entry in read_json(folder / "state.json", "dataset record")["_data_files"]]
        if any(Path(name).name != name for name in files):
            raise BenchError(f"dataset '{self.spec.name}': split '{split}' names a data file outside its folder")
        tables = []
        for name in files:
            with pa.memory_map(str(folder / name)) as source:
                tables.append(pa.ipc.open_stream(source).read_all())
        table = pa.concat_tables(tables)
        missing = [n for n in names if n not in table.column_names]
        if missing:
            raise BenchError(f"dataset '{self.spec.name}' split '{split}' has no column(s) {', '.join(missing)}")
        return {n: table.column(n).to_pylist() for n in names}

    def _check_split(self, name: str) -> None:
        if name not in self.split_names:
            raise BenchError(f"dataset '{self.spec.name}' has no split '{name}' (has {sorted(self.split_names)})")


def _stratified(rows: list[Row], fraction: float, seed: int) -> tuple[list[Row], list[Row]]:
    """Split off `fraction` of rows, stratified by label when there is one; order is seeded."""
    if fraction <= 0:
        return rows, []
    from sklearn.model_selection import train_test_split

    labels = [row["label"] for row in rows] if rows and "label" in rows[0] else None
    keep, held = train_test_split(rows, test_size=fraction, random_state=seed, stratify=labels)
    return keep, held


def make_splits(spec: DatasetSpec, rows: RowsBySplit) -> RowsBySplit:
    """Apply the spec's deterministic split plan to what the source gave."""
    if UNSPLIT in rows:
        train_f, valid_f, test_f = spec.split_fractions
        rest, test = _stratified(rows[UNSPLIT], test_f, spec.split_seed)
        train, valid = _stratified(rest, valid_f / (train_f + valid_f), spec.split_seed)
        rows = {"train": train, "validation": valid, "test": test}
    elif "validation" not in rows and "train" in rows and spec.validation_fraction > 0:
        train, valid = _stratified(rows["train"], spec.validation_fraction, spec.split_seed)
        rows = {**rows, "train": train, "validation": valid}
    return {name: part for name, part in rows.items() if part}


def content_hash(rows: RowsBySplit) -> str:
    digest = hashlib.sha256()
    for split in sorted(rows):
        digest.update(split.encode())
        for row in rows[split]:
            digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode())
    return digest.hexdigest()


def validate(spec: DatasetSpec, rows: RowsBySplit) -> None:
    """Empty splits, single-class splits and out-of-range labels are errors, never silent."""
    if not rows:
        raise BenchError(f"dataset '{spec.name}' has no rows")
    for split, part in rows.items():
        if spec.kind != "classification":
            continue
        labels = {row["label"] for row in part}
        if len(labels) < 2:
            raise BenchError(f"dataset '{spec.name}' split '{split}' has a single class {sorted(labels)}")
        bad = labels - set(range(len(spec.label_names)))
        if bad:
            raise BenchError(f"dataset '{spec.name}' split '{split}' has labels {sorted(bad)} outside "
                             f"0..{len(spec.label_names) - 1}")


def _load_from_hub(spec: DatasetSpec) -> tuple[RowsBySplit, str]:
    """The rows of the spec's Hub dataset and the source they came from, `hub <id>@<commit>` (the commit
    the revision resolved to: datasets names a Hub dataset's prepared cache by it)."""
    import datasets

    hub = spec.hub
    with hub_access() as reachable:  # an endpoint that cannot be reached: datasets reads its cache only
        try:  # datasets reads its own cache (HF_DATASETS_CACHE) and honours HF_HUB_OFFLINE and HF_ENDPOINT
            builder = datasets.load_dataset_builder(hub.repo_id, hub.config, revision=hub.revision)
            builder.download_and_prepare()
            loaded = builder.as_dataset()
        except Exception as error:  # the boundary to the Hub's libraries: any failure is one line
            raise hub_unavailable(f"dataset '{spec.name}' ({hub.repo_id})", error, reachable=reachable) from None
    if hub.revision and len(hub.revision) == 40 and builder.hash != hub.revision:
        raise BenchError(f"dataset '{spec.name}': {hub.repo_id} is pinned to commit {hub.revision} but "
                         f"{builder.hash} was served")
    rename = {theirs: ours for ours, theirs in hub.columns.items()}
    out: RowsBySplit = {}
    for ours in SPLITS:
        theirs = hub.splits.get(ours, ours)
        if theirs in loaded:
            out[ours] = [{rename.get(k, k): v for k, v in row.items()} for row in loaded[theirs]]
    config = f" ({hub.config})" if hub.config else ""
    return out, f"hub {hub.repo_id}@{builder.hash}{config}"


def _read_rows(spec: DatasetSpec) -> tuple[RowsBySplit, tuple[str, ...]]:
    """The rows and their sources (the spec's pinned sources, or the Hub commit they were read at)."""
    if spec.load_rows is not None:
        return spec.load_rows(), spec.provenance
    if spec.hub is not None:
        rows, source = _load_from_hub(spec)
        return rows, (*spec.provenance, source)
    raise BenchError(f"dataset '{spec.name}' declares no source")


def _folder(spec: DatasetSpec):
    return cache_dir("datasets") / f"{spec.name}-r{spec.recipe}"


def _file_hashes(folder) -> dict[str, str]:
    """sha256 of every file the prepared dataset is made of (all but the record itself)."""
    return {str(p.relative_to(folder)): sha256_file(p) for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != META_FILE}


def _prepare(spec: DatasetSpec, folder) -> None:
    """Read, split, validate and save the dataset; the folder appears whole or not at all."""
    if spec.load_rows is None and spec.hub is not None:
        refuse_uncached_dataset(f"dataset '{spec.name}' ({spec.hub.repo_id})", spec.hub.repo_id)
    import datasets

    datasets.disable_progress_bars()  # materialising is quick; its per-split bars are noise
    rows, sources = _read_rows(spec)
    rows = make_splits(spec, rows)
    validate(spec, rows)
    tmp = tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.")
    try:
        datasets.DatasetDict({k: datasets.Dataset.from_list(v) for k, v in rows.items()}).save_to_disk(tmp)
        atomic_write_json(os.path.join(tmp, META_FILE), {
            "name": spec.name, "recipe": spec.recipe, "content_hash": content_hash(rows),
            "sizes": {k: len(v) for k, v in rows.items()}, "provenance": list(sources),
            "files": _file_hashes(Path(tmp)),
        })
        shutil.rmtree(folder, ignore_errors=True)
        try:
            os.replace(tmp, folder)
        except OSError:  # another process prepared it in the meantime
            if _verified(folder) is None:
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _verified(folder) -> dict | None:
    """The record of a prepared folder whose files hash to what was recorded; None otherwise (missing,
    truncated, edited, or prepared before files were recorded)."""
    try:
        meta = read_json(folder / META_FILE, "dataset record")
        if not isinstance(meta, dict) or meta.get("files") != _file_hashes(folder):
            return None
        return meta
    except (OSError, ValueError, BenchError):
        return None


@cache
def get_dataset(name: str) -> PreparedDataset:
    """The prepared dataset, materialised on first use (atomically: a crash leaves no half folder). What
    is read is verified against the file hashes recorded when it was prepared (once per process); a
    prepared copy that was changed or cut short is prepared again."""
    spec = get_spec(name)
    folder = _folder(spec)
    meta = _verified(folder)
    if meta is None:
        if folder.exists():
            print(f"dataset '{name}': the prepared copy in {folder} does not match its record; preparing it again",
                  file=sys.stderr)
        _prepare(spec, folder)
        meta = _verified(folder)
        if meta is None:
            raise BenchError(f"dataset '{name}': the copy just prepared in {folder} does not verify")
    return PreparedDataset(spec, folder, meta["content_hash"], tuple(meta["sizes"]),
                           tuple(meta.get("provenance", spec.provenance)))
