"""The Hub as its own libraries define it (issue 27): `bench run -m <hub id> -t sgts-<hub dataset>` against a
local Hub endpoint on 127.0.0.1 (`HF_ENDPOINT`, tests/hub_server.py), then again with only the filled
Hugging Face cache under `HF_HUB_OFFLINE=1`, and one fast line when neither can serve. Each run is a
`bench` process with its own environment, as a user's shell would start it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURE_SENTENCES
from hub_server import HubServer, Repo
from test_own_model import tiny_st_folder  # noqa: F401  (the tiny sentence-transformers folder fixture)

MODEL, DATASET = "tiny-org/tiny-st", "tiny-org/tiny-reviews"


def _csv(rows: list[tuple[str, int]]) -> bytes:
    return ("text,label\n" + "".join(f'"{text}",{label}\n' for text, label in rows)).encode()


def _dataset_repo() -> Repo:
    readme = ("---\nconfigs:\n- config_name: default\n  data_files:\n"
              + "".join(f"  - split: {s}\n    path: {s}.csv\n" for s in ("train", "validation", "test")) + "---\n")
    splits = {s: [(f"{text} ({s} {i})", label) for i, (text, label) in enumerate(FIXTURE_SENTENCES)]
              for s in ("train", "validation", "test")}
    return Repo("dataset", DATASET, {"README.md": readme.encode(), **{f"{s}.csv": _csv(r) for s, r in splits.items()}})


def _plugin(folder: Path, revision: str) -> Path:
    """A plug-in declaring the hub dataset, pinned to its commit (as every hub dataset should be); the
    built-in sgts family gives it `sgts-tiny-reviews`."""
    package = folder / "tinyhub_dataset"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from sentibench.data import DatasetSpec, HubSource, register_dataset\n\n"
        "register_dataset(DatasetSpec(\n"
        "    name='tiny-reviews', description='reviews on a local hub', kind='classification',\n"
        "    label_names=('negative', 'positive'), license='test', citation='test', tags=('sentiment',),\n"
        f"    hub=HubSource({DATASET!r}, revision={revision!r})))\n")
    info = folder / "tinyhub_dataset-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tinyhub-dataset\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[sentibench.datasets]\ntiny-reviews = tinyhub_dataset\n")
    return folder


def _bench(tmp_path: Path, plugin: Path, hf_home: Path, name: str, model: str = MODEL,
           **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "SENTIBENCH_HOME": str(tmp_path / f"home-{name}"), "HF_HOME": str(hf_home),
                   "PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")]),
                   "HF_HUB_OFFLINE": "0", "OMP_NUM_THREADS": "1", **env}
    environment.pop("HF_DATASETS_CACHE", None)
    return subprocess.run([sys.executable, "-m", "sentibench.cli", "run", "-m", model, "-t", "sgts-tiny-reviews",
                           "--output-folder", str(tmp_path / f"out-{name}")], env=environment,
                          capture_output=True, text=True, timeout=300)


def _result(tmp_path: Path, name: str) -> dict:
    (path,) = (tmp_path / f"out-{name}").rglob("sgts-tiny-reviews.json")
    return json.loads(path.read_text())


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_hub_model_on_a_hub_dataset_through_the_endpoint_then_offline(tmp_path, tiny_st_folder):  # noqa: F811
    model = Repo("model", MODEL, {str(p.relative_to(tiny_st_folder)): p.read_bytes()
                                  for p in sorted(tiny_st_folder.rglob("*")) if p.is_file()})
    dataset = _dataset_repo()
    plugin, hf_home = _plugin(tmp_path / "plugin", dataset.commit), tmp_path / "hf-home"
    with HubServer([model, dataset]) as hub:
        online = _bench(tmp_path, plugin, hf_home, "online", HF_ENDPOINT=hub.url)
    assert online.returncode == 0, online.stderr
    assert model.requests and dataset.requests, "both came from the local endpoint"
    stored = _result(tmp_path, "online")
    assert stored["sentibench"]["model"]["revision"] == model.commit  # the commit, not "main"
    assert stored["sentibench"]["model"]["hub_id"] == MODEL
    assert stored["sentibench"]["dataset"]["sources"] == [f"hub {DATASET}@{dataset.commit}"]  # the data's commit
    # the cache folders `data.hub.refuse_uncached_dataset` looks for before it lets datasets load: the
    # libraries' own layout, so that a filled cache is never refused unasked
    assert (hf_home / "hub" / f"datasets--{DATASET.replace('/', '--')}").is_dir()
    assert (hf_home / "datasets" / DATASET.replace("/", "___")).is_dir()

    # the same command on a machine without the Hub: the filled cache serves both, the endpoint is gone
    offline = _bench(tmp_path, plugin, hf_home, "offline", HF_HUB_OFFLINE="1",
                     HF_ENDPOINT=f"http://127.0.0.1:{_closed_port()}")
    assert offline.returncode == 0, offline.stderr
    again = _result(tmp_path, "offline")
    assert again["sentibench"]["model"]["revision"] == model.commit
    assert again["scores"] == stored["scores"] and again["sentibench"]["dataset"] == stored["sentibench"]["dataset"]

    # HF_HUB_OFFLINE unset and no endpoint: one failed connection puts the libraries in their offline mode,
    # so the cache serves at once instead of after five retries per request
    started = time.monotonic()
    unreachable = _bench(tmp_path, plugin, hf_home, "unreachable", HF_ENDPOINT=f"http://127.0.0.1:{_closed_port()}")
    assert unreachable.returncode == 0, unreachable.stderr
    assert time.monotonic() - started < 30 and "Retrying" not in unreachable.stderr
    assert _result(tmp_path, "unreachable")["scores"] == stored["scores"]


@pytest.mark.parametrize("model", [MODEL, "random"], ids=["hub-model", "hub-dataset"])
@pytest.mark.parametrize("env", [{"HF_HUB_OFFLINE": "1"}, {"HF_HUB_OFFLINE": "0"},
                                 {"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": "https://hub.sentibench-test.invalid"}],
                         ids=["offline", "refused", "unresolvable"])
def test_neither_cache_nor_endpoint_is_one_fast_line(tmp_path, env, model):
    plugin = _plugin(tmp_path / "plugin", "0" * 40)
    started = time.monotonic()
    done = _bench(tmp_path, plugin, tmp_path / "empty-hf-home", "none", model=model,
                  **{"HF_ENDPOINT": f"http://127.0.0.1:{_closed_port()}", **env})
    # the interpreter's start and imports, no network wait: huggingface_hub alone would retry each request
    # five times (1 + 2 + 4 + 8 + 8 s)
    assert time.monotonic() - started < 20
    assert done.returncode == 2 and "Traceback" not in done.stderr
    if model == MODEL:  # the model loads first, before any task: the run's one line
        assert done.stderr.count("\n") == 1 and f"hub model '{MODEL}' needs the Hugging Face Hub" in done.stderr
    else:  # the task is skipped with one line, then the run's summary says nothing could run
        (skipped,) = [line for line in done.stderr.splitlines() if "sgts-tiny-reviews: skipped" in line]
        assert f"dataset 'tiny-reviews' ({DATASET}) needs the Hugging Face Hub" in skipped
    offline = env["HF_HUB_OFFLINE"] == "1"
    assert ("HF_HUB_OFFLINE is set" in done.stderr) == offline
    assert ("cannot be reached (no connection to" in done.stderr) == (not offline)


# the mission's own command: a trained card whose base is a Hub-only model, smoke-trained


def _tiny_roberta(folder: Path) -> dict[str, bytes]:
    """A 1-layer RobertaForMaskedLM (safetensors, with its MLM head) and a byte-level BPE trained on the
    fixture sentences: the files of a Hub repository, by name."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaConfig, RobertaForMaskedLM, RobertaTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator([text for text, _ in FIXTURE_SENTENCES] * 3, vocab_size=400, min_frequency=1,
                            show_progress=False, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    folder.mkdir(parents=True)
    bpe.save_model(str(folder))
    tokenizer = RobertaTokenizerFast.from_pretrained(str(folder))
    torch.manual_seed(0)
    config = RobertaConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                           intermediate_size=32, max_position_embeddings=132, pad_token_id=tokenizer.pad_token_id,
                           bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id)
    RobertaForMaskedLM(config).save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_senticse_roberta_smoke_trains_from_the_pinned_hub_base_and_stays_off_the_leaderboard(tmp_path):
    """`bench run --model senticse-roberta --tasks ...` with roberta-base (its card's hub id at its pinned
    commit) served by the local endpoint and `--smoke-training 2`: the whole pipeline (base download, SentiCSE
    paper preset, checkpoint, evaluation, a fine-tuning few-shot task), every training loop capped at 2
    steps; the results are filed under the smoke revision and kept off the leaderboard and out of
    submissions."""
    from sentibench.models import get_card
    from sentibench.report.leaderboard import render
    from sentibench.results.task_result import iter_results

    base = get_card("roberta-base")
    roberta = Repo("model", base.hub_id, _tiny_roberta(tmp_path / "tiny-roberta"), pinned=base.revision)
    environment = {**os.environ, "SENTIBENCH_HOME": str(tmp_path / "home"), "HF_HOME": str(tmp_path / "hf-home"),
                   "HF_HUB_OFFLINE": "0", "OMP_NUM_THREADS": "1"}
    out = tmp_path / "out"
    with HubServer([roberta]) as hub:
        done = subprocess.run([sys.executable, "-m", "sentibench.cli", "run", "--model", "senticse-roberta",
                               "--tasks", "sgts-mr,fewshot-senticse-k1-mr", "--limit", "8", "--smoke-training", "2",
                               "--output-folder", str(out)], env={**environment, "HF_ENDPOINT": hub.url},
                              capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stderr[-3000:]
    assert any(f"/revision/{base.revision}" in r or f"/resolve/{base.revision}/" in r for r in roberta.requests)
    assert "smoke training: at most 2 step(s) per loop" in done.stderr
    results = list(iter_results(out))
    assert sorted(r.task_name for r in results) == ["fewshot-senticse-k1-mr", "sgts-mr"]
    for result in results:
        model = result.provenance.model
        assert (model.name, model.revision) == ("senticse-roberta", "senticse-paper-r1-smoke2")
        assert model.recipe["smoke_steps"] == 2 and result.smoke
    (fewshot,) = [r for r in results if r.task_name.startswith("fewshot")]
    assert {seed.steps for seed in fewshot.provenance.details.per_seed} == {2}  # its fine-tuning is capped too
    (report,) = (tmp_path / "home" / "checkpoints").rglob("training_report.json")
    training = json.loads(report.read_text())
    assert training["recipe"]["smoke_steps"] == 2 and training["training"]["steps"] == 2
    rows = [line for line in render(out).splitlines() if line.startswith("|") and "senticse-roberta" in line]
    assert rows == []  # no score of a smoke run on the leaderboard (the card may be listed as not runnable here)
