"""SentiCSE training on tiny models built here: a WordPiece BERT without an MLM head (fresh head, tied
decoder) and a byte-level BPE RoBERTa with one (tokenizer trained with `tokenizers` on the fixture text).
A few steps lower the loss; a checkpoint round-trips; presets, ablations and the offline path."""

import dataclasses
import json
from pathlib import Path

import pytest
import torch
import yaml
from tokenizers import ByteLevelBPETokenizer
from transformers import (
    BertConfig,
    BertModel,
    BertTokenizerFast,
    RobertaConfig,
    RobertaForMaskedLM,
    RobertaTokenizerFast,
)

from sentibench.core.errors import BenchError
from sentibench.embed.torch_encoders import TransformerEncoder
from sentibench.models.catalog.cards import read_card
from sentibench.models.catalog.trained import CardBase
from sentibench.models.methods.senticse import train as senticse_train
from sentibench.models.methods.senticse.lexicon import parse_sentiwordnet
from sentibench.models.methods.senticse.losses import QuadrupleContrastiveLoss
from sentibench.models.methods.senticse.train import PRESETS, Config, build_objective, fit, resolve_config, step_loss
from sentibench.training.methods import TrainRequest, get_method

FIXTURES = Path(__file__).parent / "fixtures"
CARDS = Path(__file__).parent.parent / "models" / "catalog" / "cards"
ROWS = [(line.split("\t")[1], int(line.split("\t")[0]))
        for line in (FIXTURES / "senticse_reviews.tsv").read_text().splitlines()]
TEXTS = [text for text, _ in ROWS]
LABELS = [label for _, label in ROWS]
TINY = Config(max_length=16, batch_size=4, lr=3e-3, steps=4, pooling=None, temperature=0.05, lambda_w=0.15,
              alpha=1.0, mask_ratio=0.5, eval_every=2, word_reduction="sum", log_every=1)


@pytest.fixture(scope="module")
def lexicon():
    return parse_sentiwordnet(FIXTURES / "senticse_sentiwordnet.txt")


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    """A 1-layer BERT with a WordPiece vocabulary of the fixture words and no MLM head weights."""
    folder = tmp_path_factory.mktemp("tiny-bert")
    words = sorted({w for text in TEXTS for w in text.split()})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words, "##s", "##y"]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = BertTokenizerFast.from_pretrained(str(folder))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=32)
    BertModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_roberta(tmp_path_factory) -> Path:
    """A 1-layer RobertaForMaskedLM (so the checkpoint HAS an MLM head) with a trained byte-level BPE."""
    folder = tmp_path_factory.mktemp("tiny-roberta")
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(TEXTS * 3, vocab_size=400, min_frequency=1, show_progress=False,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    bpe.save_model(str(folder))
    tokenizer = RobertaTokenizerFast.from_pretrained(str(folder))
    torch.manual_seed(0)
    config = RobertaConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                           intermediate_size=32, max_position_embeddings=40, pad_token_id=tokenizer.pad_token_id,
                           bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id)
    RobertaForMaskedLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def split(rows):
    train = [r for i, r in enumerate(rows) if i % 3]
    valid = [r for i, r in enumerate(rows) if not i % 3]
    return [t for t, _ in train], [y for _, y in train], [t for t, _ in valid], [y for _, y in valid]


def test_paper_preset_is_table_11_with_the_authors_weighting_and_masking():
    paper = PRESETS["paper"]
    assert (paper.max_length, paper.batch_size, paper.lr, paper.steps, paper.pooling, paper.temperature,
            paper.lambda_w, paper.alpha, paper.mask_ratio, paper.eval_every) == (
        128, 64, 1e-5, 20_000, "cls", 0.05, 0.15, 1.0, 0.1, 500)
    assert paper.sentence_terms == ("pos", "neg")
    assert (paper.negative_weighting, paper.positive_log_weight, paper.in_batch_log_weight, paper.word_delta,
            paper.word_reduction, paper.masked_sentences, paper.negative_anchor) == (
        "add-to-logits", 0.0, 0.5, "polar-flip", "mean-kept", "all", "n-plus")


