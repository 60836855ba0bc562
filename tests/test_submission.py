"""From `bench card new` to a verified leaderboard entry, on a tiny real BERT and the fixture dataset; every
way a submission is refused (each with its own one-line reason, the results folder unchanged)."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
import yaml

from sentibench.cli import main
from sentibench.core.hashing import sha256_file
from sentibench.submission.layout import MANIFEST

TASK = "sgts-fixture-reviews"
CLEAN_COMMIT = "0123456789abcdef0123456789abcdef01234567"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(tmp_path, monkeypatch, fixture_task):
    """A fresh sentibench home (its own cards), results stamped with a clean commit, a one-task suite (whatever
    the benchmark)."""
    monkeypatch.setenv("SENTIBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("sentibench.results.provenance.git_commit", lambda: CLEAN_COMMIT)
    monkeypatch.setattr("sentibench.submission.submit.required_tasks", lambda benchmark=None: [fixture_task])
    return tmp_path / "home"


def tiny_bert(folder: Path, hidden: int = 32) -> int:
    """A 1-layer BERT (random weights, seed 0) with MiniLM's WordPiece vocabulary, saved as safetensors;
    returns its parameter count, counted on the model object."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from sentibench.models import get_card
    from sentibench.models.catalog.loaders import weights_folder

    torch.manual_seed(0)
    model = BertModel(BertConfig(vocab_size=30522, hidden_size=hidden, num_hidden_layers=1, num_attention_heads=2,
                                 intermediate_size=37, max_position_embeddings=64))
    model.save_pretrained(folder, safe_serialization=True)
    AutoTokenizer.from_pretrained(str(weights_folder(get_card("all-minilm-l6-v2")))).save_pretrained(folder)
    return sum(p.numel() for p in model.parameters())


def fill_in(card_file: Path) -> None:
    data = yaml.safe_load(card_file.read_text())
    data.update(training_data=[], license="Apache-2.0", citation="a test model")
    card_file.write_text(yaml.safe_dump(data))


@pytest.fixture
def submission(home, tmp_path, capsys):
    """The good path up to `bench submit`: a card, a full run, a packaged submission folder."""
    weights = home / "models" / "tiny"
    tiny_bert(weights)
    code, out, err = run_cli(capsys, "card", "new", "tiny-model", "--from", str(weights))
    assert code == 0, err
    fill_in(home / "cards" / "tiny-model.yaml")
    code, _, err = run_cli(capsys, "run", "-m", "tiny-model", "-t", TASK, "--output-folder", str(tmp_path / "runs"))
    assert code == 0, err
    code, out, err = run_cli(capsys, "submit", "tiny-model", "--results", str(tmp_path / "runs"),
                             "--output", str(tmp_path / "outbox"))
    assert code == 0, err
    return tmp_path / "outbox" / "tiny-model"


def snapshot(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): sha256_file(p) for p in folder.rglob("*") if p.is_file()}


def resign(folder: Path) -> None:
    """What a careful tamperer does after editing: recompute the manifest's hashes."""
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["files"] = {p.relative_to(folder).as_posix(): sha256_file(p)
                         for p in sorted(folder.rglob("*")) if p.is_file() and p.name != MANIFEST}
    (folder / MANIFEST).write_text(json.dumps(manifest))


def result_file(folder: Path) -> Path:
    (path,) = folder.rglob(f"{TASK}.json")
    return path


def edit_result(folder: Path, change) -> None:
    path = result_file(folder)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def set_score(data: dict, score: float, metrics: tuple[str, ...] = ("main_score", "cosine_spearman")) -> None:
    """A careful tamperer's edit: the score, and the recorded interval moved with it (a score outside its own
    interval is refused when the file is read, before any re-run)."""
    scores = data["scores"]["test"][0]
    shift = score - scores["main_score"]
    scores.update({metric: score for metric in metrics})
    interval = data["sentibench"]["details"]["confidence_interval"]
    interval.update(low=interval["low"] + shift, high=interval["high"] + shift)


