"""Shared test fixtures: an isolated, offline sentibench home, a tiny labelled dataset and a fake encoder."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # tests never touch the network
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

FIXTURE_SENTENCES = [
    ("a wonderful, moving film", 1), ("great acting and a great story", 1), ("i loved every minute", 1),
    ("funny, warm and wise", 1), ("a joyous triumph", 1), ("brilliant and beautiful", 1),
    ("an excellent cast", 1), ("sweet and charming", 1),
    ("a dull, tedious mess", 0), ("terrible acting and a weak story", 0), ("i hated every minute", 0),
    ("boring, cold and stupid", 0), ("a painful failure", 0), ("ugly and pointless", 0),
    ("a dreadful cast", 0), ("sour and grating", 0),
]
POSITIVE_WORDS = {"wonderful", "great", "loved", "funny", "warm", "wise", "joyous", "triumph", "brilliant",
                  "beautiful", "excellent", "sweet", "charming", "moving"}
NEGATIVE_WORDS = {"dull", "tedious", "mess", "terrible", "weak", "hated", "boring", "cold", "stupid", "painful",
                  "failure", "ugly", "pointless", "dreadful", "sour", "grating"}


class FakeEncoder:
    """Deterministic: [#positive words, #negative words, text-hash noise in 0..0.5]; counts its calls."""

    name = "fake"

    def __init__(self) -> None:
        self.calls = 0
        self.encoded = 0

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        self.calls += 1
        self.encoded += len(texts)
        rows = []
        for text in texts:
            words = text.replace(",", " ").split()
            noise = int(hashlib.sha256(text.encode()).hexdigest()[:4], 16) / 0xFFFF / 2
            rows.append([sum(w in POSITIVE_WORDS for w in words), sum(w in NEGATIVE_WORDS for w in words), noise])
        return np.asarray(rows, dtype=np.float32)


@pytest.fixture(scope="session", autouse=True)
def sentibench_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("sentibench-home")
    os.environ["SENTIBENCH_HOME"] = str(home)
    return home


@pytest.fixture(scope="session")
def fixture_task():
    """A registered 16-sentence dataset ('fixture-reviews', split 8/4/4... by the store) and its SgTS task,
    which the sgts family builds for it like for any binary sentiment dataset."""
    from sentibench.data import DatasetSpec, register_dataset
    from sentibench.data.registry import DATASETS
    from sentibench.tasks.registry import all_tasks

    if "fixture-reviews" not in DATASETS:
        rows = [{"text": t, "label": y} for t, y in FIXTURE_SENTENCES * 2]
        rows = [{"text": f"{r['text']} ({i})", "label": r["label"]} for i, r in enumerate(rows)]
        register_dataset(DatasetSpec(
            name="fixture-reviews", description="test fixture", kind="classification",
            label_names=("negative", "positive"), license="test", citation="test",
            load_rows=lambda: {"all": rows}, split_fractions=(0.5, 0.0, 0.5), tags=("sentiment",)))
    return all_tasks()["sgts-fixture-reviews"]


@pytest.fixture
def fake_encoder():
    return FakeEncoder()


@pytest.fixture(autouse=True)
def isolated_registries():
    """Datasets, task families, methods, encoder kinds and model kinds a test registers are gone after it (no leaks
    between tests); what modules and entry points register is discovered first (`snapshot`), so it is kept."""
    from sentibench.data.registry import DATASETS
    from sentibench.models.catalog.kinds import MODEL_KINDS
    from sentibench.tasks.registry import FAMILIES
    from sentibench.training.checkpoint import ENCODER_KINDS
    from sentibench.training.methods import METHODS

    registries = (DATASETS, FAMILIES, METHODS, ENCODER_KINDS, MODEL_KINDS)
    saved = [registry.snapshot() for registry in registries]
    yield
    for registry, state in zip(registries, saved):
        registry.restore(state)


@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray shared by the session's Ray tests: 2 CPUs, and 2 logical GPUs (Ray's bookkeeping
    only: torch still finds no CUDA device) so that the GPU request of training units shows. Its workers
    inherit this environment (SENTIBENCH_HOME, offline) plus `tests/` on PYTHONPATH, so test helpers
    unpickle there."""
    ray = pytest.importorskip("ray")
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(__file__), before]))
    try:
        ray.init(num_cpus=2, num_gpus=2, include_dashboard=False)
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before
    yield ray
    ray.shutdown()
