"""sentibench: a benchmark harness for sentiment-aware sentence embeddings."""

__version__ = "0.1.0"
