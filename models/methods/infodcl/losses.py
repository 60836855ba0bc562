"""InfoDCL's losses (Zhang et al. 2023, §3.2-3.4, B.2-B.3), as small torch modules over a batch of 2m
embeddings.

Both contrastive losses are SCL (eq. 2) with a weight w_{i,a} > 0 on every term a != i of anchor i:

    L = mean_i  -1/|P_i| sum_{p in P_i} log( w_{i,p} e^{s_ip/tau} / sum_{a != i} w_{i,a} e^{s_ia/tau} )

with s the cosine similarity and P_i the other samples carrying anchor i's label. `WeightedSupConLoss`
takes log w (so a zero weight is -inf and the term simply vanishes) and evaluates it with `log_softmax`.
- **CCL** (eq. 4): w_{i,a} = W[y_i, y_a] from the NPMI matrix for a of another label, 1 for a of the same
  label: eq. 4's numerator is unweighted and the matrix re-weights the negatives only (`npmi` explains the
  diagonal). The positives' denominator terms keep weight 1, so the loss is always finite.
- **LCL-LiT** (eq. 3): w_{i,a} = softmax(SLP logits of x_i)[y_a], the model's own surrogate-label
  confidence, in the numerator too (w_{i,y_i}), as eq. 3 prints it. The authors' code instead multiplies
  the whole log term by w_{i,y_i} outside the log; we follow the equation. Whether the weights carry a
  gradient is the caller's choice (`detach`): the authors do not detach, the paper is silent.
Reductions: the paper sums over the 2m anchors; we average over the anchors that have a positive (the
authors' code averages too), so lambda and gamma weigh batch-size-free quantities. An anchor without a
positive in the batch is left out (the authors' code divides 0 by 0 there); a batch with none gives 0.
"""

from __future__ import annotations

from typing import Any

import torch

from sentibench.training.contrastive import cosine_logits

INFODCL_CITATION = """@inproceedings{zhang-etal-2023-contrastive,
    title = "Contrastive Learning of Sociopragmatic Meaning in Social Media",
    author = "Zhang, Chiyu and Abdul-Mageed, Muhammad and Jawahar, Ganesh",
    booktitle = "Findings of the Association for Computational Linguistics: ACL 2023",
    year = "2023",
}"""


class WeightedSupConLoss(torch.nn.Module):
    """The shared form above (SCL, eq. 2, with a weight on every term a != i), temperature tau."""

    def __init__(self, temperature: float) -> None:
        super().__init__()
        if temperature <= 0:
            raise ValueError(f"the temperature must be positive, got {temperature}")
        self.temperature = temperature

    def forward(self, embeddings: torch.Tensor, labels: torch.Tensor, log_weights: torch.Tensor) -> torch.Tensor:
        """embeddings [n, d], labels [n], log_weights [n, n] (row = anchor)."""
        n = embeddings.shape[0]
        self_mask = torch.eye(n, dtype=torch.bool, device=embeddings.device)
        logits = (cosine_logits(embeddings, embeddings, self.temperature) + log_weights).masked_fill(
            self_mask, float("-inf"))
        log_prob = torch.log_softmax(logits, dim=1)
        positives = (labels[:, None] == labels[None, :]) & ~self_mask
        count = positives.sum(1)
        has_positive = count > 0
        if not bool(has_positive.any()):
            return embeddings.sum() * 0.0
        per_anchor = -torch.where(positives, log_prob, torch.zeros_like(log_prob)).sum(1)
        return (per_anchor[has_positive] / count[has_positive]).mean()

    def get_config_dict(self) -> dict[str, Any]:
        return {"temperature": self.temperature}

    @property
    def citation(self) -> str:
        return INFODCL_CITATION