def test_card_new_measures_the_model_and_leaves_blanks_that_validation_refuses(home, tmp_path, capsys):
    weights = tmp_path / "tiny"
    parameters = tiny_bert(weights, hidden=48)
    code, _, err = run_cli(capsys, "card", "new", "tiny", "--from", str(weights))
    assert code == 0, err
    card = yaml.safe_load((home / "cards" / "tiny.yaml").read_text())
    assert (card["parameters"], card["embedding_size"], card["pooling"]) == (parameters, 48, "mean")
    assert card["max_length"] == 64  # min(tokenizer's 512, the config's 64 positions)
    code, _, err = run_cli(capsys, "card", "check", str(home / "cards" / "tiny.yaml"))
    assert code == 2
    assert [line.split(": ")[2] for line in err.splitlines()] == [
        f"'{field}' is still a blank to fill in (FILL IN" for field in ("training_data", "license", "citation")]
    code, _, err = run_cli(capsys, "run", "-m", "tiny", "-t", TASK, "--output-folder", str(tmp_path / "runs"))
    assert code == 2 and "'training_data' is still a blank to fill in" in err.splitlines()[-1]
    code, _, _ = run_cli(capsys, "run", "-m", "random", "-t", TASK, "--output-folder", str(tmp_path / "runs"))
    assert code == 0  # an unfinished card breaks only its own name
    fill_in(home / "cards" / "tiny.yaml")
    assert run_cli(capsys, "card", "check", str(home / "cards" / "tiny.yaml"))[0] == 0


def test_a_good_submission_is_verified_merged_and_on_the_leaderboard(submission, tmp_path, capsys):
    stored = json.loads(result_file(submission).read_text())
    assert len(stored["sentibench"]["model"]["weights_sha256"]) == 64
    results, board = tmp_path / "results", tmp_path / "leaderboard.md"
    code, out, err = run_cli(capsys, "verify", str(submission), "--results", str(results),
                             "--leaderboard", str(board), "--seed", "1")
    assert code == 0, err
    assert f"{TASK}: stored" in out and ": agree" in out and "re-ran 1 of 1 task(s)" in out
    record = json.loads(next(results.rglob("verification.json")).read_text())
    assert record["status"] == "verified" and record["reruns"][0]["task"] == TASK and record["rerun_count"] == 1
    assert json.loads(result_file(results).read_text()) == stored
    row = next(line for line in reversed(board.read_text().splitlines()) if line.startswith("| tiny-model"))
    assert f"{100 * stored['scores']['test'][0]['main_score']:.2f}" in row and "unverified" not in row


def test_a_zip_submission_is_verified(submission, tmp_path, capsys):
    from sentibench.submission.archive import write_zip

    archive = write_zip(submission, tmp_path / "tiny-model.zip")
    code, out, err = run_cli(capsys, "verify", str(archive), "--results", str(tmp_path / "results"),
                             "--leaderboard", "")
    assert code == 0 and "verified 'tiny-model'" in out, err


def test_reproduce_agrees_then_detects_an_edited_score(submission, capsys):
    path = result_file(submission)
    code, out, _ = run_cli(capsys, "reproduce", str(path))
    assert code == 0 and out.strip().endswith(": agree")
    edit_result(submission, lambda d: set_score(d, 0.99))
    code, out, _ = run_cli(capsys, "reproduce", str(path))
    assert code == 1 and "stored 0.99000" in out and "DISAGREE" in out


def test_reproduce_names_versions_that_moved_in_one_line_and_still_compares_the_scores(submission, capsys):
    path = result_file(submission)
    edit_result(submission, lambda d: d["sentibench"]["versions"].update(transformers="0.0.1", numpy="0.0.2"))
    code, out, _ = run_cli(capsys, "reproduce", str(path))
    lines = out.strip().splitlines()
    assert code == 0 and lines[0].endswith(": agree") and len(lines) == 2
    from importlib.metadata import version
    assert lines[1] == (f"note: installed versions differ from the result's (numpy 0.0.2 -> {version('numpy')}, "
                        f"transformers 0.0.1 -> {version('transformers')}); the scores are compared within each "
                        "task's tolerance all the same")
    edit_result(submission, lambda d: set_score(d, 0.99))  # moved versions never excuse another score
    code, out, _ = run_cli(capsys, "reproduce", str(path))
    assert code == 1 and "DISAGREE" in out and "note: installed versions differ" in out


