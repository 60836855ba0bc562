"""A text's vector is a function of the text alone (issue 45): the harness's encoders run unpadded forward
passes of texts of one token length (`equal_length_batches`), so a vector never depends on the texts encoded
with it, the batch size, the thread count, a cache that held some texts already, or which job encoded it.
Checked to the last bit on the packaged all-MiniLM-L6-v2; the controls show that the padded batches of
earlier releases did depend on their batch-mates, so the tests can fail."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sentibench.embed.batching import equal_length_batches, token_budget_batches

TEXTS = [
    "Tedious.", "A gorgeous, moving film.", "Great.", "Neither good nor bad, and it goes on for a while.",
    "I loved it.", "Awful.", "A dull, tedious mess of a movie.", "Brilliant and beautiful.", "Not for me.",
    "The cast is wonderful and the story moves along briskly until a limp third act.", "Fine.", "Sour.",
    "It is a film.", "What a waste of two hours.", "Funny, warm and wise.", "Terrible acting and a weak story.",
]


def test_equal_length_batches_hold_one_length_each_longest_first_in_input_order():
    lengths = [3, 5, 3, 5, 5, 2, 3]
    # lengths 5: [1, 3, 4], 3: [0, 2, 6], 2: [5]; at most 2 texts a batch
    assert equal_length_batches(lengths, 2, None) == [[1, 3], [4], [0, 2], [6], [5]]
    # a 10-position budget: 5-token texts two at a time, 3-token three, 2-token five (capped at 4 texts)
    assert equal_length_batches(lengths, 4, 10) == [[1, 3], [4], [0, 2, 6], [5]]
    assert equal_length_batches([50, 50], 4, 20) == [[0], [1]]  # longer than the budget: one a pass
    assert equal_length_batches([], 4, 10) == []


@pytest.fixture(scope="module")
def minilm():
    from sentibench.models.catalog.cards import get_card
    from sentibench.models.catalog.loaders import build_encoder

    return build_encoder(get_card("all-minilm-l6-v2"), device="cpu")


def _alone(encoder, texts: list[str]) -> np.ndarray:
    return np.concatenate([encoder.encode([text]) for text in texts])


def test_a_vector_is_the_same_bits_alone_and_in_any_batch_at_any_thread_count(minilm):
    import torch

    alone = _alone(minilm, TEXTS)
    threads = torch.get_num_threads()
    try:
        for count in (1, 2):
            torch.set_num_threads(count)
            for batch_size in (2, 5, 32):
                assert np.array_equal(minilm.encode(TEXTS, batch_size=batch_size), alone), (count, batch_size)
            shuffled = random.Random(count).sample(range(len(TEXTS)), len(TEXTS))
            again = minilm.encode([TEXTS[i] for i in shuffled])
            assert np.array_equal(again, alone[shuffled])
    finally:
        torch.set_num_threads(threads)


def test_the_padded_batches_of_earlier_releases_were_batch_dependent(minilm):
    """The control: the same model in padded batches gives other bits than alone for some text."""
    alone = _alone(minilm, TEXTS)
    minilm.equal_lengths = False
    try:
        padded = minilm.encode(TEXTS, batch_size=32)
    finally:
        minilm.equal_lengths = True
    lengths = [len(ids) for ids in minilm.tokenizer(TEXTS)["input_ids"]]
    assert any(len({lengths[i] for i in batch}) > 1 for batch in token_budget_batches(lengths, 32, 1024))
    assert not np.array_equal(padded, alone)
    assert np.abs(padded - alone).max() < 1e-5  # the last digits only


def test_the_sentence_transformers_path_is_batch_invariant_too(minilm):
    from sentibench.embed.torch_encoders import SentenceTransformerEncoder
    from sentibench.models.catalog.cards import get_card
    from sentibench.models.catalog.loaders import weights_folder

    encoder = SentenceTransformerEncoder(weights_folder(get_card("all-minilm-l6-v2")), device="cpu")
    alone = _alone(encoder, TEXTS)
    assert np.array_equal(encoder.encode(TEXTS, batch_size=4), alone)
    assert np.array_equal(encoder.encode(TEXTS[::-1], batch_size=32), alone[::-1])
    assert np.abs(alone - _alone(minilm, TEXTS)).max() < 1e-5  # the same model through its own pipeline


def test_a_partly_cached_encode_gives_the_bytes_of_an_uncached_one(minilm, tmp_path, monkeypatch):
    from sentibench.embed.cache import CachedEncoder

    monkeypatch.setenv("SENTIBENCH_HOME", str(tmp_path))
    cached = CachedEncoder(minilm, {"model": "minilm-batch-invariance", "batching": "equal-length"})
    first = cached.encode(TEXTS[3:9])  # some texts cached by an earlier, smaller encode
    whole = cached.encode(TEXTS)
    assert cached.encoded == len(TEXTS)  # each text encoded once
    assert np.array_equal(whole, minilm.encode(TEXTS)) and np.array_equal(first, whole[3:9])


def test_batch_invariant_kinds_run_one_job_per_dataset_and_other_encoders_group_shared_texts():
    from sentibench.core.executors import LocalExecutor
    from sentibench.models.catalog.cards import get_card
    from sentibench.models.catalog.kinds import model_kind
    from sentibench.run.runner import RunSettings, _batch_invariant

    plain = RunSettings(0, None, 32, "cpu", True, LocalExecutor(), None, True)
    card = get_card("all-minilm-l6-v2")
    assert model_kind(card.loader).batch_invariant and _batch_invariant(card.name, card, plain)
    assert not model_kind("bow").batch_invariant and not model_kind("in-process").batch_invariant
    factory = RunSettings(0, None, 32, "cpu", True, LocalExecutor(), lambda card: None, True)
    assert not _batch_invariant(card.name, card, factory)  # a caller's own encoder: not known to be
    import dataclasses

    assert not _batch_invariant(card.name, dataclasses.replace(card, dtype="bfloat16"), plain)  # not verified there
