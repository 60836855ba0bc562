"""Tests that kill the mutants mutmut left alive in the input checks of training options and submission
archives (docs/reliability.md, "Mutation testing"). Every expected value is worked out by hand from the
documented rule, not read off the code's output."""

from __future__ import annotations

import dataclasses
import os
import zipfile
from pathlib import Path
from typing import Literal

import pytest
from one_line import fails

from sentibench.submission import archive
from sentibench.submission.archive import _member_problem, safe_extract, write_zip
from sentibench.training.options import apply_options, check_range, parse_option_pairs, parse_value

# --- training options: parse_value -------------------------------------------------------------------------------

def test_a_value_without_a_key_is_named_value_in_its_error():
    fails("option value='x' is not a int", parse_value, "x", int)


@pytest.mark.parametrize("text", ["none", "None", "null", "NULL", None])
def test_none_and_null_in_any_case_are_none_for_an_optional_field(text):
    assert parse_value(text, int | None, "k") is None


def test_an_optional_field_reports_its_first_members_error_with_its_key():
    fails("option k='x' is not a int", parse_value, "x", int | None, "k")
    fails("option k='x' is not a int", parse_value, "x", int | bool, "k")  # two failures: the first is shown


def test_a_tuple_is_split_on_commas_blank_entries_dropped_and_each_item_typed():
    assert parse_value("a, b,,c", tuple[str, ...]) == ("a", "b", "c")
    assert parse_value("1,2", tuple[int, ...]) == (1, 2)
    assert parse_value(["1", "2"], tuple[int, ...]) == (1, 2)  # a list from a config file is taken item by item
    fails("option ks='x' is not a int", parse_value, "1,x", tuple[int, ...], "ks")


def test_a_literal_accepts_its_choices_and_lists_them_otherwise():
    assert parse_value("b", Literal["a", "b"]) == "b"
    fails("option m='c': choose one of a, b", parse_value, "c", Literal["a", "b"], "m")


def test_an_integer_is_read_in_base_ten_only_from_text_or_an_int():
    assert parse_value("19", int) == 19 and parse_value(7, int) == 7
    fails("option n='a' is not a int", parse_value, "a", int, "n")       # 10 in base 11
    fails("option n=2.5 is not a int", parse_value, 2.5, int, "n")       # int(2.5) would be 2
    fails("option n=True is not a int", parse_value, True, int, "n")


def test_a_type_the_command_line_cannot_set_is_named():
    fails("option d has a type the command line cannot set (<class 'dict'>)", parse_value, "x", dict, "d")


# --- training options: apply_options, check_range, parse_option_pairs -------------------------------------------

@dataclasses.dataclass(frozen=True)
class Toy:
    lr: float = 1.0
    batch_size: int = 8
    dropout: float = 0.1


def test_the_callers_own_keys_are_skipped_and_the_rest_still_applied():
    assert apply_options(Toy(), {"ablation": "x", "lr": "0.5"}, "toy", extra=("ablation",)) == Toy(lr=0.5)


def test_an_option_of_the_wrong_type_names_its_key():
    fails("option lr='fast' is not a float", apply_options, Toy(), {"lr": "fast"}, "toy")


def test_range_checks_skip_what_is_not_a_number_and_keep_the_bounds_inclusive():
    assert check_range("batch_size", "abc", "abc") == "abc"   # not a number: not range-checked
    assert check_range("batch_size", False, "false") is False  # a boolean is not a count
    assert check_range("dropout", 1.0, "1") == 1.0 and check_range("dropout", 0.0, "0") == 0.0
    fails("option dropout='1.5' must be between 0 and 1", check_range, "dropout", 1.5, "1.5")


def test_an_option_pair_splits_at_its_first_equals_sign():
    assert parse_option_pairs(["a=b=c", " lr = 1e-4 "]) == {"a": "b=c", "lr": "1e-4"}


# --- submission archives ----------------------------------------------------------------------------------------