def test_cpu_preset_takes_the_authors_choices_and_departs_from_paper_only_for_the_cpu():
    cpu = dataclasses.asdict(PRESETS["cpu"])
    assert cpu == {"max_length": 48, "batch_size": 8, "lr": 1e-4, "steps": 150, "pooling": None, "temperature": 0.05,
                   "lambda_w": 0.15, "alpha": 1.0, "mask_ratio": 0.1, "eval_every": 25,
                   "word_reduction": "mean-kept", "sentence_terms": ("pos", "neg"), "log_every": 25,
                   "negative_weighting": "add-to-logits", "positive_log_weight": 0.0, "in_batch_log_weight": 0.5,
                   "word_delta": "polar-flip", "masked_sentences": "all", "negative_anchor": "n-plus",
                   "max_grad_norm": None, "masking": "exact-count", "patience": None, "schedule": "linear"}


def test_plateau_preset_is_the_cpu_preset_run_until_validation_stops_improving():
    plateau, cpu = dataclasses.asdict(PRESETS["plateau"]), dataclasses.asdict(PRESETS["cpu"])
    changed = {key: plateau[key] for key in plateau if plateau[key] != cpu[key]}
    assert changed == {"steps": 900, "patience": 4, "schedule": "constant"}
    loop = PRESETS["plateau"].loop()
    assert (loop.patience, loop.schedule, loop.max_steps, loop.eval_every) == (4, "constant", 900, 25)
    paper = dataclasses.asdict(PRESETS["paper"])
    # clipping and the authors' masking stay out of `cpu`: its committed cards were trained without them
    assert {k for k in cpu if cpu[k] != paper[k]} == {"max_length", "batch_size", "lr", "steps", "pooling",
                                                     "eval_every", "max_grad_norm", "masking"}
    assert (paper["max_grad_norm"], paper["masking"]) == (1.0, "per-token")
    assert resolve_config("cpu", {}) == PRESETS["cpu"]


def test_new_options_are_typed_and_checked():
    config = resolve_config("cpu", {"negative_weighting": "add-to-logits", "alpha": "0", "word_delta": "polar-flip",
                                    "masked_sentences": "all", "word_reduction": "mean-kept",
                                    "negative_anchor": "n-plus"})
    assert (config.negative_weighting, config.alpha, config.masked_sentences, config.negative_anchor) == (
        "add-to-logits", 0.0, "all", "n-plus")
    with pytest.raises(BenchError, match="choose one of any-change, polar-flip"):
        resolve_config("cpu", {"word_delta": "flip"})


def test_negative_anchor_option_reaches_the_sentence_loss(tiny_bert):
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean", device="cpu")
    config = resolve_config("cpu", {"negative_anchor": "n-plus", "lambda_w": "0"})
    assert build_objective(encoder, config, None).sentence.get_config_dict()["negative_anchor"] == "n-plus"
    with pytest.raises(BenchError, match="choose one of n, n-plus"):
        resolve_config("cpu", {"negative_anchor": "p"})


def test_masked_sentences_all_masks_the_four_sentences_of_each_quadruple(tiny_bert, lexicon):
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean", device="cpu")
    batch = [TEXTS[0], TEXTS[2], TEXTS[1], TEXTS[3], TEXTS[24], TEXTS[26], TEXTS[25], TEXTS[27]]  # B = 2
    counts = {}
    for which in ("anchors", "all"):
        config = dataclasses.replace(TINY, masked_sentences=which, mask_ratio=1.0)
        objective = build_objective(encoder, config, lexicon)
        with torch.no_grad():
            counts[which] = step_loss(encoder, objective, config, batch, torch.Generator().manual_seed(0))[1]["masked"]
    tables = build_objective(encoder, TINY, lexicon).tables

    def polar(texts: list[str]) -> int:
        features = encoder.tokenizer(texts, padding=True, truncation=True, max_length=TINY.max_length,
                                     return_tensors="pt")
        return int(tables.candidates(features["input_ids"], features["attention_mask"]).sum())

    assert counts["anchors"] == polar(batch[:2] + batch[4:6]) and counts["all"] == polar(batch) > counts["anchors"]


