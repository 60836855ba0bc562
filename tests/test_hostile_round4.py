"""Issue 57's hostile inputs, round 4: outputs that never replace what is not a file of ours, reads that never
hang on a special file or a slow endpoint, one answer per (model, revision, task), and seeds whose derived
seeds stay valid. Each is a one-line error or the correct result."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hub_server import Trickle

from sentibench.cli import main
from sentibench.core.errors import BenchError
from sentibench.core.io import atomic_write_text, read_regular, write_output

ROOT = Path(__file__).resolve().parents[1]
SECRET = b"the user's secret\n"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> bool:
    return err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def special_files(folder: Path) -> dict[str, Path]:
    """A FIFO, a socket, a folder and a character device (root only: /dev/null's numbers) in `folder`."""
    made = {"fifo": folder / "fifo", "folder": folder / "folder", "socket": folder / "socket"}
    os.mkfifo(made["fifo"])
    made["folder"].mkdir()
    with socket.socket(socket.AF_UNIX) as bound:
        bound.bind(str(made["socket"]))
    if os.geteuid() == 0:
        made["device"] = folder / "device"
        os.mknod(made["device"], stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return made


def test_a_write_refuses_every_target_that_is_not_a_new_path_or_a_regular_file(tmp_path):
    made = special_files(tmp_path)
    kinds = {path: os.lstat(path).st_mode for path in made.values()}
    secret = tmp_path / "secret.txt"
    secret.write_bytes(SECRET)
    (tmp_path / "link").symlink_to(secret)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere" / "planted")
    for name in [*made, "link", "dangling"]:
        with pytest.raises(BenchError, match="(is a symbolic link|not a file).*nothing was written"):
            atomic_write_text(tmp_path / name, "board")
    assert {path: os.lstat(path).st_mode for path in made.values()} == kinds  # each still what it was
    assert (tmp_path / "link").is_symlink() and secret.read_bytes() == SECRET
    assert not (tmp_path / "nowhere").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*made, "secret.txt", "link", "dangling"])
    atomic_write_text(secret, "new")  # a regular file is replaced, a new path created
    atomic_write_text(tmp_path / "new.md", "new")
    assert secret.read_text() == (tmp_path / "new.md").read_text() == "new"


def test_dash_is_standard_output(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert write_output("-", "a table\n") == "standard output"
    assert capsys.readouterr().out == "a table\n"
    assert not (tmp_path / "-").exists()


@pytest.fixture
def results(tmp_path, monkeypatch) -> Path:
    """The committed results of `random` in `tmp_path/results`, the working folder."""
    shutil.copytree(ROOT / "results" / "random", tmp_path / "results" / "random")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "results"


@pytest.mark.parametrize("argv", [["leaderboard", "--output"], ["leaderboard", "--format", "csv", "--output"],
                                  ["leaderboard", "--scatter"]])
def test_the_board_never_replaces_a_device_fifo_or_link(results, capsys, argv):
    made = special_files(results.parent)
    (results.parent / "stdout-link").symlink_to("/proc/self/fd/1")
    for name in [*made, "stdout-link"]:
        before = os.lstat(made.get(name, results.parent / name)).st_mode
        code, out, err = run_cli(capsys, *argv, name)
        assert code == 2 and one_error_line(err) and out == "", err
        assert os.lstat(made.get(name, results.parent / name)).st_mode == before


def test_the_board_and_its_tables_go_to_standard_output_for_dash(results, capsys):
    code, out, err = run_cli(capsys, "leaderboard", "--output", "-")
    assert code == 0 and out.startswith("# sentibench leaderboard") and err == "wrote standard output\n"
    code, out, err = run_cli(capsys, "leaderboard", "--format", "csv", "--output", "-")
    assert code == 0 and out.startswith("table,") and "random" in out
    code, out, err = run_cli(capsys, "leaderboard", "--format", "json", "--output", "-")
    assert code == 0 and json.loads(out)["records"]
    assert not (results.parent / "-").exists()


def test_verify_never_replaces_a_device_or_fifo_given_as_its_leaderboard(results, capsys):
    made = special_files(results.parent)
    for name, path in made.items():
        before = os.lstat(path).st_mode
        code, out, err = run_cli(capsys, "verify", "nowhere", "--leaderboard", str(path))
        assert code == 2 and one_error_line(err) and ("not a file" in err or "(is a folder)" in err), (name, err)
        assert os.lstat(path).st_mode == before


def test_a_site_rebuild_keeps_the_users_files_and_refuses_to_write_over_one(results, capsys):
    assert run_cli(capsys, "leaderboard", "--site", "site")[0] == 0
    site = results.parent / "site"
    (site / "CNAME").write_text("bench.example.org\n")
    (site / "models" / "notes.txt").write_text("mine\n")
    assert run_cli(capsys, "leaderboard", "--site", "site")[0] == 0
    assert (site / "CNAME").read_text() == "bench.example.org\n" and (site / "models" / "notes.txt").exists()
    assert "CNAME" not in json.loads((site / ".sentibench-site").read_text())["written"]
    written = json.loads((site / ".sentibench-site").read_text())["written"]
    (site / ".sentibench-site").write_text(json.dumps({"written": [w for w in written if w != "index.html"]}))
    before = (site / "index.html").read_bytes()  # now a file the site did not write, at a path it writes
    code, out, err = run_cli(capsys, "leaderboard", "--site", "site")
    assert code == 2 and one_error_line(err) and "site/index.html' was not written by" in err
    assert (site / "index.html").read_bytes() == before
    assert not [p for p in results.parent.iterdir() if p.name.startswith(".site")]  # no staging left


def test_a_site_in_the_working_folder_is_one_line_and_leaves_no_staging(tmp_path, capsys, monkeypatch):
    shutil.copytree(ROOT / "results" / "random", tmp_path / "res" / "random")
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path / "empty")
    for site in (".", ".."):
        code, out, err = run_cli(capsys, "leaderboard", "--results", "../res", "--site", site)
        assert code == 2 and one_error_line(err) and "holds the working folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "res"] and not any((tmp_path / "empty").iterdir())


