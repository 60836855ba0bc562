"""SIFTER training on tiny models built here: a few SIFTER-SimCSE / SimCSE / SIFTER-LSTM steps lower the
loss, both checkpoint kinds round-trip, `bench train` writes cards (controls through options), the
sentence corpus reads training splits only and applies the paper's filters, the paper preset fails fast."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from transformers import BertConfig, BertModel, BertTokenizerFast

from sentibench.cli import main
from sentibench.core.errors import BenchError
from sentibench.data import DatasetSpec, register_dataset
from sentibench.data.corpus import CorpusSource, paper_filter, sentence_rows, split_sentences
from sentibench.embed.torch_encoders import TransformerEncoder
from sentibench.models.catalog.trained import CardBase
from sentibench.models.methods.sifter import lstm_train, simcse
from sentibench.models.methods.sifter.losses import SifterLoss
from sentibench.training.checkpoint import load_module_checkpoint
from sentibench.training.contrastive import InfoNCELoss

SENTENCES = ["a fine film with a great cast", "the plot is dull and the acting is bad", "i loved the music",
             "a boring mess of a movie", "the story is warm and funny", "the ending was terrible",
             "a man plays a guitar", "a woman is cutting an onion", "the cast is great", "the music is dull"]
WORDS = sorted({w for s in SENTENCES for w in s.split()} | {"un", "##watch", "##able", "unwatchable"} - {"unwatchable"})
LEXICON = frozenset({"fine", "great", "loved", "warm", "funny", "dull", "bad", "boring", "mess", "terrible",
                     "unwatchable"})


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("sifter-tiny-bert")
    (folder / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tokenizer = BertTokenizerFast.from_pretrained(str(folder))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64)
    BertModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture
def tiny_card(tiny_bert, sentibench_home):
    cards = sentibench_home / "cards"
    cards.mkdir(exist_ok=True)
    (cards / "sifter-tiny-bert.yaml").write_text(yaml.safe_dump({
        "name": "sifter-tiny-bert", "loader": "transformers", "description": "test", "revision": "test",
        "checkpoint": str(tiny_bert), "pooling": "mean", "max_length": 32, "embedding_size": 16}))
    from sentibench.models import get_card
    yield get_card("sifter-tiny-bert")
    for name in ("sifter-tiny-bert", "tiny-simcse"):  # no card outlives the test
        (cards / f"{name}.yaml").unlink(missing_ok=True)


@pytest.fixture
def fixture_corpora():
    """An unlabelled corpus, an STS-like validation set and a labelled binary set, registered for the test."""
    register_dataset(DatasetSpec(name="sifter-corpus", description="test", kind="sentences", license="test",
                                 citation="test", load_rows=lambda: {"train": [{"text": s} for s in SENTENCES]},
                                 validation_fraction=0.0, derived_from=("somewhere",)))
    pairs = [{"sentence1": a, "sentence2": b, "score": float(k % 5)}
             for k, (a, b) in enumerate(zip(SENTENCES, SENTENCES[1:] + SENTENCES[:1]))]
    register_dataset(DatasetSpec(name="sifter-sts", description="test", kind="pairs", license="test",
                                 citation="test", load_rows=lambda: {"train": pairs, "validation": pairs}))
    labels = [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    register_dataset(DatasetSpec(name="sifter-reviews", description="test", kind="classification",
                                 label_names=("negative", "positive"), license="test", citation="test",
                                 load_rows=lambda: {"all": [{"text": s, "label": y}
                                                            for s, y in zip(SENTENCES * 2, labels * 2)]},
                                 split_fractions=(0.6, 0.2, 0.2), tags=("sentiment",)))


def _batch_loss(encoder, texts, y_plus, z_plus, variant):
    encoder.model.eval()  # fixed (dropout-free) loss to compare before and after
    with torch.no_grad():
        vectors = encoder.embed(encoder.tokenize(texts + y_plus + z_plus)).split(len(texts))
    if variant == "simcse":
        return InfoNCELoss()(vectors[0], vectors[1]).item()
    return SifterLoss()(*vectors)[0].item()


@pytest.mark.parametrize("variant", ["sifter", "simcse"])
def test_a_few_steps_lower_the_loss(tiny_bert, variant):
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean", device="cpu")
    y_plus = [s + " " + " ".join(s.split()[-2:]) + "." for s in SENTENCES]
    z_plus = [" ".join(w for w in s.split() if w not in ("a", "the", "and")) for s in SENTENCES]
    second = z_plus if variant == "sifter" else SENTENCES  # SimCSE: the same text under another mask
    before = _batch_loss(encoder, SENTENCES, y_plus, second, variant)
    config = simcse.Config(variant=variant, sentences=None, batch_size=10, lr=3e-3, max_length=32, pooling=None,
                           mlp=True, dropout=0.1, temperature=0.05, eval_every=2, log_every=1)
    valid = (SENTENCES[:5], SENTENCES[5:], np.arange(5, dtype=float))
    run = simcse.fit(encoder, SENTENCES * 3, (y_plus * 3, z_plus * 3), valid, config, seed=0, progress=False)
    assert run.steps == 3 and [s for s, _ in run.history] == [2, 3]  # one epoch; the start is no candidate
    assert _batch_loss(encoder, SENTENCES, y_plus, second, variant) < before
    assert encoder.model.config.hidden_dropout_prob == 0.1  # the base's dropout is restored for saving


def test_simcse_checkpoint_round_trips_as_a_transformer(tiny_bert, tmp_path):
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean", device="cpu")
    encoder.save(tmp_path / "ck")
    again = TransformerEncoder.from_pretrained(tmp_path / "ck", device="cpu")
    assert np.allclose(encoder.encode(SENTENCES), again.encode(SENTENCES), atol=1e-6)


def test_bench_train_simcse_control_writes_a_card_with_the_corpus_sources(tiny_card, fixture_corpora, sentibench_home):
    code = main(["train", "sifter-simcse", "--base", "sifter-tiny-bert", "--data", "sifter-corpus", "--preset", "cpu",
                 "--name", "tiny-simcse", "--option", "variant=simcse", "--option", "batch_size=4",
                 "--option", "eval_every=1", "--option", "validation=sifter-sts"])
    assert code == 0
    card = yaml.safe_load((sentibench_home / "cards" / "tiny-simcse.yaml").read_text())
    assert {"sifter-corpus", "somewhere", "sifter-sts"} <= set(card["training_data"])
    assert card["recipe"]["options"] == {"variant": "simcse", "validation": "sifter-sts", "batch_size": "4",
                                         "eval_every": "1"}
    report = yaml.safe_load((Path(card["checkpoint"]) / "training_report.json").read_text())
    assert report["variant"] == "simcse" and report["positives"] is None and report["sentences"] == 10


def test_paper_preset_refuses_a_cpu_and_labelled_data_is_refused(tiny_card, fixture_corpora, monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(["train", "sifter-simcse", "--base", "sifter-tiny-bert", "--data", "sifter-corpus",
                 "--preset", "paper", "--name", "x"]) == 2
    assert "GPU-sized" in capsys.readouterr().err
    assert main(["train", "sifter-simcse", "--base", "sifter-tiny-bert", "--data", "sifter-reviews",
                 "--preset", "cpu", "--name", "y"]) == 2
    assert "unlabelled sentence corpus" in capsys.readouterr().err


def test_lstm_gate_marks_every_piece_of_a_lexicon_word(tiny_card):
    from sentibench.models.methods.sifter.lstm import tokenize

    encoder, _ = lstm_train.build(CardBase(tiny_card.name, tiny_card), lstm_train.PRESETS["cpu"], "cpu", 16)
    features = tokenize(encoder.tokenizer, ["the plot is unwatchable", "a fine film"], LEXICON, 16)
    pieces = [encoder.tokenizer.convert_ids_to_tokens(row) for row in features["input_ids"].tolist()]
    assert pieces[0] == ["the", "plot", "is", "un", "##watch", "##able"]
    assert features["short"].tolist() == [[False, False, False, True, True, True],
                                          [False, True, False, False, False, False]]
    assert features["mask"].tolist()[1] == [True, True, True, False, False, False]


@pytest.mark.parametrize("gate", ["sifter", "standard"])
def test_lstm_learns_selects_and_round_trips(tiny_card, fixture_corpora, monkeypatch, tmp_path, gate):
    monkeypatch.setattr(lstm_train, "opinion_lexicon", lambda: LEXICON)
    config = lstm_train.Config(gate=gate, lr=1e-2, epochs=10, batch_size=4, hidden_size=8, eval_every=3, log_every=3)
    encoder, args = lstm_train.build(CardBase(tiny_card.name, tiny_card), config, "cpu", 16)
    assert encoder.lexicon == (LEXICON if gate == "sifter" else frozenset())
    assert torch.equal(encoder.module.embedding.weight[5:8],
                       BertModel.from_pretrained(tiny_card.checkpoint).embeddings.word_embeddings.weight[5:8])
    labels = [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    run = lstm_train.fit(encoder, SENTENCES, labels, SENTENCES, labels, config, seed=0, progress=False)
    assert run.loss_curve[-1]["loss"] < run.loss_curve[0]["loss"]
    assert run.best_score == max(score for _, score in run.history)
    encoder.save(tmp_path / gate, args)
    loaded = load_module_checkpoint(tmp_path / gate)
    assert loaded.lexicon == encoder.lexicon and loaded.max_length == 16
    assert np.allclose(loaded.encode(SENTENCES), encoder.encode(SENTENCES), atol=1e-6)
    assert loaded.encode(SENTENCES).shape == (10, 8)


def test_corpus_splits_filters_and_dedupes():
    assert split_sentences('He left. "Why?" she asked! It was 5 p.m. and late.  Done') == [
        "He left.", '"Why?" she asked!', "It was 5 p.m. and late.", "Done"]
    # < 3 words dropped; a sentence ending in a capitalised word is dropped with the next one (SIFTER §5.4)
    document = ["He married Smt.", "Dipali Ghosh in 1947.", "Too short.", "A long enough sentence here.",
                "They met Mr. Smith", "Gone with him.", "The last one stays."]
    assert list(paper_filter(document)) == ["A long enough sentence here.", "The last one stays."]
    assert list(paper_filter(["one two three four five"], max_words=4)) == []
    rows = sentence_rows([("a", "The film is good. The film is good. Another fine film here."),
                          ("b", "The film is good.")])
    assert rows == [{"text": "The film is good.", "source": "a"}, {"text": "Another fine film here.", "source": "a"}]
    with pytest.raises(ValueError, match="training splits only"):
        CorpusSource("imdb", split="test")


def test_unknown_preset_and_option_are_one_line_errors():
    with pytest.raises(BenchError, match="no preset"):
        lstm_train.resolve_config("gpu", {})
    with pytest.raises(BenchError, match="choose one of sifter, standard"):
        lstm_train.resolve_config("cpu", {"gate": "open"})


def test_seed_comparison_scores_test_once_per_run_and_resumes(tiny_card, fixture_corpora, monkeypatch, tmp_path):
    from sentibench.models.methods.sifter import classify

    monkeypatch.setattr(lstm_train, "opinion_lexicon", lambda: LEXICON)
    output = tmp_path / "seeds.json"
    options = ["epochs=2", "hidden_size=8", "batch_size=4", "eval_every=2"]
    argv = ["--seeds", "0,1", "--base", "sifter-tiny-bert", "--data", "sifter-reviews", "--output", str(output),
            *(f"--option={o}" for o in options)]
    assert main(["sifter-lstm", "classify", *argv]) == 0
    record = yaml.safe_load(output.read_text())
    assert sorted((r["gate"], r["seed"]) for r in record["runs"]) == [("sifter", 0), ("sifter", 1),
                                                                      ("standard", 0), ("standard", 1)]
    sifter = [r["test_accuracy"] for r in record["runs"] if r["gate"] == "sifter"]
    assert record["summary"]["sifter"] == {"n": 2, "mean": pytest.approx(sum(sifter) / 2),
                                           "std": pytest.approx(abs(sifter[0] - sifter[1]) / 2 ** 0.5)}
    monkeypatch.setattr(classify, "run_seed", lambda *a: pytest.fail("a finished run was redone"))
    assert main(["sifter-lstm", "classify", *argv]) == 0


def test_the_simcse_control_keeps_sifters_dropout_unless_told_and_so_does_the_card():
    from sentibench.models import get_card

    for preset in ("cpu", "paper", "plateau"):
        sifter = simcse.resolve_config(preset, {})
        control = simcse.resolve_config(preset, {"variant": "simcse"})
        assert control == dataclasses.replace(sifter, variant="simcse")  # only the positives differ
    card, sifter_card = get_card("simcse-unsup-minilm"), get_card("sifter-simcse-minilm")
    assert card.recipe["options"] == {"variant": "simcse"}  # since r3: the control differs only in its positives
    # since plateau-r1: the same preset, data, base and seeds as the SIFTER card it controls
    assert {k: v for k, v in card.recipe.items() if k != "options"} == {
        k: v for k, v in sifter_card.recipe.items() if k != "options"}
    assert card.training_seeds == sifter_card.training_seeds
    preset = card.recipe["preset"]
    assert simcse.resolve_config(preset, card.recipe["options"]) == dataclasses.replace(
        simcse.resolve_config(preset, sifter_card.recipe.get("options", {})), variant="simcse")
    assert simcse.resolve_config(preset, card.recipe["options"]).dropout == 0.15


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (bash .ci/gpu_check.sh)")
def test_the_paper_preset_trains_on_a_gpu(tiny_card, fixture_corpora, tmp_path):
    """SIFTER-SimCSE's GPU-sized preset as it is, with the fixture's STS set for validation and every loop
    capped at two steps, on CUDA: the checkpoint reloads and encodes."""
    pytest.importorskip("spacy", reason="SIFTER's positives need the sifter extra")
    from sentibench.models.catalog.trained import train

    train("sifter-simcse", "sifter-tiny-bert", "sifter-corpus", "paper", device="cuda", write_card=False,
          smoke_steps=2, out_dir=tmp_path / "ck", options={"validation": "sifter-sts"})
    vectors = TransformerEncoder.from_pretrained(tmp_path / "ck", device="cuda").encode(SENTENCES[:3])
    assert vectors.shape == (3, 16) and np.isfinite(vectors).all()
