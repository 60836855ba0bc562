"""The leaderboard's overview, its coverage rules, the trade-off scatter (checked on the plotted artists, not on
bytes) and a model's page, on hand-written results whose expected values are worked out here."""

from pathlib import Path

import numpy as np
import pytest
from approx import flat

from sentibench.evaluation.units import UnitValues
from sentibench.report.leaderboard import build, render
from sentibench.results.task_result import result_path, task_result, write_result
from sentibench.results.unit_values_file import save_units, units_path
from sentibench.tasks.benchmarks import Axis, Benchmark, BenchmarkTask
from sentibench.tasks.registry import all_tasks

GROUPS = {"sgts": ["sgts-imdb", "sgts-mr"], "probe": ["probe-mr"], "retrieval": ["retrieval-mr"],
          "sts": ["sts-stsb"]}  # a small benchmark: 5 tasks, SgTS first; Sentiment = the first four, Meaning = STS-B
METRIC = {"sgts": "cosine_spearman", "probe": "accuracy", "retrieval": "polarity_score", "sts": "cosine_spearman"}
MODELS = {"minilm": {"name": "minilm", "loader": "sentence-transformers"},
          "tuned": {"name": "tuned", "loader": "trained", "base": "minilm", "recipe": {"method": "m"}},
          "random": {"name": "random", "loader": "random"},
          "partial": {"name": "partial", "loader": "trained", "base": "minilm", "recipe": {"method": "m"}}}
SCORES = {  # (model, task) -> main score; 'partial' has the best SgTS but only 2 of the 5 tasks
    ("minilm", "sgts-imdb"): 0.05, ("minilm", "sgts-mr"): 0.03, ("minilm", "probe-mr"): 0.77,
    ("minilm", "retrieval-mr"): 0.61, ("minilm", "sts-stsb"): 0.82,
    ("tuned", "sgts-imdb"): 0.33, ("tuned", "sgts-mr"): 0.37, ("tuned", "probe-mr"): 0.81,
    ("tuned", "retrieval-mr"): 0.75, ("tuned", "sts-stsb"): 0.74,
    ("random", "sgts-imdb"): 0.0, ("random", "sgts-mr"): -0.02, ("random", "probe-mr"): 0.49,
    ("random", "retrieval-mr"): 0.50, ("random", "sts-stsb"): 0.01,
    ("partial", "sgts-imdb"): 0.60, ("partial", "sgts-mr"): 0.70,
}
SIMILARITY = {"minilm": 0.50, "tuned": 0.41, "random": 0.05}  # retrieval's semantic similarity score S


@pytest.fixture(autouse=True)
def small_suite(monkeypatch):
    """A benchmark of the five tasks, pinned to the hand-written results' dataset hashes, as the current one."""
    from sentibench.tasks import benchmarks

    tasks = [name for names in GROUPS.values() for name in names]
    small = Benchmark(
        name="small-v1", description="A small test benchmark.", released="2026-11-27", citation="test",
        tasks=tuple(BenchmarkTask(t, all_tasks()[t].metadata.version, t.split("-", 1)[1], f"{t}-data") for t in tasks),
        axes=(Axis("Sentiment", "polarity", tuple(tasks[:4])), Axis("Meaning", "semantics", ("sts-stsb",))),
        diagnostics=())
    saved = benchmarks.BENCHMARKS.snapshot()
    benchmarks.register_benchmark(small)
    monkeypatch.setattr(benchmarks, "CURRENT", "small-v1")
    yield small
    benchmarks.BENCHMARKS.restore(saved)


def _group(task: str) -> str:
    return task.split("-")[0]


def write(root: Path, model: str, task: str, score: float, half: float = 0.02) -> Path:
    """A result with interval [score - half, score + half] and, for retrieval, its similarity score S."""
    group, metric = _group(task), METRIC[_group(task)]
    values = {metric: score, "main_score": score}
    if group == "retrieval":
        values["semantic_similarity_score"] = SIMILARITY[model]
    provenance = {"model": MODELS[model], "main_split": "test", "limit": None,
                  "task": {"name": task, "groups": [group], "main_score": metric,
                           "version": all_tasks()[task].metadata.version},
                  "dataset": {"name": task.split("-", 1)[1], "content_hash": f"{task}-data"},
                  "trained_on_eval_dataset": model.startswith("tuned") and task.endswith("-mr"),
                  "details": {"confidence_interval": {"low": score - half, "high": score + half}}}
    path = result_path(root, model, "r1", task)
    write_result(path, task_result(task, "data", {"test": values}, 0.1, provenance))
    return path


