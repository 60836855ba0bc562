"""`bench plot pca`: 2-D PCA of each model's sentence embeddings, coloured by label (SentiCSE, Kim et al.
2024, Figure 4).

One PNG per dataset, one panel per model. The points are a seeded sample of the dataset's test split
(`limit`, default 2,000; the same sample the frozen-embedding tasks use, so the embedding cache serves it);
PCA is scikit-learn's, fitted per (model, dataset) on that sample; the panel title gives the variance the
two components explain.
"""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402

from sentibench.core.errors import BenchError  # noqa: E402
from sentibench.core.io import atomic_write_bytes  # noqa: E402
from sentibench.data import get_dataset  # noqa: E402
from sentibench.evaluation.sampling import split_arrays  # noqa: E402

DEFAULT_POINTS = 2000


def pca_2d(vectors: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The first two principal components of `vectors` and the variance ratio each explains."""
    pca = PCA(n_components=2, random_state=seed)
    return pca.fit_transform(vectors), pca.explained_variance_ratio_


def plot_pca(models: list[str], datasets: list[str], out_dir: Path, limit: int | None) -> list[Path]:
    """Write `pca-<dataset>.png` under `out_dir` for each dataset (a panel per model); return the paths."""
    from sentibench.models import open_encoder

    if not models or not datasets:
        raise BenchError("bench plot pca needs at least one model and one dataset")
    for dataset in datasets:
        if get_dataset(dataset).spec.kind != "classification":
            raise BenchError(f"dataset '{dataset}' has no labels to colour by; choose a classification dataset")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    encoders = {name: open_encoder(name) for name in models}
    written = []
    for dataset in datasets:
        texts, labels = split_arrays(dataset, "test", limit or DEFAULT_POINTS, seed=0)
        names = get_dataset(dataset).spec.label_names
        figure, axes = plt.subplots(1, len(models), figsize=(4.2 * len(models), 4.2), squeeze=False)
        for axis, model in zip(axes[0], models):
            fit = getattr(getattr(encoders[model], "base", None), "fit", None)
            if fit is not None:  # the bag-of-words baseline learns from the train split only
                fit(list(get_dataset(dataset).split("train")["text"]))
            points, ratio = pca_2d(encoders[model].encode(texts))
            for label in np.unique(labels):
                mask = labels == label
                axis.scatter(points[mask, 0], points[mask, 1], s=4, alpha=0.5,
                             label=names[label] if label < len(names) else str(label))
            axis.set_title(f"{model}\nPC1 {ratio[0]:.0%}, PC2 {ratio[1]:.0%} of variance", fontsize=9)
            axis.set_xticks([])
            axis.set_yticks([])
        axes[0][0].legend(markerscale=3, fontsize=8, loc="best")
        figure.suptitle(f"PCA of sentence embeddings: {dataset} test split ({len(texts)} sentences)", fontsize=10)
        figure.tight_layout()
        path = out_dir / f"pca-{dataset}.png"
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=120)
        atomic_write_bytes(path, buffer.getvalue())
        plt.close(figure)
        written.append(path)
    return written
