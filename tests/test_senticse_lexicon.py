"""SentiWordNet parsing (eq. 1, sense-#1 means) and the polarity lookup over WordPiece and byte-level BPE
vocabularies, including sub-word pieces; plus the quadruple sampler and the masking step."""

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import BertTokenizerFast, RobertaTokenizerFast

from sentibench.core.errors import BenchError
from sentibench.models.methods.senticse.lexicon import (
    MULTI,
    NEGATIVE,
    NEUTRAL,
    POSITIVE,
    parse_sentiwordnet,
    polarity,
    vocabulary_tables,
)
from sentibench.models.methods.senticse.quadruples import quadruples
from sentibench.models.methods.senticse.train import mask_candidates, mask_per_token

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def lexicon():
    return parse_sentiwordnet(FIXTURES / "senticse_sentiwordnet.txt")


def wordpiece_tokenizer(folder: Path) -> BertTokenizerFast:
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "good", "terrible", "bad", "dull", "movie", "love",
             "mess", "feel", "##good", "##s", "a", "not", ",", "."]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    return BertTokenizerFast.from_pretrained(str(folder))


def byte_bpe_tokenizer(folder: Path) -> RobertaTokenizerFast:
    """A hand-written byte-level BPE (RoBERTa layout): merges spell good, Ġgood, feel, Ġfeel, Ġmovie, Ġlove."""
    special = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    merges = [("g", "o"), ("go", "o"), ("goo", "d"), ("Ġ", "good"), ("f", "e"), ("fe", "e"), ("fee", "l"),
              ("Ġ", "feel"), ("m", "o"), ("mo", "v"), ("mov", "i"), ("movi", "e"), ("Ġ", "movie"),
              ("l", "o"), ("lo", "v"), ("lov", "e"), ("Ġ", "love")]
    tokens = special + list("abcdefghijklmnopqrstuvwxyz") + ["Ġ", ",", ".", '"'] + [a + b for a, b in merges]
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(dict.fromkeys(tokens))}))
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(f"{a} {b}" for a, b in merges) + "\n")
    return RobertaTokenizerFast.from_pretrained(str(folder))


def test_eq1_polarity_function():
    assert polarity(0.5, 0) == POSITIVE and polarity(0, 0.25) == NEGATIVE
    assert polarity(0.125, 0.5) == MULTI and polarity(0, 0) == NEUTRAL


def test_sentiwordnet_word_scores_are_means_over_sense_one(lexicon):
    assert lexicon["good"] == POSITIVE        # sense-1 adjective and noun are positive; good#7 is ignored
    assert lexicon["terrible"] == NEGATIVE and lexicon["mess"] == NEGATIVE
    assert lexicon["bad"] == MULTI            # one synset with both scores
    assert lexicon["dull"] == MULTI           # (0, .5) and (.25, 0) average to both > 0
    assert lexicon["love"] == POSITIVE        # lemmas are lower-cased and pooled
    assert lexicon["movie"] == NEUTRAL and lexicon["feel"] == NEUTRAL
    assert "awful" not in lexicon and "nice" not in lexicon   # only sense #1 defines a word
    assert not any("_" in word for word in lexicon)


def test_malformed_lexicon_is_a_one_line_error(tmp_path):
    bad = tmp_path / "swn.txt"
    bad.write_text("a\t1\t0.5\n")
    with pytest.raises(BenchError, match="not a SentiWordNet"):
        parse_sentiwordnet(bad)


def test_wordpiece_lookup_and_whole_word_candidates(tmp_path, lexicon):
    tokenizer = wordpiece_tokenizer(tmp_path)
    tables = vocabulary_tables(tokenizer, lexicon)
    vocab = tokenizer.get_vocab()
    assert tables.scheme == "wordpiece"
    assert tables.polarity[vocab["good"]] == POSITIVE and tables.polarity[vocab["##good"]] == NEUTRAL
    assert tables.polarity[vocab["bad"]] == MULTI and tables.polarity[vocab["[CLS]"]] == NEUTRAL
    features = tokenizer(["good movie , feelgood goods terrible bad"], return_tensors="pt")
    tokens = tokenizer.convert_ids_to_tokens(features["input_ids"][0])
    assert tokens == ["[CLS]", "good", "movie", ",", "feel", "##good", "good", "##s", "terrible", "bad", "[SEP]"]
    chosen = tables.candidates(features["input_ids"], features["attention_mask"])[0].tolist()
    assert [t for t, c in zip(tokens, chosen) if c] == ["good", "terrible"]  # not ##good, goods or multi bad
    assert chosen[1] and chosen[8]


def test_byte_bpe_lookup_covers_leading_space_and_bare_forms(tmp_path, lexicon):
    tokenizer = byte_bpe_tokenizer(tmp_path)
    tables = vocabulary_tables(tokenizer, lexicon)
    vocab = tokenizer.get_vocab()
    assert tables.scheme == "byte-bpe"
    assert tables.polarity[vocab["Ġgood"]] == POSITIVE and tables.polarity[vocab["good"]] == POSITIVE
    assert tables.polarity[vocab["Ġlove"]] == POSITIVE and tables.polarity[vocab["Ġmovie"]] == NEUTRAL
    features = tokenizer(['good movie, feelgood love "good goods'], return_tensors="pt")
    tokens = tokenizer.convert_ids_to_tokens(features["input_ids"][0])
    assert tokens == ["<s>", "good", "Ġmovie", ",", "Ġfeel", "good", "Ġlove", "Ġ", '"', "good", "Ġgood", "s", "</s>"]
    chosen = tables.candidates(features["input_ids"], features["attention_mask"])[0].tolist()
    # the first word (bare form), "Ġlove", and the bare "good" after a quote; not the good of "feel|good",
    # not the "Ġgood" continued by "s"
    assert [i for i, c in enumerate(chosen) if c] == [1, 6, 9]


