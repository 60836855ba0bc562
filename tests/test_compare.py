"""`bench compare`: paired tests from stored results only (no models), refusals, corrections, ASO."""

import json

import numpy as np
import pytest
from scipy import stats

from sentibench.cli import main
from sentibench.evaluation.units import UnitValues
from sentibench.report.compare import compare, compare_with_frozen_twins, render
from sentibench.results.task_result import result_path, task_result, write_result
from sentibench.results.unit_values_file import save_units, units_path


def _store(root, model, task, score, values=None, units_hash="same", per_seed=None, main="accuracy", version=2):
    details = {} if per_seed is None else {"per_seed": per_seed}
    provenance = {"model": {"name": model}, "task": {"name": task, "main_score": main, "version": version},
                  "limit": None,
                  "main_split": "test", "details": details}
    path = result_path(root, model, "r1", task)
    write_result(path, task_result(task, "data", {"test": {main: score, "main_score": score}}, 0.1, provenance))
    if values is not None:
        save_units(units_path(path), UnitValues(np.asarray(values, dtype=float), "test item",
                                                "percentile bootstrap of the mean", units_hash))


def test_paired_bootstrap_from_stored_unit_values(tmp_path):
    rng = np.random.default_rng(0)
    better = (rng.uniform(size=500) < 0.8).astype(float)
    worse = np.where(rng.uniform(size=500) < 0.5, better, 0.0)  # the same items, some turned wrong
    _store(tmp_path, "a", "probe-mr", better.mean(), better)
    _store(tmp_path, "b", "probe-mr", worse.mean(), worse)
    (row,) = compare(tmp_path, "a", "b", ["probe-mr"])
    assert row.difference == pytest.approx(better.mean() - worse.mean())
    assert row.low > 0 and row.p_value < 0.01 and "500 test items" in row.test
    (same,) = compare(tmp_path, "a", "a", ["probe-mr"])
    assert same.difference == 0 and same.p_value == 1.0


def test_different_items_are_refused_with_the_reason(tmp_path):
    _store(tmp_path, "a", "probe-mr", 0.5, [1, 0], units_hash="one")
    _store(tmp_path, "b", "probe-mr", 0.5, [0, 1], units_hash="two")
    (row,) = compare(tmp_path, "a", "b", ["probe-mr"])
    assert row.p_value is None and row.note.startswith("not compared: different evaluation units")
    _store(tmp_path, "c", "probe-mr", 0.5, [1, 0], units_hash="one", version=1)
    (row,) = compare(tmp_path, "a", "c", ["probe-mr"])
    assert row.p_value is None and row.note == "not compared: made under protocol versions 2 and 1"


def test_seed_tasks_get_a_paired_t_test_and_aso(tmp_path):
    seeds_a = [{"seed": s, "train_indices_sha256": f"h{s}", "accuracy": 0.8 + 0.01 * s} for s in range(10)]
    seeds_b = [{"seed": s, "train_indices_sha256": f"h{s}", "accuracy": 0.6 + 0.01 * (9 - s)} for s in range(10)]
    task = "fewshot-frozen-senticse-k1-mr"
    _store(tmp_path, "a", task, 0.845, per_seed=seeds_a)
    _store(tmp_path, "b", task, 0.645, per_seed=seeds_b)
    (row,) = compare(tmp_path, "a", "b", [task])
    differences = [0.2 + 0.01 * (2 * s - 9) for s in range(10)]  # a - b per seed, by hand
    assert row.difference == pytest.approx(np.mean(differences))
    # t = mean / (sd / sqrt(10)) with sd = 0.02 * sd(0..9) = 0.02 * sqrt(55 / 6); two-sided, 9 df
    t = 0.2 / (0.02 * np.sqrt(55 / 6) / np.sqrt(10))
    assert row.p_value == pytest.approx(2 * stats.t.sf(t, 9)) and "10 seeds" in row.test
    assert row.aso_eps_min == pytest.approx(0.0, abs=0.01), "every A seed beats every B seed: total order"
    (reverse,) = compare(tmp_path, "b", "a", [task])
    assert reverse.aso_eps_min == pytest.approx(1.0, abs=0.01)


