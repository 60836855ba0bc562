import hashlib
import json

import numpy as np
import pytest

from sentibench.core.errors import BenchError
from sentibench.embed.cache import CachedEncoder, check_embeddings
from sentibench.report.leaderboard import render
from sentibench.results.task_result import read_result, result_path, task_result, write_result


def test_cache_encodes_each_distinct_text_once_across_instances(fake_encoder):
    first = CachedEncoder(fake_encoder, {"model": "fake", "revision": "1"})
    vectors = first.encode(["good film", "bad film", "good film"])
    assert fake_encoder.encoded == 2 and np.array_equal(vectors[0], vectors[2])
    second = CachedEncoder(fake_encoder, {"model": "fake", "revision": "1"})
    assert np.array_equal(second.encode(["bad film", "good film"]), vectors[[1, 0]])
    assert second.encoded == 0 and fake_encoder.encoded == 2
    other_revision = CachedEncoder(fake_encoder, {"model": "fake", "revision": "2"})
    other_revision.encode(["good film"])
    assert other_revision.encoded == 1, "a different identity never reads another model's vectors"
    disabled = CachedEncoder(fake_encoder, {"model": "fake", "revision": "1"}, enabled=False)
    disabled.encode(["good film"])
    assert disabled.encoded == 1


@pytest.mark.parametrize("poison", [
    b"\x00\x00\xc0\x7f" * 3,                         # NaN in every component (float32 0x7fc00000)
    np.array([1.0, np.inf, 0.0], np.float32).tobytes(),  # one infinite component
    b"\x00" * 8,                                       # two floats under a dimension of three
])
def test_cached_vectors_are_checked_on_read_and_a_bad_row_is_encoded_again(fake_encoder, poison, capsys):
    import sqlite3

    identity = {"model": "fake", "revision": "poisoned"}
    cache = CachedEncoder(fake_encoder, identity)
    fresh = cache.encode(["good film", "bad film"])
    store = cache._store()
    with sqlite3.connect(store.path) as db:  # a valid database whose every vector was overwritten
        db.execute("UPDATE vectors SET vec = ?, dim = 3", (poison,))
    again = CachedEncoder(fake_encoder, identity)
    assert np.array_equal(again.encode(["good film", "bad film"]), fresh)
    assert again.encoded == 2 and "2 stored vector(s) were not finite or had the wrong size" in capsys.readouterr().err
    healed = CachedEncoder(fake_encoder, identity)
    assert np.array_equal(healed.encode(["bad film"]), fresh[[1]]) and healed.encoded == 0  # rows rewritten


def test_cached_vectors_of_a_self_consistent_wrong_size_are_encoded_again(fake_encoder, capsys):
    """Every row rewritten as a valid 2-dimensional vector (dim column to match): the model declares 3, so
    each row is refused on read and encoded again, though every text was cached."""
    import sqlite3

    identity = {"model": "fake", "revision": "resized"}
    fresh = CachedEncoder(fake_encoder, identity, dimension=3).encode(["good film", "bad film"])
    with sqlite3.connect(CachedEncoder(fake_encoder, identity)._store().path) as db:
        db.execute("UPDATE vectors SET vec = ?, dim = 2", (np.array([1.0, 2.0], np.float32).tobytes(),))
    trusting = CachedEncoder(fake_encoder, identity)  # no declared size: the rows are all it knows
    assert trusting.encode(["good film"]).shape == (1, 2) and trusting.encoded == 0
    again = CachedEncoder(fake_encoder, identity, dimension=3)
    assert np.array_equal(again.encode(["good film", "bad film"]), fresh) and again.encoded == 2
    assert "2 stored vector(s) were not finite or had the wrong size" in capsys.readouterr().err


def test_a_model_whose_vectors_disagree_with_its_declared_size_is_one_line(fake_encoder):
    with pytest.raises(BenchError, match="^model 'fake' makes 3-dimensional vectors but its card declares "
                                         "embedding_size 4; correct the card$"):
        CachedEncoder(fake_encoder, {"model": "fake", "revision": "lies"}, dimension=4).encode(["good film"])