@pytest.fixture
def results(tmp_path) -> Path:
    root = tmp_path / "results"
    for (model, task), score in SCORES.items():
        write(root, model, task, score)
    return root


def _table(text: str, heading: str) -> list[list[str]]:
    """The rows (header first) of the Markdown table right after `heading`."""
    lines = text.split(heading + "\n", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| "))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        if not line.startswith("|--"):
            rows.append([cell.strip() for cell in line.split("|")[1:-1]])
    return rows


def test_overview_leads_with_the_axes_zero_shot_and_lists_partial_coverage_apart(results):
    text = render(results)
    assert text.index("## Overview: small-v1") < text.index("## sgts") < text.index("## probe")
    ranked = _table(text, "### Ranked: every task of small-v1 (3 models)")
    assert ranked[0] == ["Sentiment rank (95%)", "model", "kind", "Sentiment ↑", "Meaning ↑", "Meaning rank (95%)",
                         "Pareto"]
    # Sentiment, in-domain left out ('tuned' trained on MR: only sgts-imdb counts for it):
    # minilm (5 + 3 + 77 + 61) / 4 = 36.50; tuned 33.00 [1 task]; random (0 - 2 + 49 + 50) / 4 = 24.25.
    # Meaning = STS-B: minilm 82, tuned 74, random 1. Pareto: minilm beats tuned on both; random is beaten.
    rows = {row[1]: row for row in ranked[1:]}
    assert [row[1] for row in ranked[1:]] == ["minilm", "tuned", "random"]
    assert [rows[m][0].split(" ")[0] for m in ("minilm", "tuned", "random")] == ["1", "2", "3"]
    assert rows["minilm"][3].startswith("36.50 ± ") and rows["tuned"][3].startswith("33.00 ± ")
    assert rows["tuned"][3].endswith("[1/4]") and not rows["minilm"][3].endswith("]")
    assert rows["random"][3].startswith("24.25 ± ")
    assert [rows[m][4].split(" ")[0] for m in ("minilm", "tuned", "random")] == ["82.00", "74.00", "1.00"]
    assert [rows[m][6] for m in ("minilm", "tuned", "random")] == ["P", "", ""]
    assert "Chance level: the `random` row" in text and "Sentiment 24.25, Meaning 1.00" in text
    partial = _table(text, "### Partial coverage of small-v1, not ranked (1 models)")
    assert partial[1][:3] == ["partial", "trained here", "2/5"] and partial[1][4] == ""
    # a partial model is never a blank row: its Sentiment mean over the 2 of 4 tasks it has, (60 + 70) / 2
    assert partial[1][3].startswith("65.00 ± ") and partial[1][3].endswith(" [2/4]")
    families = _table(text, "### Task families of small-v1 (means x 100, not ranked)")
    assert families[0] == ["model", "sgts (2): Spearman rho", "probe (1): accuracy",
                           "retrieval (1): Polarity Score P@16", "sts (1): Spearman rho"]
    assert "`roberta-base`: hub-only" in text, "a packaged card that cannot run here is listed as such"
    assert "### Submissions verified for small-v1 (0)" in text
    assert text == render(results), "same results, same bytes"


def test_including_in_domain_results_moves_the_trained_model_up_and_onto_the_front(results):
    ranked = _table(render(results, include_in_domain=True), "### Ranked: every task of small-v1 (3 models)")
    rows = {row[1]: row for row in ranked[1:]}
    # tuned: (33 + 37 + 81 + 75) / 4 = 56.50 > minilm 36.50; minilm still has the better Meaning: both on the front
    assert rows["tuned"][0].split(" ")[0] == "1" and rows["tuned"][3].startswith("56.50 ± ")
    assert [rows[m][6] for m in ("tuned", "minilm", "random")] == ["P", "P", ""]


def _scaled(small: Benchmark) -> Benchmark:
    """small-v1 re-released on the chance-normalised scale with in-domain results counted (a format-2 release)."""
    import dataclasses

    chance = {"sgts-imdb": 0.0, "sgts-mr": 0.0, "probe-mr": 0.5, "retrieval-mr": 0.5, "sts-stsb": 0.0}
    return dataclasses.replace(small, name="small-v2", in_domain="counted", chance=tuple(sorted(chance.items())))


def test_a_chance_normalised_release_scores_every_model_on_the_same_tasks_with_chance_at_zero(results, small_suite):
    from sentibench.tasks import benchmarks

    benchmarks.register_benchmark(_scaled(small_suite))
    text = render(results, "small-v2")
    ranked = _table(text, "### Ranked: every task of small-v2 (3 models)")
    assert ranked[0] == ["Sentiment rank (95%)", "model", "kind", "Sentiment ↑", "Meaning ↑", "Meaning rank (95%)",
                         "zero-shot", "Pareto"]
    rows = {row[1]: row for row in ranked[1:]}
    # (score - chance) / (1 - chance), in-domain counted: probe and retrieval (chance 0.5) double their distance
    # tuned: (33 + 37 + (81 - 50) / 0.5 + (75 - 50) / 0.5) / 4 = (33 + 37 + 62 + 50) / 4 = 45.50
    # minilm: (5 + 3 + 54 + 22) / 4 = 21.00; random: (0 - 2 - 2 + 0) / 4 = -1.00
    assert rows["tuned"][3].startswith("45.50 ± ") and not rows["tuned"][3].endswith("]")
    assert rows["minilm"][3].startswith("21.00 ± ") and rows["random"][3].startswith("-1.00 ± ")
    # tuned trained on MR: sgts-mr, probe-mr and retrieval-mr of the 5 axis tasks are in-domain
    assert [rows[m][6] for m in ("tuned", "minilm", "random")] == ["40%", "100%", "100%"]
    # every Sentiment task orders tuned > minilm > random: rho 1 for every pair, W = 1; Meaning has one task
    assert "Sentiment mean Spearman rho between tasks 1.00, Kendall's W 1.00" in text
    assert "Tasks ranking models against the rest of their axis: none." in text
    assert "Agreement over the 3 ranked models" in text
    partial = _table(text, "### Partial coverage of small-v2, not ranked (1 models)")
    assert partial[0][-1] == "missing" and partial[1][-1] == "probe 1, retrieval 1, sts 1"


def test_kendalls_w_and_the_mean_rho_agree_with_their_textbook_definitions():
    """W = 12 S / (k^2 (n^3 - n)) and mean pairwise rho = (k W - 1) / (k - 1) for k raters without ties."""
    from sentibench.report.overview import axis_agreement

    class Result:
        def __init__(self, score):
            self.score = score

        def main_score(self):
            return self.score

    scores = {"a": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 1.0, 4.0, 3.0], "c": [4.0, 3.0, 2.0, 1.0]}  # 3 tasks, 4 models
    models = [{t: Result(scores[t][m]) for t in scores} for m in range(4)]
    found = axis_agreement(models, ["a", "b", "c"])
    # rank sums per model: 1+2+4=7, 2+1+3=6, 3+4+2=9, 4+3+1=8; mean 7.5; S = 0.25+2.25+2.25+0.25 = 5
    # W = 12 * 5 / (9 * 60) = 0.1111; pairwise rho: a-b 0.6, a-c -1, b-c -0.6 -> mean -1/3 = (3 W - 1) / 2
    assert found.kendall_w == pytest.approx(1 / 9) and found.mean_rho == pytest.approx(-1 / 3)
    # c against the mean of a and b ([1.5, 1.5, 3.5, 3.5]): rho -0.894...
    assert found.with_rest["c"] == pytest.approx(-0.8944271909999159)


