"""mteb round 2 (issue 27 item 5): every exported score reads back through `mteb.ResultCache` as our typed
result records it, field by field; mteb aggregates our tasks (task types, `get_aggregated_scores`, the
`sentibench-v1` benchmark with `get_benchmark_result`); a folder model and an in-process model export and read
back; inside `mteb.evaluate` STS-B scores its test split only and equals `bench run --no-cache`.

Expected values come from our result files (the typed reader) and from task names, never from the export."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from statistics import mean

import pytest

mteb = pytest.importorskip("mteb")

from sentibench.results.schema import TaskResult  # noqa: E402
from sentibench.results.task_result import NOT_RESULTS, iter_results  # noqa: E402

COMMITTED_RESULTS = Path(__file__).resolve().parents[1] / "results"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
MTEB_NAMES = {"sts-stsb": "STSBenchmark"}  # the twins among the committed results
TYPE_BY_PREFIX = {"sgts": "STS", "sts": "STS", "probe": "Classification", "senteval": "Classification",
                  "fewshot": "Classification", "retrieval": "Retrieval", "docsim": "STS", "clustering": "Clustering",
                  "duplicates": "Retrieval"}


def _mteb_model_name(stored: TaskResult) -> str:
    model = stored.provenance.model
    return model.hub_id or f"sentibench/{model.name}"


def _mteb_model_revision(stored: TaskResult) -> str:
    from sentibench.mteb.export import card_from_provenance
    from sentibench.mteb.meta import mteb_revision

    return mteb_revision(card_from_provenance(stored.provenance.model))


def _exportable(results: Path) -> list[TaskResult]:
    return [r for r in iter_results(results) if not r.smoke and not r.task_name.startswith("align-")]


def _read_back(output: Path) -> dict[tuple[str, str, str], object]:
    """(model name, revision, task name) -> mteb's TaskResult, everything mteb's ResultCache loads with its
    defaults (a model with results of two revisions, e.g. a card retrained, exports both)."""
    loaded = {}
    for model in mteb.ResultCache(output).load_results():
        for result in model.task_results:
            key = (model.model_name, model.model_revision, result.task_name)
            assert key not in loaded, f"two revisions of {key}"
            loaded[key] = result
    return loaded


def _assert_scores_read_back(results: Path, output: Path) -> int:
    """Every score field of every exported split, as the typed result records it; returns how many files."""
    loaded, stored = _read_back(output), _exportable(results)
    assert len(loaded) == len(stored)
    for ours in stored:
        theirs = loaded[(_mteb_model_name(ours), _mteb_model_revision(ours),
                         MTEB_NAMES.get(ours.task_name, ours.task_name))]
        splits = ["test"] if ours.task_name in MTEB_NAMES else list(ours.scores)
        assert list(theirs.scores) == splits, ours.path
        for split in splits:
            for mine, read in zip(ours.scores[split], theirs.scores[split], strict=True):
                recorded = mine.to_json()
                assert set(read) - {"mteb_version"} == set(recorded), (ours.path, split)
                for key, value in recorded.items():
                    assert read[key] == value, (ours.path, split, key)
        assert theirs.get_score() == ours.main_score(), ours.path
    return len(stored)


def _expected_aggregates(stored: list[TaskResult]) -> dict[tuple[str, str], dict[str, float]]:
    """(model, revision) -> the means mteb should compute over that revision's results."""
    by_model: dict[tuple[str, str], list[TaskResult]] = defaultdict(list)
    for result in stored:
        by_model[(_mteb_model_name(result), _mteb_model_revision(result))].append(result)
    expected = {}
    for model, results in by_model.items():
        by_type = defaultdict(list)
        for result in results:
            by_type[TYPE_BY_PREFIX[result.task_name.split("-")[0]]].append(result.main_score())
        expected[model] = {"Mean(Task)": mean(r.main_score() for r in results),
                           "Mean(TaskType)": mean(mean(scores) for scores in by_type.values())}
    return expected