def test_masking_option_per_token_reaches_the_word_pass_and_is_fixed_per_sentence(tiny_bert, lexicon):
    """`masking=per-token`: the word pass masks what `mask_per_token` chooses for the four sentences, whatever
    the step's generator (drawn once per sentence); `exact-count` takes round(0.5 x candidates) of the batch."""
    from sentibench.models.methods.senticse.train import mask_per_token

    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean", device="cpu")
    batch = [TEXTS[0], TEXTS[2], TEXTS[1], TEXTS[3], TEXTS[24], TEXTS[26], TEXTS[25], TEXTS[27]]
    config = dataclasses.replace(resolve_config("cpu", {"masking": "per-token"}), max_length=16, mask_ratio=0.5)
    objective = build_objective(encoder, config, lexicon)
    features = encoder.tokenizer(batch, padding=True, truncation=True, max_length=16, return_tensors="pt")
    expected = mask_per_token(features["input_ids"], features["attention_mask"], objective.tables, 0.5,
                              encoder.tokenizer.mask_token_id, batch, 3, 16)[1]
    with torch.no_grad():
        counts = {step_loss(encoder, objective, config, batch, torch.Generator().manual_seed(g), seed=3)[1]["masked"]
                  for g in range(4)}
        exact = step_loss(encoder, objective, dataclasses.replace(config, masking="exact-count"), batch,
                          torch.Generator().manual_seed(0))[1]["masked"]
    assert counts == {int(expected.sum())}
    candidates = int(objective.tables.candidates(features["input_ids"], features["attention_mask"]).sum())
    assert exact == max(1, round(0.5 * candidates))
    with pytest.raises(BenchError, match="choose one of exact-count, per-token"):
        resolve_config("cpu", {"masking": "bernoulli"})


def test_options_override_and_ablations():
    config = resolve_config("cpu", {"steps": "7", "lr": "2e-4", "ablation": "pos-only,no-word"})
    assert config.steps == 7 and config.lr == 2e-4
    assert config.sentence_terms == ("pos",) and config.lambda_w == 0.0
    assert resolve_config("paper", {"ablation": "neg-only"}).sentence_terms == ("neg",)
    for bad in ({"ablation": "pos-only,neg-only"}, {"ablation": "no-sentence"}, {"stepz": "3"}, {"steps": "x"}):
        with pytest.raises(BenchError):
            resolve_config("cpu", bad)
    with pytest.raises(BenchError, match="no preset"):
        resolve_config("gpu", {})


def test_a_few_steps_lower_the_loss_with_a_fresh_tied_head(tiny_bert, lexicon):
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean", device="cpu")
    objective = build_objective(encoder, TINY, lexicon)
    assert objective.head.source.startswith("fresh transform")
    decoder = objective.head.module.predictions.decoder
    assert decoder.weight is encoder.model.get_input_embeddings().weight
    batch = [TEXTS[0], TEXTS[2], TEXTS[1], TEXTS[3], TEXTS[24], TEXTS[26], TEXTS[25], TEXTS[27]]  # B = 2

    def fixed_loss():
        encoder.model.eval()
        with torch.no_grad():
            loss, parts = step_loss(encoder, objective, TINY, batch, torch.Generator().manual_seed(1))
        return loss.item(), parts

    before, parts = fixed_loss()
    assert parts["masked"] >= 1 and parts["l_w"] > 0
    params = list(encoder.model.parameters()) + [p for n, p in objective.head.module.named_parameters()
                                                 if "decoder.weight" not in n]
    optimizer = torch.optim.Adam(params, lr=3e-3)
    encoder.model.train()
    for step in range(15):
        loss, _ = step_loss(encoder, objective, TINY, batch, torch.Generator().manual_seed(step))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    after, _ = fixed_loss()
    assert after < 0.8 * before


def test_roberta_path_trains_selects_and_round_trips(tiny_roberta, lexicon, tmp_path):
    encoder = TransformerEncoder.from_pretrained(tiny_roberta, pooling="cls_before_pooler", device="cpu")
    objective = build_objective(encoder, TINY, lexicon)
    assert objective.head.source == "checkpoint" and objective.tables.scheme == "byte-bpe"
    saved = RobertaForMaskedLM.from_pretrained(str(tiny_roberta)).lm_head.dense.weight
    assert torch.equal(objective.head.module.dense.weight, saved)  # the checkpoint's head, not a fresh one

    train_x, train_y, valid_x, valid_y = split(ROWS)
    out = tmp_path / "ckpt"
    report = fit(encoder, train_x, train_y, valid_x, valid_y, dataclasses.replace(TINY, pooling="cls"), seed=0,
                 out_dir=out, lexicon=lexicon, progress=False)
    assert [h["step"] for h in report["training"]["history"]] == [0, 2, 4]
    assert report["best_val_sgts"] == max(h["validation"] for h in report["training"]["history"])
    assert report["training"]["loss_curve"][0]["step"] == 1 and len(report["training"]["loss_curve"]) == 4
    assert report["mlm_head"] == "checkpoint" and report["pooling"] == "cls"
    assert json.loads((out / "senticse_log.json").read_text())["best_step"] == report["best_step"]
    assert (out / "model.safetensors").exists()

    reloaded = TransformerEncoder.from_pretrained(out, device="cpu")
    assert (reloaded.pooling, reloaded.max_length) == ("cls", encoder.max_length)  # evaluation length kept
    assert torch.allclose(torch.from_numpy(reloaded.encode(valid_x)), torch.from_numpy(encoder.encode(valid_x)),
                          atol=1e-5)


