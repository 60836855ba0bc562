"""The contrastive core the methods compose: temperature-scaled cosine logits and InfoNCE with in-batch
negatives (SimCSE, Gao et al. 2021, eq. 1; SimCLR's NT-Xent, one direction).

    l_i = -log e^{sim(a_i, b_i)/tau} / sum_j e^{sim(a_i, b_j)/tau},   sim = cosine,   L = mean_i l_i

Row i of `anchors` and row i of `positives` are a positive pair; every other row of `positives` is a
negative for anchor i. Unsupervised SimCSE is this loss over two dropout-noised encodings of the same
sentences; methods that build other positives (SIFTER) sum several of it, and methods with other
denominators (SentiCSE's weighted negatives, InfoDCL's weighted supervised form) start from
`cosine_logits`.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

SIMCSE_CITATION = """@inproceedings{gao-etal-2021-simcse,
    title = "{S}im{CSE}: Simple Contrastive Learning of Sentence Embeddings",
    author = "Gao, Tianyu and Yao, Xingcheng and Chen, Danqi",
    booktitle = "Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing",
    year = "2021",
}"""


def cosine_logits(anchors: torch.Tensor, candidates: torch.Tensor, temperature: float) -> torch.Tensor:
    """[N, M] cosine similarities of every anchor row to every candidate row, in float32, divided by tau."""
    return F.normalize(anchors.float(), dim=-1) @ F.normalize(candidates.float(), dim=-1).T / temperature


class InfoNCELoss(torch.nn.Module):
    """Eq. 1 of SimCSE: the mean over the batch of l_i, with temperature tau."""

    def __init__(self, temperature: float = 0.05) -> None:
        super().__init__()
        if temperature <= 0:
            raise ValueError(f"the temperature must be positive, got {temperature}")
        self.temperature = temperature

    def forward(self, anchors: torch.Tensor, positives: torch.Tensor) -> torch.Tensor:
        """`anchors` and `positives` are [N, d] (normalised here); row i of both is a positive pair."""
        if anchors.shape != positives.shape or anchors.dim() != 2:
            raise ValueError(f"InfoNCE needs two [N, d] tensors of one shape, got {tuple(anchors.shape)} and "
                             f"{tuple(positives.shape)}")
        logits = cosine_logits(anchors, positives, self.temperature)
        return F.cross_entropy(logits, torch.arange(len(anchors), device=anchors.device))

    def get_config_dict(self) -> dict[str, Any]:
        return {"temperature": self.temperature}

    @property
    def citation(self) -> str:
        return SIMCSE_CITATION
