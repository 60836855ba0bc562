"""SIFTER-SimCSE's three-way contrastive loss (Yu et al., §3.3, eq. 2).

    l_i = lambda_XY * InfoNCE(h_i, h_i^Y+) + lambda_XZ * InfoNCE(h_i, h_i^Z+) + lambda_YZ * InfoNCE(h_i^Y+, h_i^Z+)

with in-batch negatives and temperature tau (0.05). The printed denominators of eq. 2 sum
e^{sim(h_j, h_j^Y)/tau}, which does not depend on i (it would make every term a constant shift of the
numerator); we read it as a typo for the standard InfoNCE denominator sum_j e^{sim(h_i, h_j^Y+)/tau} of
eq. 1, and implement that (`sentibench.training.contrastive.InfoNCELoss`). The batch loss is the mean over
i (the paper sums; the mean only rescales the learning rate by N). The lambdas are §6.1's ablation:
setting two to zero keeps one pair.
"""

from __future__ import annotations

from typing import Any

import torch

from sentibench.training.contrastive import InfoNCELoss

SIFTER_CITATION = """@misc{yu-etal-sifter,
    title = "{SIFTER}: A Task-specific Alignment Strategy for Enhancing Sentence Embeddings",
    author = "Yu, Chao and Zhu, Wenhao and Liu, Chaoming and Zhang, Xiaoyu and Zhai, Qiuhong",
    note = "Shanghai University",
}"""

PAIRS = ("xy", "xz", "yz")


class SifterLoss(torch.nn.Module):
    """Eq. 2: the lambda-weighted sum of InfoNCE over the pairs (X, Y+), (X, Z+) and (Y+, Z+)."""

    def __init__(self, temperature: float = 0.05, lambdas: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> None:
        super().__init__()
        if len(lambdas) != len(PAIRS) or any(weight < 0 for weight in lambdas) or not any(lambdas):
            raise ValueError(f"the lambdas of eq. 2 must be three non-negative numbers, not all zero, got {lambdas}")
        self.info_nce = InfoNCELoss(temperature)
        self.lambdas = tuple(float(weight) for weight in lambdas)

    def forward(self, x: torch.Tensor, y_plus: torch.Tensor, z_plus: torch.Tensor
                ) -> tuple[torch.Tensor, dict[str, float]]:
        """Eq. 2 over [N, d] embeddings of X, Y+ (sentence + backbone) and Z+ (sentence minus unimportant
        words); returns the weighted sum and each kept term's value (unweighted)."""
        pairs = dict(zip(PAIRS, ((x, y_plus), (x, z_plus), (y_plus, z_plus))))
        weights = dict(zip(PAIRS, self.lambdas))
        terms = {name: self.info_nce(*pairs[name]) for name in PAIRS if weights[name]}
        total = sum(weights[name] * term for name, term in terms.items())
        return total, {f"l_{name}": float(term.detach()) for name, term in terms.items()}

    def get_config_dict(self) -> dict[str, Any]:
        return {"temperature": self.info_nce.temperature, "lambdas": list(self.lambdas)}

    @property
    def citation(self) -> str:
        return SIFTER_CITATION
