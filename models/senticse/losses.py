"""SentiCSE's two objectives as small torch modules (Kim et al. 2024, §3.1-3.2, eq. 2-7).

`PolarityMaskedLMLoss` (eq. 2-4): cross-entropy at the masked positions, kept only where the arg-max
prediction's polarity differs from the original token's (delta of eq. 2 over the vocabulary polarity
lookup tensor). Eq. 3-4 *sum* over the masked tokens of each sentence and over the batch; we follow that
by default (`reduction="sum"`); `reduction="mean"` divides by the number of masked tokens, which keeps
lambda_w's meaning independent of batch size and masking rate (a documented choice of the `cpu` preset).

`QuadrupleContrastiveLoss` (eq. 5-7): for quadruples (p_i, p_i+, n_i, n_i+),
L_pos^i = -log e^{s(p_i,p_i+)/tau} / (e^{s(p_i,p_i+)/tau} + sum_j alpha e^{s(p_i,n_j)/tau}) and
L_neg^i = -log e^{s(n_i,n_i+)/tau} / (e^{s(n_i,n_i+)/tau} + sum_j alpha e^{s(n_i,p_j+)/tau}),
j over the whole batch (in-batch negatives, j = i included); L_s = mean_i (L_pos^i + L_neg^i).
The Table 7 ablations keep only L_pos or only L_neg (`terms`).
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from sentibench.training.contrastive import cosine_logits

SENTENCE_TERMS = ("pos", "neg")

SENTICSE_CITATION = """@inproceedings{kim-etal-2024-senticse,
    title = "{S}enti{CSE}: A Sentiment-aware Contrastive Sentence Embedding Framework with Sentiment-guided
             Textual Similarity",
    author = "Kim, Jaemin and Na, Yohan and Kim, Kangmin and Lee, Sang Rak and Chae, Dong-Kyu",
    booktitle = "Proceedings of the 2024 Joint International Conference on Computational Linguistics, Language
                 Resources and Evaluation (LREC-COLING 2024)",
    year = "2024",
}"""


class PolarityMaskedLMLoss(torch.nn.Module):
    """Eq. 2-4: masked-token cross-entropy times delta(x_k, x_hat_k) = [S(x_k) != S(x_hat_k)]."""

    def __init__(self, polarity: torch.Tensor, reduction: str = "sum") -> None:
        super().__init__()
        if reduction not in ("sum", "mean"):
            raise ValueError(f"reduction must be 'sum' or 'mean', not {reduction!r}")
        self.register_buffer("polarity", polarity.long(), persistent=False)
        self.reduction = reduction

    def forward(self, logits: torch.Tensor, originals: torch.Tensor) -> torch.Tensor:
        """logits [M, V] at the M masked positions of the batch (the head runs only there);
        originals [M]: the token ids that were masked."""
        if originals.numel() == 0:
            return logits.sum() * 0.0
        nll = F.cross_entropy(logits.float(), originals, reduction="none")
        predicted = logits.argmax(dim=-1)
        delta = (self.polarity[originals] != self.polarity[predicted]).to(nll.dtype)
        total = (nll * delta).sum()
        return total / originals.numel() if self.reduction == "mean" else total

    def get_config_dict(self) -> dict[str, Any]:
        return {"reduction": self.reduction}

    @property
    def citation(self) -> str:
        return SENTICSE_CITATION


class QuadrupleContrastiveLoss(torch.nn.Module):
    """Eq. 5-7 with in-batch negatives weighted by alpha and temperature tau."""

    def __init__(self, temperature: float = 0.05, alpha: float = 1.0,
                 terms: tuple[str, ...] = SENTENCE_TERMS) -> None:
        super().__init__()
        if not terms or any(term not in SENTENCE_TERMS for term in terms):
            raise ValueError(f"terms must be a non-empty subset of {SENTENCE_TERMS}, not {terms!r}")
        if alpha <= 0:
            raise ValueError("alpha must be positive")
        self.temperature, self.alpha, self.terms = temperature, alpha, tuple(terms)
        self.log_alpha = math.log(alpha)

    def _term(self, anchor: torch.Tensor, partner: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
        """-log softmax of the partner against the alpha-weighted negatives, one value per anchor."""
        positive = cosine_logits(anchor, partner, self.temperature).diagonal().unsqueeze(-1)
        negative = cosine_logits(anchor, negatives, self.temperature) + self.log_alpha  # log(alpha * e^{s/tau})
        return -(positive.squeeze(-1) - torch.logsumexp(torch.cat([positive, negative], dim=1), dim=1))

    def forward(self, p: torch.Tensor, p_plus: torch.Tensor, n: torch.Tensor,
                n_plus: torch.Tensor) -> torch.Tensor:
        """Each argument [N, d]: row i of the four is quadruple q_i."""
        total = p.new_zeros(p.shape[0], dtype=torch.float32)
        if "pos" in self.terms:
            total = total + self._term(p, p_plus, n)
        if "neg" in self.terms:
            total = total + self._term(n, n_plus, p_plus)
        return total.mean()

    def get_config_dict(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "alpha": self.alpha, "terms": list(self.terms)}

    @property
    def citation(self) -> str:
        return SENTICSE_CITATION
