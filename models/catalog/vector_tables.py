"""Tables of static word vectors, read from their published files and kept as one safetensors file.

A table is spaCy's layout (`spacy.vectors.Vectors`): a matrix of vectors, and `key2row`, which maps a key, the
64-bit hash of a word string (`string_key`: MurmurHash64A with seed 1 over its UTF-8 bytes, the hash of spaCy's
`StringStore`, `spacy.strings.hash_string`), to a row of the matrix; several keys may share a row (spaCy's pruned
vectors). Two published layouts are read, without installing, importing or unpickling anything:

- spaCy's `vocab/` folder: `vectors`, the matrix as a `.npy` array (`numpy.load(allow_pickle=False)`), and
  `key2row`, a msgpack map from unsigned integers to unsigned integers, read by `read_key2row`, a strict reader
  that accepts exactly that shape and nothing else (no other msgpack type, so nothing to construct);
- a word list beside a matrix (GloVe's): a `.npy` matrix (`allow_pickle=False`) and a `.parquet` file whose one
  string column holds row i's word (read with pyarrow); each word gets its own row, under its `string_key`.

`lowercase` says whether tokens are lower-cased before the lookup: True for a word list with no upper-case word
(GloVe 6B's vocabulary is uncased), False for spaCy's tables, which key every casing they hold.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sentibench.core.errors import BenchError

TABLE_FILE = "vectors.safetensors"
_MASK = (1 << 64) - 1
_M = 0xC6A4A7935BD1E995


def string_key(text: str) -> int:
    """spaCy's key of a string: MurmurHash64A (Appleby), seed 1, over its UTF-8 bytes (`hash_string`)."""
    data = text.encode("utf-8")
    full = len(data) - len(data) % 8
    h = (1 ^ (len(data) * _M)) & _MASK
    for start in range(0, full, 8):
        k = (int.from_bytes(data[start:start + 8], "little") * _M) & _MASK
        k = ((k ^ (k >> 47)) * _M) & _MASK
        h = ((h ^ k) * _M) & _MASK
    if full < len(data):
        h = ((h ^ int.from_bytes(data[full:], "little")) * _M) & _MASK
    h = ((h ^ (h >> 47)) * _M) & _MASK
    return h ^ (h >> 47)


@dataclass(frozen=True)
class VectorTable:
    """Sorted keys, the row each key maps to, the vectors, and whether lookups lower-case (module docstring)."""

    keys: np.ndarray     # uint64, sorted, unique
    rows: np.ndarray     # int64, the row of keys[i]
    vectors: np.ndarray  # float32, (rows, dimension)
    lowercase: bool

    @classmethod
    def from_pairs(cls, keys: np.ndarray, rows: np.ndarray, vectors: np.ndarray, lowercase: bool,
                   what: str) -> VectorTable:
        """A table from unsorted key -> row pairs; duplicate keys or rows outside the matrix are one-line errors."""
        keys, rows, vectors = np.asarray(keys, np.uint64), np.asarray(rows), np.ascontiguousarray(vectors, np.float32)
        if vectors.ndim != 2 or len(keys) != len(rows):
            raise BenchError(f"{what}: expected a 2-d matrix and one row per key")
        if len(rows) and (rows.min() < 0 or rows.max() >= len(vectors)):
            raise BenchError(f"{what}: a key maps to a row outside the {len(vectors)}-row matrix")
        order = np.argsort(keys, kind="stable")
        keys, rows = keys[order], rows[order].astype(np.int64)
        if len(keys) > 1 and np.any(keys[1:] == keys[:-1]):
            raise BenchError(f"{what}: two entries share a key (a repeated word, or a hash collision)")
        return cls(keys, rows, vectors, lowercase)

    def rows_of(self, tokens: list[str]) -> np.ndarray:
        """The row of each token (lower-cased first when the table says so), -1 for a token not in the table."""
        wanted = np.fromiter((string_key(t.lower() if self.lowercase else t) for t in tokens), dtype=np.uint64,
                             count=len(tokens))
        if not len(self.keys):
            return np.full(len(tokens), -1, dtype=np.int64)
        at = np.searchsorted(self.keys, wanted).clip(max=len(self.keys) - 1)
        return np.where(self.keys[at] == wanted, self.rows[at], -1)

    def save(self, folder: Path) -> Path:
        """Write `vectors.safetensors` into `folder` (one metadata entry, so the bytes are deterministic)."""
        from safetensors.numpy import save_file

        path = Path(folder) / TABLE_FILE
        save_file({"keys": self.keys, "rows": self.rows, "vectors": self.vectors}, str(path),
                  metadata={"lowercase": json.dumps(self.lowercase)})
        return path

    @classmethod
    def load(cls, folder: Path) -> VectorTable:
        from safetensors import safe_open

        with safe_open(str(Path(folder) / TABLE_FILE), framework="numpy") as stored:
            return cls(stored.get_tensor("keys"), stored.get_tensor("rows"), stored.get_tensor("vectors"),
                       json.loads(stored.metadata()["lowercase"]))


