"""Every dataset sentibench knows, by name: the built-in catalog and plug-ins alike register here, found
through the `sentibench.datasets` entry points the first time a dataset is looked up or listed."""

from __future__ import annotations

from sentibench.core.registry import Registry
from sentibench.data.spec import DatasetSpec

DATASETS: Registry[DatasetSpec] = Registry("dataset", group="sentibench.datasets")


def register_dataset(spec: DatasetSpec) -> DatasetSpec:
    """Add a dataset (the catalog, a plug-in module, a test); names are unique."""
    return DATASETS.register(spec.name, spec)


def dataset_names() -> list[str]:
    return DATASETS.names()


def get_spec(name: str) -> DatasetSpec:
    return DATASETS.get(name)