def test_a_dangling_lock_link_is_refused_and_nothing_is_made_outside(tmp_path):
    from sentibench.results.item_locks import ItemLocks, lock_path

    result = tmp_path / "out" / "m" / "r" / "task.json"
    result.parent.mkdir(parents=True)
    lock_path(result).symlink_to(tmp_path / "outside")
    os.mkfifo(lock_path(result.with_name("other.json")))
    with ItemLocks() as locks:
        for path in (result, result.with_name("other.json")):
            with pytest.raises(BenchError, match="lock file .* not a file; remove it"):
                locks.take(path)
        assert locks.take(result.with_name("fine.json"))
    assert not (tmp_path / "outside").exists()


def test_reads_take_regular_files_only_bounded_and_inside_their_folder(tmp_path):
    made = special_files(tmp_path)
    for path in made.values():
        with pytest.raises(BenchError, match="not a file; remove it"):
            read_regular(path, 1 << 20, "result file")
    inside = tmp_path / "tree"
    inside.mkdir()
    (tmp_path / "secret").write_bytes(SECRET)
    (inside / "out.json").symlink_to(tmp_path / "secret")
    (inside / "in.json").symlink_to(tmp_path / "secret")
    (inside / "own.json").write_bytes(b"{}")
    (inside / "alias.json").symlink_to(inside / "own.json")
    with pytest.raises(BenchError, match="leads out of"):
        read_regular(inside / "out.json", 1 << 20, "result file", within=inside)
    assert read_regular(inside / "alias.json", 1 << 20, "result file", within=inside) == b"{}"
    with pytest.raises(BenchError, match="over the 1 MiB"):
        (inside / "big.json").write_bytes(b" " * ((1 << 20) + 1))
        read_regular(inside / "big.json", 1 << 20, "result file")


@pytest.mark.parametrize("argv", [["leaderboard"], ["run", "-m", "random", "-t", "sgts-vader-amazon"]])
def test_a_fifo_among_the_results_is_one_line_not_a_hang(results, argv):
    fifo = next(results.rglob("sgts-mr.json")).with_name("zz-fifo.json")
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "sentibench.cli", *argv], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert done.returncode == 2 and one_error_line(done.stderr), done.stderr
    assert "zz-fifo.json is a FIFO, not a file" in done.stderr


