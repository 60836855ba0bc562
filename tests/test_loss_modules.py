"""Every hand-written loss is an nn.Module with its hyper-parameters in `get_config_dict()` (rebuilding it
from them gives the same loss) and a BibTeX `citation`; polarity-st's specs build the library's classes."""

import json

import pytest
import torch

from sentibench.models.methods.infodcl.losses import (
    CorpusAwareContrastiveLoss,
    DistantContrastiveLoss,
    InfoDCLLoss,
    LabelAwareContrastiveLoss,
    WeightedSupConLoss,
)
from sentibench.models.methods.senticse.losses import PolarityMaskedLMLoss, QuadrupleContrastiveLoss
from sentibench.models.methods.sifter.losses import SifterLoss
from sentibench.training.contrastive import InfoNCELoss

WEIGHTS = torch.tensor([[0.0, 0.5], [0.5, 0.0]])
LOSSES = [
    InfoNCELoss(0.1),
    SifterLoss(0.2, (1.0, 0.0, 2.0)),
    QuadrupleContrastiveLoss(0.3, alpha=2.0, terms=("neg",)),
    PolarityMaskedLMLoss(torch.tensor([0, 1, 2]), reduction="mean"),
    WeightedSupConLoss(0.4),
    CorpusAwareContrastiveLoss(WEIGHTS, 0.5),
    LabelAwareContrastiveLoss(0.6, detach=True),
    DistantContrastiveLoss(0.7, 0.25, WEIGHTS, label_aware=True, detach=False),
    InfoDCLLoss(0.3, 0.2),
]


@pytest.mark.parametrize("loss", LOSSES, ids=lambda loss: type(loss).__name__)
def test_each_loss_is_a_module_with_a_config_and_a_citation(loss):
    assert isinstance(loss, torch.nn.Module)
    config = loss.get_config_dict()
    assert json.loads(json.dumps(config)) == config and config
    citation = loss.citation
    assert citation.startswith("@") and "title" in citation and "author" in citation and citation.endswith("}")


def test_the_config_names_the_constructor_arguments():
    assert InfoNCELoss(0.1).get_config_dict() == {"temperature": 0.1}
    assert SifterLoss(0.2, (1.0, 0.0, 2.0)).get_config_dict() == {"temperature": 0.2, "lambdas": [1.0, 0.0, 2.0]}
    assert QuadrupleContrastiveLoss(0.3, 2.0, ("neg",)).get_config_dict() == {
        "temperature": 0.3, "alpha": 2.0, "terms": ["neg"], "weighting": "multiply", "positive_log_weight": 0.0,
        "in_batch_log_weight": 0.0, "negative_anchor": "n"}
    assert QuadrupleContrastiveLoss(0.3, 0.0, weighting="add-to-logits", in_batch_log_weight=0.5).get_config_dict() == {
        "temperature": 0.3, "alpha": 0.0, "terms": ["pos", "neg"], "weighting": "add-to-logits",
        "positive_log_weight": 0.0, "in_batch_log_weight": 0.5, "negative_anchor": "n"}
    assert PolarityMaskedLMLoss(torch.tensor([0]), "mean").get_config_dict() == {"reduction": "mean",
                                                                                "delta": "any-change"}
    assert LabelAwareContrastiveLoss(0.6, True).get_config_dict() == {"temperature": 0.6, "detach": True}
    assert DistantContrastiveLoss(0.7, 0.25, None, label_aware=False).get_config_dict() == {
        "temperature": 0.7, "gamma": 0.25, "label_aware": False, "corpus_aware": False, "detach": False}
    assert InfoDCLLoss(0.3, 0.2).get_config_dict() == {"lambda_mlm": 0.3, "lambda_slp": 0.2}


def test_rebuilding_from_the_config_gives_the_same_value():
    a, b, c = (torch.randn(4, 3, generator=torch.Generator().manual_seed(seed)) for seed in range(3))
    for loss in (InfoNCELoss(0.1), SifterLoss(0.2, (1.0, 0.5, 2.0))):
        config = loss.get_config_dict()
        rebuilt = type(loss)(**{k: tuple(v) if isinstance(v, list) else v for k, v in config.items()})
        arguments = (a, b) if isinstance(loss, InfoNCELoss) else (a, b, c)
        first, second = loss(*arguments), rebuilt(*arguments)
        first, second = (value[0] if isinstance(value, tuple) else value for value in (first, second))
        assert first.item() == second.item()


def test_bad_hyper_parameters_are_refused():
    with pytest.raises(ValueError):
        InfoNCELoss(0.0)
    with pytest.raises(ValueError):
        SifterLoss(lambdas=(1.0, 1.0))
    with pytest.raises(ValueError):
        DistantContrastiveLoss(0.1, 0.5, None, label_aware=True)(torch.randn(2, 3), torch.tensor([0, 0]))