def test_padding_is_never_a_candidate(tmp_path, lexicon):
    tokenizer = wordpiece_tokenizer(tmp_path)
    tables = vocabulary_tables(tokenizer, lexicon)
    features = tokenizer(["good", "good movie good"], padding=True, return_tensors="pt")
    chosen = tables.candidates(features["input_ids"], features["attention_mask"])
    assert chosen.sum(1).tolist() == [1, 2]


def test_masking_takes_ten_percent_of_the_batch_candidates(tmp_path, lexicon):
    tokenizer = wordpiece_tokenizer(tmp_path)
    tables = vocabulary_tables(tokenizer, lexicon)
    features = tokenizer(["good terrible love mess good"] * 4, return_tensors="pt")  # 20 candidates
    generator = torch.Generator().manual_seed(0)
    masked, chosen = mask_candidates(features["input_ids"], features["attention_mask"], tables, 0.1,
                                     tokenizer.mask_token_id, generator)
    assert int(chosen.sum()) == 2
    assert (masked[chosen] == tokenizer.mask_token_id).all()
    assert (masked[~chosen] == features["input_ids"][~chosen]).all()
    assert tables.candidates(features["input_ids"], features["attention_mask"])[chosen].all()
    one = tokenizer(["good movie"], return_tensors="pt")  # 1 candidate: still one mask
    assert int(mask_candidates(one["input_ids"], one["attention_mask"], tables, 0.1, 4, generator)[1].sum()) == 1


def test_authors_masking_chooses_each_candidate_with_the_ratio_once_per_sentence_and_keeps_a_fifth(tmp_path, lexicon):
    """The authors' `mask_tokens_map`: Bernoulli(ratio) per candidate, then Bernoulli(0.8) for the mask token,
    else the token is kept. 400 sentences x 5 candidates: chosen ~ Binomial(2000, 0.1) (200 +- 13.4), mask share
    of the chosen ~ 0.8 (+- 0.03); bounds at about 4.5 standard deviations."""
    tokenizer = wordpiece_tokenizer(tmp_path)
    tables = vocabulary_tables(tokenizer, lexicon)
    texts = [f"good terrible love mess good {i}" for i in range(400)]
    features = tokenizer(texts, padding=True, return_tensors="pt")
    ids, mask = features["input_ids"], features["attention_mask"]
    candidates = tables.candidates(ids, mask)
    assert int(candidates.sum()) == 2000
    masked, chosen = mask_per_token(ids, mask, tables, 0.1, tokenizer.mask_token_id, texts, 0, 32)
    replaced = masked != ids
    assert not (chosen & ~candidates).any() and not (replaced & ~chosen).any()
    assert 140 <= int(chosen.sum()) <= 260
    assert 0.65 <= int(replaced.sum()) / int(chosen.sum()) <= 0.95 and int((chosen & ~replaced).sum()) > 0
    assert (masked[replaced] == tokenizer.mask_token_id).all()
    # fixed per sentence: the same draws in another batch, padded longer, and every candidate at ratio 1
    alone = tokenizer([texts[7], "good " * 12], padding=True, return_tensors="pt")
    again, chosen_again = mask_per_token(alone["input_ids"], alone["attention_mask"], tables, 0.1,
                                         tokenizer.mask_token_id, [texts[7], "good " * 12], 0, 32)
    width = int(mask[7].sum())
    assert torch.equal(chosen_again[0, :width], chosen[7, :width]) and torch.equal(again[0, :width], masked[7, :width])
    everything = mask_per_token(ids, mask, tables, 1.0, tokenizer.mask_token_id, texts, 0, 32)[1]
    assert torch.equal(everything, candidates)
    other_seed = mask_per_token(ids, mask, tables, 0.1, tokenizer.mask_token_id, texts, 1, 32)[1]
    assert not torch.equal(other_seed, chosen)


def test_quadruples_have_the_right_polarities_and_are_reproducible():
    labels = np.array([1, 0, 1, 1, 0, 0, 1, 0, 0, 1])
    q = quadruples(labels, positive=1, seed=3, epoch=0)
    assert q.shape == (5, 4)
    assert sorted(q[:, 0].tolist()) == np.flatnonzero(labels == 1).tolist()  # one per positive sentence
    assert (labels[q[:, :2]] == 1).all() and (labels[q[:, 2:]] == 0).all()
    assert (q[:, 0] != q[:, 1]).all() and (q[:, 2] != q[:, 3]).all()
    assert np.array_equal(q, quadruples(labels, 1, 3, 0))
    assert not np.array_equal(q, quadruples(labels, 1, 3, 1))
    with pytest.raises(BenchError):
        quadruples(np.array([1, 0, 0]), 1, 0, 0)
