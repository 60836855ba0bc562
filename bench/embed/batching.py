"""How an encode is cut into forward passes and run, and how its progress is shown.

Forward passes on the CPU (`CPU_TOKENS_PER_FORWARD`): a batch of `batch_size` texts runs as forward
passes of at most 1,024 padded token positions each (a longer text runs alone). Found by profiling long
texts (`python benchmarks/profile_forward.py`): one pass of 32 IMDB reviews x 256 tokens allocates 50 MB
activations per layer, above glibc's mmap threshold, so every layer page-faults fresh pages in (183,000
minor faults per 32 reviews; GELU and the bias copy take 16% of the pass); at 1,024 positions the
activations are reused from the heap (no faults) and the 32 reviews took 1.14x less time (all-MiniLM-L6-v2,
one thread). `benchmarks/bench_encode.py` measures it in whole encodes as "harness vs harness-one-pass".
Accelerators run the whole batch in one pass.

Batch invariance (issue 45). A pass holds texts of one token length only (`equal_length_batches`), so nothing
is padded. Padding was the one way a text's vector depended on its batch-mates: masked positions change the
reductions' lengths, and a text's vector moved by up to 1e-7 per coordinate with the batch it happened to be
encoded in, so a retry, a resume or another node re-encoding a text could change a score's last digits. Without
padding, a row's arithmetic is the same whatever else is in the pass: tests/test_batch_invariance.py checks on
the packaged all-MiniLM-L6-v2 that a text's vector is the same to the last bit alone, among 1 to 31 other
texts, in another order, at 1 and 2 threads, and through the sentence-transformers path. The price is more,
smaller passes (one group per length); `benchmarks/bench_encode.py` measures it against the padded batches of
earlier releases ("harness vs harness-padded"). What is guaranteed, and where (CPU), is in docs/reliability.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

PROGRESS_MIN_TEXTS = 2000  # show a progress bar by default only on long work
CPU_TOKENS_PER_FORWARD = 1024  # padded token positions per forward pass on the CPU (module docstring)


def length_sorted_batches(texts: Sequence[str], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of similar length in characters (longest first), so padding stays small."""
    return token_budget_batches([len(text) for text in texts], batch_size, None)


def token_budget_batches(lengths: Sequence[int], batch_size: int, tokens_per_forward: int | None
                         ) -> list[list[int]]:
    """Indices sorted by length (longest first, ties in input order), cut into batches of at most
    `batch_size` texts whose padded size (texts x longest) stays within `tokens_per_forward` positions
    (None: no token limit); a text longer than the budget runs alone."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches, start = [], 0
    while start < len(order):
        longest = max(lengths[order[start]], 1)
        size = batch_size if tokens_per_forward is None else max(1, min(batch_size, tokens_per_forward // longest))
        batches.append(order[start:start + size])
        start += size
    return batches


def equal_length_batches(lengths: Sequence[int], batch_size: int, tokens_per_forward: int | None
                         ) -> list[list[int]]:
    """Indices grouped by exact length (longest first; within one length in input order), each group cut into
    batches of at most `batch_size` texts and `tokens_per_forward` positions (None: no token limit). A forward
    pass then holds texts of one length, so nothing is padded, and a text's vector is the same in whatever
    batch it runs (module docstring, "Batch invariance")."""
    groups: dict[int, list[int]] = {}
    for index, length in enumerate(lengths):
        groups.setdefault(length, []).append(index)
    batches = []
    for length in sorted(groups, reverse=True):
        members, size = groups[length], batch_size
        if tokens_per_forward is not None:
            size = max(1, min(batch_size, tokens_per_forward // max(length, 1)))
        batches += [members[start:start + size] for start in range(0, len(members), size)]
    return batches


@contextmanager
def one_thread_per_pass(enabled: bool) -> Iterator[ThreadPoolExecutor | None]:
    """On the CPU, torch's intra-op threads split a matrix product along its reduction for some shapes, and how
    they split it depends on the pass's number of rows: at 2 threads a text's vector changed with its
    batch-mates, at 1 thread it never did (tests/test_batch_invariance.py). So each pass computes on one thread
    and the passes run side by side, on as many Python threads as torch had intra-op threads (torch releases
    the GIL inside its kernels); yields that pool, or None to run the passes in order (one thread asked for,
    or `enabled` False: an accelerator, or the padded batches kept for comparison)."""
    from concurrent.futures import ThreadPoolExecutor

    import torch

    threads = torch.get_num_threads()
    if not enabled:
        yield None
        return
    torch.set_num_threads(1)
    try:
        if threads == 1:
            yield None
        else:
            with ThreadPoolExecutor(threads, thread_name_prefix="sentibench-encode") as pool:
                yield pool
    finally:
        torch.set_num_threads(threads)


def show_progress(show_progress_bar: bool | None, n: int) -> bool:
    """Whether to show a progress bar over `n` texts: as asked, else only on long work."""
    return n >= PROGRESS_MIN_TEXTS if show_progress_bar is None else show_progress_bar


ENCODING_FOR: ContextVar[str] = ContextVar("encoding_for", default="")
"""The task texts are being encoded for (the runner sets it around each item): the progress bar names it."""


def progress_label(model: str) -> str:
    """`encode all-minilm-l6-v2 for sgts-mr` (without `for` outside a task)."""
    task = ENCODING_FOR.get()
    return f"encode {model}" + (f" for {task}" if task else "")
