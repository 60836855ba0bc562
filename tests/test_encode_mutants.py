"""Tests that kill the mutants mutmut left alive in `CachedEncoder.encode` (docs/reliability.md, "Mutation
testing"): what the wrapped model is asked (which texts, in which order and batches, with which batch size),
the exact warning and error lines, the progress bar's rule, and the counters. Every expected value is worked
out by hand from the documented rule (distinct misses only, longest first, `WRITE_BATCH` texts a call), not
read off the code's output."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from one_line import fails
from test_merged_mutants import home  # noqa: F401  (a fresh sentibench home: an empty embedding cache)

from sentibench.embed.cache import CachedEncoder


class RecordingEncoder:
    """Makes [length of the text, 1] for each text and records every call as (texts, batch_size, progress)."""

    name = "recording"

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], object, object]] = []

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        self.calls.append((list(texts), batch_size, show_progress_bar))
        return np.asarray([[len(t), 1.0] for t in texts], dtype=np.float32)


class NanEncoder(RecordingEncoder):
    """Makes NaN for every text whose length is odd."""

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        vectors = super().encode(texts, batch_size, show_progress_bar)
        vectors[[len(t) % 2 == 1 for t in texts]] = np.nan
        return vectors


def _cache_file(home: Path) -> Path:  # noqa: F811 (`home`: the fixture)
    (path,) = (home / "embeddings").glob("*.sqlite")
    return path


# --- what the model is asked ---------------------------------------------------------------------------------------

def test_the_model_gets_the_callers_batch_size_or_32_and_never_shows_its_own_bar(home):  # noqa: F811
    base = RecordingEncoder()
    cached = CachedEncoder(base, {"model": "batch-sizes"})
    cached.encode(["a"])
    cached.encode(["bb"], batch_size=7)
    cached.encode(["ccc"], batch_size=1)  # 1 is the smallest whole batch size and is accepted
    assert base.calls == [(["a"], 32, False), (["bb"], 7, False), (["ccc"], 1, False)]


@pytest.mark.parametrize("batch_size, shown", [(0, "0"), (-3, "-3"), (2.5, "2.5"), ("8", "'8'")])
def test_a_bad_batch_size_is_one_exact_line(home, batch_size, shown):  # noqa: F811
    base = RecordingEncoder()
    fails(f"batch size must be a whole number of at least 1, got {shown}",
           CachedEncoder(base, {"model": "bad-batch"}).encode, ["a"], batch_size=batch_size)
    assert base.calls == []


def test_a_text_that_is_not_a_string_is_named_with_the_model(home):  # noqa: F811
    fails("model 'recording' was given a int as text 1; texts are strings",
           CachedEncoder(RecordingEncoder(), {"model": "not-text"}).encode, ["fine", 3])


def test_distinct_misses_are_encoded_once_longest_first_ties_in_first_seen_order(home):  # noqa: F811
    base = RecordingEncoder()
    cached = CachedEncoder(base, {"model": "order"})
    texts = ["bb", "a", "dddd", "bb", "ccc", "ee"]
    vectors = cached.encode(texts)
    assert base.calls == [(["dddd", "ccc", "bb", "ee", "a"], 32, False)]
    assert cached.encoded == 5
    assert vectors.dtype == np.float32
    assert vectors.tolist() == [[2, 1], [1, 1], [4, 1], [2, 1], [3, 1], [2, 1]]


def test_misses_go_to_the_model_in_write_batches_and_the_count_adds_up_across_calls(home, monkeypatch):  # noqa: F811
    monkeypatch.setattr("sentibench.embed.cache.WRITE_BATCH", 2)
    base = RecordingEncoder()
    cached = CachedEncoder(base, {"model": "batches"})
    cached.encode(["a", "bbbbb", "cc", "dddd", "eee"])
    assert [call[0] for call in base.calls] == [["bbbbb", "dddd"], ["eee", "cc"], ["a"]]
    assert cached.encoded == 5
    cached.encode(["a", "ffffff", "cc"])  # only the new text is sent; the counter keeps counting
    assert base.calls[-1][0] == ["ffffff"] and len(base.calls) == 4
    assert cached.encoded == 6
    with sqlite3.connect(_cache_file(home)) as db:
        assert db.execute("SELECT COUNT(*) FROM vectors").fetchone() == (6,)


def test_no_texts_is_an_empty_float32_matrix_and_asks_the_model_nothing(home):  # noqa: F811
    base = RecordingEncoder()
    vectors = CachedEncoder(base, {"model": "empty"}).encode([])
    assert vectors.shape == (0, 0) and vectors.dtype == np.float32
    assert base.calls == []


def test_a_model_that_returns_nan_is_named_in_one_line(home):  # noqa: F811
    fails("model 'recording' returned NaN or infinite embeddings for 2 of 3 texts",
           CachedEncoder(NanEncoder(), {"model": "nan"}).encode, ["a", "bb", "ccc"])


# --- the progress bar: shown for PROGRESS_MIN_TEXTS misses or more, unless the caller says --------------------------

@pytest.mark.parametrize("cached_first, show, expected", [
    ([], None, True),            # 3 misses: exactly the threshold shows the bar
    (["a"], None, False),        # 2 misses (one text was cached): under the threshold
    ([], False, False),          # the caller's False wins over the threshold
    (["a", "bb"], True, True),   # the caller's True wins with a single miss
])
def test_the_progress_bar_follows_the_number_of_misses_or_the_callers_choice(home, monkeypatch, capsys,  # noqa: F811
                                                                             cached_first, show, expected):
    monkeypatch.setattr("sentibench.embed.cache.PROGRESS_MIN_TEXTS", 3)
    cached = CachedEncoder(RecordingEncoder(), {"model": "progress"})
    cached.encode(cached_first, show_progress_bar=False)
    capsys.readouterr()
    cached.encode(["a", "bb", "ccc"], show_progress_bar=show)
    captured = capsys.readouterr()
    assert captured.out == ""
    if expected:
        assert captured.err.startswith("\rencode recording: ") and "100%" in captured.err
    else:
        assert captured.err == ""


# --- rows read back from the cache ---------------------------------------------------------------------------------

def test_refused_rows_are_counted_together_in_one_warning_and_only_they_are_encoded_again(home, capsys):  # noqa: F811
    """Four texts cached as 2-dimensional rows; then one row becomes NaN (a broken row) and one a valid
    3-dimensional row (self-consistent, but not the declared size): both are refused, so the warning says 2."""
    identity = {"model": "refused"}
    texts = ["a", "bb", "ccc", "dddd"]
    CachedEncoder(RecordingEncoder(), identity, dimension=2).encode(texts)
    path = _cache_file(home)
    with sqlite3.connect(path) as db:  # rows are written longest first: rowid 2 is ccc, rowid 3 is bb
        db.execute("UPDATE vectors SET vec = ? WHERE rowid = 2", (np.full(2, np.nan, np.float32).tobytes(),))
        db.execute("UPDATE vectors SET vec = ?, dim = 3 WHERE rowid = 3",
                   (np.array([9.0, 9.0, 9.0], np.float32).tobytes(),))
    capsys.readouterr()
    base = RecordingEncoder()
    again = CachedEncoder(base, identity, dimension=2)
    vectors = again.encode(texts)
    captured = capsys.readouterr()
    assert captured.err == (f"warning: embedding cache {path}: 2 stored vector(s) were not finite or had the wrong "
                            "size; encoding those texts again\n")
    assert captured.out == ""
    assert base.calls == [(["ccc", "bb"], 32, False)]
    assert again.encoded == 2
    assert vectors.tolist() == [[1, 1], [2, 1], [3, 1], [4, 1]]


def test_cached_rows_of_two_sizes_without_a_declared_size_are_one_line(home):  # noqa: F811
    identity = {"model": "two-sizes"}
    CachedEncoder(RecordingEncoder(), identity).encode(["a"])
    path = _cache_file(home)
    with sqlite3.connect(path) as db:  # a valid 3-dimensional row: nothing declares 2, so it is read back
        db.execute("UPDATE vectors SET vec = ?, dim = 3", (np.array([1.0, 2.0, 3.0], np.float32).tobytes(),))
    fails(f"model 'recording': cached vectors of different dimensions; the cache entry {path} is inconsistent, "
           "delete it to rebuild", CachedEncoder(RecordingEncoder(), identity).encode, ["a", "bb"])