@pytest.mark.parametrize("vectors, message", [
    (np.array([[1.0, float("nan")], [0.0, 1.0]]), "NaN or infinite embeddings for 1 of 2"),
    (np.ones((3, 2)), "shape (3, 2) for 2 texts"),
    (np.ones(2), "shape (2,) for 2 texts"),
])
def test_bad_embeddings_are_errors(vectors, message):
    with pytest.raises(BenchError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_embeddings(vectors, 2, "m")


def _version(task):
    from sentibench.tasks.registry import all_tasks

    return all_tasks()[task].metadata.version


def _result(task, score, group="sgts", trained=False, limit=None, version=None, commit="0123abc"):
    return task_result(task, "hash", {"test": {"main_score": score, "cosine_spearman": score}}, 1.0,
                       {"task": {"groups": [group], "type": "SgTS", "version": version or _version(task)},
                        "main_split": "test", "trained_on_eval_dataset": trained, "limit": limit,
                        "git_commit": commit})


def test_result_json_round_trip_writes_null_never_nan(tmp_path):
    path = result_path(tmp_path, "org/model", "v1 2", "sgts-mr")
    model_hash, revision_hash = (hashlib.sha256(text.encode()).hexdigest()[:12] for text in ("org/model", "v1 2"))
    assert path.relative_to(tmp_path).parts == (f"org__model+{model_hash}", f"v1-2+{revision_hash}", "sgts-mr.json")
    assert result_path(tmp_path, "m", "v1==2", "t").parent.name == "v1==2", "a pinned package revision, as is"
    write_result(path, _result("sgts-mr", float("nan")))
    text = path.read_text()
    assert "NaN" not in text and json.loads(text)["scores"]["test"][0]["main_score"] is None
    write_result(path, _result("sgts-mr", 0.25))
    stored = read_result(path)
    assert stored.main_score() == 0.25 and stored.scores["test"][0].hf_subset == "default"
    assert not list(tmp_path.rglob("*.tmp")), "atomic writes leave no temporary files"


def test_result_loads_with_mteb_when_installed(tmp_path):
    mteb = pytest.importorskip("mteb")
    path = tmp_path / "r.json"
    write_result(path, _result("sgts-mr", 0.25))
    loaded = mteb.TaskResult.from_disk(path, load_historic_data=False)
    assert loaded.task_name == "sgts-mr"


def _group_lines(text: str) -> list[str]:
    """The lines of the per-group tables (after the overview, which `test_leaderboard.py` checks)."""
    sections = text.split("\n## ")
    return [line for part in sections[1:] if not part.startswith("Overview") for line in ("## " + part).splitlines()]


def test_leaderboard_tables_marks_and_determinism(tmp_path):
    for model, task, score, trained in [("a", "sgts-mr", 0.5, True), ("a", "sgts-imdb", 0.3, False),
                                        ("b", "sgts-mr", 0.1, False)]:
        write_result(result_path(tmp_path, model, "r", task), _result(task, score, trained=trained))
    write_result(result_path(tmp_path, "c", "r", "sgts-mr"), _result("sgts-mr", 0.9, limit=10))
    text = render(tmp_path)
    assert text == render(tmp_path), "same results, same bytes"
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in _group_lines(text) if line.startswith("| ")]
    assert rows[0] == ["model", "rank", "average", "coverage", "sgts-imdb", "sgts-mr"]
    assert rows[1] == ["a", "", "", "2/2", "**30.00**", "**50.00\\***"], "one complete row: a rank among one is none"
    assert rows[2] == ["b", "", "", "1/2", "", "10.00"], "not ranked on 1 of 2 columns; no units: no mark"
    assert "| c " not in text, "smoke runs (--limit) stay off the leaderboard"


def test_leaderboard_marks_results_made_from_a_dirty_tree(tmp_path):
    write_result(result_path(tmp_path, "a", "r", "sgts-mr"), _result("sgts-mr", 0.5, commit="0123abc-dirty"))
    write_result(result_path(tmp_path, "b", "r", "sgts-mr"), _result("sgts-mr", 0.25, trained=True))
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in _group_lines(render(tmp_path))
            if line.startswith("| ")]
    assert rows[1:] == [["a", "1.00", "50.00", "1/1", "**50.00†**"], ["b", "2.00", "25.00", "1/1", "25.00\\*"]]