def test_version_changes_compare_only_what_both_records_name():
    from sentibench.core.provenance import version_changes, version_note

    assert version_changes({"torch": "2.13.0", "numpy": "2.4.6", "faiss-cpu": None, "scipy": "1.17.1"},
                           {"torch": "2.14.1", "numpy": "2.4.6", "faiss-cpu": "1.15.1"}) == ["torch 2.13.0 -> 2.14.1"]
    assert version_note([]) is None
    assert version_note(["b 1 -> 2", "a 1 -> 2", "b 1 -> 2"]).startswith(
        "note: installed versions differ from the result's (a 1 -> 2, b 1 -> 2);")


def test_reproduce_detects_other_pairs_and_other_weights(submission, home, capsys):
    path = result_file(submission)
    original = json.loads(path.read_text())
    edit_result(submission, lambda d: d["sentibench"]["details"].update(pairs_hash="f" * 64))
    code, out, _ = run_cli(capsys, "reproduce", str(path))
    assert code == 1 and "DISAGREE; differs: pairs_hash ffffffffffff" in out
    path.write_text(json.dumps(original))
    tiny_bert(home / "models" / "tiny", hidden=48)  # the same card now points at other weights
    code, out, _ = run_cli(capsys, "reproduce", str(path))
    assert code == 1 and "differs: weights sha256" in out


def _edit_score_keep_manifest(folder: Path) -> None:
    edit_result(folder, lambda d: set_score(d, 0.99))


def _edit_score_and_resign(folder: Path) -> None:
    _edit_score_keep_manifest(folder)
    resign(folder)


def _edit_main_score_only(folder: Path) -> None:
    edit_result(folder, lambda d: set_score(d, 0.99, metrics=("main_score",)))
    resign(folder)


def _edit_score_not_its_interval(folder: Path) -> None:
    edit_result(folder, lambda d: d["scores"]["test"][0].update(main_score=0.99, cosine_spearman=0.99))
    resign(folder)


def _stale_dataset_hash(folder: Path) -> None:
    edit_result(folder, lambda d: d["sentibench"]["dataset"].update(content_hash="0" * 64))
    resign(folder)


def _limit(folder: Path) -> None:
    edit_result(folder, lambda d: d["sentibench"].update(limit=8))
    resign(folder)


def _dirty(folder: Path) -> None:
    edit_result(folder, lambda d: d["sentibench"].update(git_commit=f"{CLEAN_COMMIT}-dirty"))
    resign(folder)


def _missing_task(folder: Path) -> None:
    result_file(folder).unlink()
    resign(folder)


def _edit_card(change):
    def apply(folder: Path) -> None:
        card = yaml.safe_load((folder / "card.yaml").read_text())
        change(card)
        (folder / "card.yaml").write_text(yaml.safe_dump(card))
        resign(folder)
    return apply