def test_no_word_ablation_builds_no_head(tiny_bert):
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean", device="cpu")
    config = dataclasses.replace(TINY, lambda_w=0.0)
    objective = build_objective(encoder, config, lexicon=None)  # never reads SentiWordNet
    assert objective.head is None and objective.word is None
    loss, parts = step_loss(encoder, objective, config, TEXTS[:4] + TEXTS[24:28], torch.Generator())
    assert set(parts) == {"l_s"} and loss.item() == pytest.approx(parts["l_s"])


def test_hub_only_base_offline_says_what_to_run_instead():
    from sentibench.models import card_for

    request = TrainRequest(method="senticse", base=CardBase("roberta-base", card_for("roberta-base")), data="mr",
                           preset="paper", seed=0, out_dir=Path("unused"))
    with pytest.raises(BenchError) as error:
        get_method("senticse").train(request)
    message = str(error.value)
    assert "\n" not in message and "roberta-base" in message
    assert "bench train senticse --base all-minilm-l6-v2 --data mr --preset cpu" in message


def test_bench_train_senticse_writes_checkpoint_and_card(tiny_bert, lexicon, monkeypatch, sentibench_home):
    from sentibench.cli import main
    from sentibench.data import DatasetSpec, register_dataset
    from sentibench.data.registry import DATASETS

    if "senticse-fixture" not in DATASETS:
        register_dataset(DatasetSpec(
            name="senticse-fixture", description="test fixture", kind="classification",
            label_names=("negative", "positive"), license="test", citation="test", tags=("sentiment",),
            load_rows=lambda: {"all": [{"text": t, "label": y} for t, y in ROWS]}, split_fractions=(0.6, 0.2, 0.2)))
    cards = sentibench_home / "cards"
    cards.mkdir(exist_ok=True)
    (cards / "tiny-bert.yaml").write_text(yaml.safe_dump({
        "name": "tiny-bert", "loader": "transformers", "description": "test", "revision": "test",
        "checkpoint": str(tiny_bert), "pooling": "mean", "max_length": 16}))
    monkeypatch.setattr(senticse_train, "sentiwordnet", lambda: lexicon)  # offline: the fixture lexicon
    code = main(["train", "senticse", "--base", "tiny-bert", "--data", "senticse-fixture", "--preset", "cpu",
                 "--name", "tiny-senticse", "--option", "steps=2", "--option", "eval_every=1",
                 "--option", "batch_size=4", "--option", "max_length=16"])
    assert code == 0
    card = yaml.safe_load((cards / "tiny-senticse.yaml").read_text())
    assert card["recipe"]["method"] == "senticse" and card["recipe"]["preset"] == "cpu"
    assert "senticse-fixture" in card["training_data"]
    assert "fresh transform" in card["notes"]
    (report,) = (sentibench_home / "checkpoints").rglob("training_report.json")
    data = json.loads(report.read_text())
    assert data["data_hash"] and data["config"]["steps"] == 2
    resolved = resolve_config("cpu", {"steps": "2", "eval_every": "1", "batch_size": "4", "max_length": "16"})
    assert data["resolved_config"] == json.loads(json.dumps(dataclasses.asdict(resolved)))  # the staleness record
    assert "card_revision" not in data  # `bench train` writes its own card, which points at this folder
    assert data["best_step"] == _first_best(data["training"]["history"])


def _first_best(history: list[dict]) -> int:
    """The step the loop must keep: the first strictly-best validation."""
    best = history[0]
    for entry in history[1:]:
        if entry["validation"] > best["validation"]:
            best = entry
    return best["step"]


@pytest.mark.parametrize(("card_name", "alpha", "preset"), [("senticse-minilm-alpha0", 0.0, "cpu"),
                                                           ("senticse-minilm-alpha2", 2.0, "cpu"),
                                                           ("senticse-minilm", 1.0, "plateau")])
