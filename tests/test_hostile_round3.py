"""Issue 45's hostile inputs, round 3: each is a one-line error or the correct result, never a traceback, a
hang, a lost file or a wrong success."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from test_submission import TASK, home  # noqa: F401  (a home whose suite is one task)

from sentibench.cli import main
from sentibench.submission.submit import archive_path

ROOT = Path(__file__).resolve().parents[1]


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> bool:
    return err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_a_hub_endpoint_that_accepts_and_never_answers_fails_in_one_line_within_the_read_timeout(tmp_path):
    with socket.socket() as mute:  # listening, never accepting: the kernel completes the connection, nobody answers
        mute.bind(("127.0.0.1", 0))
        mute.listen(64)
        env = {**os.environ, "HF_ENDPOINT": f"http://127.0.0.1:{mute.getsockname()[1]}", "HF_HUB_OFFLINE": "0",
               "HF_HUB_ETAG_TIMEOUT": "1", "HF_HUB_DOWNLOAD_TIMEOUT": "1", "HF_HOME": str(tmp_path / "hf"),
               "SENTIBENCH_HOME": str(tmp_path / "home")}
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "sentibench.cli", "run", "-m", "someone/some-model", "-t",
                               "sgts-vader-amazon", "--output-folder", str(tmp_path / "out")],
                              env=env, capture_output=True, text=True, timeout=60)
    assert time.monotonic() - started < 30
    assert done.returncode == 2 and one_error_line(done.stderr), done.stderr
    assert "cannot be reached" in done.stderr and "no answer from 127.0.0.1 within 1 s" in done.stderr


def test_each_hub_request_gets_a_bounded_timeout_and_none_starts_after_one_went_unanswered(monkeypatch):
    import httpx2
    from huggingface_hub import constants

    from sentibench.data import hub

    monkeypatch.setattr(constants, "HF_HUB_ETAG_TIMEOUT", 2)
    monkeypatch.setattr(constants, "HF_HUB_DOWNLOAD_TIMEOUT", 3)
    monkeypatch.setattr(hub, "_unanswered_since", [])
    request = httpx2.Request("GET", "http://mirror.example/api", extensions={
        "timeout": {"connect": None, "read": 100.0, "write": 1.0, "pool": None}})
    hub._bound_request(request)
    assert request.extensions["timeout"] == {"connect": 3.0, "read": 3.0, "write": 1.0, "pool": 3.0}
    hub._answered(None)
    hub._bound_request(request)  # answered: the next request starts
    hub._unanswered_since[0] -= 3.5
    with pytest.raises(hub.HubStalled, match="no answer from mirror.example within 3 s"):
        hub._bound_request(request)


def random_card(sentibench_home: Path, name: str) -> None:
    """A user card `name` that is the packaged `random` card renamed."""
    (sentibench_home / "cards").mkdir(parents=True, exist_ok=True)
    (sentibench_home / "cards" / f"{name}.yaml").write_text(
        (ROOT / "models" / "catalog" / "cards" / "random.yaml").read_text().replace("name: random", f"name: {name}"))


def test_archive_names_are_the_whole_card_name_plus_zip():
    names = ["m.v1", "m.v2", "m", "x..y", "x.", "a.zip", "a"]
    zips = [archive_path(Path("out") / name) for name in names]
    assert [z.name for z in zips] == ["m.v1.zip", "m.v2.zip", "m.zip", "x..y.zip", "x..zip", "a.zip.zip", "a.zip"]
    assert len(set(zips)) == len(names)


def test_a_second_version_archived_with_replace_leaves_the_first_versions_zip(home, tmp_path, capsys):  # noqa: F811
    for name in ("m.v1", "m.v2"):
        random_card(home, name)
        assert run_cli(capsys, "run", "-m", name, "-t", TASK, "--output-folder", str(tmp_path / "results"))[0] == 0
    out = tmp_path / "out"
    assert run_cli(capsys, "submit", "m.v1", "--results", str(tmp_path / "results"), "--output", str(out),
                   "--archive")[0] == 0
    first = (out / "m.v1.zip").read_bytes()
    code, printed, err = run_cli(capsys, "submit", "m.v2", "--results", str(tmp_path / "results"), "--output",
                                 str(out), "--archive", "--replace")
    assert code == 0, err
    assert f"and {out / 'm.v2.zip'};" in printed
    assert (out / "m.v1.zip").read_bytes() == first and zipfile.is_zipfile(out / "m.v2.zip")
    assert sorted(p.name for p in out.iterdir()) == ["m.v1", "m.v1.zip", "m.v2", "m.v2.zip"]


def test_verify_renders_no_leaderboard_it_was_not_given(home, tmp_path, capsys, monkeypatch):  # noqa: F811
    random_card(home, "mine")
    assert run_cli(capsys, "run", "-m", "mine", "-t", TASK, "--output-folder", str(tmp_path / "runs"))[0] == 0
    out = tmp_path / "out"
    assert run_cli(capsys, "submit", "mine", "--results", str(tmp_path / "runs"), "--output", str(out))[0] == 0
    monkeypatch.chdir(tmp_path)
    (tmp_path / "leaderboard.md").write_text("the committed board\n")
    code, _, err = run_cli(capsys, "verify", str(out / "mine"), "--results", "merged")
    assert code == 0, err
    assert (tmp_path / "leaderboard.md").read_text() == "the committed board\n"
    assert [p.name for p in (tmp_path / "merged").iterdir()] == ["mine"] and not list(tmp_path.glob("merged/*.md"))


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """`plugin(group, module, code)`: an installed plug-in module `module` under entry-point `group`, beside
    sentibench's own entry points, loaded afresh by the next registry lookup."""
    from importlib.metadata import EntryPoint, entry_points

    from sentibench.core import registry
    from sentibench.tasks.registry import FAMILIES
    from sentibench.training.methods import METHODS

    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_LOADED", set())
    for loaded in (FAMILIES, METHODS):
        monkeypatch.setattr(loaded, "_discovered", False)

    def install(group: str, module: str, code: str) -> None:
        (tmp_path / f"{module}.py").write_text(code)
        point = EntryPoint(module, module, group)
        monkeypatch.setattr(registry, "group_entry_points", lambda group: [*entry_points(group=group)] + (
            [point] if group == point.group else []))

    return install


