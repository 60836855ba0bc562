"""Any mteb encoder (`mteb.get_model(...)`, a wrapper with `mteb_model_meta`) as a sentibench encoder,
`encode(texts) -> float32 [n, d]`: used by our tasks inside mteb (`sentibench.mteb.tasks`) and by the runner
for in-process models (`sentibench.models.catalog.inprocess`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sentibench.core.errors import BenchError

MTEB_PIN = "2.26.24"
"""The mteb version sentibench's interoperability is tested with (the `mteb` extra)."""


def require_mteb() -> Any:
    """The `mteb` module, or a one-line error saying how to install it."""
    try:
        import mteb
    except ImportError:
        raise BenchError(f'this needs mteb: pip install "sentibench[mteb]" (mteb=={MTEB_PIN})') from None
    return mteb


GENERIC_TASK = {"name": "sentibench", "type": "STS"}
"""The task an mteb encoder is told it serves when sentibench calls it outside an mteb task: a symmetric
sentence-similarity task (prompt-using models pick their STS prompt)."""


class MtebModelEncoder:
    """An mteb encoder as a sentibench encoder (see the module docstring)."""

    def __init__(self, model, task_metadata=None) -> None:
        require_mteb()
        meta = getattr(model, "mteb_model_meta", None)
        self.model = model
        self.name = meta.name if meta is not None and meta.name else type(model).__name__
        self.task_metadata = task_metadata or _generic_metadata()

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray:
        from datasets import Dataset
        from mteb._create_dataloaders import create_dataloader

        texts = list(texts)
        loader = create_dataloader(Dataset.from_dict({"text": texts}), task_metadata=self.task_metadata,
                                   input_column="text", batch_size=batch_size)
        vectors = self.model.encode(loader, task_metadata=self.task_metadata, hf_split="test",
                                    hf_subset="default", batch_size=batch_size,
                                    show_progress_bar=bool(show_progress_bar))
        if hasattr(vectors, "detach"):
            vectors = vectors.detach().cpu().float().numpy()
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


def _generic_metadata():
    from mteb import TaskMetadata

    return TaskMetadata(name=GENERIC_TASK["name"], type=GENERIC_TASK["type"], description="sentibench encoding",
                        dataset={"path": "sentibench/none", "revision": "none"}, eval_langs=["eng-Latn"],
                        main_score="cosine_spearman", category="t2t", modalities=["text"])