class CorpusAwareContrastiveLoss(WeightedSupConLoss):
    """CCL (eq. 4): log w_{i,a} = log W[y_i, y_a] across labels, 0 within a label, with the NPMI weights
    W = 1 - max(0, npmi) (`npmi`), held as a buffer."""

    def __init__(self, weight_matrix: torch.Tensor, temperature: float) -> None:
        super().__init__(temperature)
        self.register_buffer("weight_matrix", weight_matrix, persistent=False)

    def log_weights(self, labels: torch.Tensor) -> torch.Tensor:
        log_w = torch.log(self.weight_matrix[labels][:, labels])
        same = labels[:, None] == labels[None, :]
        return torch.where(same, torch.zeros_like(log_w), log_w)

    def forward(self, embeddings: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return super().forward(embeddings, labels, self.log_weights(labels))


class LabelAwareContrastiveLoss(WeightedSupConLoss):
    """LCL-LiT (eq. 3, §3.4): w_{i,a} = softmax(SLP logits of x_i)[y_a]; `detach` stops the weights'
    gradient."""

    def __init__(self, temperature: float, detach: bool = False) -> None:
        super().__init__(temperature)
        self.detach = detach

    def forward(self, embeddings: torch.Tensor, labels: torch.Tensor, label_logits: torch.Tensor) -> torch.Tensor:
        log_confidence = torch.log_softmax(label_logits.float(), dim=-1)
        if self.detach:
            log_confidence = log_confidence.detach()
        return super().forward(embeddings, labels, log_confidence[:, labels])

    def get_config_dict(self) -> dict[str, Any]:
        return {**super().get_config_dict(), "detach": self.detach}


class DistantContrastiveLoss(torch.nn.Module):
    """L_DCL-LiT (eq. 5/6): gamma L_LCL-LiT + (1 - gamma) L_CCL, and its Table 18 ablations as the authors'
    flags run them: without CCL (`weight_matrix` None) L_DCL = L_LCL-LiT; without LCL (`label_aware`
    False) L_DCL = L_CCL; without both, plain SCL (eq. 2)."""

    def __init__(self, temperature: float, gamma: float, weight_matrix: torch.Tensor | None,
                 label_aware: bool = True, detach: bool = False) -> None:
        super().__init__()
        self.gamma = gamma
        self.lcl = LabelAwareContrastiveLoss(temperature, detach) if label_aware else None
        self.ccl = CorpusAwareContrastiveLoss(weight_matrix, temperature) if weight_matrix is not None else None
        self.scl = WeightedSupConLoss(temperature) if self.lcl is None and self.ccl is None else None

    def forward(self, embeddings: torch.Tensor, labels: torch.Tensor, label_logits: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, dict[str, float]]:
        """The loss and each part's value; `label_logits` (the SLP head's) are needed with LCL."""
        if self.scl is not None:
            n = len(labels)
            scl = self.scl(embeddings, labels, torch.zeros(n, n, device=embeddings.device))
            return scl, {"scl": scl.item()}
        parts: dict[str, float] = {}
        lcl = ccl = None
        if self.lcl is not None:
            if label_logits is None:
                raise ValueError("LCL-LiT needs the SLP head's label logits")
            lcl = self.lcl(embeddings, labels, label_logits)
            parts["lcl"] = lcl.item()
        if self.ccl is not None:
            ccl = self.ccl(embeddings, labels)
            parts["ccl"] = ccl.item()
        if lcl is not None and ccl is not None:
            return self.gamma * lcl + (1.0 - self.gamma) * ccl, parts
        return lcl if lcl is not None else ccl, parts

    def get_config_dict(self) -> dict[str, Any]:
        temperature = next(loss for loss in (self.lcl, self.ccl, self.scl) if loss is not None).temperature
        return {"temperature": temperature, "gamma": self.gamma, "label_aware": self.lcl is not None,
                "corpus_aware": self.ccl is not None, "detach": self.lcl.detach if self.lcl is not None else False}

    @property
    def citation(self) -> str:
        return INFODCL_CITATION


class InfoDCLLoss(torch.nn.Module):
    """Eq. 7: lambda_1 L_MLM + lambda_2 L_SLP + (1 - lambda_1 - lambda_2) L_DCL-LiT. An ablated part is None
    and its lambda is 0 (so without MLM, L_DCL gets 1 - lambda_2; the authors' code does the same)."""

    def __init__(self, lambda_mlm: float, lambda_slp: float) -> None:
        super().__init__()
        self.lambda_mlm, self.lambda_slp = lambda_mlm, lambda_slp

    def forward(self, dcl: torch.Tensor, mlm: torch.Tensor | None, slp: torch.Tensor | None) -> torch.Tensor:
        lam1 = self.lambda_mlm if mlm is not None else 0.0
        lam2 = self.lambda_slp if slp is not None else 0.0
        total = (1.0 - lam1 - lam2) * dcl
        if mlm is not None:
            total = total + lam1 * mlm
        if slp is not None:
            total = total + lam2 * slp
        return total

    def get_config_dict(self) -> dict[str, Any]:
        return {"lambda_mlm": self.lambda_mlm, "lambda_slp": self.lambda_slp}

    @property
    def citation(self) -> str:
        return INFODCL_CITATION