def test_a_figure_linked_out_of_the_figures_folder_is_refused_not_embedded(results, capsys):
    (results.parent / "secret").write_bytes(SECRET)
    figures = results.parent / "docs" / "figures"
    figures.mkdir(parents=True)
    (figures / "overview.png").symlink_to(results.parent / "secret")
    code, out, err = run_cli(capsys, "leaderboard", "--html")
    assert code == 2 and one_error_line(err) and "figure" in err and "leads out of" in err
    site = results.parent / "site" / "index.html"
    assert not site.exists() or base64.b64encode(SECRET).decode() not in site.read_text()
    (figures / "overview.png").unlink()
    os.mkfifo(figures / "overview.png")
    code, out, err = run_cli(capsys, "leaderboard", "--html")
    assert code == 2 and one_error_line(err) and "is a FIFO" in err


def test_a_second_file_claiming_a_task_is_an_error_naming_both(results, capsys):
    genuine = next(results.rglob("sgts-vader-tweets.json"))
    data = json.loads(genuine.read_text())
    data["scores"]["test"][0]["main_score"] = 0.9
    del data["sentibench"]["details"]["confidence_interval"]
    genuine.with_name("zz-copy.json").write_text(json.dumps(data))
    for argv in (["leaderboard"], ["submit", "random", "--output", "out"], ["compare", "random", "bow-tfidf-svd"]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and one_error_line(err), (argv, err)
        assert f"{genuine.relative_to(results.parent)} and " in err and "zz-copy.json both hold a result of " \
            "sgts-vader-tweets" in err


def test_a_sites_copied_results_are_never_read_as_results(results, capsys):
    assert run_cli(capsys, "leaderboard", "--output", "clean.md")[0] == 0
    assert run_cli(capsys, "leaderboard", "--site", "results/site")[0] == 0
    assert list((results / "site" / "results").rglob("*.json"))  # the copies are there
    assert run_cli(capsys, "leaderboard", "--output", "again.md")[0] == 0
    clean, again = ((results.parent / name).read_text() for name in ("clean.md", "again.md"))
    assert again == clean


def test_compare_across_folders_that_disagree_refuses_naming_both(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for model in ("random", "bow-tfidf-svd"):
        shutil.copytree(ROOT / "results" / model, tmp_path / "a" / model)
    shutil.copytree(ROOT / "results" / "random", tmp_path / "b" / "random")
    argv = ["compare", "random", "bow-tfidf-svd", "-t", "sgts-mr", "--results", "a", "--results", "b"]
    assert run_cli(capsys, *argv)[0] == 0  # the same results in both: no question which
    path = next((tmp_path / "b").rglob("sgts-mr.json"))
    data = json.loads(path.read_text())
    data["scores"]["test"][0]["main_score"] = 0.5
    del data["sentibench"]["details"]["confidence_interval"]
    path.write_text(json.dumps(data))
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and one_error_line(err) and "folders a and b hold different results of 'random' on sgts-mr" in err
    assert "'random [a]' or 'random [b]'" in err
    code, out, err = run_cli(capsys, *argv[:1], "random [b]", *argv[2:])
    assert code == 0 and "sgts-mr" in out


def test_train_refuses_a_name_a_packaged_card_takes_before_training(capsys, monkeypatch):
    from sentibench.models.catalog import trained
    from sentibench.models.catalog.cards import packaged_cards

    monkeypatch.setattr(trained, "get_dataset", lambda *a: pytest.fail("trained"), raising=False)
    code, out, err = run_cli(capsys, "train", "senticse", "--name", "all-minilm-l6-v2")
    assert code == 2 and one_error_line(err) and "a packaged model card is named 'all-minilm-l6-v2'" in err
    recipes = [card for card in packaged_cards().values() if card.recipe and "smoke_steps" not in card.recipe]
    card = recipes[0]  # a packaged trained card: training it ahead of time under its own name is allowed
    full = trained._full_recipe(card.recipe["method"], card.recipe["base"], card.recipe["data"],
                                card.recipe["preset"], card.recipe.get("seed", 0), card.recipe.get("options"), None)
    trained._check_free(card.name, full)
    with pytest.raises(BenchError, match="a packaged model card is named"):
        trained._check_free(card.name, {**full, "seed": full.get("seed", 0) + 1})


@pytest.mark.parametrize("seed", [4294967295, 4294967290, 2**31])
def test_a_seed_whose_derived_seeds_no_generator_takes_is_refused_where_given(capsys, seed):
    with pytest.raises(SystemExit) as exited:
        main(["run", "-m", "random", "-t", "fewshot-frozen-senticse-k1-mr", "--seed", str(seed)])
    err = capsys.readouterr().err.splitlines()[-1]
    assert exited.value.code == 2 and err.endswith(f"a seed is from 0 to 2**31 - 1 (2147483647), got {seed}")


def test_every_seed_derived_from_the_largest_user_seed_stays_valid():
    from sklearn.linear_model import LogisticRegression

    from sentibench.core.seeds import SEED_LIMIT, USER_SEED_LIMIT
    from sentibench.tasks.registry import all_tasks

    largest = USER_SEED_LIMIT - 1
    for task in all_tasks().values():
        protocol = getattr(task, "protocol", None)
        if hasattr(protocol, "first_seed"):
            first = largest if protocol.first_seed is None else protocol.first_seed
            assert first + protocol.seeds - 1 < SEED_LIMIT, task.name
    LogisticRegression(random_state=largest + 9).fit([[0.0], [1.0]], [0, 1])  # a few-shot task's last seed
    assert largest + 1_000_003 < SEED_LIMIT  # `sampling.sample_rest`'s offset


@pytest.mark.parametrize("body", [False, True])
@pytest.mark.parametrize("argv", [["run", "-m", "someorg/some-model", "-t", "sgts-vader-amazon", "--limit", "20"],
                                  ["card", "new", "x", "--from", "someorg/some-model"]])
def test_a_trickling_endpoint_ends_the_command_in_one_line_naming_it(tmp_path, argv, body):
    with Trickle(body=body) as url:
        env = {**os.environ, "HF_ENDPOINT": url, "HF_HUB_OFFLINE": "0", "HF_HUB_ETAG_TIMEOUT": "2",
               "HF_HUB_DOWNLOAD_TIMEOUT": "2", "HF_HOME": str(tmp_path / "hf"), "OMP_NUM_THREADS": "1",
               "SENTIBENCH_HOME": str(tmp_path / "home")}
        env.pop("HF_HUB_DISABLE_TELEMETRY", None)
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "sentibench.cli", *argv], env=env, capture_output=True,
                              text=True, timeout=90, cwd=tmp_path)
    assert time.monotonic() - started < 30
    assert done.returncode == 2 and one_error_line(done.stderr) and url in done.stderr, done.stderr


