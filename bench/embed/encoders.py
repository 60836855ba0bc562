"""Encoders: one protocol, `encode(texts) -> float32 [n, d]`, like sentence-transformers.

`TransformerEncoder` wraps any transformers checkpoint with a pooling rule and is what trainable methods
fine-tune. `SentenceTransformerEncoder` wraps a sentence-transformers pipeline the harness cannot express
as (transformer, pooling, normalise). Both sort texts by length, batch, run without gradients.
`LazyTransformerEncoder` defers loading until a text really has to be encoded: its settings (the cache
key's fields) are read from the checkpoint's JSON files, so a fully cached run never loads the model.
numpy and torch are imported by the code that runs a model, never by importing this module (model
cards import `DTYPES` from here, and `bench list` reads cards).

Pooling rules (SimCSE's names):
- ``cls``: the [CLS] state through the checkpoint's pooler when it has one, else the raw [CLS] state;
- ``cls_before_pooler``: the raw [CLS] hidden state;
- ``pooler_output``: the checkpoint's pooler output (an error if it has none);
- ``mean``: the attention-masked mean of the last hidden states.

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

Inference dtypes (`DTYPES`): ``float32`` (the default, and the dtype of every published number) and
``bfloat16``, opt in: weights and matmuls in bf16, the last hidden states cast to float32 before pooling
and normalisation, so only the transformer's rounding changes (about 1.9x faster on CPUs with bf16
matmuls; max abs difference ~3e-3 per coordinate on all-MiniLM-L6-v2). On a CPU without them (AVX2 only)
bf16 is emulated and about 8x slower than float32; the encoder says so when it loads. Fine-tuning always
uses float32.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from sentibench.core.errors import BenchError

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import torch

POOLINGS = ("cls", "cls_before_pooler", "pooler_output", "mean")
DTYPES = ("float32", "bfloat16")
PROGRESS_MIN_TEXTS = 2000  # show a progress bar by default only on long work
CPU_TOKENS_PER_FORWARD = 1024  # padded token positions per forward pass on the CPU (module docstring)
POOLING_FILE = "sentibench_pooling.json"
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".onnx")  # the files `weights_digest` hashes


@runtime_checkable
class Encoder(Protocol):
    """Anything that turns texts into one float32 row each. Optional, and forwarded by the embedding cache:
    `fit(texts)` for encoders that learn from a task's train split (bag-of-words), `max_length` and
    `truncated_count(texts)` for encoders with a token limit (results record how many texts were cut)."""

    name: str

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray: ...



def pick_device(device: str | None = None) -> torch.device:
    """The named device, checked to exist here (a one-line error otherwise), or the best available."""
    import torch

    if device:
        return _available_device(device)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def _available_device(name: str) -> torch.device:
    import torch

    try:
        chosen = torch.device(name)
    except (RuntimeError, ValueError):
        raise BenchError(f"unknown device '{name}'; use cpu, cuda, cuda:N or mps") from None
    mps = getattr(torch.backends, "mps", None)
    present = {"cpu": True, "cuda": torch.cuda.is_available(), "mps": mps is not None and mps.is_available()}
    if not present.get(chosen.type, False):
        raise BenchError(f"device '{name}' is not available on this machine; use --device cpu (or leave it out)")
    if chosen.type == "cuda" and chosen.index is not None and chosen.index >= torch.cuda.device_count():
        raise BenchError(f"device '{name}' does not exist: this machine has {torch.cuda.device_count()} GPU(s)")
    return chosen


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


def _show(show_progress_bar: bool | None, n: int) -> bool:
    return n >= PROGRESS_MIN_TEXTS if show_progress_bar is None else show_progress_bar


ENCODING_FOR: ContextVar[str] = ContextVar("encoding_for", default="")
"""The task texts are being encoded for (the runner sets it around each item): the progress bar names it."""


def progress_label(model: str) -> str:
    """`encode all-minilm-l6-v2 for sgts-mr` (without `for` outside a task)."""
    task = ENCODING_FOR.get()
    return f"encode {model}" + (f" for {task}" if task else "")


BF16_FLAGS = ("avx512_bf16", "amx_bf16")  # CPU flags of bf16 matrix instructions


def cpu_bf16_instructions() -> list[str] | None:
    """The bf16 matrix instructions the CPU advertises (Linux's /proc/cpuinfo flags); None where the flags
    cannot be read."""
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        return None
    return [flag for flag in BF16_FLAGS if flag in flags.split(":", 1)[-1].split()]


def cpu_has_bf16() -> bool:
    """Whether the CPU has bf16 matrix instructions; True where that cannot be read (no warning on a guess)."""
    found = cpu_bf16_instructions()
    return found is None or bool(found)


def check_dtype(dtype: str) -> str:
    if dtype not in DTYPES:
        raise BenchError(f"unknown dtype '{dtype}'; choose one of {', '.join(DTYPES)}")
    return dtype


@dataclass(frozen=True)
class TransformerSettings:
    """What changes a `TransformerEncoder`'s vectors besides its weights: the embedding cache's key fields."""

    pooling: str
    max_length: int
    normalize: bool
    prefix: str = ""  # prepended to every text before tokenising (e5's "query: ")


def transformer_settings(path: str | Path, pooling: str | None = None, max_length: int | None = None,
                         normalize: bool | None = None, prefix: str | None = None) -> TransformerSettings:
    """The settings `TransformerEncoder.from_pretrained(path, ...)` uses, read from the folder's JSON files
    only: the arguments, else the folder's pooling record, else mean pooling, no normalisation, no prefix, and
    the smallest of the position limit, the tokenizer's `model_max_length` and 512."""
    saved = _read_json(Path(path) / POOLING_FILE)
    return TransformerSettings(pooling=pooling or saved.get("pooling", "mean"),
                               max_length=max_length or saved.get("max_length") or _config_max_length(Path(path)),
                               normalize=saved.get("normalize", False) if normalize is None else normalize,
                               prefix=saved.get("prefix", "") if prefix is None else prefix)


def drop_unloaded_pooler(model: torch.nn.Module, missing_keys: Iterable[str]) -> None:
    """Remove a pooler whose weights the checkpoint does not hold (`model.pooler = None`, which transformers'
    BERT-like models accept): transformers initialises such a layer from the global random state at load, so it
    would make the `cls` pooling and the fine-tuning head depend on what ran before the load. Without it,
    `cls` is the raw first-token state and the sequence-classification head starts a fresh, seeded dense layer
    (`sentibench.training.finetune.SequenceClassificationHead`). A checkpoint converted from ONNX
    (paraphrase-MiniLM-L3-v2) has no pooler."""
    if getattr(model, "pooler", None) is not None and any(key.startswith("pooler.") for key in missing_keys):
        model.pooler = None


class TransformerEncoder:
    """A transformers encoder (`AutoModel`) plus pooling, max length, optional L2 normalisation and an optional
    prefix put before every text (e5's "query: "; counted in the max length)."""

    def __init__(self, model: torch.nn.Module, tokenizer, pooling: str = "mean", max_length: int = 256,
                 normalize: bool = False, name: str = "encoder", device: str | None = None,
                 dtype: str = "float32", prefix: str = "") -> None:
        import torch

        if pooling not in POOLINGS:
            raise BenchError(f"unknown pooling '{pooling}'; choose one of {', '.join(POOLINGS)}")
        self.device = pick_device(device)
        self.dtype = check_dtype(dtype)
        self.model = model.to(self.device, dtype=getattr(torch, dtype)).eval()
        self.tokenizer = tokenizer
        self.pooling = pooling
        self.max_length = max_length
        self.normalize = normalize
        self.prefix = prefix
        self.name = name
        self.tokens_per_forward = CPU_TOKENS_PER_FORWARD if self.device.type == "cpu" else None
        self.equal_lengths = True  # False: the padded batches of releases before issue 45 (benchmarks compare)
        if self.dtype == "bfloat16" and self.device.type == "cpu" and not cpu_has_bf16():
            print(f"warning: {name}: this CPU has no bf16 matrix instructions (avx512_bf16, amx_bf16), so bfloat16 "
                  "is emulated and slower than float32 here (measured 8x on an AVX2 EPYC); use --dtype float32",
                  file=sys.stderr)

    @classmethod
    def from_pretrained(cls, path: str | Path, pooling: str | None = None, max_length: int | None = None,
                        normalize: bool | None = None, name: str | None = None, device: str | None = None,
                        revision: str | None = None, local_files_only: bool = True,
                        dtype: str = "float32", prefix: str | None = None) -> TransformerEncoder:
        """Load a checkpoint folder; pooling, max length, normalisation and prefix default to the folder's own
        record."""
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging

        logging.disable_progress_bar()  # loading a local checkpoint is quick; its per-tensor bar is noise
        settings = transformer_settings(path, pooling, max_length, normalize, prefix)
        kwargs = dict(revision=revision, local_files_only=local_files_only, trust_remote_code=False)
        tokenizer = AutoTokenizer.from_pretrained(str(path), **kwargs)
        model, loading = AutoModel.from_pretrained(str(path), use_safetensors=_has_safetensors(path),
                                                   output_loading_info=True, **kwargs)
        drop_unloaded_pooler(model, loading["missing_keys"])
        return cls(model, tokenizer, pooling=settings.pooling, max_length=settings.max_length,
                   normalize=settings.normalize, name=name or str(path), device=device, dtype=dtype,
                   prefix=settings.prefix)

    def save(self, folder: Path) -> None:
        """safetensors weights, tokenizer, and the pooling record that `from_pretrained` reads back."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(folder, safe_serialization=True)
        self.tokenizer.save_pretrained(folder)
        record = {"pooling": self.pooling, "max_length": self.max_length, "normalize": self.normalize}
        (folder / POOLING_FILE).write_text(json.dumps({**record, **({"prefix": self.prefix} if self.prefix else {})},
                                                      indent=2))

    def prompted(self, texts: Sequence[str]) -> list[str]:
        """The texts as the model reads them: each after the prefix."""
        return [self.prefix + text for text in texts]

    def tokenize(self, texts: Sequence[str]) -> dict[str, torch.Tensor]:
        features = self.tokenizer(self.prompted(texts), padding=True, truncation=True, max_length=self.max_length,
                                  return_tensors="pt")
        return {k: v.to(self.device) for k, v in features.items()}

    def embed(self, features: dict[str, torch.Tensor]) -> torch.Tensor:
        """Pooled sentence vectors for tokenized features; differentiable (used by the trainers). Pooling
        and normalisation run in float32 whatever the model's dtype."""
        import torch

        output = self.model(**features)
        hidden = output.last_hidden_state.float()
        pooler = getattr(output, "pooler_output", None)
        pooler = pooler.float() if pooler is not None else None
        if self.pooling == "mean":
            mask = features["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            vectors = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        elif self.pooling == "cls_before_pooler" or (self.pooling == "cls" and pooler is None):
            vectors = hidden[:, 0]
        elif pooler is None:
            raise BenchError(f"{self.name} has no pooler; use pooling 'cls' or 'cls_before_pooler'")
        else:
            vectors = pooler
        return torch.nn.functional.normalize(vectors, dim=-1) if self.normalize else vectors

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray:
        """Tokenise every text once, batch texts of equal token length together (longest first), within
        `tokens_per_forward` positions per pass on the CPU (module docstring), embed without gradients, and
        return rows in the input order. Nothing is padded, and on the CPU each pass computes on one thread
        (passes run side by side on `torch.get_num_threads()` threads), so each row is a function of its text
        alone (module docstring, "Batch invariance")."""
        import numpy as np
        import torch
        from tqdm.auto import tqdm

        texts = list(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        tokens = self.tokenizer(self.prompted(texts), truncation=True, max_length=self.max_length)
        batching = equal_length_batches if self.equal_lengths else token_budget_batches
        batches = batching([len(ids) for ids in tokens["input_ids"]], batch_size, self.tokens_per_forward)
        passes = [(batch, self.tokenizer.pad({key: [tokens[key][i] for i in batch] for key in tokens},
                                             return_tensors="pt")) for batch in batches]  # here: tokenizers are not
        # safe to call from several threads at once

        def run(one: tuple[list[int], dict[str, torch.Tensor]]) -> tuple[list[int], np.ndarray]:
            batch, features = one
            with torch.inference_mode():  # per thread: inference mode is thread-local
                return batch, self.embed({k: v.to(self.device) for k, v in features.items()}).float().cpu().numpy()

        was_training = self.model.training
        self.model.eval()
        bar = tqdm(total=len(passes), desc=progress_label(self.name), unit="batch",
                   disable=not _show(show_progress_bar, len(texts)))
        try:
            with one_thread_per_pass(self.device.type == "cpu" and self.equal_lengths) as workers:
                for batch, vectors in (workers.map(run, passes) if workers else map(run, passes)):
                    out[batch] = vectors
                    bar.update()
        finally:
            bar.close()
            self.model.train(was_training)
        return out

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Each text's length in tokens, prefix and special tokens included, before truncation."""
        return [len(ids) for ids in self.tokenizer(self.prompted(texts), truncation=False)["input_ids"]]

    def truncated_count(self, texts: Sequence[str]) -> int:
        """How many texts are longer than `max_length` tokens (and so are cut)."""
        return sum(n > self.max_length for n in self.token_counts(texts))

    @property
    def dimension(self) -> int:
        return int(self.model.config.hidden_size)


class SentenceTransformerEncoder:
    """Any sentence-transformers pipeline, through its own `encode` (no remote code)."""

    def __init__(self, path: str | Path, name: str | None = None, device: str | None = None,
                 local_files_only: bool = True) -> None:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging

        logging.disable_progress_bar()
        self.model = SentenceTransformer(str(path), device=str(pick_device(device)), trust_remote_code=False,
                                         local_files_only=local_files_only)
        self.name = name or str(path)
        self.max_length = int(self.model.max_seq_length or 512)

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray:
        """The pipeline's own `encode`, called once per group of texts of equal token length (after truncation), on
        one intra-op thread, so its batches pad nothing and each row is a function of its text alone, as
        `TransformerEncoder`'s (its passes run in order here: the pipeline tokenises inside, which is not safe
        from several threads)."""
        import numpy as np

        texts = list(texts)
        if not texts:
            return np.zeros((0, self.model.get_embedding_dimension() or 0), dtype=np.float32)
        lengths = [min(n, self.max_length) for n in self.token_counts(texts)]
        groups = equal_length_batches(lengths, len(texts), None)
        out: np.ndarray | None = None
        show = _show(show_progress_bar, len(texts))
        with one_thread_per_pass(self.model.device.type == "cpu"):  # in order: the pipeline tokenises inside
            for group in groups:
                vectors = np.asarray(self.model.encode([texts[i] for i in group], batch_size=batch_size,
                                                       convert_to_numpy=True, show_progress_bar=show),
                                     dtype=np.float32)
                if out is None:
                    out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
                out[group] = vectors
        return out

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self.model.tokenizer(list(texts), truncation=False)["input_ids"]]

    def truncated_count(self, texts: Sequence[str]) -> int:
        return sum(n > self.max_length for n in self.token_counts(texts))


class LazyTransformerEncoder:
    """A `TransformerEncoder` built on first use. Its settings and dtype are known up front (read from the
    checkpoint's JSON files), so the embedding cache can be keyed and a fully cached run never loads torch
    weights; encoding or counting tokens loads it."""

    def __init__(self, build: Callable[[], TransformerEncoder], name: str, settings: TransformerSettings,
                 dtype: str = "float32") -> None:
        self._build = build
        self._loaded: TransformerEncoder | None = None
        self.name = name
        self.pooling, self.max_length, self.normalize = settings.pooling, settings.max_length, settings.normalize
        self.prefix = settings.prefix
        self.dtype = dtype

    @property
    def loaded(self) -> TransformerEncoder:
        if self._loaded is None:
            self._loaded = self._build()
        return self._loaded

    @property
    def is_loaded(self) -> bool:
        return self._loaded is not None

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray:
        return self.loaded.encode(texts, batch_size=batch_size, show_progress_bar=show_progress_bar)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        return self.loaded.token_counts(texts)

    def truncated_count(self, texts: Sequence[str]) -> int:
        return self.loaded.truncated_count(texts)


def sentence_transformers_plan(path: Path, max_length: int | None = None) -> tuple[Path, TransformerSettings] | None:
    """The transformers subfolder and settings of a sentence-transformers folder whose pipeline is exactly
    Transformer -> Pooling(cls|mean) [-> Normalize] (so it loads as a trainable `TransformerEncoder`);
    None for any other pipeline. Reads JSON files only."""
    path = Path(path)
    modules = json.loads((path / "modules.json").read_text())
    kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
    if kinds[:2] != ["Transformer", "Pooling"] or kinds[2:] not in ([], ["Normalize"]):
        return None
    pooling_config = json.loads((path / modules[1]["path"] / "config.json").read_text())
    mode = "mean" if pooling_config.get("pooling_mode_mean_tokens") else (
        "cls_before_pooler" if pooling_config.get("pooling_mode_cls_token") else None)
    if mode is None:
        return None
    folder = path / modules[0]["path"]
    length = _read_json(folder / "sentence_bert_config.json").get("max_seq_length")
    return folder, transformer_settings(folder, pooling=mode, max_length=max_length or length,
                                        normalize=kinds[2:] == ["Normalize"])


def weights_digest(folder: Path) -> str:
    """sha256 over a checkpoint's weight files (each file's name, then its bytes): the identity of the
    vectors it makes. Remembered in `$SENTIBENCH_HOME/weights-digests.json` under the folder's path with
    each file's size and modification time, so an unchanged checkpoint is read once, not on every run."""
    from sentibench.core.io import atomic_write_json
    from sentibench.core.paths import home

    files = sorted(p for p in Path(folder).rglob("*") if p.suffix in WEIGHT_SUFFIXES)
    stamp = [[str(f.relative_to(folder)), f.stat().st_size, f.stat().st_mtime_ns] for f in files]
    memo_file, key = home() / "weights-digests.json", str(Path(folder).resolve())
    remembered = _read_json(memo_file).get(key, {})
    if remembered.get("files") == stamp:
        return remembered["sha256"]
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.name.encode())
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 22), b""):
                digest.update(block)
    atomic_write_json(memo_file, {**_read_json(memo_file), key: {"files": stamp, "sha256": digest.hexdigest()}})
    return digest.hexdigest()


