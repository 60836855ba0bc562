"""InfoDCL training on a tiny 1-layer BERT (no MLM head weights: fresh head, tied decoder) over fixture
tweets: a few steps lower the loss, ablations, the checkpoint round trip, `bench train infodcl` end to end,
and the leakage guarantee (fixture datasets here; the real corpus in a slow test)."""

import dataclasses
import json
from pathlib import Path

import pytest
import torch
import yaml
from transformers import BertConfig, BertModel, BertTokenizerFast

from sentibench.core.errors import BenchError
from sentibench.data import DatasetSpec, get_dataset, register_dataset
from sentibench.data.registry import DATASETS
from sentibench.embed.torch_encoders import TransformerEncoder
from sentibench.models.methods.infodcl.corpus import clean_tweet, final_hashtag, match_key, remove_label
from sentibench.models.methods.infodcl.npmi import NPMI_FILE, NpmiMatrix
from sentibench.models.methods.infodcl.pairs import epoch_pairs
from sentibench.models.methods.infodcl.train import (
    PRESETS,
    Objective,
    Step,
    batches_of,
    fit,
    masker,
    pooled,
    prepare,
    resolve_config,
)

TOPICS = {
    "nfl": ["the refs missed every call in that game", "what a great catch in the fourth quarter",
            "the defense played really well all night", "that touchdown drive was simply amazing"],
    "fail": ["my flight got delayed three hours again", "they lost my luggage on this airline again",
             "the customer service line hung up on me", "nobody at the gate could help us at all"],
    "coachella": ["the weekend lineup looks amazing this year", "cannot wait to see the headliner on friday",
                  "the desert was so hot during the main set", "we camped near the main stage all weekend"],
}
ROWS = [(f"{text}{' #music' if topic == 'coachella' and i % 2 else ''} number {i} #{topic}", i % 2)
        for topic, texts in TOPICS.items() for i, text in enumerate(texts * 3)]
TINY = dataclasses.replace(PRESETS["cpu"], max_length=24, batch_size=4, lr=3e-3, epochs=2, eval_every=2,
                           min_label_count=2, npmi_min_count=1, validation_fraction=0.25, log_every=1)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny-bert")
    words = sorted({w for text, _ in ROWS for w in text.replace("#", " ").split()} | {"url", "user"})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "#", *words]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = BertTokenizerFast.from_pretrained(str(folder))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=32)
    BertModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture
def tweet_datasets():
    """Only fixture tweet sets are registered (the real ones would be downloaded): a training set whose
    evaluation splits hold retweets of training tweets, and another tweet set."""
    DATASETS.restore({name: spec for name, spec in DATASETS.items().items() if not spec.has("tweet")})
    rows = [{"text": text, "label": label} for text, label in ROWS]
    rows += [{"text": f"RT @fan: {text} http://t.co/{i}", "label": label} for i, (text, label) in enumerate(ROWS[:12])]
    register_dataset(DatasetSpec(name="fixture-tweets", description="test", kind="classification",
                                 label_names=("negative", "positive"), license="test", citation="test",
                                 tags=("sentiment", "tweet"), load_rows=lambda: {"all": rows}))
    register_dataset(DatasetSpec(name="fixture-other-tweets", description="test", kind="classification",
                                 label_names=("negative", "positive"), license="test", citation="test",
                                 tags=("sentiment", "tweet"),
                                 load_rows=lambda: {"all": [{"text": ROWS[-1][0], "label": 1}] * 2
                                                    + [{"text": f"unrelated tweet {i}", "label": i % 2}
                                                       for i in range(20)]}))
    return "fixture-tweets"


def surrogate_forms(text: str) -> set[str]:
    """Every text a held-out tweet could become in the corpus (cleaned, its final hashtag removed)."""
    cleaned = clean_tweet(text)
    label = final_hashtag(cleaned)
    return {cleaned} | ({remove_label(cleaned, label)} if label else set())


def assert_no_leak(data: str, corpus) -> int:
    dataset = get_dataset(data)
    held = [t for s in ("validation", "test") for t in dataset.split(s)["text"]]
    held += [t for name, spec in DATASETS.items().items() if name != data and spec.has("tweet") and spec.offline
             for s in get_dataset(name).splits for t in get_dataset(name).split(s)["text"]]
    forbidden = set().union(*(surrogate_forms(t) for t in held))
    assert forbidden.isdisjoint(corpus.texts)
    return len(held)


def test_leakage_no_pretraining_tweet_matches_an_evaluation_split(tweet_datasets):
    corpus, npmi, where = prepare(tweet_datasets, TINY)
    assert set(where) == {"fixture-tweets/validation", "fixture-tweets/test", "fixture-other-tweets/train",
                          "fixture-other-tweets/validation", "fixture-other-tweets/test"}
    assert assert_no_leak(tweet_datasets, corpus) > 0
    assert corpus.stats.held_out_matches >= 1  # the retweets in validation/test block their originals
    assert corpus.stats.source == len(get_dataset(tweet_datasets).split("train"))
    assert set(corpus.label_names) == {"nfl", "fail", "coachella"}
    assert npmi.labels == corpus.label_names