def test_the_boards_spearman_is_scipys_with_ties():
    from scipy.stats import rankdata, spearmanr

    from sentibench.report.overview import average_ranks, spearman

    rng = np.random.default_rng(0)
    for _ in range(50):
        a, b = rng.integers(0, 5, size=9).astype(float), rng.normal(size=9)
        assert average_ranks(a) == pytest.approx(rankdata(a))
        assert spearman(a, b) == pytest.approx(spearmanr(a, b)[0])


def test_nobody_is_ranked_with_fewer_than_two_complete_models(results):
    for model in ("tuned", "random"):
        for path in (results / model).rglob("*.json"):
            path.unlink()
    text = render(results)
    assert "Fewer than two models have every task of the benchmark: nobody is ranked." in text
    assert all(row[1] == "" for row in _table(text, "## probe")[1:]), "no rank in a table of one complete model"


def test_results_under_another_pin_do_not_count(results):
    write(results, "minilm", "sts-stsb", 0.82)
    path = next((results / "minilm").rglob("sts-stsb.json"))
    path.write_text(path.read_text().replace("sts-stsb-data", "other-data"))
    text = render(results)
    assert "### Ranked: every task of small-v1 (2 models)" in text
    assert _table(text, "### Partial coverage of small-v1, not ranked (2 models)")[1][:3] == [
        "minilm", "pretrained", "4/5"]


