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
from sentibench.models.methods.polarity.examples import InputType

TripletDistance = Literal["euclidean", "cosine"]


@dataclass(frozen=True)
class LossSpec:
    """One of Table 2's losses: the library class that computes it, its input type and its margins."""

    name: str
    library_class: str                  # a class of sentence_transformers' losses module
    input_type: InputType
    paper_margins: tuple[float, ...]    # Table 2; () for a loss without a margin
    default_margin: float | None        # Table 2's default (the library's)
    margin_argument: str | None         # the class's keyword for the margin; None without one

    def build(self, model, margin: float | None = None, triplet_distance: TripletDistance = "euclidean"):
        """The library loss on `model`, with `margin` (None: Table 2's default); an nn.Module with the
        library's own `get_config_dict` and `citation`."""
        from sentence_transformers.sentence_transformer import losses

        loss_class = getattr(losses, self.library_class)
        if self.margin_argument is None:
            if margin is not None:
                raise BenchError(f"loss '{self.name}' has no margin; drop the margin option")
            return loss_class(model)
        arguments = {self.margin_argument: self.default_margin if margin is None else float(margin)}
        if self.library_class == "TripletLoss":
            arguments["distance_metric"] = {"euclidean": losses.TripletDistanceMetric.EUCLIDEAN,
                                            "cosine": losses.TripletDistanceMetric.COSINE}[triplet_distance]
        return loss_class(model, **arguments)


LOSSES: dict[str, LossSpec] = {spec.name: spec for spec in (
    LossSpec("triplet", "TripletLoss", "triplet", (0.01, 0.1, 1.0, 5.0, 7.5, 10.0), 5.0, "triplet_margin"),
    LossSpec("contrastive", "ContrastiveLoss", "contrastive", (0.1, 0.25, 0.5, 0.75, 1.0), 0.5, "margin"),
    LossSpec("online-contrastive", "OnlineContrastiveLoss", "contrastive", (0.1, 0.25, 0.5, 0.75, 1.0), 0.5,
             "margin"),
    LossSpec("mnrl", "MultipleNegativesRankingLoss", "mnrl", (), None, None),
)}


def loss_spec(name: str) -> LossSpec:
    """The spec named `name`; an unknown name is a one-line error listing the four."""
    if name not in LOSSES:
        raise BenchError(f"unknown polarity-st loss '{name}'; choose {', '.join(LOSSES)}")
    return LOSSES[name]