@pytest.mark.slow
def test_leakage_on_the_real_corpus():
    corpus, _, where = prepare("tweets-3class", PRESETS["cpu"])
    assert "tweets-3class/test" in where and "vader-tweets/test" in where and "isarcasm/test" in where
    assert assert_no_leak("tweets-3class", corpus) > 5000
    assert corpus.stats.held_out_matches > 0
    held = get_dataset("tweets-3class").split("test")["text"]
    assert {match_key(t) for t in held}.isdisjoint(match_key(t) for t in corpus.texts)


def test_options_and_ablations():
    config = resolve_config("cpu", {"lr": "2e-5", "ablation": "no-slp,no-mlm"})
    assert config.lr == 2e-5 and not config.use_slp and not config.use_mlm and config.use_lcl and config.use_ccl
    assert not resolve_config("cpu", {"ablation": "no-repair"}).repair
    with pytest.raises(BenchError, match="no-ccl"):
        resolve_config("cpu", {"ablation": "no-everything"})
    paper = PRESETS["paper"]
    assert (paper.lambda_mlm, paper.lambda_slp, paper.gamma, paper.temperature, paper.batch_size, paper.lr,
            paper.epochs, paper.max_length) == (0.4, 0.1, 0.1, 0.1, 128, 2e-5, 3, 72)


