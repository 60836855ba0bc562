"""The data layer: declared datasets (`catalog`), their parsers, and the prepared-dataset store."""

from sentibench.data.spec import DatasetSpec, HubSource
from sentibench.data.store import PreparedDataset, dataset_names, get_dataset, get_spec, register_dataset

__all__ = ["DatasetSpec", "HubSource", "PreparedDataset", "dataset_names", "get_dataset", "get_spec",
           "register_dataset"]