def test_a_plugin_that_exits_at_import_is_one_line_naming_it(plugin, capsys):
    plugin("sentibench.methods", "exits_at_import", "import sys\nsys.exit(3)\n")
    code, out, err = run_cli(capsys, "list", "methods")
    assert code == 2 and one_error_line(err), err
    assert err == ("error: plug-in 'exits_at_import' (sentibench.methods) of an installed package failed to load: "
                   "SystemExit: 3\n")


def test_a_plugin_registering_a_method_name_that_is_taken_is_one_line_from_the_parser(plugin, capsys):
    plugin("sentibench.methods", "takes_senticse", "from sentibench.training.methods import Method, register_method\n"
           "register_method(Method('senticse', ('cpu',), 'x:y', 'again', 'none'))\n")
    code, out, err = run_cli(capsys, "data", "npmi", "--help")  # a group methods add to: the parser loads them
    assert code == 2 and one_error_line(err), err
    assert "plug-in 'takes_senticse'" in err and "method 'senticse' is registered twice" in err
    code, out, err = run_cli(capsys, "list", "datasets")  # a command that uses no method never loads them
    assert code == 0 and "mr" in out


def test_a_task_family_that_raises_is_one_line_naming_the_family_and_dataset(plugin, capsys):
    plugin("sentibench.tasks", "raising_family", "from sentibench.tasks.registry import register_family\n"
           "def build(spec):\n    raise KeyError(spec.name)\nregister_family('raising', build)\n")
    code, out, err = run_cli(capsys, "list", "tasks")
    assert code == 2 and one_error_line(err), err
    assert err.startswith("error: task family 'raising' failed on dataset '") and "KeyError" in err


def test_compare_refuses_an_unknown_table_format_before_reading_results(tmp_path, capsys):
    code, out, err = run_cli(capsys, "compare", "random", "bow-tfidf-svd", "--results", str(tmp_path / "none"),
                             "--format", "bogus")
    assert code == 2 and out == "" and err.startswith("error: unknown --format 'bogus'; choose one of ")
    assert "github" in err and one_error_line(err)


@pytest.mark.parametrize("where", ["provenance", "details", "per_seed"])
@pytest.mark.parametrize("seed, valid", [(-1, False), (2**32, False), (2**70, False), (0, True), (2**32 - 1, True)])
def test_a_result_seed_is_a_whole_number_from_0_to_2_to_the_32_minus_1(where, seed, valid):
    from pydantic import ValidationError

    from sentibench.results.schema import TaskResult

    provenance = {"main_split": "test", "seed": seed if where == "provenance" else 0,
                  "details": {"seed": seed} if where == "details" else
                  {"per_seed": [{"seed": seed, "accuracy": 0.5}]} if where == "per_seed" else {}}
    data = {"task_name": "t", "scores": {"test": [{"main_score": 0.5}]}, "sentibench": provenance}
    if valid:
        TaskResult.model_validate(data)
    else:
        with pytest.raises(ValidationError):
            TaskResult.model_validate(data)


