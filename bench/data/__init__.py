"""The data layer: declared datasets (`registry`, filled by `catalog` and plug-ins), their parsers, and the
prepared-dataset store."""

from sentibench.data.registry import dataset_names, get_spec, register_dataset
from sentibench.data.spec import DatasetSpec, HubSource
from sentibench.data.store import PreparedDataset, get_dataset

__all__ = ["DatasetSpec", "HubSource", "PreparedDataset", "dataset_names", "get_dataset", "get_spec",
           "register_dataset"]