def test_a_few_steps_lower_the_loss_with_every_term(tiny_bert, tweet_datasets):
    corpus, npmi, _ = prepare(tweet_datasets, TINY)
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean", device="cpu")
    objective = Objective(encoder, len(corpus.label_names), TINY)
    assert objective.mlm.source.startswith("fresh transform")
    assert objective.mlm_head.predictions.decoder.weight is encoder.model.get_input_embeddings().weight
    step = Step(encoder, objective, TINY, npmi.tensor(), seed=0)
    labels = list(corpus.labels)
    batch = batches_of(epoch_pairs(labels, 0, 0), list(corpus.texts), labels, 8)[0]

    def fixed_loss():
        objective.eval()
        with torch.no_grad():
            loss, parts = step(*batch, masker(encoder, TINY, 5))
        return loss.item(), parts

    before, parts = fixed_loss()
    assert fixed_loss() == (before, parts)  # a seeded masker draws the same masks, whatever the global RNG
    assert set(parts) == {"lcl", "ccl", "slp", "mlm"}
    optimizer = torch.optim.Adam(objective.parameters(), lr=3e-3)
    objective.train()
    for _ in range(15):
        loss, _ = step(*batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    after, _ = fixed_loss()
    assert after < 0.8 * before


def test_dcl_ablation_builds_no_mlm_head_and_skips_slp(tiny_bert, tweet_datasets):
    corpus, npmi, _ = prepare(tweet_datasets, TINY)
    config = resolve_config("cpu", {"ablation": "no-slp,no-mlm"})
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean", device="cpu")
    objective = Objective(encoder, len(corpus.label_names), config)
    assert objective.mlm is None and objective.slp_head is not None  # the head still weights LCL-LiT
    labels = list(corpus.labels)
    batch = batches_of(epoch_pairs(labels, 0, 0), list(corpus.texts), labels, 8)[0]
    loss, parts = Step(encoder, objective, config, npmi.tensor(), 0)(*batch)
    assert set(parts) == {"lcl", "ccl"}
    assert loss.item() == pytest.approx(0.1 * parts["lcl"] + 0.9 * parts["ccl"], rel=1e-5)


def test_fit_selects_on_held_out_tweets_and_round_trips(tiny_bert, tweet_datasets, tmp_path):
    corpus, npmi, _ = prepare(tweet_datasets, TINY)
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean", device="cpu")
    out = tmp_path / "ckpt"
    report = fit(encoder, corpus, npmi, TINY, seed=0, out_dir=out, progress=False)
    history = report["training"]["history"]
    assert history and -report["best_validation_loss"] == max(h["validation"] for h in history)
    assert NpmiMatrix.load(out / NPMI_FILE).sha256 == report["npmi"]["sha256"] == npmi.sha256
    assert json.loads((out / "infodcl_log.json").read_text())["best_step"] == report["best_step"]
    reloaded = TransformerEncoder.from_pretrained(out, device="cpu")
    texts = list(corpus.texts[:5])
    assert torch.allclose(torch.from_numpy(reloaded.encode(texts)), torch.from_numpy(encoder.encode(texts)),
                          atol=1e-5)


def test_paper_preset_without_a_gpu_is_one_line(monkeypatch):
    from sentibench.models import card_for
    from sentibench.models.catalog.trained import CardBase
    from sentibench.training.methods import TrainRequest, get_method

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    request = TrainRequest(method="infodcl", base=CardBase("roberta-base", card_for("roberta-base")),
                           data="tweets-3class", preset="paper", seed=0, out_dir=Path("unused"))
    with pytest.raises(BenchError) as error:
        get_method("infodcl").train(request)
    assert "\n" not in str(error.value) and "--preset cpu" in str(error.value)


def test_bench_train_infodcl_writes_checkpoint_and_card(tiny_bert, tweet_datasets, sentibench_home, tmp_path):
    from sentibench.cli import main

    cards = sentibench_home / "cards"
    cards.mkdir(exist_ok=True)
    (cards / "tiny-bert.yaml").write_text(yaml.safe_dump({
        "name": "tiny-bert", "loader": "transformers", "description": "test", "revision": "test",
        "checkpoint": str(tiny_bert), "pooling": "mean", "max_length": 24}))
    options = ["max_length=24", "batch_size=4", "epochs=1", "eval_every=2", "min_label_count=2",
               "npmi_min_count=1", "validation_fraction=0.25"]
    code = main(["train", "infodcl", "--base", "tiny-bert", "--data", tweet_datasets, "--preset", "cpu",
                 "--name", "tiny-infodcl", "--output", str(tmp_path / "ckpt"),
                 *[a for o in options for a in ("--option", o)]])
    assert code == 0
    card = yaml.safe_load((cards / "tiny-infodcl.yaml").read_text())
    assert card["recipe"]["method"] == "infodcl" and tweet_datasets in card["training_data"]
    data = json.loads((tmp_path / "ckpt" / "training_report.json").read_text())
    assert data["npmi"]["sha256"] in card["notes"]
    assert "fixture-other-tweets/test" in data["leakage_checked_against"]


def test_bench_data_npmi_prints_pairs_and_writes_the_matrix(tweet_datasets, tmp_path, capsys):
    from sentibench.cli import main

    out = tmp_path / "npmi.json"
    assert main(["data", "npmi", tweet_datasets, "--option", "min_label_count=2", "--option", "npmi_min_count=1",
                 "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "3 labels" in printed and set(NpmiMatrix.load(out).labels) == {"nfl", "fail", "coachella"}
    assert NpmiMatrix.load(out).sha256 in printed


def test_paper_preset_projects_h_through_dense_tanh_before_the_losses_and_the_two_layer_slp(tiny_bert,
                                                                                           tweet_datasets):
    corpus, npmi, _ = prepare(tweet_datasets, TINY)
    assert PRESETS["paper"].projection == "dense-tanh" and PRESETS["cpu"].projection == "none"
    paper_shape = dataclasses.replace(PRESETS["paper"], **{k: getattr(TINY, k) for k in (
        "max_length", "batch_size", "pooling", "single_label", "min_label_count", "npmi_min_count")})
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean", device="cpu")
    objective = Objective(encoder, len(corpus.label_names), paper_shape).eval()
    dense, tanh = objective.projection
    dropout, slp = objective.slp_head
    width = encoder.dimension
    assert (dense.in_features, dense.out_features, isinstance(tanh, torch.nn.Tanh)) == (width, width, True)
    assert (slp.in_features, slp.out_features) == (width, len(corpus.label_names))
    assert isinstance(dropout, torch.nn.Dropout)
    features = encoder.tokenize(["a tweet about the game", "an epic fail"])
    with torch.no_grad():
        raw = pooled(encoder, features)
        h = objective.sentence_vectors(encoder, features)
        assert torch.allclose(h, torch.tanh(raw @ dense.weight.T + dense.bias), atol=1e-6)
    # every loss reads the projected h: the step's SLP term equals the two-layer head's cross-entropy on it
    labels = torch.tensor([0, 1])
    _, parts = Step(encoder, objective, dataclasses.replace(paper_shape, use_mlm=False), npmi.tensor(), 0)(
        ["a tweet about the game", "an epic fail"], labels)
    with torch.no_grad():
        expected = torch.nn.functional.cross_entropy(slp(h), labels).item()
    assert parts["slp"] == pytest.approx(expected, rel=1e-5)
    assert "projection" not in {name.split(".")[0] for name, _ in encoder.model.named_parameters()}


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (bash .ci/gpu_check.sh)")
def test_the_paper_preset_trains_on_a_gpu(tiny_bert, tweet_datasets, sentibench_home, tmp_path):
    """D.1's preset as it is (the dense + tanh projection, the two-layer SLP, the MLM term), with only the
    fixture's data thresholds lowered and every loop capped at two steps, on CUDA."""
    from sentibench.models.catalog.trained import train

    (sentibench_home / "cards").mkdir(exist_ok=True)
    (sentibench_home / "cards" / "tiny-bert.yaml").write_text(yaml.safe_dump({
        "name": "tiny-bert", "loader": "transformers", "description": "test", "revision": "test",
        "checkpoint": str(tiny_bert), "pooling": "mean", "max_length": 24}))
    train("infodcl", "tiny-bert", tweet_datasets, "paper", device="cuda", write_card=False, smoke_steps=2,
          out_dir=tmp_path / "ck",
          options={"min_label_count": 2, "npmi_min_count": 1, "validation_fraction": 0.25})
    report = json.loads((tmp_path / "ck" / "training_report.json").read_text())
    assert report["resolved_config"]["projection"] == "dense-tanh"
    vectors = TransformerEncoder.from_pretrained(tmp_path / "ck", device="cuda").encode(["a tweet", "an epic fail"])
    assert vectors.shape == (2, 16) and torch.isfinite(torch.from_numpy(vectors)).all()