@pytest.mark.parametrize("argv", [["train", "senticse", "--seed", str(2**70)], ["train", "senticse", "--seed", "-1"],
                                  ["run", "--seed", str(2**32)], ["verify", "nowhere", "--seed", "-1"],
                                  ["sweep", "polarity-st", "--render-only", "--seed", str(2**70)],
                                  ["run", "--seed", str(2**32 - 1)], ["train", "senticse", "--seed", str(2**31)]])
def test_every_seed_option_refuses_a_seed_no_generator_takes(argv, capsys):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    err = capsys.readouterr().err.splitlines()[-1]
    assert exited.value.code == 2 and err.endswith(f"argument --seed: a seed is from 0 to 2**31 - 1 (2147483647), "
                                                   f"got {argv[-1]}")


def test_sweep_refuses_an_unknown_option_before_anything_is_trained_or_evaluated(capsys, monkeypatch, tmp_path):
    def never(*args, **kwargs):
        raise AssertionError("the sweep ran")

    monkeypatch.setattr("sentibench.run.services.EngineServices.sweep", never)
    code, out, err = run_cli(capsys, "sweep", "polarity-st", "--base", "random", "--option", "colour=red",
                             "--output", str(tmp_path / "sweep"))
    assert code == 2 and err.startswith("error: unknown polarity-st option 'colour'; options: ") and one_error_line(err)
    assert not (tmp_path / "sweep").exists()


def results_of(tmp_path: Path, model: str, tasks: tuple[str, ...], edit=lambda task, data: None) -> Path:
    """A results folder holding the committed results of `model` on `tasks`, each passed through `edit`."""
    source = next((ROOT / "results" / model).iterdir())
    target = tmp_path / "results" / model / source.name
    target.mkdir(parents=True)
    for task in tasks:
        data = json.loads((source / f"{task}.json").read_text())
        edit(task, data)
        (target / f"{task}.json").write_text(json.dumps(data))
    return tmp_path / "results"


def test_export_refuses_a_folder_mixing_two_weights_and_writes_nothing(tmp_path, capsys):
    def retrained(task: str, data: dict) -> None:
        if task == "sgts-mr":
            data["sentibench"]["model"]["weights_sha256"] = "f" * 64

    results = results_of(tmp_path, "all-minilm-l6-v2", ("sgts-mr", "sts-stsb"), retrained)
    code, out, err = run_cli(capsys, "export", "mteb", "--results", str(results), "--output", str(tmp_path / "mteb"))
    assert code == 2 and one_error_line(err) and "mixes results of 2 weights" in err, err
    assert not (tmp_path / "mteb").exists()


def test_an_export_that_fails_while_writing_leaves_no_partial_tree(tmp_path, capsys, monkeypatch):
    results = results_of(tmp_path, "all-minilm-l6-v2", ("sgts-mr", "sts-stsb"))
    written = []

    def fills_up(self, text, encoding=None):
        if written:
            raise OSError(28, "No space left on device", str(self))
        written.append(self)
        return len(text)

    monkeypatch.setattr(Path, "write_text", fills_up)
    code, out, err = run_cli(capsys, "export", "mteb", "--results", str(results), "--output", str(tmp_path / "mteb"))
    assert code == 2 and one_error_line(err) and "No space left on device" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]  # no output, no staging folder left


def test_export_of_a_result_whose_hub_id_mteb_refuses_is_one_line(tmp_path, capsys):
    def hub_id(task: str, data: dict) -> None:
        data["sentibench"]["model"].update(name="gone-model", hub_id="..\x00")  # no card: the record is used

    results = results_of(tmp_path, "all-minilm-l6-v2", ("sgts-mr",), hub_id)
    code, out, err = run_cli(capsys, "export", "mteb", "--results", str(results), "--output", str(tmp_path / "mteb"))
    assert code == 2 and one_error_line(err) and "cannot be described to MTEB" in err and "\\x00" in err, err
    assert not (tmp_path / "mteb").exists()