class _Trickling:
    """A network stream that returns one byte a read, each read taking `pace` seconds."""

    def __init__(self, pace: float) -> None:
        self.pace, self.timeouts, self.written = pace, [], []

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.written.append(buffer)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self.timeouts.append(timeout)
        time.sleep(self.pace)
        return b"x"


def test_a_request_must_keep_bringing_bytes_and_none_starts_after_one_fell_behind(monkeypatch):
    import httpcore2
    import httpx2
    from huggingface_hub import constants

    from sentibench.data import hub

    monkeypatch.setattr(constants, "HF_HUB_ETAG_TIMEOUT", 0.3)
    monkeypatch.setattr(constants, "HF_HUB_DOWNLOAD_TIMEOUT", 0.3)
    monkeypatch.setattr(hub, "_fell_behind", [])
    raw = _Trickling(0.05)
    stream = hub._BoundedStream(raw, "mirror.example")
    stream.write(b"GET / HTTP/1.1\r\n\r\n", None)
    started = time.monotonic()
    with pytest.raises(httpcore2.ReadTimeout, match="mirror.example sent under 16 KiB in 0.3 s"):
        while True:
            stream.read(65536, None)
    assert time.monotonic() - started < 0.6 and all(t is not None and t <= 0.3 for t in raw.timeouts)
    with pytest.raises(hub.HubStalled, match="mirror.example sent under"):
        hub._bound_request(httpx2.Request("GET", "http://mirror.example/api"))
    monkeypatch.setattr(hub, "WINDOW_BYTES", 2)  # two bytes a window: this pace keeps up
    stream.write(b"GET / HTTP/1.1\r\n\r\n", None)
    for _ in range(12):
        stream.read(65536, None)


def test_hub_access_turns_off_the_hubs_telemetry_and_agent_detection(monkeypatch):
    from huggingface_hub import constants

    from sentibench.data import hub

    monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with hub.hub_access():
        from huggingface_hub.utils import build_hf_headers

        assert constants.HF_HUB_DISABLE_TELEMETRY
        assert "agent/" not in build_hf_headers()["user-agent"]
