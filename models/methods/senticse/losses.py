"""SentiCSE's two objectives as small torch modules (Kim et al. 2024, §3.1-3.2, eq. 2-7).

`PolarityMaskedLMLoss` (eq. 2-4): cross-entropy at the masked positions, kept only where the arg-max
prediction's polarity differs from the original token's (delta of eq. 2 over the vocabulary polarity
lookup tensor). Eq. 3-4 *sum* over the masked tokens of each sentence and over the batch; we follow that
by default (`reduction="sum"`); `reduction="mean"` divides by the number of masked tokens, which keeps
lambda_w's meaning independent of batch size and masking rate (a documented choice of the `cpu` preset);
`reduction="mean-kept"` divides by the number of tokens delta keeps (the authors' code: cross-entropy averaged
over the kept tokens). `delta="any-change"` (eq. 2 read literally) keeps a token whose prediction's polarity
code differs from the original's (a neutral prediction counts); `delta="polar-flip"` keeps it only when a
positive word was predicted as a negative one or the reverse (the authors' code).

`QuadrupleContrastiveLoss` (eq. 5-7): for quadruples (p_i, p_i+, n_i, n_i+),
L_pos^i = -log e^{s(p_i,p_i+)/tau} / (e^{s(p_i,p_i+)/tau} + sum_j alpha e^{s(p_i,n_j)/tau}) and
L_neg^i = -log e^{s(n_i,n_i+)/tau} / (e^{s(n_i,n_i+)/tau} + sum_j alpha e^{s(n_i,p_j+)/tau}),
j over the whole batch (in-batch negatives, j = i included); L_s = mean_i (L_pos^i + L_neg^i).
The Table 7 ablations keep only L_pos or only L_neg (`terms`).

Negative weighting (`weighting`): `"multiply"` is eq. 5-6 as printed, every in-batch negative's exponential
times alpha (log alpha added to its logit; alpha > 0). `"add-to-logits"` adds log-weights to the logits, as
the authors' code (and SimCSE's `hard_negative_weight`) does: `positive_log_weight` to the positive,
alpha to the anchor's own hard negative (j = i) and `in_batch_log_weight` to the other in-batch negatives;
alpha = 0 (Table 14's first row) is then an unweighted hard negative.

L_neg's anchor (`negative_anchor`): `"n"` is eq. 6 as printed (anchor n_i, partner n_i+, negatives
s(n_i, p_j+)); `"n-plus"` anchors it on n_i+ with partner n_i, so the negatives are s(n_i+, p_j+), as the
authors' code does (`sim(z4, z2)`). The positive logit is the same either way (cosine is symmetric).
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from sentibench.models.methods.senticse.lexicon import NEGATIVE, POSITIVE
from sentibench.training.contrastive import cosine_logits

SENTENCE_TERMS = ("pos", "neg")
WORD_REDUCTIONS = ("sum", "mean", "mean-kept")
WORD_DELTAS = ("any-change", "polar-flip")
NEGATIVE_WEIGHTINGS = ("multiply", "add-to-logits")
NEGATIVE_ANCHORS = ("n", "n-plus")

SENTICSE_CITATION = """@inproceedings{kim-etal-2024-senticse,
    title = "{S}enti{CSE}: A Sentiment-aware Contrastive Sentence Embedding Framework with Sentiment-guided
             Textual Similarity",
    author = "Kim, Jaemin and Na, Yohan and Kim, Kangmin and Lee, Sang Rak and Chae, Dong-Kyu",
    booktitle = "Proceedings of the 2024 Joint International Conference on Computational Linguistics, Language
                 Resources and Evaluation (LREC-COLING 2024)",
    year = "2024",
}"""


class PolarityMaskedLMLoss(torch.nn.Module):
    """Eq. 2-4: masked-token cross-entropy times delta(x_k, x_hat_k) (`delta`: any polarity change, or only
    a positive <-> negative flip), summed or averaged (`reduction`)."""

    def __init__(self, polarity: torch.Tensor, reduction: str = "sum", delta: str = "any-change") -> None:
        super().__init__()
        if reduction not in WORD_REDUCTIONS:
            raise ValueError(f"reduction must be one of {WORD_REDUCTIONS}, not {reduction!r}")
        if delta not in WORD_DELTAS:
            raise ValueError(f"delta must be one of {WORD_DELTAS}, not {delta!r}")
        self.register_buffer("polarity", polarity.long(), persistent=False)
        self.reduction, self.delta = reduction, delta

    def forward(self, logits: torch.Tensor, originals: torch.Tensor) -> torch.Tensor:
        """logits [M, V] at the M masked positions of the batch (the head runs only there);
        originals [M]: the token ids that were masked."""
        if originals.numel() == 0:
            return logits.sum() * 0.0
        nll = F.cross_entropy(logits.float(), originals, reduction="none")
        predicted = logits.argmax(dim=-1)
        original, guess = self.polarity[originals], self.polarity[predicted]
        if self.delta == "polar-flip":
            kept = ((original == POSITIVE) & (guess == NEGATIVE)) | ((original == NEGATIVE) & (guess == POSITIVE))
        else:
            kept = original != guess
        total = (nll * kept.to(nll.dtype)).sum()
        if self.reduction == "mean":
            return total / originals.numel()
        if self.reduction == "mean-kept":
            return total / kept.sum().clamp(min=1)
        return total

    def get_config_dict(self) -> dict[str, Any]:
        return {"reduction": self.reduction, "delta": self.delta}

    @property
    def citation(self) -> str:
        return SENTICSE_CITATION


class QuadrupleContrastiveLoss(torch.nn.Module):
    """Eq. 5-7 with weighted in-batch negatives (`weighting`), L_neg anchored on n or n+ (`negative_anchor`;
    see the module docstring) and temperature tau."""

    def __init__(self, temperature: float = 0.05, alpha: float = 1.0,
                 terms: tuple[str, ...] = SENTENCE_TERMS, weighting: str = "multiply",
                 positive_log_weight: float = 0.0, in_batch_log_weight: float = 0.0,
                 negative_anchor: str = "n") -> None:
        super().__init__()
        if not terms or any(term not in SENTENCE_TERMS for term in terms):
            raise ValueError(f"terms must be a non-empty subset of {SENTENCE_TERMS}, not {terms!r}")
        if weighting not in NEGATIVE_WEIGHTINGS:
            raise ValueError(f"weighting must be one of {NEGATIVE_WEIGHTINGS}, not {weighting!r}")
        if negative_anchor not in NEGATIVE_ANCHORS:
            raise ValueError(f"negative_anchor must be one of {NEGATIVE_ANCHORS}, not {negative_anchor!r}")
        if weighting == "multiply" and alpha <= 0:
            raise ValueError("alpha must be positive when it multiplies the negatives")
        self.temperature, self.alpha, self.terms, self.weighting = temperature, alpha, tuple(terms), weighting
        self.positive_log_weight, self.in_batch_log_weight = positive_log_weight, in_batch_log_weight
        self.negative_anchor = negative_anchor

    def _log_weights(self, n: int, device: torch.device) -> tuple[float, torch.Tensor]:
        """(added to the positive logit, [n, n] added to the negatives' logits; row i, column j)."""
        if self.weighting == "multiply":
            return 0.0, torch.full((n, n), math.log(self.alpha), device=device)
        weights = torch.full((n, n), self.in_batch_log_weight, device=device)
        weights.fill_diagonal_(self.alpha)
        return self.positive_log_weight, weights

    def _term(self, anchor: torch.Tensor, partner: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
        """-log softmax of the partner against the weighted negatives, one value per anchor."""
        positive_weight, negative_weights = self._log_weights(anchor.shape[0], anchor.device)
        positive = cosine_logits(anchor, partner, self.temperature).diagonal().unsqueeze(-1) + positive_weight
        negative = cosine_logits(anchor, negatives, self.temperature) + negative_weights
        return -(positive.squeeze(-1) - torch.logsumexp(torch.cat([positive, negative], dim=1), dim=1))

    def forward(self, p: torch.Tensor, p_plus: torch.Tensor, n: torch.Tensor,
                n_plus: torch.Tensor) -> torch.Tensor:
        """Each argument [N, d]: row i of the four is quadruple q_i."""
        total = p.new_zeros(p.shape[0], dtype=torch.float32)
        if "pos" in self.terms:
            total = total + self._term(p, p_plus, n)
        if "neg" in self.terms:
            anchor, partner = (n, n_plus) if self.negative_anchor == "n" else (n_plus, n)
            total = total + self._term(anchor, partner, p_plus)
        return total.mean()

    def get_config_dict(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "alpha": self.alpha, "terms": list(self.terms),
                "weighting": self.weighting, "positive_log_weight": self.positive_log_weight,
                "in_batch_log_weight": self.in_batch_log_weight, "negative_anchor": self.negative_anchor}

    @property
    def citation(self) -> str:
        return SENTICSE_CITATION