def test_an_archive_is_written_beside_its_target_as_a_hidden_temporary_then_renamed(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.json").write_text("{}" * 100)
    renamed = []
    real_replace = os.replace
    monkeypatch.setattr(archive.os, "replace", lambda src, dst: (renamed.append((Path(src), Path(dst))),
                                                                   real_replace(src, dst)))
    target = tmp_path / "out.zip"
    assert write_zip(tmp_path / "sub", target) == target
    (source, destination), = renamed
    assert destination == target and source.parent == target.parent
    assert source.name.startswith(".out.zip.") and source.name.endswith(".tmp")
    with zipfile.ZipFile(target) as written:
        assert [(i.filename, i.compress_type) for i in written.infolist()] == [("sub/a.json", zipfile.ZIP_DEFLATED)]


def _info(name: str, file_size: int = 10, compress_size: int = 10) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.file_size, info.compress_size = file_size, compress_size
    return info


@pytest.mark.parametrize("name", ["sub\\x", "C:/x", "C:x", "/etc/x", "sub/../../x"])
def test_members_that_point_outside_are_named(name):
    assert _member_problem(_info(name)) == f"member '{name}' points outside the archive (path traversal)"


def test_a_size_bomb_is_a_member_over_200_times_its_compressed_size_and_over_one_mib():
    mib = 1 << 20
    assert _member_problem(_info("a", 200 * 10_000, 10_000)) is None          # exactly 200x: allowed
    assert _member_problem(_info("a", mib, 1)) is None                          # exactly 1 MiB: allowed
    assert _member_problem(_info("a", 2_000_001, 10)) == "member 'a' expands 200000x (a size bomb?)"
    assert _member_problem(_info("a", 2 * mib, 1)) == "member 'a' expands 2097152x (a size bomb?)"
    assert _member_problem(_info("a", 2 * mib, 0)) == "member 'a' expands 2097152x (a size bomb?)"


def _zip(path: Path, members: list[tuple[str, bytes | None]]) -> Path:
    """A zip of `members` in this order; None makes a folder entry (its name ends with a slash)."""
    with zipfile.ZipFile(path, "w") as out:
        for name, data in members:
            out.writestr(zipfile.ZipInfo(name) if data is None else name, data or b"")
    return path


def test_the_member_count_cap_allows_exactly_the_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(archive, "MAX_MEMBERS", 2)
    two = _zip(tmp_path / "two.zip", [("sub/a", b"1"), ("sub/b", b"2")])
    assert safe_extract(two, tmp_path / "x") == tmp_path / "x" / "sub"
    three = _zip(tmp_path / "three.zip", [("sub/a", b"1"), ("sub/b", b"2"), ("sub/c", b"3")])
    fails(f"archive {three}: 3 members, more than 2", safe_extract, three, tmp_path / "y")


def test_the_size_cap_allows_exactly_the_cap_and_names_it_in_mib(tmp_path, monkeypatch):
    data = os.urandom(3 << 20)  # incompressible, so no ratio alarm
    monkeypatch.setattr(archive, "MAX_BYTES", len(data))
    exact = _zip(tmp_path / "exact.zip", [("sub/a", data)])
    assert (safe_extract(exact, tmp_path / "x") / "a").read_bytes() == data
    over = _zip(tmp_path / "over.zip", [("sub/a", data), ("sub/b", b"!")])
    fails(f"archive {over}: expands to more than 3 MiB", safe_extract, over, tmp_path / "y")


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_folder_entries_are_created_with_their_parents_in_any_order(tmp_path):
    source = _zip(tmp_path / "d.zip", [("sub/", None), ("sub/deep/er/", None), ("sub/a", b"1"), ("sub/b/", None),
                                       ("sub/b/c", b"2"), ("sub/", None)])
    top = safe_extract(source, tmp_path / "x")
    assert (top / "a").read_bytes() == b"1" and (top / "b" / "c").read_bytes() == b"2"
    assert (top / "deep" / "er").is_dir()


def test_an_unreadable_zip_and_a_wrong_layout_are_one_line(tmp_path):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    fails(f"archive {bad}: not a readable zip (BadZipFile)", safe_extract, bad, tmp_path / "x")
    two = _zip(tmp_path / "two.zip", [("one/a", b"1"), ("two/b", b"2")])
    fails(f"archive {two}: expected one top-level submission folder", safe_extract, two, tmp_path / "y")


# --- the embedding cache's read path ----------------------------------------------------------------------------

def test_a_stored_row_is_a_vector_of_at_least_one_finite_float(tmp_path):
    import sqlite3

    import numpy as np

    from sentibench.embed.cache import EmbeddingStore

    store = EmbeddingStore(tmp_path / "v.sqlite")
    one = np.array([1.5], np.float32).tobytes()
    with sqlite3.connect(store.path) as db:
        db.executemany("INSERT INTO vectors VALUES (?, ?, ?)", [(b"one", 1, one), (b"empty", 0, b""),
                                                                (b"short", 2, one), (b"text", 1, "abcd")])
    found, refused = store.get([b"one", b"empty", b"short", b"text", b"absent"])
    assert list(found) == [b"one"] and found[b"one"].tolist() == [1.5] and refused == 3


def test_embeddings_of_text_are_named_non_numeric():
    import numpy as np

    from sentibench.embed.cache import check_embeddings

    fails("model 'm' returned non-numeric embeddings (<U1)", check_embeddings, np.array([["a", "b"]]), 1, "m")
    fails("model 'm' returned non-numeric embeddings (bool)", check_embeddings, np.array([[True]]), 1, "m")


def test_bad_rows_are_counted_per_text_not_per_value():
    import numpy as np

    from sentibench.embed.cache import check_embeddings

    vectors = np.ones((4, 3), np.float32)
    vectors[0, :] = np.nan  # one text with three bad values
    vectors[2, 1] = np.inf  # and another with one
    fails("model 'm' returned NaN or infinite embeddings for 2 of 4 texts", check_embeddings, vectors, 4, "m")


def test_bad_texts_are_named_with_their_type_position_and_a_short_quote():
    from sentibench.embed.cache import check_texts

    fails("model 'm' was given a int as text 1; texts are strings", check_texts, ["fine", 7], "m")
    lone = "x" * 45 + "\ud800"
    fails(f"text 0 ({'x' * 40!r}) is not valid Unicode (a lone surrogate); clean the data", check_texts, [lone], "m")
