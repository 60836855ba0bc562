"""Polarity-aware sentence-transformer fine-tuning (polarity-aware retrieval paper, §3.3-3.4): kNN example
generation per polarity, the library's Triplet / Contrastive / OnlineContrastive / MultipleNegativesRanking
losses with their margins, and the SetFit baseline. Registers the methods `polarity-st` and `setfit`."""

from sentibench.training.methods import Method, register_method

REFERENCE = ("Polarity-aware semantic retrieval with fine-tuned sentence embeddings (anonymous, under review; "
             "a later version: 'Margins in Contrastive Learning'). §3.3-3.4, Appendix A, Tables 2, 5, 6, 8.")

register_method(Method(
    name="polarity-st", presets=("paper", "cpu"), entry_point="sentibench.models.polarity.train:train",
    reference=REFERENCE,
    description="polarity-st: a sentence-transformer fine-tuned with the library's trainer on kNN-generated "
                "examples (same/other-polarity neighbours above a similarity threshold) with a Triplet, "
                "Contrastive, OnlineContrastive or MultipleNegativesRanking loss."))

register_method(Method(
    name="setfit", presets=("paper", "cpu"),
    entry_point="sentibench.models.polarity.setfit_baseline:train", reference=REFERENCE,
    description="SetFit baseline (setfit library, optional extra): CosineSimilarityLoss on sampled same/other-label "
                "pairs, then a differentiable head trained end to end."))