def _pickle_checkpoint(folder: Path) -> None:
    weights = folder / "weights"
    weights.mkdir()
    (weights / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (weights / "pytorch_model.bin").write_bytes(b"\x80\x04not really a pickle")
    _edit_card(lambda card: card.update(checkpoint="weights"))(folder)


def _extra_file(folder: Path) -> None:
    (folder / "run_me.py").write_text("print('hello')")


@pytest.mark.parametrize("tamper, reason", [
    (_edit_score_keep_manifest, f"manifest: 'results/tiny-model/{{rev}}/{TASK}.json' sha256 differs from the manifest"),
    (_edit_score_and_resign, f"re-run disagrees: {TASK}: stored 0.99000"),
    (_edit_main_score_only, f"{TASK}: main_score 0.99 is not its 'cosine_spearman'"),
    (_edit_score_not_its_interval, "main score 0.99 lies outside its confidence interval"),
    (_stale_dataset_hash, f"{TASK}: dataset 'fixture-reviews' hash 000000000000 is not the current"),
    (_limit, f"{TASK}: a smoke run (--limit 8); rerun without --limit"),
    (_dirty, f"{TASK}: made from a tree with uncommitted changes"),
    (_missing_task, f"{TASK}: no result (required)"),
    (_edit_card(lambda card: card.update(trust_remote_code=True)),  # safe: a hostile card, expected refused
     "card: 'trust_remote_code' is not allowed"),
    (_pickle_checkpoint, "pickle weights only, which sentibench never loads (no .safetensors); convert them once"),
    (_edit_card(lambda card: card.update(checkpoint="/etc")), "card: checkpoint '/etc' lies outside"),
    (_edit_card(lambda card: card.update(checkpoint="../../..")), "lies outside"),
    (_edit_card(lambda card: card.update(package="os/..")), "card: package 'os/..' is not one sentibench ships"),
    (_edit_card(lambda card: card.update(name="all-minilm-l6-v2")), "belongs to a packaged card"),
    (_extra_file, "manifest: 'run_me.py' is not listed in the manifest"),
])
def test_a_tampered_or_unsafe_submission_is_rejected_with_its_reason(submission, tmp_path, capsys, tamper, reason):
    results = tmp_path / "results"
    shutil.copytree(Path(__file__).parent / "fixtures", results / "existing")  # stands for the committed results
    before = snapshot(results)
    tamper(submission)
    code, out, err = run_cli(capsys, "verify", str(submission), "--results", str(results),
                             "--leaderboard", str(tmp_path / "leaderboard.md"), "--minimum", "1")
    revision = next((submission / "results" / "tiny-model").iterdir(), Path("?")).name
    assert code == 2 and "Traceback" not in err
    assert any(line.startswith("error: ") and reason.format(rev=revision) in line for line in err.splitlines()), err
    assert snapshot(results) == before and not (tmp_path / "leaderboard.md").exists()


def test_fraction_zero_merges_an_edited_resigned_score_as_unverified_never_verified(submission, tmp_path, capsys):
    _edit_score_and_resign(submission)
    results, board = tmp_path / "results", tmp_path / "leaderboard.md"
    code, out, err = run_cli(capsys, "verify", str(submission), "--results", str(results),
                             "--leaderboard", str(board), "--fraction", "0", "--minimum", "0")
    assert code == 0, err
    assert "UNVERIFIED" in out and "verified 'tiny-model'" not in out
    record = json.loads(next(results.rglob("verification.json")).read_text())
    assert (record["status"], record["rerun_count"], record["reruns"]) == ("unverified", 0, [])
    assert "| tiny-model (unverified)" in board.read_text()


OTHER = "sgts-paper-fixture-reviews"


def add_task(submission: Path, tmp_path: Path, capsys, raise_by: float = 0.0) -> None:
    """Run OTHER with the submission's model and pack it in too (its main score raised by `raise_by`),
    re-signing the manifest as a careful tamperer would."""
    code, _, err = run_cli(capsys, "run", "-m", "tiny-model", "-t", OTHER, "--output-folder", str(tmp_path / "runs"))
    assert code == 0, err
    (path,) = (tmp_path / "runs").rglob(f"{OTHER}.json")
    copy = result_file(submission).parent / path.name
    data = json.loads(path.read_text())
    entry, metric = data["scores"]["test"][0], data["sentibench"]["task"]["main_score"]
    entry.update({"main_score": entry["main_score"] + raise_by, metric: entry[metric] + raise_by})
    copy.write_text(json.dumps(data))
    resign(submission)


def test_by_default_every_task_is_rerun_so_a_raised_resigned_score_is_caught(submission, tmp_path, capsys):
    add_task(submission, tmp_path, capsys, raise_by=0.05)
    results = tmp_path / "results"
    code, out, err = run_cli(capsys, "verify", str(submission), "--results", str(results), "--leaderboard", "")
    assert code == 2 and f"error: re-run disagrees: {OTHER}: stored" in err, (out, err)
    assert not results.exists()


def test_a_partial_rerun_is_merged_as_sampled_and_labelled_so(submission, tmp_path, capsys):
    add_task(submission, tmp_path, capsys)
    results, board = tmp_path / "results", tmp_path / "leaderboard.md"
    code, out, err = run_cli(capsys, "verify", str(submission), "--results", str(results),
                             "--leaderboard", str(board), "--fraction", "0.5", "--minimum", "1", "--seed", "3")
    assert code == 0, err
    assert "SAMPLED, not verified: re-ran 1 of 2 task(s) (sample seed 3)" in out
    record = json.loads(next(results.rglob("verification.json")).read_text())
    assert (record["status"], record["rerun_count"], record["tasks"]) == ("sampled", 1, 2)
    assert "| tiny-model (sampled 50%)" in board.read_text()


def test_the_leaderboard_label_follows_what_was_rerun(tmp_path):
    from sentibench.report.leaderboard import verification_label
    from sentibench.submission.verify import status_of

    folder = tmp_path / "model" / "rev"
    folder.mkdir(parents=True)
    assert verification_label(folder) == ""  # not a submission
    for record, label in [({"status": "sampled", "tasks": 35, "rerun_count": 7}, " (sampled 20%)"),
                          ({"status": "verified", "tasks": 35, "rerun_count": 35}, ""),
                          ({"status": "verified", "tasks": 35, "rerun_count": 0}, " (unverified)"),
                          ({"status": "verified", "tasks": 35}, " (unverified)"),
                          ({"status": "sampled", "tasks": 35, "rerun_count": 35}, " (unverified)"),
                          ({"status": "unverified", "tasks": 35, "rerun_count": 0}, " (unverified)")]:
        (folder / "verification.json").write_text(json.dumps(record))
        assert verification_label(folder) == label, record
    (folder / "verification.json").write_text("{not json")
    assert verification_label(folder) == " (unverified)"
    assert (status_of(1, 1), status_of(2, 1), status_of(7, 35)) == ("verified", "verified", "sampled")
    assert (status_of(0, 35), status_of(0, 0)) == ("unverified", "unverified")


@pytest.mark.parametrize("flags, reason", [
    (("--fraction", "nan"), "--fraction must be a number from 0 to 1"),
    (("--fraction", "-1", "--minimum", "-1"), "--fraction must be a number from 0 to 1"),
    (("--fraction", "1.5"), "--fraction must be a number from 0 to 1"),
    (("--fraction", "inf"), "--fraction must be a number from 0 to 1"),
    (("--minimum", "-1"), "--minimum must be a whole number >= 0"),
])
def test_verify_refuses_bad_sampling_numbers_in_one_line(submission, tmp_path, capsys, flags, reason):
    code, _, err = run_cli(capsys, "verify", str(submission), "--results", str(tmp_path / "results"),
                           "--leaderboard", "", *flags)
    assert code == 2 and reason in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("board", ["missing-folder/leaderboard.md", "a-folder"])
def test_a_leaderboard_that_cannot_be_written_leaves_the_results_as_they_were(submission, tmp_path, capsys, board):
    results = tmp_path / "results"
    shutil.copytree(Path(__file__).parent / "fixtures", results / "existing")
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "a-folder" / "keep.txt").write_text("x")
    before = snapshot(results)
    code, _, err = run_cli(capsys, "verify", str(submission), "--results", str(results),
                           "--leaderboard", str(tmp_path / board))
    assert code == 2 and err.count("\n") == 1, err
    assert f"cannot write the leaderboard '{tmp_path / board}'" in err
    assert snapshot(results) == before
    assert sorted(p.name for p in results.iterdir()) == ["existing"]
    assert [p.name for p in (tmp_path / "a-folder").iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("breaks", ["render", "replace"])
def test_a_failure_after_staging_takes_the_merged_folder_back_out(submission, tmp_path, capsys, monkeypatch, breaks):
    """The leaderboard turns unwritable (or its render fails) after the re-runs: nothing stays merged."""
    import sentibench.submission.verify as verify_module

    def fail(*_):
        raise PermissionError(13, "Permission denied", str(tmp_path / "leaderboard.md"))
    monkeypatch.setattr(verify_module, "render" if breaks == "render" else "os", _Broken(fail, breaks))
    results = tmp_path / "results"
    # files that are not results (a .json there would be read, and refused, as one)
    shutil.copytree(Path(__file__).parent / "fixtures", results / "existing", ignore=shutil.ignore_patterns("*.json"))
    before = snapshot(results)
    code, _, err = run_cli(capsys, "verify", str(submission), "--results", str(results),
                           "--leaderboard", str(tmp_path / "leaderboard.md"))
    assert code == 2 and "nothing was merged" in err.splitlines()[-1] and "Traceback" not in err, err
    assert snapshot(results) == before and sorted(p.name for p in results.iterdir()) == ["existing"]
    assert not (tmp_path / "leaderboard.md").exists() and not list(tmp_path.glob(".leaderboard.md.*"))


class _Broken:
    """`render` itself, or an `os` whose `replace` fails (everything else is the real `os`)."""

    def __init__(self, fail, breaks: str) -> None:
        self.fail, self.breaks = fail, breaks

    def __call__(self, *args):
        return self.fail(*args)

    def __getattr__(self, name: str):
        import os

        return self.fail if name == "replace" else getattr(os, name)


def test_submit_names_every_missing_or_unusable_result(home, tmp_path, capsys, fixture_task, monkeypatch):
    from sentibench.tasks.registry import all_tasks

    tiny_bert(home / "models" / "tiny")
    run_cli(capsys, "card", "new", "tiny-model", "--from", str(home / "models" / "tiny"))
    fill_in(home / "cards" / "tiny-model.yaml")
    run_cli(capsys, "run", "-m", "tiny-model", "-t", TASK, "--limit", "8", "--output-folder", str(tmp_path / "runs"))
    other = all_tasks()["sgts-mr"]
    monkeypatch.setattr("sentibench.submission.submit.required_tasks", lambda benchmark=None: [fixture_task, other])
    code, _, err = run_cli(capsys, "submit", "tiny-model", "--results", str(tmp_path / "runs"),
                           "--output", str(tmp_path / "outbox"))
    assert code == 2 and not (tmp_path / "outbox").exists()
    assert err.splitlines() == [
        "error: sgts-mr: no result (required); run `bench run -m tiny-model -t sgts-mr`",
        f"error: {TASK}: a smoke run (--limit 8); rerun without --limit"]


def test_unreachable_weights_are_merged_but_marked_unverified(submission, tmp_path, capsys):
    def hub_only(card):
        del card["checkpoint"]
        card["hub_id"] = "someone/tiny-model"
    _edit_card(hub_only)(submission)
    board = tmp_path / "leaderboard.md"
    code, out, err = run_cli(capsys, "verify", str(submission), "--results", str(tmp_path / "results"),
                             "--leaderboard", str(board))
    assert code == 0, err
    assert "UNVERIFIED" in out and "needs the Hugging Face Hub" in out
    assert "| tiny-model (unverified)" in board.read_text()


def test_with_weights_the_submission_carries_its_safetensors(home, submission, tmp_path, capsys):
    code, _, err = run_cli(capsys, "submit", "tiny-model", "--results", str(tmp_path / "runs"),
                           "--output", str(tmp_path / "outbox2"), "--with-weights", "--archive")
    assert code == 0, err
    folder = tmp_path / "outbox2" / "tiny-model"
    assert yaml.safe_load((folder / "card.yaml").read_text())["checkpoint"] == "weights"
    assert sha256_file(folder / "weights" / "model.safetensors") == sha256_file(
        home / "models" / "tiny" / "model.safetensors")
    shutil.rmtree(home / "models" / "tiny")  # the verifier has only the zip
    code, out, err = run_cli(capsys, "verify", str(tmp_path / "outbox2" / "tiny-model.zip"),
                             "--results", str(tmp_path / "results"), "--leaderboard", "")
    assert code == 0 and "verified 'tiny-model'" in out, err


def _zip(path: Path, members: dict[str, bytes], symlink: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (0o120777 << 16)
            archive.writestr(info, "/etc/passwd")
    return path


@pytest.mark.parametrize("members, symlink, reason", [
    ({"sub/manifest.json": b"{}", "../evil.txt": b"x"}, None, "member '../evil.txt' points outside the archive"),
    ({"/abs.txt": b"x"}, None, "member '/abs.txt' points outside the archive"),
    ({"sub/zeros.bin": bytes(8 << 20)}, None, "member 'sub/zeros.bin' expands"),
    ({"sub/a.txt": b"x"}, "sub/link", "member 'sub/link' is a symbolic link"),
])
def test_unsafe_archives_are_refused_before_anything_is_written(tmp_path, capsys, members, symlink, reason):
    archive = _zip(tmp_path / "bad.zip", members, symlink)
    code, _, err = run_cli(capsys, "verify", str(archive), "--results", str(tmp_path / "results"),
                           "--leaderboard", "")
    assert code == 2 and reason in err and err.count("\n") == 1
    assert not (tmp_path / "results").exists() and not (tmp_path / "evil.txt").exists()


def test_run_refuses_to_write_the_committed_results_from_a_dirty_tree(fixture_task, tmp_path, monkeypatch, capsys):
    committed = tmp_path / "repo" / "results"
    monkeypatch.setattr("sentibench.core.provenance.committed_results_dir", lambda: committed)
    monkeypatch.setattr("sentibench.core.provenance.git_commit", lambda: f"{CLEAN_COMMIT}-dirty")
    code, _, err = run_cli(capsys, "run", "-m", "random", "-t", TASK, "--output-folder", str(committed))
    assert code == 2 and "refusing to write into the committed" in err and not list(committed.rglob("*.json"))
    code, _, err = run_cli(capsys, "run", "-m", "random", "-t", TASK, "--output-folder", str(tmp_path / "elsewhere"))
    assert code == 0, err
    monkeypatch.setattr("sentibench.core.provenance.git_commit", lambda: CLEAN_COMMIT)
    assert run_cli(capsys, "run", "-m", "random", "-t", TASK, "--output-folder", str(committed))[0] == 0


def test_card_new_refuses_pickles_custom_code_and_an_unreachable_hub(home, tmp_path, capsys):
    pickled = tmp_path / "pickled"
    pickled.mkdir()
    (pickled / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (pickled / "pytorch_model.bin").write_bytes(b"\x80\x04")
    custom = tmp_path / "custom"
    tiny_bert(custom)
    config = json.loads((custom / "config.json").read_text())
    (custom / "config.json").write_text(json.dumps({**config, "auto_map": {"AutoModel": "modeling_evil.Evil"}}))
    capsys.readouterr()
    for source, reason in [(pickled, "holds pickle weights only, which sentibench never loads"),
                           (custom, "maps classes to custom code (auto_map)"),
                           ("someone/some-model", "needs the Hugging Face Hub, which cannot be reached")]:
        code, _, err = run_cli(capsys, "card", "new", "x", "--from", str(source))
        assert code == 2 and reason in err and err.count("\n") == 1, err
    assert not (home / "cards" / "x.yaml").exists()


def test_an_accepted_revision_is_never_overwritten(submission, tmp_path, capsys):
    results = tmp_path / "results"
    assert run_cli(capsys, "verify", str(submission), "--results", str(results), "--leaderboard", "")[0] == 0
    before = snapshot(results)
    code, _, err = run_cli(capsys, "verify", str(submission), "--results", str(results), "--leaderboard", "")
    assert code == 2 and "already holds results of 'tiny-model' revision" in err
    assert snapshot(results) == before


def test_reproduce_compares_scores_of_a_card_retrained_from_its_recipe(submission):
    from sentibench.results.task_result import read_result
    from sentibench.submission.reproduce import compare

    stored = read_result(result_file(submission))
    model = stored.provenance.model.model_copy(update={"weights_sha256": "e" * 64})
    rerun = stored.model_copy(update={"sentibench": stored.sentibench.model_copy(update={"model": model})})
    plain = compare(stored, rerun, 0.005)
    assert not plain.agrees and "differs: weights sha256" in plain.line()
    retrained = compare(stored, rerun, 0.005, from_recipe=True)
    assert retrained.agrees and retrained.differences == ()
    assert "agree; weights re-trained from the card's recipe" in retrained.line()
    assert "eeeeeeeeeeee here" in retrained.line()
    shifted = compare(stored, rerun.model_copy(update={"scores": {"test": [
        s.model_copy(update={"main_score": s.main_score + 0.01}) for s in stored.scores["test"]]}}), 0.005,
        from_recipe=True)
    assert not shifted.agrees


def test_a_folder_model_outside_the_caches_is_refused_at_submit_time_then_round_trips_with_weights(
        home, tmp_path, capsys):
    weights = tmp_path / "elsewhere" / "tiny"
    tiny_bert(weights)
    assert run_cli(capsys, "card", "new", "far-model", "--from", str(weights))[0] == 0
    fill_in(home / "cards" / "far-model.yaml")
    code, _, err = run_cli(capsys, "run", "-m", "far-model", "-t", TASK, "--output-folder", str(tmp_path / "runs"))
    assert code == 0, err
    outbox = tmp_path / "outbox"
    code, _, err = run_cli(capsys, "submit", "far-model", "--results", str(tmp_path / "runs"), "--output", str(outbox))
    assert code == 2 and "is outside sentibench's caches" in err and "pass --with-weights" in err
    assert not outbox.exists()
    code, out, err = run_cli(capsys, "submit", "far-model", "--results", str(tmp_path / "runs"),
                             "--output", str(outbox), "--with-weights")
    assert code == 0 and "weights included" in out, err
    code, out, err = run_cli(capsys, "verify", str(outbox / "far-model"), "--results", str(tmp_path / "results"),
                             "--leaderboard", "")
    assert code == 0 and "verified 'far-model'" in out, err


def test_a_cached_checkpoint_is_referenced_and_the_message_says_so(submission, tmp_path, capsys):
    code, out, err = run_cli(capsys, "submit", "tiny-model", "--results", str(tmp_path / "runs"),
                             "--output", str(tmp_path / "outbox3"))
    assert code == 0 and "weights referenced (checkpoint" in out and "in a sentibench cache" in out, err


def test_resubmitting_says_what_to_do_and_replace_swaps_the_whole_submission(submission, tmp_path, capsys):
    before = snapshot(submission)
    args = ("submit", "tiny-model", "--results", str(tmp_path / "runs"), "--output", str(tmp_path / "outbox"))
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and "already exists; pass --replace to replace it" in err and snapshot(submission) == before
    (submission / "stray.txt").write_text("not part of the new submission")
    code, out, err = run_cli(capsys, *args, "--replace", "--archive")
    assert code == 0, err
    assert not (submission / "stray.txt").exists() and (tmp_path / "outbox" / "tiny-model.zip").is_file()
    assert sorted(p.name for p in (tmp_path / "outbox").iterdir()) == ["tiny-model", "tiny-model.zip"]
    code, _, err = run_cli(capsys, *args, "--archive")
    assert code == 2 and "already exists; pass --replace" in err
    other = tmp_path / "mine"
    (other / "tiny-model").mkdir(parents=True)
    (other / "tiny-model" / "notes.txt").write_text("my own folder")
    code, _, err = run_cli(capsys, "submit", "tiny-model", "--results", str(tmp_path / "runs"), "--output", str(other),
                           "--replace")
    assert code == 2 and "is not a submission" in err
    assert [p.name for p in (other / "tiny-model").iterdir()] == ["notes.txt"]


def test_a_merged_model_is_first_class_compare_reproduce_and_run(home, submission, tmp_path, capsys):
    """Verified on a machine without the submitter's card or weights: the merged card and the stored weights
    make it a model like any other."""
    code, _, err = run_cli(capsys, "submit", "tiny-model", "--results", str(tmp_path / "runs"),
                           "--output", str(tmp_path / "outbox2"), "--with-weights")
    assert code == 0, err
    shutil.rmtree(home / "models" / "tiny")
    (home / "cards" / "tiny-model.yaml").unlink()
    results = tmp_path / "results"
    code, out, err = run_cli(capsys, "verify", str(tmp_path / "outbox2" / "tiny-model"), "--results", str(results),
                             "--leaderboard", "")
    assert code == 0 and "installed card 'tiny-model'" in out, err
    stored = result_file(results)
    merged = stored.parent
    assert (merged / f"{TASK}.units.npz").is_file() and (merged / "card.yaml").is_file()
    code, out, err = run_cli(capsys, "reproduce", str(stored))
    assert code == 0 and out.strip().endswith(": agree"), err
    assert run_cli(capsys, "run", "-m", "random", "-t", TASK, "--output-folder", str(results))[0] == 0
    code, out, err = run_cli(capsys, "compare", "tiny-model", "random", "--results", str(results))
    assert code == 0 and TASK in out and "no unit values" not in out + err, err
    code, _, err = run_cli(capsys, "run", "-m", "tiny-model", "-t", OTHER, "--output-folder", str(results))
    assert code == 0, err
    assert (merged / f"{OTHER}.json").is_file()
    (home / "cards" / "tiny-model.yaml").unlink()  # another machine: only the merged card beside the results
    code, out, err = run_cli(capsys, "reproduce", str(stored))
    assert code == 0 and out.strip().endswith(": agree"), err


def test_git_commit_sees_changes_anywhere_in_the_checkout_but_results(tmp_path):
    """Changes outside the folder the provenance module sits in mark the commit dirty (they once did not:
    the check looked at its own folder only); changes under results/ never do."""
    import subprocess

    from sentibench.core.provenance import git_commit

    def git(*argv):
        subprocess.run(["git", *argv], cwd=tmp_path, check=True, capture_output=True)

    for folder in ("bench/core", "models", "results"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "f.py").write_text("x = 1\n")
    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "x", "--allow-empty")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    core = tmp_path / "bench" / "core"
    clean = git_commit(core)
    assert clean is not None and not clean.endswith("-dirty")
    (tmp_path / "results" / "f.py").write_text("x = 2\n")
    assert git_commit(core) == clean
    (tmp_path / "models" / "f.py").write_text("x = 2\n")
    assert git_commit(core) == clean + "-dirty"
