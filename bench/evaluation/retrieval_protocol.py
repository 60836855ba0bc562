"""The polarity-aware retrieval paper's protocol constants (§3.1), importable without numpy: the task's
metadata and defaults read them when tasks are listed; `evaluation.retrieval` scores with them."""

PAPER_K = 16              # neighbours per query (§3.1)
PAPER_LOOKUP_FACTOR = 5   # lookup size / number of queries (§3.1)
