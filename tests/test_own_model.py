"""A researcher's own model (issue 27): one identity for every kind of model (packaged card, user card,
local folder, Python object), folders that never mix two models, and `export mteb` from the results'
own record of the model."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from sentibench.core.errors import BenchError
from sentibench.models.catalog.cards import user_cards_dir
from sentibench.models.catalog.inprocess import InProcessModel, as_model
from sentibench.results.task_result import iter_results, read_result, result_path
from sentibench.run.runner import run


def _user_card(name: str, revision: str = "v1") -> Path:
    path = user_cards_dir() / f"{hashlib.sha256(name.encode()).hexdigest()[:8]}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"name: '{name}'\nloader: random\ndescription: a user card\nrevision: '{revision}'\n"
                    "embedding_size: 8\n")
    return path


@pytest.fixture(scope="module")
def tiny_st_folder(tmp_path_factory) -> Path:
    """A sentence-transformers folder: a 1-layer, 16-wide BERT with seeded weights, mean pooling."""
    import torch
    from conftest import FIXTURE_SENTENCES
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    bert = tmp_path_factory.mktemp("tiny-bert")
    words = sorted({w for text, _ in FIXTURE_SENTENCES for w in text.replace(",", " ").split()})
    (bert / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "(", ")", *words,
                                               *map(str, range(40))]) + "\n")
    tokenizer = BertTokenizerFast.from_pretrained(str(bert))
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=32, max_position_embeddings=64)).save_pretrained(bert)
    tokenizer.save_pretrained(bert)
    body = Transformer(str(bert), max_seq_length=32)
    folder = tmp_path_factory.mktemp("tiny-st")
    SentenceTransformer(modules=[body, Pooling(body.get_embedding_dimension(), "mean")], device="cpu").save(
        str(folder))
    return folder


# one folder per model identity


def test_two_names_that_read_alike_never_share_a_folder(tmp_path, fixture_task):
    cards = [_user_card("rand x"), _user_card("rand-x")]
    try:
        first = run(["rand x"], [fixture_task], tmp_path)
        second = run(["rand-x"], [fixture_task], tmp_path)
    finally:
        for card in cards:
            card.unlink()
    assert second.skipped == [] and first.written != second.written
    assert [read_result(r.written[0]).provenance.model.name for r in (first, second)] == ["rand x", "rand-x"]
    suffix = hashlib.sha256(b"rand x").hexdigest()[:12]
    assert first.written[0].relative_to(tmp_path).parts[0] == f"rand-x+{suffix}"  # readable, and its own
    assert second.written[0].relative_to(tmp_path).parts[0] == "rand-x"
    from sentibench.report.leaderboard import render

    rows = {line.split("|")[1].strip() for line in render(tmp_path).splitlines() if line.startswith("| ")}
    assert {"rand x", "rand-x"} <= rows  # the leaderboard names each by its recorded identity


def test_a_folder_named_the_old_way_stays_valid_for_its_own_model_only(tmp_path, fixture_task):
    """Before hashed segments, `v==1` was filed under `v-1`; such a folder is still found for that model
    and revision, and never taken for another model whose name reads alike."""
    (card,) = [_user_card("old-rev", revision="v==1")]
    try:
        made = run(["old-rev"], [fixture_task], tmp_path)
        legacy = tmp_path / "old-rev" / "v-1"
        shutil.move(made.written[0].parent, legacy)
        assert result_path(tmp_path, "old-rev", "v==1", fixture_task.name) == legacy / f"{fixture_task.name}.json"
        assert run(["old-rev"], [fixture_task], tmp_path).skipped == [legacy / f"{fixture_task.name}.json"]
        assert result_path(tmp_path, "old-rev", "v-1", fixture_task.name).parent == legacy.parent / "v-1"
        assert result_path(tmp_path, "old rev", "v==1", fixture_task.name).parent.parent != legacy.parent
    finally:
        card.unlink()


def test_the_committed_results_are_still_found_where_they_are():
    root = Path(__file__).parents[1] / "results"
    for stored in iter_results(root):
        info = stored.provenance.model
        assert result_path(root, info.name, info.revision, stored.task_name, info.dtype) == stored.path


# objects in, as users hold them


def test_a_sentence_transformer_object_is_named_from_its_own_folder(tmp_path, fixture_task, tiny_st_folder):
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(tiny_st_folder), device="cpu")
    report = run([model], [fixture_task], tmp_path, use_cache=False)
    stored = read_result(report.written[0])
    where = hashlib.sha256(str(tiny_st_folder.resolve()).encode()).hexdigest()[:8]
    assert stored.provenance.model.name == f"{tiny_st_folder.name}-{where}"
    # the revision names the weights in memory: the same weights, the same revision
    assert stored.provenance.model.revision == as_model(SentenceTransformer(str(tiny_st_folder))).revision
    assert stored.provenance.model.revision.startswith("sha256-")
    by_folder = run([str(tiny_st_folder)], [fixture_task], tmp_path, use_cache=False)
    assert read_result(by_folder.written[0]).main_score() == pytest.approx(stored.main_score(), abs=1e-6)


def test_a_name_given_wins_and_weights_change_the_revision(tiny_st_folder):
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(tiny_st_folder), device="cpu")
    before = as_model(model, name="mine")
    with torch.no_grad():
        next(model.parameters()).add_(1.0)
    after = as_model(model, name="mine")
    assert before.name == "mine" and before.revision != after.revision


def test_anything_with_encode_texts_runs(tmp_path, fixture_task, fake_encoder):
    class Plain:  # encode(texts) only: no batch_size, no show_progress_bar
        def encode(self, texts):
            return fake_encoder.encode(texts)

    report = run([InProcessModel("plain", Plain())], [fixture_task], tmp_path)
    assert read_result(report.written[0]).provenance.model.revision == "in-process"


@pytest.mark.parametrize("thing", [object(), 42, np.zeros(3)])
def test_a_wrong_object_is_one_line(tmp_path, fixture_task, thing):
    with pytest.raises(BenchError, match="object with encode") as error:
        run([thing], [fixture_task], tmp_path)
    assert "\n" not in str(error.value)


def test_an_object_without_a_name_of_its_own_is_asked_for_one():
    with pytest.raises(BenchError, match="name='my-name'"):
        as_model(type("Anon", (), {"encode": lambda self, texts: texts})())


# export mteb from the results' own record


def _edited(path: Path, target_root: Path, **model_fields) -> Path:
    data = json.loads(path.read_text())
    data["sentibench"]["model"].update(model_fields)
    out = result_path(target_root, data["sentibench"]["model"]["name"], data["sentibench"]["model"]["revision"],
                      data["task_name"])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data))
    return out


def test_export_mteb_reads_every_kind_of_model_from_its_results(tmp_path, fixture_task, fake_encoder,
                                                                  tiny_st_folder):
    mteb = pytest.importorskip("mteb")
    from sentibench.mteb.export import export_results

    results = tmp_path / "results"
    packaged = run(["random"], [fixture_task], results).written[0]
    run([str(tiny_st_folder)], [fixture_task], results)
    run([InProcessModel("my-object", fake_encoder, revision="v1")], [fixture_task], results)
    retired = _user_card("retired-card")
    run(["retired-card"], [fixture_task], results)
    retired.unlink()  # the card is gone; its results stay exportable
    _edited(packaged, results, revision="sha256-seeded-normal-v2")  # an edited revision of a packaged card
    report = export_results(results, tmp_path / "mteb")
    assert len(report.written) == 5 and not report.skipped
    loaded = {(m.model_name, m.model_revision) for m in mteb.ResultCache(tmp_path / "mteb").load_results()}
    where = hashlib.sha256(str(tiny_st_folder.resolve()).encode()).hexdigest()[:8]
    names = {name for name, _ in loaded}
    assert names == {"sentibench/random", f"sentibench/{tiny_st_folder.name}-{where}", "sentibench/my-object",
                     "sentibench/retired-card"}
    assert ("sentibench/random", "sha256-seeded-normal-v2") in loaded and ("sentibench/my-object", "v1") in loaded


def test_export_writes_nothing_when_one_result_cannot_be_exported(tmp_path, fixture_task):
    pytest.importorskip("mteb")
    from sentibench.mteb.export import export_results

    results = tmp_path / "results"
    good = run(["random"], [fixture_task], results).written[0]
    _edited(good, results, name="zz-last", revision="v 2")  # sorted last: a revision MTEB cannot look up
    with pytest.raises(BenchError, match="folder name"):
        export_results(results, tmp_path / "mteb")
    assert not (tmp_path / "mteb").exists() or not any((tmp_path / "mteb").rglob("*"))
