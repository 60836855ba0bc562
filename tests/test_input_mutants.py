"""Tests that kill the mutants mutmut left alive in the input checks of training options and submission
archives (docs/reliability.md, "Mutation testing"). Every expected value is worked out by hand from the
documented rule, not read off the code's output."""

from __future__ import annotations

import dataclasses
import os
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Literal

import pytest
from annotated_types import Ge, Gt, Lt
from one_line import fails
from pydantic import ValidationError

from sentibench.submission import archive
from sentibench.submission.archive import _member_problem, safe_extract, write_zip
from sentibench.training.options import Count, Fraction, Rate, apply_options, parse_option_pairs, preset

# --- training options: apply_options ---------------------------------------------------------------------------

@preset
class Toy:
    lr: Rate = 1.0
    batch_size: Count = 8
    dropout: Fraction = 0.1
    k: int | None = 1
    ks: tuple[int, ...] = (1,)
    words: tuple[str, ...] = ()
    mode: Literal["a", "b"] = "a"
    kind: int | bool = 0


def toy(**options):
    return apply_options(Toy(), options, "toy")


@pytest.mark.parametrize("text", ["none", "None", "null", "NULL", None])
def test_none_and_null_in_any_case_are_none_for_an_optional_field(text):
    assert toy(k=text).k is None


def test_an_optional_field_reports_its_first_members_error_with_its_key():
    fails("option k='x' is not a int", toy, k="x")
    fails("option kind='x' is not a int", toy, kind="x")  # two failures: the first is shown


def test_a_tuple_is_split_on_commas_blank_entries_dropped_and_each_item_typed():
    assert toy(words="a, b,,c").words == ("a", "b", "c")
    assert toy(ks="1,2").ks == (1, 2)
    assert toy(ks=["1", "2"]).ks == (1, 2)  # a list from a config file is taken item by item
    fails("option ks='x' is not a int", toy, ks="1,x")


def test_a_literal_accepts_its_choices_and_lists_them_otherwise():
    assert toy(mode="b").mode == "b"
    fails("option mode='c': choose one of a, b", toy, mode="c")


def test_an_integer_is_read_in_base_ten_only_from_text_or_an_int():
    assert toy(batch_size="19").batch_size == 19 and toy(batch_size=7).batch_size == 7
    fails("option batch_size='a' is not a int", toy, batch_size="a")     # 10 in base 11
    fails("option batch_size=2.5 is not a int", toy, batch_size=2.5)     # int(2.5) would be 2
    fails("option batch_size=True is not a int", toy, batch_size=True)  # a boolean is not a count
    fails("option lr=False is not a float", toy, lr=False)


def test_only_a_preset_class_takes_options():
    with pytest.raises(TypeError, match="declare it with @preset"):
        apply_options(dataclasses.make_dataclass("Plain", [("lr", float)])(1.0), {"lr": "2"}, "plain")


def test_the_callers_own_keys_are_skipped_and_the_rest_still_applied():
    assert apply_options(Toy(), {"ablation": "x", "lr": "0.5"}, "toy", extra=("ablation",)) == Toy(lr=0.5)


def test_an_option_of_the_wrong_type_names_its_key():
    fails("option lr='fast' is not a float", apply_options, Toy(), {"lr": "fast"}, "toy")


def test_ranges_are_declared_on_the_fields_with_their_bounds_inclusive_or_not():
    assert toy(dropout="1").dropout == 1.0 and toy(dropout="0").dropout == 0.0 and toy(batch_size="1").batch_size == 1
    fails("option dropout='1.5' must be between 0 and 1", toy, dropout="1.5")
    fails("option dropout='-0.5' must be between 0 and 1", toy, dropout="-0.5")
    fails("option batch_size='0' must be at least 1", toy, batch_size="0")
    fails("option lr='0' must be above 0", toy, lr="0")
    fails("option lr='nan' is not a finite number", toy, lr="nan")
    assert toy(k="-3").k == -3  # no range declared: none checked


def test_a_preset_is_validated_when_built():
    with pytest.raises(ValidationError):
        Toy(batch_size=0)


def test_a_preset_class_is_frozen_and_refuses_infinite_numbers():
    @preset  # declared inside the test, so that mutation testing sees which test runs `preset`
    class Made:
        lr: Rate = 1.0
        name: str = "x"

    with pytest.raises(dataclasses.FrozenInstanceError):
        Made().lr = 2.0  # type: ignore[misc]
    with pytest.raises(ValidationError, match="finite number"):
        Made(lr=float("inf"))  # above 0, yet refused: presets take finite numbers only
    assert Made(name=3).name == "3"  # a number read from a config file where text is declared stays its text


def test_a_refusal_names_the_class_that_is_not_a_preset():
    with pytest.raises(TypeError, match="^Plain is not a preset class"):
        apply_options(dataclasses.make_dataclass("Plain", [("lr", float)])(1.0), {"lr": "2"}, "plain")


@preset
class Bounded:
    share: Annotated[float, Gt(0), Lt(1)] = 0.5
    amount: Annotated[Decimal, Ge(0)] = Decimal(1)
    pair: tuple[int, int] = (1, 2)


def test_every_declared_bound_is_worded_and_other_problems_are_pydantics_own():
    fails("option share='1' must be above 0 and below 1", apply_options, Bounded(), {"share": "1"}, "b")
    fails("option share='0' must be above 0 and below 1", apply_options, Bounded(), {"share": "0"}, "b")
    fails("option amount='x': Input should be a valid decimal", apply_options, Bounded(), {"amount": "x"}, "b")
    fails("option pair=['1', '2', '3']: Tuple should have at most 2 items after validation, not 3",
          apply_options, Bounded(), {"pair": "1,2,3"}, "b")


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
