"""The report's plots, checked on what they draw (points, legends, titles inside the canvas), never on bytes."""

import json
from pathlib import Path

import pytest
from approx import flat


def _write(root: Path, model: str, task: str, value: float) -> None:
    """A minimal result file made under the task's current version (the plots leave older versions out)."""
    from sentibench.tasks.registry import all_tasks

    path = root / model / "rev" / f"{task}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"task_name": task, "scores": {"test": [{"main_score": value}]},
                                "sentibench": {"task": {"version": all_tasks()[task].metadata.version}}}))


def _inside_canvas(figure) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure).draw()
    renderer, canvas = figure.canvas.get_renderer(), figure.bbox
    for axes in figure.axes:
        legends = [child for child in axes.get_children() if child.__class__.__name__ == "Legend"]
        for artist in (axes.title, axes.xaxis.label, axes.yaxis.label, *legends):
            box = artist.get_window_extent(renderer)
            assert canvas.x0 <= box.x0 and box.x1 <= canvas.x1 + 0.5, f"{artist} runs off the canvas sideways"
            assert canvas.y0 <= box.y0 and box.y1 <= canvas.y1 + 0.5, f"{artist} runs off the canvas"


def test_sgts_vs_fewshot_draws_every_model_with_frozen_twins_and_both_variants(tmp_path):
    from sentibench.report.plot_sgts_fewshot import figure_sgts_vs_fewshot

    # a, b, c have both variants; d has only the frozen twins; e has SgTS alone. SgTS is averaged over the
    # tasks every plotted model has: sgts-mr and sgts-vader-tweets (a's sgts-imdb is left out).
    sgts = {"a": (0.1, 0.3), "b": (0.5, 0.4), "c": (0.2, 0.25), "d": (0.6, 0.9)}
    for model, (mr, tweets) in sgts.items():
        _write(tmp_path, model, "sgts-mr", mr)
        _write(tmp_path, model, "sgts-vader-tweets", tweets)
        _write(tmp_path, model, "fewshot-frozen-senticse-k1-mr", 0.5 + mr / 2)
        if model != "d":
            _write(tmp_path, model, "fewshot-senticse-k1-mr", 0.6 + mr / 4)
    _write(tmp_path, "a", "sgts-imdb", 0.9)
    _write(tmp_path, "e", "sgts-mr", 0.3)
    figure = figure_sgts_vs_fewshot(tmp_path)
    axes = figure.axes[0]
    points = {c.get_gid(): tuple(c.get_offsets()[0]) for c in axes.collections}
    mean = {m: (mr + tweets) / 2 for m, (mr, tweets) in sgts.items()}
    assert flat(points) == pytest.approx(flat({
        **{f"frozen:{m}@rev": (mean[m], 100 * (0.5 + sgts[m][0] / 2)) for m in "abcd"},
        **{f"fine-tuned:{m}@rev": (mean[m], 100 * (0.6 + sgts[m][0] / 4)) for m in "abc"}}))
    colour = {gid: tuple(c.get_facecolor()[0]) for gid, c in zip(points, axes.collections)}
    assert colour["frozen:a@rev"] == colour["fine-tuned:a@rev"] != colour["frozen:b@rev"], "colour: model"
    assert {c.get_paths()[0].vertices.shape for c in axes.collections if c.get_gid().startswith("frozen")} != {
        c.get_paths()[0].vertices.shape for c in axes.collections if c.get_gid().startswith("fine")}, "shape: variant"
    legends = [child for child in axes.get_children() if child.__class__.__name__ == "Legend"]
    texts = {legend.get_title().get_text(): [t.get_text() for t in legend.get_texts()] for legend in legends}
    assert texts == {"colour: model": ["a", "b", "c", "d"],
                     "shape: k-shot variant": ["frozen (4 models, 1 tasks)", "fine-tuned (3 models, 1 tasks)"]}
    # x ranks (a, c, b, d) = k-shot ranks in both variants: Spearman 1 for each.
    assert axes.get_title().splitlines()[1:] == [
        line for line in axes.get_title().splitlines()[1:] if "Spearman ρ = 1.00" in line]
    assert "(4 models)" in axes.get_title().splitlines()[1] and "(3 models)" in axes.get_title().splitlines()[2]
    assert axes.get_xlabel() == "mean SgTS (Spearman) over 2 datasets"
    _inside_canvas(figure)
    assert "left out (missing results): e@rev" in figure.texts[0].get_text()


def test_sgts_vs_fewshot_frozen_alone(tmp_path):
    from sentibench.report.plot_sgts_fewshot import figure_sgts_vs_fewshot

    for model, value in (("a", 0.1), ("b", 0.2)):
        _write(tmp_path, model, "sgts-mr", value)
        _write(tmp_path, model, "fewshot-frozen-senticse-k1-mr", 0.5 + value)
        _write(tmp_path, model, "fewshot-senticse-k1-mr", 0.9)
    gids = sorted(c.get_gid() for c in figure_sgts_vs_fewshot(tmp_path, frozen=True).axes[0].collections)
    assert gids == ["frozen:a@rev", "frozen:b@rev"]


