"""The harness's torch encoders.

`TransformerEncoder` wraps any transformers checkpoint with a pooling rule and is what trainable methods
fine-tune. `SentenceTransformerEncoder` wraps a sentence-transformers pipeline the harness cannot express
as (transformer, pooling, normalise). Both sort texts by length, batch, run without gradients.
`LazyTransformerEncoder` defers loading until a text really has to be encoded: its settings (the cache
key's fields) are read from the checkpoint's JSON files, so a fully cached run never loads the model.
numpy and torch are imported by the code that runs a model, never by importing this module.

Pooling rules (SimCSE's names):
- ``cls``: the [CLS] state through the checkpoint's pooler when it has one, else the raw [CLS] state;
- ``cls_before_pooler``: the raw [CLS] hidden state;
- ``pooler_output``: the checkpoint's pooler output (an error if it has none);
- ``mean``: the attention-masked mean of the last hidden states.

How their texts are cut into forward passes, and why a text's vector never depends on its batch-mates, is
`batching`'s; devices and dtypes are `devices`'.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sentibench.core.errors import BenchError
from sentibench.embed.batching import (
    CPU_TOKENS_PER_FORWARD,
    equal_length_batches,
    one_thread_per_pass,
    progress_label,
    show_progress,
    token_budget_batches,
)
from sentibench.embed.devices import check_dtype, cpu_has_bf16, pick_device

if TYPE_CHECKING:
    import numpy as np
    import torch

POOLINGS = ("cls", "cls_before_pooler", "pooler_output", "mean")
POOLING_FILE = "sentibench_pooling.json"


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
                   disable=not show_progress(show_progress_bar, len(texts)))
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
        show = show_progress(show_progress_bar, len(texts))
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