def test_axis_rank_ranges_pair_the_models_draws(tmp_path):
    """One task, 400 units: model b's units are a's plus 0.01 on every unit, so every shared replicate ranks b
    above a (rank range exactly 1 and 2) although their marginal intervals overlap; the interval of a's axis
    matches the normal-theory one, mean +- 1.96 sd / sqrt(n), within 10%."""
    from sentibench.report.overview import axis_scores
    from sentibench.results.task_result import read_result

    rng = np.random.default_rng(3)
    base = rng.normal(0.5, 0.2, 400)
    models = []
    for model, shift in (("minilm", 0.0), ("tuned", 0.01)):
        path = write(tmp_path, model, "probe-imdb", float(base.mean() + shift))
        save_units(units_path(path), UnitValues(base + shift, "test item", "m", "same units"))
        models.append({"probe-imdb": read_result(path)})
    a, b = axis_scores(models, ["probe-imdb"], include_in_domain=True, rank=True)
    assert (b.rank, b.rank_low, b.rank_high) == (1, 1, 1) and (a.rank, a.rank_low, a.rank_high) == (2, 2, 2)
    assert a.low < b.low < a.high < b.high, "overlapping marginal intervals"
    assert (a.high - a.low) / 2 == pytest.approx(1.96 * base.std() / np.sqrt(400), rel=0.1)


def test_a_group_table_never_ranks_a_partial_row_above_a_full_one(results):
    rows = _table(render(results), "## sgts")
    assert rows[0] == ["model", "rank", "average", "coverage", "sgts-imdb", "sgts-mr"]
    assert [r[:4] for r in rows[1:]] == [["partial", "1.00", "65.00", "2/2"], ["tuned", "2.00", "35.00", "2/2"],
                                         ["minilm", "3.00", "4.00", "2/2"], ["random", "4.00", "-1.00", "2/2"]]
    write(results, "partial", "probe-mr", 0.99)
    write(results, "random", "sgts-vader-tweets", 0.9)  # a third SgTS column only 'random' has
    rows = _table(render(results), "## sgts")
    # one model has the three columns: a rank among one is no rank, so nobody is ranked
    assert [r[:4] for r in rows[1:]] == [["random", "", "", "3/3"], ["minilm", "", "", "2/3"],
                                         ["partial", "", "", "2/3"], ["tuned", "", "", "2/3"]]
    probe = _table(render(results), "## probe")
    assert [r[:4] for r in probe[1:]][0] == ["partial", "1.00", "99.00", "1/1"]


def test_group_interval_bootstraps_the_stored_unit_values(tmp_path):
    """Two tasks with 0/1 unit values (p = 0.8 and 0.6, n = 2000 each): the mean's standard error is
    sqrt(0.8 * 0.2 / 2000 + 0.6 * 0.4 / 2000) / 2 = 0.007071, so the 95% interval is about +- 0.01386."""
    from sentibench.report.overview import BOOTSTRAP, group_mean
    from sentibench.results.task_result import read_result

    paths = []
    for task, p in (("probe-mr", 0.8), ("probe-imdb", 0.6)):
        values = np.zeros(2000)
        values[: int(p * 2000)] = 1.0
        path = write(tmp_path, "minilm", task, p)
        save_units(units_path(path), UnitValues(values, "test item", "m", "h"))
        paths.append(path)
    mean = group_mean([read_result(p) for p in paths])
    assert mean.method == BOOTSTRAP and mean.mean == pytest.approx(0.7)
    assert (mean.high - mean.low) / 2 == pytest.approx(1.96 * 0.007071, rel=0.12)
    assert mean.low < 0.7 < mean.high