def _read_json(file: Path) -> dict:
    return json.loads(file.read_text()) if file.is_file() else {}


def _has_safetensors(path: str | Path) -> bool | None:
    folder = Path(path)
    return True if any(folder.glob("*.safetensors")) else (None if not folder.exists() else False)


def _config_max_length(folder: Path) -> int:
    """min(position limit, tokenizer's model_max_length, 512) from config.json and tokenizer_config.json
    (transformers reads the same fields; an absent or huge model_max_length means no tokenizer limit)."""
    limit = _read_json(folder / "config.json").get("max_position_embeddings") or 512
    tok_limit = _read_json(folder / "tokenizer_config.json").get("model_max_length") or limit
    return int(min(limit, tok_limit if tok_limit < 100_000 else limit, 512))


class ObjectEncoder:
    """Any object with an `encode(list[str])` as a sentibench encoder; `batch_size` and `show_progress_bar`
    are passed when its `encode` takes them (a sentence-transformers model does, a plain function may not)."""

    def __init__(self, name: str, model: Any) -> None:
        import inspect

        self.name, self.model = name, model
        try:
            parameters = inspect.signature(model.encode).parameters
        except (TypeError, ValueError):  # a builtin without a signature: pass the texts only
            parameters = {}
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        self._accepted = {"batch_size", "show_progress_bar"} if takes_any else set(parameters)

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress_bar: bool | None = None) -> np.ndarray:
        import numpy as np

        options = {"batch_size": batch_size, "show_progress_bar": bool(show_progress_bar)}
        vectors = self.model.encode(list(texts), **{k: v for k, v in options.items() if k in self._accepted})
        if hasattr(vectors, "detach"):  # a torch tensor
            vectors = vectors.detach().cpu().float().numpy()
        return np.asarray(vectors, dtype=np.float32)