def test_polarity_scatter_has_a_legend_per_encoding_and_its_title_inside(tmp_path):
    from sentibench.models.polarity.report import scatter

    def record(base, loss, margin, p, s):
        return {"configuration": {"base": base, "data": "mr", "labels": {"loss": loss, "margin": margin}},
                "scores": {"polarity_score": p, "semantic_similarity_score": s}}

    records = [record("all-minilm-l6-v2", "triplet", 0.1, 0.71, 0.44), record("all-minilm-l6-v2", "reference", None,
                                                                            0.615, 0.503),
               record("paraphrase-minilm-l3-v2", "triplet", 0.1, 0.60, 0.47)]
    figure = scatter(records, tmp_path / "p_vs_s.png")
    axes = figure.axes[0]
    points = {c.get_gid(): tuple(c.get_offsets()[0]) for c in axes.collections}
    assert flat(points) == pytest.approx(flat({"all-minilm-l6-v2 / mr|triplet|0.1": (44.0, 71.0),
                                              "all-minilm-l6-v2 / mr|reference|None": (50.3, 61.5),
                                              "paraphrase-minilm-l3-v2 / mr|triplet|0.1": (47.0, 60.0)}))
    legends = [child for child in axes.get_children() if child.__class__.__name__ == "Legend"]
    texts = {legend.get_title().get_text(): [t.get_text() for t in legend.get_texts()] for legend in legends}
    assert texts == {"colour: loss": ["Reference", "Triplet"],
                     "shape: base / training data": ["all-minilm-l6-v2 / mr", "paraphrase-minilm-l3-v2 / mr"]}
    _inside_canvas(figure)
    assert (tmp_path / "p_vs_s.png").exists()


def test_polarity_scatter_margin_labels_stay_legible_in_a_crowd(tmp_path):
    """Nine margins of three losses within a tenth of a point (the r2 grid crowds like this near S = 47): no
    two labels overlap, none covers a point, and coinciding points share one label."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    from sentibench.models.polarity.report import scatter

    records = [{"configuration": {"base": "all-minilm-l6-v2", "data": "mr",
                                  "labels": {"loss": loss, "margin": margin}},
                "scores": {"polarity_score": 0.62 + 0.0004 * i, "semantic_similarity_score": 0.47 + 0.0003 * i}}
               for i, (loss, margin) in enumerate((loss, margin) for loss in ("triplet", "contrastive", "mnrl")
                                                 for margin in (0.1, 0.25, 0.5))]
    records.append({**records[0], "configuration": {**records[0]["configuration"],
                                                    "labels": {"loss": "triplet", "margin": 5}}})  # coincides
    figure = scatter(records, tmp_path / "p_vs_s.png")
    axes = figure.axes[0]
    FigureCanvasAgg(figure).draw()
    renderer = figure.canvas.get_renderer()
    labels = [t for t in axes.texts if (t.get_gid() or "").startswith("label:")]
    assert sorted(t.get_text() for t in labels) == sorted(["0.1, 5", "0.25", "0.5", "0.1", "0.25", "0.5", "0.1",
                                                           "0.25", "0.5"])
    boxes = [Text.get_window_extent(t, renderer) for t in labels]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), "no two labels overlap"
    for collection in axes.collections:
        x, y = axes.transData.transform(collection.get_offsets()[0])
        point = Bbox.from_extents(x - 3, y - 3, x + 3, y + 3)
        assert not any(box.overlaps(point) for box in boxes), f"a label covers {collection.get_gid()}"


@pytest.mark.parametrize("n", [3, 25, 61])
def test_every_model_gets_its_own_colour(n):
    from sentibench.report.plot_sgts_fewshot import distinct_colours

    colours = distinct_colours(n)
    assert len(colours) == n and len({tuple(round(c, 6) for c in colour) for colour in colours}) == n


def test_sgts_vs_fewshot_draws_more_models_than_one_colour_map_holds(tmp_path):
    """25 models and both variants, as on the board: every colour distinct, and the two legends apart (the
    shape legend once sat below a colour column that had grown down over it), inside the canvas, and the
    shape legend over no point."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    from sentibench.report.plot_sgts_fewshot import figure_sgts_vs_fewshot

    models = [f"infodcl-minilm-model-{i:02d}" for i in range(25)]  # the board had 25 when tab20 ran out
    for i, model in enumerate(models):
        _write(tmp_path, model, "sgts-mr", i / 100)
        _write(tmp_path, model, "fewshot-frozen-senticse-k1-mr", 0.5 + i / 100)
        if i % 8 == 0:
            _write(tmp_path, model, "fewshot-senticse-k1-mr", 0.45 + i / 100)
    figure = figure_sgts_vs_fewshot(tmp_path)
    axes = figure.axes[0]
    colours = {c.get_gid(): tuple(c.get_facecolor()[0]) for c in axes.collections if c.get_gid()[0] == "f"}
    frozen = {gid: colour for gid, colour in colours.items() if gid.startswith("frozen:")}
    assert sorted(frozen) == [f"frozen:{m}@rev" for m in models] and len(set(frozen.values())) == 25
    _inside_canvas(figure)
    FigureCanvasAgg(figure).draw()
    renderer = figure.canvas.get_renderer()
    legends = {legend.get_title().get_text(): legend.get_window_extent(renderer)
               for legend in axes.get_children() if legend.__class__.__name__ == "Legend"}
    assert set(legends) == {"colour: model", "shape: k-shot variant"}
    assert not legends["colour: model"].overlaps(legends["shape: k-shot variant"]), "the legends lie apart"
    for collection in axes.collections:
        x, y = axes.transData.transform(collection.get_offsets()[0])
        marker = Bbox.from_extents(x - 3, y - 3, x + 3, y + 3)
        assert not legends["shape: k-shot variant"].overlaps(marker), f"{collection.get_gid()} under a legend"