def test_leaderboard_leaves_out_results_of_an_older_protocol_version(tmp_path):
    write_result(result_path(tmp_path, "a", "r", "sgts-mr"), _result("sgts-mr", 0.5))
    write_result(result_path(tmp_path, "old", "r", "sgts-mr"), _result("sgts-mr", 0.9, version=1))
    text = render(tmp_path)
    assert "| old " not in text and "older protocol version (1; `bench run` recomputes them): old / sgts-mr" in text


def test_leaderboard_keeps_every_revision_of_a_model_on_its_own_row(tmp_path):
    for revision, score in [("r1", 0.25), ("r2", 0.75)]:
        write_result(result_path(tmp_path, "a", revision, "sgts-mr"), _result("sgts-mr", score))
    write_result(result_path(tmp_path, "b", "only", "sgts-mr"), _result("sgts-mr", 0.5))
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in _group_lines(render(tmp_path))
            if line.startswith("| ")]
    assert rows[1:] == [["a@r2", "1.00", "75.00", "1/1", "**75.00**"], ["b", "2.00", "50.00", "1/1", "50.00"],
                        ["a@r1", "3.00", "25.00", "1/1", "25.00"]]


def test_leaderboard_gives_fine_tuned_and_frozen_fewshot_their_own_tables(tmp_path):
    for task, variant in [("fewshot-senticse-k1-mr", "full"), ("fewshot-frozen-senticse-k1-mr", "frozen")]:
        result = task_result(task, "hash", {"test": {"main_score": 0.5, "accuracy": 0.5}}, 1.0,
                             {"task": {"groups": ["fewshot", f"fewshot-{variant}"], "type": "FewShot",
                                       "version": _version(task)},
                              "main_split": "test", "limit": None})
        write_result(result_path(tmp_path, "a", "r", task), result)
    sections = [line for line in _group_lines(render(tmp_path)) if line.startswith("## ")]
    assert sections == ["## fewshot-frozen", "## fewshot-full"]


def _with_units(root, model, task, values, half_width):
    """A result whose main score is mean(values), its interval the score +- half_width (a recorded interval
    must hold its score) and its unit values stored."""
    from sentibench.evaluation.units import UnitValues
    from sentibench.results.unit_values_file import save_units, units_path

    score = float(np.mean(values))
    low, high = score - half_width, score + half_width
    result = task_result(task, "hash", {"test": {"main_score": score, "accuracy": score}}, 1.0,
                         {"task": {"groups": ["probe"], "type": "Classification", "version": _version(task)},
                          "main_split": "test",
                          "limit": None, "model": {"name": model},
                          "details": {"confidence_interval": {"low": low, "high": high}}})
    path = result_path(root, model, "r", task)
    write_result(path, result)
    save_units(
        units_path(path),
        UnitValues(np.asarray(values, dtype=float), "test item", "percentile bootstrap of the mean", "h"))


def test_leaderboard_shows_intervals_best_and_not_significantly_worse(tmp_path):
    rng = np.random.default_rng(0)
    best = (rng.uniform(size=400) < 0.8).astype(float)
    close = best.copy()
    close[:4] = 0.0  # four items fewer right: within noise
    far = np.where(rng.uniform(size=400) < 0.4, 0.0, best)
    for model, values in (("best", best), ("close", close), ("far", far)):
        _with_units(tmp_path, model, "probe-mr", values, 0.02)
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[1:-1]]
            for line in _group_lines(render(tmp_path)) if line.startswith("| ") and "model" not in line}
    assert rows["best"][4] == f"**{100 * best.mean():.2f} ± 2.00**"  # the half-width, x 100
    assert rows["close"][4] == f"{100 * close.mean():.2f} ± 2.00 ~"
    assert rows["far"][4] == f"{100 * far.mean():.2f} ± 2.00"
    assert [rows[m][1] for m in ("best", "close", "far")] == ["1.00", "2.00", "3.00"]


