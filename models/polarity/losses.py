"""The paper's four losses (§3.3, Table 2), each the sentence-transformers library's own class; nothing is
re-implemented here, only which class, which input type and which margins.

Triplet distance: the paper writes the triplet loss with |emb(A) - emb(P)| (Euclidean), and the library's
TripletLoss defaults to Euclidean with margin 5, so `triplet_distance="euclidean"` is the default. The
authors' code passed cosine distance (1 - cos, at most 2) with every swept margin, so margins above 2 are
never met and the loss's gradient is the same for 5, 7.5 and 10: `triplet_distance="cosine"` reproduces it.
(On a pipeline that L2-normalises, like all-MiniLM-L6-v2, Euclidean distances are also at most 2, so the
same holds there; on an unnormalised one, like paraphrase-MiniLM-L3-v2, they differ.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sentibench.core.errors import BenchError
from sentibench.models.polarity.examples import InputType

TripletDistance = Literal["euclidean", "cosine"]


@dataclass(frozen=True)
class LossSpec:
    name: str
    input_type: InputType
    paper_margins: tuple[float, ...]    # Table 2; () for a loss without a margin
    default_margin: float | None        # Table 2's default (the library's)


LOSSES: dict[str, LossSpec] = {spec.name: spec for spec in (
    LossSpec("triplet", "triplet", (0.01, 0.1, 1.0, 5.0, 7.5, 10.0), 5.0),
    LossSpec("contrastive", "contrastive", (0.1, 0.25, 0.5, 0.75, 1.0), 0.5),
    LossSpec("online-contrastive", "contrastive", (0.1, 0.25, 0.5, 0.75, 1.0), 0.5),
    LossSpec("mnrl", "mnrl", (), None),
)}


def loss_spec(name: str) -> LossSpec:
    if name not in LOSSES:
        raise BenchError(f"unknown polarity-st loss '{name}'; choose {', '.join(LOSSES)}")
    return LOSSES[name]


def build_loss(model, name: str, margin: float | None, triplet_distance: TripletDistance = "euclidean"):
    """The library loss for `name` on `model`, with `margin` (None: Table 2's default)."""
    from sentence_transformers.sentence_transformer import losses

    spec = loss_spec(name)
    if spec.default_margin is None:
        if margin is not None:
            raise BenchError(f"loss '{name}' has no margin; drop the margin option")
        return losses.MultipleNegativesRankingLoss(model)
    margin = spec.default_margin if margin is None else float(margin)
    if name == "triplet":
        metric = {"euclidean": losses.TripletDistanceMetric.EUCLIDEAN,
                  "cosine": losses.TripletDistanceMetric.COSINE}[triplet_distance]
        return losses.TripletLoss(model, distance_metric=metric, triplet_margin=margin)
    if name == "contrastive":
        return losses.ContrastiveLoss(model, margin=margin)
    return losses.OnlineContrastiveLoss(model, margin=margin)
