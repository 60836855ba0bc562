"""The formatting and arithmetic of benchmarks/doc_timings.py and benchmarks/doc_results.py, on tiny fixtures with
goldens worked out by hand (tests/test_generated_docs.py checks that the pages match what they generate)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import doc_results  # noqa: E402  (scripts of benchmarks/, not a package)
import doc_timings  # noqa: E402


@pytest.mark.parametrize(("value", "decimals", "text"), [(2.925, 2, "2.93"), (0.805, 2, "0.81"), (4.145, 2, "4.15"),
                                                          (1.0, 2, "1.00"), (0.99992, 5, "0.99992"), (8.66, 1, "8.7")])
def test_numbers_round_half_up_as_their_stored_digits_read(value, decimals, text):
    # binary floating point would give 2.92 and 4.14: 2.925 is stored as 2.92499999...
    assert doc_timings.dec(value, decimals) == text


def test_small_numbers_drop_the_exponents_leading_zero():
    assert doc_timings.sci(0.000174) == "1.7e-4"
    assert doc_timings.sci(0.0026) == "2.6e-3"


def test_a_ratio_table_reads_median_min_and_max_of_each_run():
    def record(median, low, high):
        ratio = {"ratio_wall": {"median": median, "min": low, "max": high}}
        return {"arguments": {"pairs": 5}, "encode": {"sets": {"short": {"comparisons": {"a vs b": ratio}}}}}

    text = doc_timings.ratio_table([record(1.2098, 1.1436, 1.243), record(1.0657, 1.0, 1.075)],
                                   [("a / b, short", "short", "a vs b")])
    assert text == ("| ratio (median of 5 pairs; min-max) | run 1 | run 2 |\n| --- | --- | --- |\n"
                    "| a / b, short | 1.21 (1.14-1.24) | 1.07 (1.00-1.08) |\n")


def test_p_values_keep_two_significant_digits():
    assert [doc_results.p_text(p) for p in (0.896, 0.2278, 0.0229, 0.005994, 0.000999)] == \
        ["0.90", "0.23", "0.023", "0.006", "0.001"]


def row(task, a, b, low, high, p):
    return SimpleNamespace(task=task, score_a=a, score_b=b, difference=a - b, low=low, high=high, p_adjusted=p)


def test_a_family_summary_names_the_significant_rows_or_else_the_extremes():
    rows = [row("probe-mr", 0.8050, 0.8098, -0.0105, 0.0010, 0.51),
            row("probe-imdb", 0.8510, 0.8480, -0.0035, 0.0090, 0.75),
            row("probe-nyt", 0.8508, 0.8468, 0.0, 0.0084, 0.37)]
    assert doc_results.family_summary(rows) == (
        "-0.48 to +0.40 (probe-mr 80.50 vs 80.98, [-1.05, 0.10]; probe-nyt 85.08 vs 84.68, [0.00, 0.84]; "
        "none significant after correction)")
    rows[1].p_adjusted = 0.012
    assert doc_results.family_summary(rows) == (
        "-0.48 to +0.40 (probe-imdb 85.10 vs 84.80, +0.30 [-0.35, 0.90], p (BH) 0.012; the other 2 not significant)")
    assert doc_results.family_summary([row("sts-stsb", 0.7366, 0.7390, -0.0036, -0.0012, 0.012)]) == \
        "73.66 vs 73.90 (-0.24 [-0.36, -0.12], p (BH) 0.012)"


def test_fine_tuned_against_frozen_pairs_seeds_and_draws(tmp_path: Path):
    folder = tmp_path / "results" / "m" / "r1"
    folder.mkdir(parents=True)

    def write(task: str, accuracies: list[float]) -> None:
        per_seed = [{"seed": s, "train_indices_sha256": f"draw{s}", "accuracy": a} for s, a in enumerate(accuracies)]
        record = {"scores": {"test": [{"main_score": sum(accuracies) / 3}]},
                  "sentibench": {"main_split": "test", "task": {"main_score": "accuracy"},
                                 "details": {"per_seed": per_seed}}}
        (folder / f"{task}.json").write_text(json.dumps(record), encoding="utf-8")

    write("fewshot-senticse-k1-mr", [0.60, 0.70, 0.80])
    write("fewshot-frozen-senticse-k1-mr", [0.59, 0.68, 0.77])  # differences 0.01, 0.02, 0.03
    doc_results._read.cache_clear()
    (found,) = doc_results.frozen_twins(tmp_path, "m", "r1")
    # mean 0.02, sd 0.01, se 0.01 / sqrt(3); t(0.975, 2) = 4.302653 (two-sided 95%); t = 2 sqrt(3) = 3.4641, and
    # with 2 degrees of freedom the two-sided p is 1 - t / sqrt(t^2 + 2)
    half = 4.302653 * 0.01 / math.sqrt(3)
    t = 2 * math.sqrt(3)
    assert found["difference"] == pytest.approx(0.02)
    assert (found["low"], found["high"]) == (pytest.approx(0.02 - half, abs=1e-6), pytest.approx(0.02 + half, abs=1e-6))
    assert found["p"] == pytest.approx(1 - t / math.sqrt(t * t + 2), abs=1e-6)
    assert found["p_adjusted"] == pytest.approx(found["p"])  # one task: Benjamini-Hochberg leaves it