def test_benjamini_hochberg_across_tasks_and_the_cli_table(tmp_path, capsys):
    rng = np.random.default_rng(1)
    for task, gap in (("probe-mr", 0.3), ("probe-imdb", 0.0)):
        a = (rng.uniform(size=300) < 0.6).astype(float)
        b = np.where(rng.uniform(size=300) < gap, 0.0, a)
        _store(tmp_path, "a", task, a.mean(), a)
        _store(tmp_path, "b", task, b.mean(), b)
    rows = compare(tmp_path, "a", "b", ["probe-mr", "probe-imdb"])
    assert all(r.p_adjusted >= r.p_value for r in rows)
    assert "Benjamini-Hochberg" in render(rows, "a", "b")
    assert main(["compare", "a", "b", "-t", "probe-mr,probe-imdb", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| task") and "probe-imdb" in out


def test_a_model_without_results_is_a_one_line_error(tmp_path, capsys):
    _store(tmp_path, "a", "probe-mr", 0.5, [1, 0])
    assert main(["compare", "a", "nobody", "--results", str(tmp_path)]) == 2
    assert "no results for model 'nobody'" in capsys.readouterr().err
    json.loads((tmp_path / "a" / "r1" / "probe-mr.json").read_text())  # the results are left intact


def test_several_revisions_need_one_named(tmp_path, capsys):
    _store(tmp_path, "a", "probe-mr", 0.5, [1, 0])
    path = tmp_path / "a" / "r2" / "probe-mr.json"
    path.parent.mkdir()
    path.write_text((tmp_path / "a" / "r1" / "probe-mr.json").read_text())
    _store(tmp_path, "b", "probe-mr", 0.5, [1, 0])
    assert main(["compare", "a", "b", "--results", str(tmp_path)]) == 2
    assert "name one as a@REVISION" in capsys.readouterr().err
    (row,) = compare(tmp_path, "a@r1", "b", ["probe-mr"])
    assert row.difference == 0


def test_frozen_twins_pair_one_models_fine_tuned_and_frozen_seeds(tmp_path, capsys):
    from sentibench.tasks.registry import all_tasks

    fine_tuned, frozen = "fewshot-senticse-k1-mr", "fewshot-frozen-senticse-k1-mr"
    current = {name: all_tasks()[name].metadata.version for name in (fine_tuned, frozen)}
    seeds = [{"seed": s, "train_indices_sha256": f"h{s}", "accuracy": 0.5 + 0.01 * s} for s in range(5)]
    flat = [{"seed": s, "train_indices_sha256": f"h{s}", "accuracy": 0.5} for s in range(5)]
    _store(tmp_path, "m", fine_tuned, 0.52, per_seed=seeds, version=current[fine_tuned])
    _store(tmp_path, "m", frozen, 0.5, per_seed=flat, version=current[frozen])
    (row,) = compare_with_frozen_twins(tmp_path, "m")
    # differences 0, .01, .02, .03, .04: mean .02, sd .01 * sqrt(2.5), 4 degrees of freedom
    half_width = stats.t.ppf(0.975, 4) * 0.01 * np.sqrt(2.5) / np.sqrt(5)
    assert row.task == fine_tuned and row.difference == pytest.approx(0.02)
    assert (row.low, row.high) == (pytest.approx(0.02 - half_width), pytest.approx(0.02 + half_width))
    t = 0.02 / (0.01 * np.sqrt(2.5) / np.sqrt(5))
    assert row.p_value == pytest.approx(2 * stats.t.sf(t, 4)) and "5 seeds" in row.test

    assert main(["compare", "m", "--frozen-twins", "--results", str(tmp_path)]) == 0
    assert "| fine-tuned" in capsys.readouterr().out
    assert main(["compare", "m", "other", "--frozen-twins", "--results", str(tmp_path)]) == 2
    assert "name one model, not two" in capsys.readouterr().err
    assert main(["compare", "m", "--results", str(tmp_path)]) == 2
    assert "compare needs two models" in capsys.readouterr().err

    _store(tmp_path, "m", fine_tuned, 0.52, per_seed=seeds, version=current[fine_tuned] - 1)
    (row,) = compare_with_frozen_twins(tmp_path, "m")
    assert row.p_value is None
    assert row.note == f"not compared: {fine_tuned} is version {current[fine_tuned] - 1}, now {current[fine_tuned]}"


def test_frozen_twins_without_a_pair_is_a_one_line_error(tmp_path, capsys):
    _store(tmp_path, "m", "fewshot-frozen-senticse-k1-mr", 0.5, per_seed=[{"seed": 0, "accuracy": 0.5}])
    assert main(["compare", "m", "--frozen-twins", "--results", str(tmp_path)]) == 2
    assert "no fine-tuned few-shot result beside its frozen twin" in capsys.readouterr().err