@pytest.fixture(scope="module")
def word_model(tmp_path_factory) -> Path:
    """A sentence-transformers folder: a 1-layer, 32-wide BERT with seeded weights whose vocabulary is every
    word of STS-B's test split, mean pooling. Unlike a model that reads most words as [UNK], its vectors
    spread out (cosines are not all near 1), so Spearman on STS-B does not hinge on float rounding."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    from sentibench.data import get_dataset

    split = get_dataset("stsb").split("test")
    texts = [*split["sentence1"], *split["sentence2"]]
    words = sorted({word for text in texts for word in re.findall(r"\w+|[^\w\s]", text.lower())})
    bert = tmp_path_factory.mktemp("word-bert")
    (bert / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n")
    tokenizer = BertTokenizerFast.from_pretrained(str(bert))
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=128)).save_pretrained(bert)
    tokenizer.save_pretrained(bert)
    body = Transformer(str(bert), max_seq_length=128)
    folder = tmp_path_factory.mktemp("word-st")
    SentenceTransformer(modules=[body, Pooling(body.get_embedding_dimension(), "mean")], device="cpu").save(
        str(folder))
    return folder


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    from sentibench.mteb import export_results

    output = tmp_path_factory.mktemp("mteb-export")
    export_results(COMMITTED_RESULTS, output)
    return output


def test_every_exported_score_reads_back_as_recorded(exported):
    # every committed result but the align-* ones (no MTEB task type: not exported) is read back
    expected = [p for p in COMMITTED_RESULTS.rglob("*.json")
                if not p.name.startswith("align-") and p.name not in NOT_RESULTS]
    assert len(expected) > 300 and _assert_scores_read_back(COMMITTED_RESULTS, exported) == len(expected)


def test_mteb_aggregates_our_tasks_as_the_means_of_the_recorded_scores(exported):
    from sentibench.mteb import register_with_mteb

    register_with_mteb()
    loaded = mteb.ResultCache(exported).load_results()
    assert sorted(loaded.task_types) == ["Classification", "Clustering", "Retrieval", "STS"]
    aggregated = loaded.get_aggregated_scores()
    expected = _expected_aggregates(_exportable(COMMITTED_RESULTS))
    assert set(aggregated) == {model for model, _ in expected}
    for model, scores in aggregated.items():  # a model with two revisions: mteb aggregates one of them
        revisions = [means for (name, _), means in expected.items() if name == model]
        assert any(scores == pytest.approx(means, abs=1e-12) for means in revisions), model


def test_the_current_benchmark_is_its_tasks_and_gives_a_benchmark_result(exported):
    from sentibench.mteb import sentibench_benchmark
    from sentibench.tasks.benchmarks import CURRENT, get_benchmark

    benchmark = sentibench_benchmark()
    expected = {MTEB_NAMES.get(name, name) for name in get_benchmark(CURRENT).task_names
                if not name.startswith("align-")}
    assert benchmark.name == CURRENT and {t.metadata.name for t in benchmark.tasks} == expected
    assert all(t.eval_splits == ["test"] for t in benchmark.tasks)
    loaded = mteb.ResultCache(exported).load_results(tasks=benchmark)
    table = loaded.get_benchmark_result().set_index("Model")
    minilm = [r for r in _exportable(COMMITTED_RESULTS) if _mteb_model_name(r) == MINILM
              and MTEB_NAMES.get(r.task_name, r.task_name) in expected]
    sts = [r.main_score() for r in minilm if TYPE_BY_PREFIX[r.task_name.split("-")[0]] == "STS"]
    # six SgTS, STS-B and the two document-similarity tasks: every STS-type task of the benchmark
    assert len(sts) == 9
    assert table.loc[MINILM, "STS"] == pytest.approx(mean(sts), abs=1e-12)
    # mteb aggregates a model only when it has every task of the benchmark (else None everywhere); the
    # committed all-MiniLM-L6-v2 has all of the current benchmark (membership is the benchmark's: tasks other tests
    # register never widen it)
    assert {MTEB_NAMES.get(r.task_name, r.task_name) for r in minilm} == expected
    scores = loaded.get_aggregated_scores()[MINILM]
    assert scores["Mean(Task)"] == pytest.approx(mean(r.main_score() for r in minilm), abs=1e-12)
    assert scores["STS"] == pytest.approx(mean(sts), abs=1e-12) and isinstance(scores["Rank"], int)


def test_each_sentibench_benchmark_is_an_mteb_benchmark_of_its_name():
    from sentibench.core.errors import BenchError
    from sentibench.mteb import sentibench_benchmark
    from sentibench.mteb.benchmark import NAME
    from sentibench.tasks.benchmarks import CURRENT, get_benchmark

    assert NAME == CURRENT == sentibench_benchmark().name
    lite = sentibench_benchmark("sentibench-lite-v1")
    names = get_benchmark("sentibench-lite-v1").task_names
    assert lite.name == "sentibench-lite-v1" and len(lite.tasks) == len(names)  # lite has no align-* task
    assert {t.metadata.name for t in lite.tasks} == {MTEB_NAMES.get(n, n) for n in names}
    with pytest.raises(BenchError, match="unknown benchmark 'sentibench-v9'"):
        sentibench_benchmark("sentibench-v9")


def test_a_folder_model_and_an_in_process_model_export_and_read_back(tmp_path, fixture_task, fake_encoder,
                                                                     word_model):
    from sentibench.models.catalog.inprocess import InProcessModel
    from sentibench.mteb import export_results, register_with_mteb
    from sentibench.run.runner import run
    from sentibench.tasks.registry import all_tasks

    results = tmp_path / "runs"
    tasks = [fixture_task, all_tasks()["probe-fixture-reviews"]]
    run([str(word_model), InProcessModel("my-object", fake_encoder)], tasks, results, use_cache=False)
    report = export_results(results, tmp_path / "mteb")
    assert len(report.written) == 4 and not report.skipped
    assert _assert_scores_read_back(results, tmp_path / "mteb") == 4
    register_with_mteb()
    aggregated = mteb.ResultCache(tmp_path / "mteb").load_results().get_aggregated_scores()
    expected = _expected_aggregates(_exportable(results))  # one revision each here
    assert set(aggregated) == {model for model, _ in expected} and {name.split("/")[0] for name in aggregated} \
        == {"sentibench"}
    for (model, _), scores in expected.items():
        assert aggregated[model] == pytest.approx(scores, abs=1e-12), model


def test_stsb_inside_mteb_scores_test_only_and_equals_bench_run_without_the_cache(tmp_path, word_model):
    """Our encoder inside `mteb.evaluate` against `bench run --no-cache`, a tiny folder model, full STS-B:
    neither side reads or writes the embedding cache, so each encodes the sentences itself."""
    from sentibench.cli import main
    from sentibench.core.paths import cache_dir
    from sentibench.mteb import get_model, get_tasks
    from sentibench.results.task_result import read_result

    def cached_files() -> set[Path]:  # the embedding cache only (a weights-digest memo may be written)
        return {p for p in cache_dir("embeddings").rglob("*") if p.is_file()}

    before = cached_files()
    assert main(["run", "-m", str(word_model), "-t", "sts-stsb", "--no-cache",
                 "--output-folder", str(tmp_path)]) == 0
    (written,) = list(tmp_path.rglob("sts-stsb.json"))
    ours = read_result(written)
    (task,) = get_tasks(["sts-stsb"])
    assert task.eval_splits == ["test"]
    (result,) = mteb.evaluate(get_model(str(word_model), use_cache=False), tasks=[task], cache=None,
                              show_progress_bar=False).task_results
    assert list(result.scores) == ["test"]  # dev is not averaged in: mteb's main score is bench's
    # 0.3520461 by bench, 0.3520467 inside mteb here: the two encode in different batches, and float
    # rounding of padded batches (1e-7 in a vector) moves near-tied pairs; a different encoder moves it by far more
    assert result.get_score() == pytest.approx(ours.main_score(), abs=1e-5)
    pearson = ours.scores["test"][0].to_json()["cosine_pearson"]
    assert result.scores["test"][0]["cosine_pearson"] == pytest.approx(pearson, abs=1e-5)
    assert ours.main_score() > 0.2  # vectors that vary with the words (a model reading [UNK]s scores ~0.07)
    assert cached_files() == before


def test_a_fine_tuning_task_is_typed_for_its_results_but_not_run_by_mteb():
    from sentibench.core.errors import BenchError
    from sentibench.mteb import register_with_mteb

    register_with_mteb()
    task = mteb.get_task("fewshot-senticse-k1-mr")
    assert task.metadata.type == "Classification" and task.eval_splits == ["test"]
    with pytest.raises(BenchError, match="bench run"):
        task._evaluate_subset(None, None, hf_split="test", hf_subset="default")


def test_registering_never_replaces_a_task_of_mtebs_own(monkeypatch):
    from mteb.get_tasks import _TASKS_REGISTRY

    from sentibench.core.errors import BenchError
    from sentibench.mteb import register_with_mteb

    monkeypatch.setitem(_TASKS_REGISTRY, "sgts-mr", _TASKS_REGISTRY["STSBenchmark"])  # as if mteb had one
    with pytest.raises(BenchError, match="mteb has a task of its own called 'sgts-mr'"):
        register_with_mteb()
    assert _TASKS_REGISTRY["sgts-mr"] is _TASKS_REGISTRY["STSBenchmark"]
