"""`--no-cache` keeps the cache's promise within a run: each distinct text is encoded once per model, and
the scores equal a cold cached run's (same vectors, same batches)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pytest
from conftest import FIXTURE_SENTENCES, FakeEncoder

from sentibench.embed.cache import CachedEncoder
from sentibench.results.task_result import comparable_results
from sentibench.run.runner import run
from sentibench.tasks.registry import all_tasks


class RecordingEncoder(FakeEncoder):
    """The fake encoder, remembering every text it was sent."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: Counter[str] = Counter()

    def encode(self, texts, batch_size=32, show_progress_bar=None):
        self.texts.update(texts)
        return super().encode(texts, batch_size, show_progress_bar)


@dataclass
class Factory:
    use_cache: bool
    tag: str
    made: list[RecordingEncoder] = field(default_factory=list)

    def __call__(self, card) -> CachedEncoder:
        self.made.append(RecordingEncoder())
        return CachedEncoder(self.made[-1], {"model": card.name, "fake": self.tag}, enabled=self.use_cache)


@pytest.mark.parametrize("family", [("sgts",), ("sgts", "probe", "align")])
def test_no_cache_encodes_each_text_once_and_scores_like_the_cached_run(fixture_task, tmp_path, family):
    tasks = [all_tasks()[f"{name}-fixture-reviews"] for name in family]
    uncached, cached = Factory(False, f"{tmp_path}-none"), Factory(True, f"{tmp_path}-cold")
    without = run(["random"], tasks, tmp_path / "none", encoder_factory=uncached, use_cache=False)
    with_cache = run(["random"], tasks, tmp_path / "cold", encoder_factory=cached)
    assert not without.failed and len(without.written) == len(tasks)
    (sent,) = [encoder.texts for encoder in uncached.made]
    assert max(sent.values()) == 1, "a text encoded twice in one run"
    assert set(sent) <= {f"{text} ({i})" for i, (text, _) in enumerate(FIXTURE_SENTENCES * 2)}
    assert without.encoded == with_cache.encoded == len(sent)
    assert comparable_results(tmp_path / "none") == comparable_results(tmp_path / "cold")


def test_no_cache_writes_nothing_to_the_embedding_cache(fixture_task, tmp_path, monkeypatch):
    monkeypatch.setenv("SENTIBENCH_HOME", str(tmp_path / "home"))
    report = run(["random"], [fixture_task], tmp_path / "out", encoder_factory=Factory(False, "x"), use_cache=False)
    assert report.encoded and not list((tmp_path / "home").glob("embeddings/*.sqlite"))
