"""Polarity-aware sentence-transformer fine-tuning (polarity-aware retrieval paper, §3.3-3.4): kNN example
generation (neighbours split by polarity), the library's Triplet / Contrastive / OnlineContrastive /
MultipleNegativesRanking losses with their margins, and the SetFit baseline. Registers the methods
`polarity-st` and `setfit`."""

import argparse

from sentibench.training.methods import Command, Method, register_method

REFERENCE = ("Polarity-aware semantic retrieval with fine-tuned sentence embeddings (anonymous, under review; "
             "a later version: 'Margins in Contrastive Learning'). §3.3-3.4, Appendix A, Tables 2, 5, 6, 8.")



def _sweep_arguments(parser: argparse.ArgumentParser) -> None:
    from sentibench.models.methods.polarity.sweep import arguments  # light: no torch

    arguments(parser)


register_method(Method(
    name="polarity-st", presets=("paper", "cpu", "plateau"),
    entry_point="sentibench.models.methods.polarity.train:train",
    reference=REFERENCE,
    commands=(Command(("sweep", "polarity-st"), "train and score the paper's loss x margin grid (Tables 5 and 6, "
                      "resumable), then render its tables and scatter", _sweep_arguments,
                      "sentibench.models.methods.polarity.sweep:command"),),
    description="polarity-st: a sentence-transformer fine-tuned with the library's trainer on kNN-generated "
                "examples (same/other-polarity neighbours above a similarity threshold) with a Triplet, "
                "Contrastive, OnlineContrastive or MultipleNegativesRanking loss."))

register_method(Method(
    name="setfit", presets=("paper", "cpu"),
    entry_point="sentibench.models.methods.polarity.setfit_baseline:train", reference=REFERENCE,
    description="SetFit baseline (setfit library, optional extra): CosineSimilarityLoss on sampled same/other-label "
                "pairs, then a differentiable head trained end to end."))
