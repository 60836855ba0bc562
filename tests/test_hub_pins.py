"""Every Hub dataset in the catalog is pinned to a commit or is in the explicit, documented list of unpinned
sources (issue 27 item 3), and a pinned catalog id loads from a local Hub endpoint (tests/hub_server.py) only
at its pinned commit: that commit is recorded as the source, any other commit served is refused."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from hub_server import HubServer, Repo

from sentibench.data import catalog

COMMIT = re.compile(r"[0-9a-f]{40}")
DOCS = Path(__file__).resolve().parents[1] / "docs" / "tasks.md"


def _hub_sources() -> dict[str, object]:
    """Catalog dataset name -> its HubSource (the catalog module, not the registry: tests register their own)."""
    return {spec.name: spec.hub for spec in catalog.DATASETS if spec.hub is not None}


def test_every_catalog_hub_source_is_pinned_to_a_commit_or_listed_as_unpinned():
    sources = _hub_sources()
    assert sources, "the catalog declares Hub sources"
    for name, hub in sources.items():
        if hub.repo_id in catalog.UNPINNED_HUB_SOURCES:
            assert hub.revision is None, f"{name}: {hub.repo_id} is listed as unpinned but has a revision"
        else:
            assert hub.revision and COMMIT.fullmatch(hub.revision), (
                f"{name}: {hub.repo_id} has revision {hub.revision!r}; pin it to a 40-hex commit or add it to "
                "UNPINNED_HUB_SOURCES (and docs/tasks.md) with the reason")
    used = {hub.repo_id for hub in sources.values()}
    assert catalog.UNPINNED_HUB_SOURCES <= used, "no stale entries in the unpinned list"
    for repo_id, commit in {**catalog.PUBLIC_PINS, **catalog.MTEB_REVISIONS}.items():
        assert COMMIT.fullmatch(commit), f"{repo_id}: {commit!r} is not a commit hash"
        assert repo_id in used and repo_id not in catalog.UNPINNED_HUB_SOURCES


def test_the_unpinned_sources_and_where_each_pin_came_from_are_documented():
    docs = DOCS.read_text(encoding="utf-8")
    section = docs.split("## Hub dataset pins\n", 1)[1].split("\n## ", 1)[0]
    unpinned = section[section.index("Unpinned"):]
    for repo_id in catalog.UNPINNED_HUB_SOURCES:
        assert f"`{repo_id}`" in unpinned, repo_id
    for repo_id, commit in catalog.PUBLIC_PINS.items():
        assert f"`{repo_id}`" in section and commit in section, repo_id


# a pinned catalog id served by the local endpoint (a separate process: HF_ENDPOINT is read at import)

SST5 = "SetFit/sst5"
LOAD = ("import json, sys\n"
        "from sentibench.core.errors import BenchError\n"
        "from sentibench.data import get_dataset\n"
        "try:\n"
        "    prepared = get_dataset('sst5')\n"
        "except BenchError as error:\n"
        "    print(json.dumps({'error': str(error)})); sys.exit(0)\n"
        "print(json.dumps({'sources': list(prepared.sources), 'splits': list(prepared.split_names)}))\n")


def _sst5_repo(pinned: str) -> Repo:
    """SetFit/sst5's layout (train/validation/test JSON lines: text, label, label_text), a few rows each."""
    names = ("very negative", "negative", "neutral", "positive", "very positive")
    files = {f"{split}.jsonl": "".join(json.dumps({"text": f"{split} sentence {i} ({names[i % 5]})", "label": i % 5,
                                                   "label_text": names[i % 5]}) + "\n" for i in range(10)).encode()
             for split in ("train", "validation", "test")}
    return Repo("dataset", SST5, files, pinned=pinned)


def _load_sst5(tmp_path: Path, repo: Repo) -> dict:
    with HubServer([repo]) as hub:
        environment = {**os.environ, "SENTIBENCH_HOME": str(tmp_path / "home"), "HF_HOME": str(tmp_path / "hf"),
                       "HF_ENDPOINT": hub.url, "HF_HUB_OFFLINE": "0", "OMP_NUM_THREADS": "1"}
        environment.pop("HF_DATASETS_CACHE", None)
        done = subprocess.run([sys.executable, "-c", LOAD], env=environment, capture_output=True, text=True,
                              timeout=300)
    assert done.returncode == 0, done.stderr
    assert repo.requests, "the rows came from the local endpoint"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_pinned_catalog_dataset_loads_at_its_pin_and_records_it(tmp_path):
    pin = catalog.PUBLIC_PINS[SST5]
    loaded = _load_sst5(tmp_path, _sst5_repo(pinned=pin))
    assert loaded.get("sources") == [f"hub {SST5}@{pin}"], loaded


def test_a_pinned_catalog_dataset_served_at_another_commit_is_refused(tmp_path):
    other = "0123456789abcdef0123456789abcdef01234567"
    loaded = _load_sst5(tmp_path, _sst5_repo(pinned=other))
    assert "pinned to commit" in loaded.get("error", "") and other in loaded["error"], loaded
    assert not list((tmp_path / "home").rglob("sst5-r*")), "nothing was prepared from the wrong commit"