def test_tradeoff_panels_plot_each_model_with_its_intervals_and_an_arrow_from_its_base(results):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.legend import Legend

    from sentibench.report.tradeoff import draw, panels

    board = build(results)
    similarity, retrieval = panels(board)
    points = {p.model: p for p in similarity.points}
    assert set(points) == {"minilm", "tuned", "random"}, "'partial' has no STS-B: not plotted"
    assert (points["tuned"].x, points["tuned"].y) == pytest.approx((74.0, 35.0))
    assert points["tuned"].x_interval == pytest.approx((72.0, 76.0)) and points["tuned"].base == "minilm"
    assert flat({p.model: (p.x, p.y) for p in retrieval.points}) == pytest.approx(
        flat({"minilm": (50.0, 61.0), "tuned": (41.0, 75.0), "random": (5.0, 50.0)}))
    assert all(p.x_interval is None for p in retrieval.points), "S has no stored interval"

    figure = draw(board)
    left = figure.axes[0]
    marker = next(line for line in left.lines if line.get_gid() == "point:sgts:tuned")
    assert (marker.get_xdata()[0], marker.get_ydata()[0]) == pytest.approx((74.0, 35.0))
    arrows = {a.arrow_patch.get_gid(): a for a in left.texts
              if a.arrow_patch is not None and a.arrow_patch.get_gid().startswith("arrow:")}
    assert set(arrows) == {"arrow:sgts:tuned"}, "one method card, one arrow"
    assert arrows["arrow:sgts:tuned"].xy == pytest.approx((74.0, 35.0))
    assert arrows["arrow:sgts:tuned"].xyann == pytest.approx((82.0, 4.0)), "from its base minilm"
    caps = [line for line in left.lines if line.get_gid() is None and len(line.get_ydata()) == 1]
    assert pytest.approx(35.0 + 100 * 0.02 / np.sqrt(2)) in [c.get_ydata()[0] for c in caps], "the y bar's end"
    legend = next(child for child in figure.get_children() if isinstance(child, Legend))
    assert [t.get_text() for t in legend.get_texts()] == ["pretrained", "trained here", "baseline",
                                                          "base → method card"]
    FigureCanvasAgg(figure).draw()  # lays the figure out as saving it does
    renderer = figure.canvas.get_renderer()
    canvas = figure.bbox
    for text in [figure._suptitle, *(a.title for a in figure.axes)]:
        box = text.get_window_extent(renderer)
        assert canvas.x0 <= box.x0 and box.x1 <= canvas.x1 and box.y1 <= canvas.y1, "titles inside the canvas"