def test_run_counts_nothing_done_in_a_folder_mixing_two_weights(tmp_path, capsys):
    def retrained(task: str, data: dict) -> None:
        if task == "sgts-mr":
            data["sentibench"]["model"]["weights_sha256"] = "f" * 64

    results = results_of(tmp_path, "all-minilm-l6-v2", ("sgts-mr", "sts-stsb"), retrained)
    code, out, err = run_cli(capsys, "run", "-m", "all-minilm-l6-v2", "-t", "sgts-mr,sts-stsb", "--output-folder",
                             str(results))
    assert code == 2 and one_error_line(err) and "mixes results of 2 weights" in err, err
    assert "--overwrite-strategy always" in err


def huge(path: Path, size: int = 301 << 20) -> Path:
    """A sparse file of `size` bytes at `path` (no disk used): what a size check must refuse unread."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


@pytest.fixture
def unread(monkeypatch):
    """Fails a test that reads any file larger than 1 MiB."""
    for name in ("read_text", "read_bytes"):
        original = getattr(Path, name)

        def guarded(self, *args, original=original, **kwargs):
            assert self.stat().st_size < 1 << 20, f"{self} was read"
            return original(self, *args, **kwargs)

        monkeypatch.setattr(Path, name, guarded)


def test_a_huge_result_file_is_refused_by_its_size_unread(home, tmp_path, capsys, unread):  # noqa: F811
    from sentibench.models.catalog.cards import get_card
    from sentibench.results.task_result import result_path

    path = huge(result_path(tmp_path / "results", "random", get_card("random").revision, TASK))
    code, out, err = run_cli(capsys, "run", "-m", "random", "-t", TASK, "--output-folder", str(tmp_path / "results"))
    assert code == 2 and one_error_line(err), err
    assert err == (f"error: result file {path} is 301 MiB, over the 16 MiB a result file may be; delete it or rerun "
                   "with --overwrite-strategy always\n")


def test_huge_unit_values_training_logs_and_verification_records_are_refused_unread(tmp_path, unread):
    from sentibench.core.errors import BenchError
    from sentibench.results.task_result import VERIFICATION_FILE, verified_for
    from sentibench.results.training_log import TRAINING_FILE, read_training_log
    from sentibench.results.unit_values_file import load_units

    with pytest.raises(BenchError, match=r"unit-values file .*t\.units\.npz is 301 MiB, over the 256 MiB"):
        load_units(huge(tmp_path / "t.units.npz"))
    huge(tmp_path / "m" / "r" / TRAINING_FILE)
    with pytest.raises(BenchError, match=r"training log .* is 301 MiB, over the 16 MiB a training log may be"):
        read_training_log(tmp_path / "m" / "r")
    huge(tmp_path / "m" / "r" / VERIFICATION_FILE)
    assert verified_for(tmp_path, "sentibench-v1") == []  # unreadable: skipped, as a broken record is


FAKE_RAY_HEAD = """
import socket, sys, threading
from sentibench.cli import main
from sentibench.data import DatasetSpec, register_dataset

rows = [{"text": f"{'good' if i % 2 else 'bad'} film {i}", "label": i % 2} for i in range(8)]
register_dataset(DatasetSpec(name="tiny", description="test", kind="classification", label_names=("neg", "pos"),
                             license="test", citation="test", load_rows=lambda: {"all": rows},
                             split_fractions=(0.5, 0.0, 0.5), tags=("sentiment",)))

head = socket.socket()  # answers a gRPC client's preface as a Ray head's GCS port does, and nothing more
head.bind(("127.0.0.1", 0))
head.listen(8)

def answer():
    while True:
        connection, _ = head.accept()
        connection.recv(64)
        connection.sendall(bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))

threading.Thread(target=answer, daemon=True).start()
sys.exit(main(["run", "-m", "random", "-t", "sgts-tiny", "--executor", "ray", "--address",
               f"127.0.0.1:{head.getsockname()[1]}", "--output-folder", sys.argv[1]]))
"""


@pytest.mark.parametrize("token_path", [None, "missing-token"])
def test_token_mode_without_a_token_is_one_line_saying_how_to_give_it(tmp_path, token_path):
    pytest.importorskip("ray")
    env = {key: value for key, value in os.environ.items() if not key.startswith("RAY_AUTH_TOKEN")}
    env |= {"RAY_AUTH_MODE": "token", "HOME": str(tmp_path)}
    if token_path:
        env["RAY_AUTH_TOKEN_PATH"] = str(tmp_path / token_path)
    done = subprocess.run([sys.executable, "-c", FAKE_RAY_HEAD, str(tmp_path / "out")], env=env,
                          capture_output=True, text=True, timeout=60)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert last.startswith("error: RAY_AUTH_MODE=token and this driver has no usable Ray token (")
    assert last.endswith("give the cluster's token as RAY_AUTH_TOKEN, or in ~/.ray/auth_token or the file "
                         "RAY_AUTH_TOKEN_PATH names (`ray get-auth-token` on the head prints it)")


SLOW_RUN = """
import sys, time
from sentibench.cli import main
from sentibench.data import DatasetSpec, register_dataset
from sentibench.tasks.base import Task