def test_leaderboard_significance_follows_the_unit_values_not_a_stale_cache(tmp_path):
    from sentibench.evaluation.units import UnitValues
    from sentibench.results.unit_values_file import save_units, units_path

    def write(model, values):
        path = result_path(tmp_path, model, "r", "sgts-mr")
        write_result(path, _result("sgts-mr", float(np.mean(values))))
        save_units(units_path(path), UnitValues(np.asarray(values, dtype=float), "sentence", "m", "same-units"))

    rng = np.random.default_rng(0)
    base = rng.normal(0.5, 0.1, 200)
    write("a", base + 0.05)
    write("b", base + rng.normal(0.0, 0.01, 200))  # far below a on the same units: not tied with the best
    def row_b():
        return next(line for line in _group_lines(render(tmp_path)) if line.startswith("| b "))

    assert not row_b().rstrip(" |").endswith("~")
    write("b", base + 0.05 + rng.normal(0.0, 0.01, 200) - 0.0005)  # now level with a: tied
    assert row_b().rstrip(" |").endswith("~")


def test_the_results_store_reads_several_folders_once_and_finds_a_model_across_them(tmp_path):
    """One model's results come from the first folder that has it, or the folder its label names (a bare name two
    folders answer differently is refused); a smoke run is never among a model's results; a typo gets the nearest
    names; a missing folder holds nothing."""
    from sentibench.core.errors import BenchError
    from sentibench.results.schema import ModelInfo
    from sentibench.results.store import ResultStore

    ours, mine = tmp_path / "results", tmp_path / "mine"
    def made_by(model: str, task: str, score: float, limit: int | None = None):
        result = _result(task, score, limit=limit)
        return result.model_copy(update={"sentibench": result.sentibench.model_copy(
            update={"model": ModelInfo(name=model, revision="r1")})})

    for root, model, score in ((ours, "minilm", 0.5), (mine, "minilm", 0.6), (mine, "tuned", 0.7)):
        write_result(result_path(root, model, "r1", "sgts-mr"), made_by(model, "sgts-mr", score))
    write_result(result_path(mine, "tuned", "r1", "sgts-imdb"), made_by("tuned", "sgts-imdb", 0.1, limit=8))
    store = ResultStore.load([ours, mine, ours, tmp_path / "missing"])
    assert store.roots == (ours, mine, tmp_path / "missing") and len(store.results) == 4
    with pytest.raises(BenchError, match="hold different results of 'minilm' on sgts-mr; name the one to use, "
                       r"'minilm \[results\]' or 'minilm \[mine\]'"):
        store.of_model("minilm")  # two folders answer it differently (issue 57): which one is the user's to say
    assert store.of_model("minilm [results]")["sgts-mr"].main_score() == 0.5
    assert store.of_model("minilm [mine]")["sgts-mr"].main_score() == 0.6
    assert list(store.of_model("tuned")) == ["sgts-mr"], "no smoke run"
    with pytest.raises(BenchError, match="Did you mean: tuned"):
        store.of_model("tunned")


def test_the_store_selects_by_model_task_and_what_counts_for_a_benchmark(tmp_path):
    from sentibench.results.schema import ModelInfo
    from sentibench.results.store import ResultStore
    from sentibench.tasks.benchmarks import get_benchmark

    benchmark = get_benchmark("sentibench-v1")
    pinned = benchmark.pinned("sgts-mr")

    def made_by(model: str, task: str, version: int):
        result = _result(task, 0.5, version=version)
        return result.model_copy(update={"sentibench": result.sentibench.model_copy(
            update={"model": ModelInfo(name=model, revision="r1")})})

    write_result(result_path(tmp_path, "a", "r1", "sgts-mr"), made_by("a", "sgts-mr", pinned.version))
    write_result(result_path(tmp_path, "b", "r1", "sgts-mr"), made_by("b", "sgts-mr", pinned.version + 1))
    write_result(result_path(tmp_path, "a", "r1", "not-in-any-benchmark"), made_by("a", "not-in-any-benchmark", 1))
    store = ResultStore.load(tmp_path)
    names = lambda results: sorted((r.provenance.model.name, r.task_name) for r in results)  # noqa: E731
    assert names(store.select(model="a")) == [("a", "not-in-any-benchmark"), ("a", "sgts-mr")]
    assert names(store.select(task="sgts-mr")) == [("a", "sgts-mr"), ("b", "sgts-mr")]
    # b's sgts-mr was made under another protocol version than the benchmark pins: it does not count
    assert names(store.select(benchmark=benchmark)) == [("a", "sgts-mr")]
    assert names(store.select(model="b", benchmark=benchmark)) == []