def read_table(files: list[Path], what: str) -> VectorTable:
    """The table in `files`: spaCy's `vectors` + `key2row`, or a `.npy` matrix + a `.parquet` word list."""
    by_name = {Path(f).name: Path(f) for f in files}
    if set(by_name) == {"vectors", "key2row"}:
        return spacy_table(by_name["vectors"], by_name["key2row"], what)
    suffixes = sorted(Path(f).suffix for f in files)
    if suffixes == [".npy", ".parquet"]:
        matrix, words = sorted(by_name.values(), key=lambda p: p.suffix)
        return word_list_table(matrix, words, what)
    raise BenchError(f"{what}: expected spaCy's 'vectors' and 'key2row', or one .npy matrix and one .parquet word "
                     f"list; got {sorted(by_name)}")


def _matrix(path: Path, what: str) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False)
    except ValueError as error:
        raise BenchError(f"{what}: {Path(path).name} is not a plain .npy array ({error})") from None


def spacy_table(vectors: Path, key2row: Path, what: str) -> VectorTable:
    """spaCy's `vocab/vectors` and `vocab/key2row`: tokens keep their case."""
    keys, rows = read_key2row(Path(key2row).read_bytes(), what)
    return VectorTable.from_pairs(keys, rows, _matrix(vectors, what), lowercase=False, what=what)


def word_list_table(matrix: Path, words: Path, what: str) -> VectorTable:
    """A matrix whose row i is the vector of word i of the parquet file's one string column (GloVe's layout)."""
    import pyarrow.parquet as pq

    columns = pq.read_table(words)
    if columns.num_columns != 1:
        raise BenchError(f"{what}: {Path(words).name} must hold one column of words, not {columns.column_names}")
    vocabulary = columns.column(0).to_pylist()
    vectors = _matrix(matrix, what)
    if len(vocabulary) != len(vectors) or not all(isinstance(word, str) for word in vocabulary):
        raise BenchError(f"{what}: {len(vocabulary)} words for {len(vectors)} vectors, or a word that is not text")
    keys = np.fromiter((string_key(word) for word in vocabulary), dtype=np.uint64, count=len(vocabulary))
    lowercase = not any(word != word.lower() for word in vocabulary)
    return VectorTable.from_pairs(keys, np.arange(len(vectors)), vectors, lowercase=lowercase, what=what)


_UINT_WIDTHS = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}  # msgpack uint 8, 16, 32, 64 (big-endian)
_MAP_WIDTHS = {0xDE: 2, 0xDF: 4}                       # msgpack map 16, map 32


def read_key2row(data: bytes, what: str) -> tuple[np.ndarray, np.ndarray]:
    """spaCy's `key2row` (written by `srsly.write_msgpack`): one msgpack map whose keys and values are unsigned
    integers. Anything else (another type, trailing bytes, a truncated file) is a one-line error."""
    def problem(at: int) -> BenchError:
        return BenchError(f"{what}: key2row is not a msgpack map of unsigned integers (byte {at})")

    def uint(at: int) -> tuple[int, int]:
        if at >= len(data):
            raise problem(at)
        head = data[at]
        if head <= 0x7F:
            return head, at + 1
        width = _UINT_WIDTHS.get(head)
        if width is None or at + 1 + width > len(data):
            raise problem(at)
        return int.from_bytes(data[at + 1:at + 1 + width], "big"), at + 1 + width

    if not data:
        raise problem(0)
    if 0x80 <= data[0] <= 0x8F:
        count, at = data[0] - 0x80, 1
    elif data[0] in _MAP_WIDTHS and len(data) > _MAP_WIDTHS[data[0]]:
        width = _MAP_WIDTHS[data[0]]
        count, at = int.from_bytes(data[1:1 + width], "big"), 1 + width
    else:
        raise problem(0)
    keys, rows = np.empty(count, dtype=np.uint64), np.empty(count, dtype=np.uint64)
    for i in range(count):
        keys[i], at = uint(at)
        rows[i], at = uint(at)
    if at != len(data):
        raise problem(at)
    return keys, rows