def test_table_14_alpha_cards_resolve_to_their_row(card_name, alpha, preset):
    """The alpha cards are the cpu preset with their alpha; the main card (alpha 1) moved to `plateau` (its
    r2 results, the cpu preset's alpha-1 row, stay committed)."""
    card = read_card(CARDS / f"{card_name}.yaml")
    config = resolve_config(card.recipe["preset"], card.recipe.get("options") or {})
    assert card.recipe["preset"] == preset and config.alpha == alpha
    assert config == dataclasses.replace(PRESETS[preset], alpha=alpha)
    objective = QuadrupleContrastiveLoss(config.temperature, config.alpha, config.sentence_terms,
                                         config.negative_weighting, config.positive_log_weight,
                                         config.in_batch_log_weight, config.negative_anchor)
    assert objective.get_config_dict()["weighting"] == "add-to-logits"  # alpha = 0 is valid only there


def test_r2_cards_train_with_the_current_cpu_preset():
    for name, terms, lambda_w in (("senticse-minilm-neg-only", ("neg",), 0.15),
                                  ("senticse-minilm-pos-only", ("pos",), 0.15),
                                  ("senticse-minilm-no-word", ("pos", "neg"), 0.0)):
        card = read_card(CARDS / f"{name}.yaml")
        assert card.revision.endswith("-r2")
        config = resolve_config(card.recipe["preset"], card.recipe.get("options") or {})
        assert config == dataclasses.replace(PRESETS["cpu"], sentence_terms=terms, lambda_w=lambda_w)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (bash .ci/gpu_check.sh)")
def test_the_paper_preset_trains_on_a_gpu(tiny_bert, lexicon, monkeypatch, sentibench_home, tmp_path):
    """Table 11's preset as it is (batch 64 quadruples, length 128, cls pooling through the pooler, the authors'
    weighting and masking), every loop capped at two steps, on CUDA: the checkpoint reloads and encodes."""
    from sentibench.data import DatasetSpec, register_dataset
    from sentibench.data.registry import DATASETS
    from sentibench.models.catalog.trained import train

    if "senticse-fixture" not in DATASETS:
        register_dataset(DatasetSpec(
            name="senticse-fixture", description="test fixture", kind="classification",
            label_names=("negative", "positive"), license="test", citation="test", tags=("sentiment",),
            load_rows=lambda: {"all": [{"text": t, "label": y} for t, y in ROWS]}, split_fractions=(0.6, 0.2, 0.2)))
    (sentibench_home / "cards").mkdir(exist_ok=True)
    (sentibench_home / "cards" / "tiny-bert.yaml").write_text(yaml.safe_dump({
        "name": "tiny-bert", "loader": "transformers", "description": "test", "revision": "test",
        "checkpoint": str(tiny_bert), "pooling": "mean", "max_length": 16}))
    monkeypatch.setattr(senticse_train, "sentiwordnet", lambda: lexicon)
    train("senticse", "tiny-bert", "senticse-fixture", "paper", out_dir=tmp_path / "ck", device="cuda",
          write_card=False, smoke_steps=2)
    report = json.loads((tmp_path / "ck" / "training_report.json").read_text())
    assert report["resolved_config"]["batch_size"] == 64 and report["resolved_config"]["pooling"] == "cls"
    vectors = TransformerEncoder.from_pretrained(tmp_path / "ck", device="cuda").encode(TEXTS[:4])
    assert vectors.shape == (4, 16) and torch.isfinite(torch.from_numpy(vectors)).all()


def test_gradient_clipping_is_the_paper_presets_default_and_an_option_of_the_cpu_preset():
    """`paper` clips at 1.0 (the authors' Trainer); `cpu` trains without clipping (its committed cards' protocol);
    `max_grad_norm=1.0` hands the clipping to the shared loop; a norm that is not above 0 is refused."""
    assert resolve_config("cpu", {}).loop().max_grad_norm is None
    assert resolve_config("paper", {}).loop().max_grad_norm == 1.0
    assert resolve_config("paper", {"max_grad_norm": "none"}).loop().max_grad_norm is None
    assert resolve_config("cpu", {"max_grad_norm": "1.0"}).loop().max_grad_norm == 1.0
    with pytest.raises(BenchError, match="max_grad_norm='0' must be above 0"):
        resolve_config("cpu", {"max_grad_norm": "0"})