rows = [{"text": f"{'good' if i % 2 else 'bad'} {'film' if i % 3 else 'plot'} {i}", "label": i % 2} for i in range(48)]
register_dataset(DatasetSpec(name="tiny", description="test", kind="classification", label_names=("neg", "pos"),
                             license="test", citation="test", load_rows=lambda: {"all": rows},
                             split_fractions=(0.5, 0.0, 0.5), tags=("sentiment", "review")))
evaluate = Task.run

def slow(self, encoder, context):  # each item takes 2 s, so that two runs started together overlap
    time.sleep(2.0)
    return evaluate(self, encoder, context)

Task.run = slow
sys.exit(main(["run", "-m", "random", "-t", "sgts-tiny,probe-tiny,align-tiny", "--output-folder", sys.argv[1]]))
"""


def test_two_runs_into_one_folder_evaluate_each_item_once(tmp_path):
    runs = [subprocess.Popen([sys.executable, "-c", SLOW_RUN, str(tmp_path / "out")], stderr=subprocess.PIPE,
                             text=True, env={**os.environ, "OMP_NUM_THREADS": "1"}) for _ in range(2)]
    said = [run.communicate(timeout=120)[1] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], said
    done = [line for err in said for line in err.splitlines() if ": done -> " in line]
    assert sorted(line.split(" / ")[1].split(":")[0] for line in done) == ["align-tiny", "probe-tiny", "sgts-tiny"]
    assert "in flight in another process" in "".join(said), "the runs did not overlap"
    assert len(list((tmp_path / "out").rglob("*.json"))) == 3


def test_an_item_locked_by_another_run_is_left_to_it_and_a_stale_lock_file_blocks_nothing(tmp_path, capsys,
                                                                                          fixture_task):
    from sentibench.models.catalog.cards import get_card
    from sentibench.results.item_locks import ItemLocks, lock_path
    from sentibench.results.task_result import result_path

    path = result_path(tmp_path, "random", get_card("random").revision, fixture_task.name)
    with ItemLocks() as other_run:
        assert other_run.take(path)
        code, out, err = run_cli(capsys, "run", "-m", "random", "-t", fixture_task.name, "--output-folder",
                                 str(tmp_path))
    assert code == 0 and not path.exists()
    assert f"random / {fixture_task.name}: in flight in another process, left to it" in err
    assert "0 result(s) written, 0 already done, 0 unavailable here, 0 failed, 1 in flight in another process" in err
    assert lock_path(path).is_file()  # left behind, held by nobody
    code, out, err = run_cli(capsys, "run", "-m", "random", "-t", fixture_task.name, "--output-folder", str(tmp_path))
    assert code == 0 and path.is_file() and "1 result(s) written" in err


def test_the_board_refuses_a_huge_unit_values_file_unread_and_a_huge_verification_record_reads_unverified(
        home, tmp_path, capsys, unread):  # noqa: F811
    """The board keys its caches by the bytes of results and their unit values: a 301 MB sidecar is refused by
    its size, in one line, before a byte is hashed; a 301 MB verification record makes its row unverified."""
    from sentibench.report.leaderboard import verification_label
    from sentibench.results.task_result import VERIFICATION_FILE, iter_results
    from sentibench.results.unit_values_file import units_path

    results = tmp_path / "results"
    assert run_cli(capsys, "run", "-m", "random,bow-tfidf-svd", "-t", TASK, "--output-folder", str(results))[0] == 0
    stored = next(r for r in iter_results(results) if r.provenance.model.name == "random")
    huge(units_path(stored.path))  # the paired test of the column's best against it reads both files
    code, _, err = run_cli(capsys, "leaderboard", "--results", str(results), "--output", str(tmp_path / "lb.md"))
    assert code == 2 and one_error_line(err) and "unit-values file" in err and "is 301 MiB" in err, err
    assert verification_label(huge(stored.path.parent / VERIFICATION_FILE).parent) == " (unverified)"
