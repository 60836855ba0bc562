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
    points = {gid.split(":")[0]: [tuple(xy) for xy in c.get_offsets()] for c in axes.collections
              for gid in [c.get_gid()]}
    labels = {a.get_gid(): (a.get_text(), tuple(a.xy)) for a in axes.texts if (a.get_gid() or "").startswith("label:")}
    mean = {m: (mr + tweets) / 2 for m, (mr, tweets) in sgts.items()}
    frozen = {m: (100 * mean[m], 100 * (0.5 + sgts[m][0] / 2)) for m in "abcd"}   # both axes x 100
    tuned = {m: (100 * mean[m], 100 * (0.6 + sgts[m][0] / 4)) for m in "abc"}
    assert flat(points) == pytest.approx(flat({"frozen": list(frozen.values()), "fine-tuned": list(tuned.values())}))
    assert {gid: text for gid, (text, _) in labels.items()} == {
        **{f"label:frozen:{m}@rev": m for m in "abcd"}, **{f"label:fine-tuned:{m}@rev": m for m in "abc"}}
    for gid, (_, xy) in labels.items():  # each label names the point it sits by
        variant, model = gid.split(":")[1], gid.split(":")[2].split("@")[0]
        assert xy == pytest.approx((frozen if variant == "frozen" else tuned)[model])
    colour = {c.get_gid(): tuple(c.get_facecolor()[0]) for c in axes.collections}
    assert colour["frozen:points"] != colour["fine-tuned:points"], "colour: variant"
    legends = [child for child in axes.get_children() if child.__class__.__name__ == "Legend"]
    assert [[t.get_text() for t in legend.get_texts()] for legend in legends] == [
        ["frozen (4 models, 1 tasks)", "fine-tuned (3 models, 1 tasks)"]]
    too_few = "too few models (or no spread) for a correlation"
    assert axes.get_title().splitlines()[1:] == [f"frozen: 4 models: {too_few}", f"fine-tuned: 3 models: {too_few}"]
    assert axes.get_xlabel() == "SgTS: Spearman rho x 100, mean over 2 datasets"
    assert figure.texts[0].get_fontsize() >= 7, "a footnote one can read"
    _inside_canvas(figure)
    assert "left out (missing results): e@rev" in figure.texts[0].get_text()


def test_sgts_vs_fewshot_title_gives_rho_with_its_interval_from_five_models(tmp_path):
    """Five models whose k-shot ranks swap one pair of SgTS's: rho = 1 - 6 * 2 / (5 * 24) = 0.9; its interval by
    Fisher's z with Fieller's variance 1.06 / (n - 3), worked by hand: z = atanh(0.9) = 1.4722, half-width
    1.96 * sqrt(0.53) = 1.4269, tanh(0.0453) = 0.05, tanh(2.8991) = 0.99."""
    from sentibench.report.plot_sgts_fewshot import figure_sgts_vs_fewshot

    for model, x, y in (("a", 0.1, 0.50), ("b", 0.2, 0.60), ("c", 0.3, 0.55), ("d", 0.4, 0.70), ("e", 0.5, 0.80)):
        _write(tmp_path, model, "sgts-mr", x)
        _write(tmp_path, model, "fewshot-frozen-senticse-k1-mr", y)
    title = figure_sgts_vs_fewshot(tmp_path, frozen=True).axes[0].get_title()
    assert "frozen: Spearman ρ = 0.90 [0.05, 0.99] over 5 models" in title


def test_sgts_vs_fewshot_frozen_alone(tmp_path):
    from sentibench.report.plot_sgts_fewshot import figure_sgts_vs_fewshot

    for model, value in (("a", 0.1), ("b", 0.2)):
        _write(tmp_path, model, "sgts-mr", value)
        _write(tmp_path, model, "fewshot-frozen-senticse-k1-mr", 0.5 + value)
        _write(tmp_path, model, "fewshot-senticse-k1-mr", 0.9)
    axes = figure_sgts_vs_fewshot(tmp_path, frozen=True).axes[0]
    assert [c.get_gid() for c in axes.collections] == ["frozen:points"]
    assert sorted(a.get_gid() for a in axes.texts) == ["label:frozen:a@rev", "label:frozen:b@rev"]


def test_polarity_scatter_has_a_legend_per_encoding_and_its_title_inside(tmp_path):
    from sentibench.models.methods.polarity.report import scatter

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

    from sentibench.models.methods.polarity.report import scatter

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


def test_sgts_vs_fewshot_labels_25_models_apart_and_the_legend_covers_no_point(tmp_path):
    """25 models and both variants, as on the board: every point named by its own label, no two labels
    overlapping, the variant legend over no point, everything inside the canvas."""
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
    _inside_canvas(figure)
    FigureCanvasAgg(figure).draw()
    renderer = figure.canvas.get_renderer()
    labels = {a.get_gid(): a for a in axes.texts if (a.get_gid() or "").startswith("label:")}
    assert sorted(g for g in labels if g.startswith("label:frozen:")) == [f"label:frozen:{m}@rev" for m in models]
    assert len(labels) == 25 + 4
    boxes = [a.get_window_extent(renderer) for a in labels.values()]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), "labels lie apart"
    (legend,) = [c.get_window_extent(renderer) for c in axes.get_children() if c.__class__.__name__ == "Legend"]
    for collection in axes.collections:
        for x, y in axes.transData.transform(collection.get_offsets()):
            assert not legend.overlaps(Bbox.from_extents(x - 3, y - 3, x + 3, y + 3)), "a point under the legend"


def test_training_curve_names_its_axes_and_its_legends_cover_no_data():
    """InfoDCL's validation is minus a loss: the panel says so; each legend sits below its panel."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from sentibench.report.training_curve import figure
    from sentibench.results.training_log import TrainingLog

    log = TrainingLog(method="infodcl", best_step=50, steps=50,
                      loss_curve=[{"step": 25, "loss": 5.7, "mlm": 8.7}, {"step": 50, "loss": 5.1, "mlm": 8.1}],
                      history=[{"step": 25, "validation": -4.5}, {"step": 50, "validation": -4.2}])
    drawn = figure(log)
    FigureCanvasAgg(drawn).draw()
    renderer = drawn.canvas.get_renderer()
    loss, validation = drawn.axes
    assert (loss.get_ylabel(), validation.get_ylabel()) == ("loss", "minus the validation loss, higher is better")
    assert loss.get_xlabel() == validation.get_xlabel() == "training step"
    for axes in drawn.axes:
        legend = axes.get_legend().get_window_extent(renderer)
        assert legend.y1 < axes.get_window_extent(renderer).y0, "the legend lies below the panel, over no data"
    _inside_canvas(drawn)