def test_tradeoff_labels_of_crowded_points_do_not_overlap_and_stay_beside_their_points(monkeypatch):
    """Five models within a fraction of a point of each other: at the first place (right, above) every label
    would cover its neighbours'; each must end up clear of the others and of the other markers."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    from sentibench.report import tradeoff

    crowd = [tradeoff.Point(f"model-{i}-with-a-long-name", "trained here", None, 80 + 0.15 * i, 10 + 0.1 * i,
                            None, None) for i in range(5)]
    lone = tradeoff.Point("far", "baseline", None, 0.0, 0.0, None, None)
    monkeypatch.setattr(tradeoff, "panels", lambda board: [tradeoff.Panel(key, key, "x", "y", [*crowd, lone])
                                                           for key in ("sgts", "retrieval")])
    figure = tradeoff.draw(None)
    FigureCanvasAgg(figure).draw()
    renderer = figure.canvas.get_renderer()
    for axes in figure.axes:
        labels = [t for t in axes.texts if (t.get_gid() or "").startswith("label:")]
        assert len(labels) == 6
        boxes = [t.get_window_extent(renderer) for t in labels]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), "no two labels overlap"
        for text, box in zip(labels, boxes):
            x, y = axes.transData.transform(text.xy)
            markers = [axes.transData.transform(other.xy) for other in labels if other is not text]
            assert not any(box.overlaps(Bbox.from_extents(mx - 4, my - 4, mx + 4, my + 4)) for mx, my in markers)
            gap = max(box.x0 - x, x - box.x1, box.y0 - y, y - box.y1, 0)  # pixels from the point to its label
            assert gap <= 25 * figure.dpi / 72, f"{text.get_text()} stays beside its point"
        far = next(t for t in labels if t.get_text() == "far")
        assert far.xyann == (4, 3), "a lone point keeps the first place"


def test_tradeoff_labels_of_a_dense_cluster_move_out_with_leader_lines(monkeypatch):
    """Twelve models on one spot (the board's InfoDCL ablations come close): the ten places beside a point
    cannot hold them all, so the rest go farther out, inside the axes, each joined to its point by a leader."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    from sentibench.report import tradeoff

    cluster = [tradeoff.Point(f"ablation-{i}", "trained here", None, 50 + 0.05 * i, 20 + 0.05 * i, None, None)
               for i in range(12)]
    corners = [tradeoff.Point(f"corner-{x}-{y}", "baseline", None, x, y, None, None) for x in (0, 100)
               for y in (0, 40)]
    monkeypatch.setattr(tradeoff, "panels", lambda board: [tradeoff.Panel(key, key, "x", "y", [*cluster, *corners])
                                                           for key in ("sgts", "retrieval")])
    figure = tradeoff.draw(None)
    FigureCanvasAgg(figure).draw()
    renderer = figure.canvas.get_renderer()
    for axes in figure.axes:
        key = "sgts" if axes is figure.axes[0] else "retrieval"
        labels = {t.get_text(): t for t in axes.texts if (t.get_gid() or "").startswith("label:")}
        boxes = {name: Text.get_window_extent(t, renderer) for name, t in labels.items()}
        names = list(boxes)
        assert not any(boxes[a].overlaps(boxes[b]) for i, a in enumerate(names) for b in names[i + 1:])
        leaders = {a.arrow_patch.get_gid(): a for a in axes.texts
                   if a.arrow_patch is not None and (a.arrow_patch.get_gid() or "").startswith("leader:")}
        far = [name for name, t in labels.items() if max(abs(v) for v in t.xyann) > 25]
        assert far and all(name.startswith("ablation-") for name in far), "only the cluster needs to move out"
        assert set(leaders) == {f"leader:{key}:{name}" for name in far}, "a leader for each label moved out"
        inside = axes.get_window_extent(renderer)
        for name in far:
            leader, label = leaders[f"leader:{key}:{name}"], labels[name]
            assert leader.xy == label.xy and leader.xyann == label.xyann, "from the label to its own point"
            box = boxes[name]
            assert inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1


def test_model_page_tells_the_whole_story_and_compares_with_the_base(results, tmp_path):
    from sentibench.report.leaderboard_html import write_site

    for model, score in (("tuned", 0.37), ("minilm", 0.03)):  # sgts-mr unit values on the same 4 sentences
        path = result_path(results, model, "r1", "sgts-mr")
        values = np.array([score - 0.1, score + 0.1, score - 0.05, score + 0.05])
        save_units(units_path(path), UnitValues(values, "sentence", "m", "same"))
    write_site(build(results), tmp_path / "site")
    page = (tmp_path / "site" / "models" / "tuned.html").read_text()
    assert '<a class="base" href="minilm.html">minilm</a>' in page
    assert "none recorded (not trained here" in page
    assert 'href="../results/results/tuned/r1/sgts-mr.json">37.00*</a>' in page, "score, in-domain mark, its copy"
    assert (tmp_path / "site" / "results" / "results" / "tuned" / "r1" / "sgts-mr.json").read_bytes() == (
        results / "tuned" / "r1" / "sgts-mr.json").read_bytes(), "the site holds the file it links to"
    assert "<td>[35.00, 39.00]</td>" in page and "<code>sgts-mr-data</code>" in page
    comparison = page.split('id="comparison"')[1]
    row = comparison.split('<tr data-task="sgts-mr">')[1].split("</tr>")[0]
    assert 'href="../results/results/minilm/r1/sgts-mr.json">3.00</a>' in row, "the base's score links to its JSON"
    assert "<td>34.00</td>" in row and "paired bootstrap over 4 sentences" in row  # 37 - 3, on the same units
    assert "no unit values stored" in comparison.split('<tr data-task="probe-mr">')[1].split("</tr>")[0]
    assert "No base" in (tmp_path / "site" / "models" / "minilm.html").read_text()


def test_group_means_remembered_by_file_bytes_and_a_bad_entry_is_recomputed(results):
    import numpy as np

    from sentibench.core.paths import cache_dir
    from sentibench.report.memo import FOLDER

    for path in (cache_dir() / FOLDER).glob("group-mean-*.npy"):
        path.unlink()
    first = render(results)
    entries = sorted((cache_dir() / FOLDER).glob("group-mean-*.npy"))
    assert len(entries) == 3 * 4 + 1, "one entry per (model, complete group)"
    for i, path in enumerate(entries):  # not finite, of another shape, an unknown method, a bound without its pair
        bad = [np.array([np.nan, 0, 1, 0]), np.zeros(3), np.array([0.5, 0.4, 0.6, 7]), np.array([0.5, np.nan, 0.6, 0])]
        np.save(path, bad[i % 4])
    assert render(results) == first, "a malformed entry is recomputed, never shown"
    write(results, "tuned", "probe-mr", 0.5)  # the file changed: its group is recomputed, not read back
    families = _table(render(results), "### Task families of small-v1 (means x 100, not ranked)")
    assert next(row for row in families if row[0] == "tuned")[2] == "50.00 ± 2.00"


def test_every_table_exports_as_csv_and_json_records(results, tmp_path):
    import csv
    import json

    from sentibench.cli import main

    assert main(["leaderboard", "--results", str(results), "--format", "csv", "--output", str(tmp_path / "b.csv")]) == 0
    rows = list(csv.DictReader((tmp_path / "b.csv").open()))
    cell = next(r for r in rows if (r["table"], r["model"], r["column"]) == ("sgts", "minilm", "sgts-mr"))
    assert (float(cell["value"]), float(cell["low"]), float(cell["high"])) == (3.0, 1.0, 5.0), "x 100, as shown"
    axis = {r["model"]: r for r in rows if r["table"] == "overview" and r["column"] == "Sentiment"}
    assert float(axis["minilm"]["value"]) == 36.5 and axis["minilm"]["rank"] == "1" and "pareto" in axis["minilm"][
        "marks"]
    assert axis["tuned"]["marks"] == "1/4 tasks", "an in-domain task left out says so"
    partial = next(r for r in rows if r["table"] == "overview (partial coverage)" and r["column"] == "Sentiment")
    assert (partial["model"], float(partial["value"]), partial["coverage"]) == ("partial", 65.0, "2/5")
    out = tmp_path / "b.json"
    assert main(["leaderboard", "--results", str(results), "--format", "json", "--output", str(out)]) == 0
    document = json.loads(out.read_text())
    assert document["benchmark"] == "small-v1" and document["built"].startswith("Built by sentibench ")
    assert [{k: str(v) if v is not None else "" for k, v in r.items()} for r in document["records"]] == rows


@pytest.mark.parametrize(("history", "improving"), [
    ([(0, 0.1), (25, 0.2), (50, 0.3)], True),    # kept the last step, which beat the one before: still rising
    ([(0, 0.1), (25, 0.3), (50, 0.2)], False),   # kept step 25, validation fell after it: a plateau passed
    ([(0, 0.1), (25, 0.3), (50, 0.3)], False),   # kept 25; the last only tied it
])
def test_model_page_states_the_training_budget_and_whether_validation_was_still_improving(
        results, tmp_path, history, improving):
    from sentibench.report.leaderboard_html import write_site
    from sentibench.report.model_page import still_improving
    from sentibench.results.training_log import TrainingLog, write_training_log

    best = max(history, key=lambda point: (point[1], -point[0]))[0]
    log = TrainingLog(method="senticse", best_step=best, steps=50, seconds=553.5,
                      history=[{"step": step, "validation": value} for step, value in history],
                      loss_curve=[{"step": 25, "loss": 1.0}, {"step": 50, "loss": 0.5}])
    assert still_improving(log) is improving
    folder = result_path(results, "tuned", "r1", "sgts-mr").parent
    write_training_log(folder, log)  # no weights recorded in the results: a log of no weights matches them
    write_site(build(results), tmp_path / "site")
    page = (tmp_path / "site" / "models" / "tuned.html").read_text()
    budget = page.split("<dt>training budget</dt><dd>")[1].split("</dd>")[0]
    assert f"50 steps; 554 s of training; kept step {best}" in budget
    assert ("still improving at the kept (last) step" in budget) is improving
    assert "validation SgTS (Spearman), higher is better" in page, "the curve's y axis names the criterion"


def test_axis_replicates_are_cached_and_a_bad_entry_is_computed_again(results):
    import numpy as np

    from sentibench.core.paths import cache_dir
    from sentibench.report.memo import FOLDER

    first = render(results)
    stored = sorted((cache_dir() / FOLDER).glob("replicates-*.npy"))
    assert stored, "the axis bootstrap's replicates are remembered"
    for i, path in enumerate(stored):  # truncated, of another shape, and not finite
        if i % 3 == 0:
            path.write_bytes(path.read_bytes()[:40])
        elif i % 3 == 1:
            np.save(path, np.zeros((3, 3)))
        else:
            np.save(path, np.full(np.load(path).shape, np.nan))
    assert render(results) == first, "a bad entry is recomputed, never used"


def test_a_base_run_again_in_another_folder_leaves_the_comparison_with_the_base_of_the_same_folder(results, tmp_path):
    from sentibench.report.leaderboard_html import write_site

    mine = tmp_path / "mine"
    write(mine, "minilm", "sgts-mr", 0.04)  # the researcher's own run of the base, in a folder of its own
    board = build([results, mine])
    assert {"minilm", "minilm [mine]"} <= set(board.by_model)
    write_site(board, tmp_path / "site")
    page = (tmp_path / "site" / "models" / "tuned.html").read_text()
    assert "Paired comparison with its base" in page and '<a class="base" href="minilm.html">' in page


def test_one_recipe_trained_with_three_seeds_is_folded_into_a_mean_and_spread(tmp_path, monkeypatch):
    """Seeds 0, 1, 2 of one recipe (same revision, recipe equal but for the seed) give one line per axis: the
    mean of the seeds' axis means, their sample sd and range; a fourth row of another recipe stays out."""
    root = tmp_path / "results"
    seeds = {"tuned": 0, "tuned-seed1": 1, "tuned-seed2": 2, "other": 0}
    for name, seed in seeds.items():
        recipe = {"method": "m", "seed": seed, **({"data": "imdb"} if name == "other" else {})}
        monkeypatch.setitem(MODELS, name, {"name": name, "loader": "trained", "base": "minilm", "revision": "r1",
                                           "recipe": recipe})
        monkeypatch.setitem(SIMILARITY, name, 0.4)
    for (model, task), score in SCORES.items():
        if model in ("minilm", "random"):
            write(root, model, task, score)
        if model == "tuned":
            for name, shift in (("tuned", 0.0), ("tuned-seed1", -0.04), ("tuned-seed2", 0.04), ("other", 0.1)):
                write(root, name, task, score + shift)
    text = render(root)
    seeds_table = _table(text, "### Training seeds on small-v1 (1 recipes)")
    assert seeds_table[0] == ["recipe", "revision", "seeds", "Sentiment", "Meaning"]
    # Sentiment, zero-shot: only sgts-imdb (the seeds are trained on MR): 33 - 4, 33, 33 + 4 -> mean 33, sd 4.
    # Meaning, STS-B: 74 - 4, 74, 74 + 4 -> mean 74, sd 4 (sample sd of three points 4 apart).
    assert seeds_table[1] == ["tuned", "r1", "0, 1, 2", "33.00 ± 4.00 (29.00-37.00) [1]",
                              "74.00 ± 4.00 (70.00-78.00) [1]"]
    from sentibench.report.leaderboard_html import write_site

    page = write_site(build(root), tmp_path / "site").read_text()
    seeds_html = page.split('<table id="overview-seeds">', 1)[1].split("</table>", 1)[0]
    assert ("<td>0, 1, 2</td><td>33.00 ± 4.00 (29.00-37.00) [1]</td><td>74.00 ± 4.00 (70.00-78.00) [1]</td>"
            in seeds_html)


def test_a_bare_name_with_several_revisions_means_the_installed_cards_current_one(tmp_path):
    """`random` is an installed card (revision sha256-seeded-normal-v1): with an older revision beside it, the bare
    name picks the current one; a name that is no card must still say which revision."""
    from sentibench.core.errors import BenchError
    from sentibench.models.catalog.cards import get_card
    from sentibench.results.store import ResultStore

    root = tmp_path / "results"
    current = get_card("random").revision
    for name, revision, score in (("random", current, 0.01), ("random", "older", 0.5), ("mine", "a", 0.2),
                                  ("mine", "b", 0.3)):
        provenance = {"model": {"name": name, "loader": "random"}, "main_split": "test", "limit": None,
                      "task": {"name": "sgts-mr", "groups": ["sgts"], "main_score": "cosine_spearman",
                               "version": all_tasks()["sgts-mr"].metadata.version},
                      "dataset": {"name": "mr", "content_hash": "sgts-mr-data"}}
        write_result(result_path(root, name, revision, "sgts-mr"),
                     task_result("sgts-mr", "data", {"test": {"cosine_spearman": score, "main_score": score}}, 0.1,
                                 provenance))
    store = ResultStore.load(root)
    assert store.of_model("random")["sgts-mr"].main_score() == 0.01
    assert store.of_model("random@older")["sgts-mr"].main_score() == 0.5
    with pytest.raises(BenchError, match=r"several revisions .*\(a, b\); name one as mine@REVISION"):
        store.of_model("mine")
