"""SgTS, Sentiment-guided Textual Similarity (SentiCSE, Kim et al., 2024, §2).

Pairs of sentences get gold similarity 1 when their polarities agree and 0 when they differ; the score is
Spearman's rho (main) and Pearson's r between the pairs' cosine similarities and that 0/1 gold.

Pairs (version 2: all pairs). The paper gives only "429 pairs with 0/1 labels from the 872 validation
sentences" (each sentence used once); any set of pairs over a fixed sentence set estimates the same
quantity, and sampling pairs adds noise of its own (4,000 sampled pairs over MR's test set: SD 0.015 rho
over pair seeds, as large as the gaps between models). Pairs cost nothing to add once each sentence is
encoded, so the score uses every pair of the balanced sentence set (`sentibench.evaluation.sgts`):
  1. the split's positive (larger label value) and negative indices are each shuffled with
     `numpy.random.default_rng(seed)` (positives first) and the first m = min(#pos, #neg, max_per_class)
     of each are kept (IMDB: 2,000 reviews per class);
  2. every unordered pair of those 2m sentences is scored: m(m-1) same-polarity pairs (gold 1) and m^2
     mixed pairs (gold 0). MR's test split: m = 522, 544,446 pairs.
The sentence set's hash (`sentences_hash`) is in every result. The paper's one-pair-per-sentence design is
the `sgts-paper-*` tasks (group `sgts-paper`); version 1's 4,000 sampled pairs are
`sgts_on_split(..., design="sampled")`.

Confidence interval: pairs share sentences, so the unit is the sentence: the linearised bootstrap over
the 2m sentences (`sentibench.evaluation.spearman.spearman_influence`, each pair weighted by the product of
its two sentences' weights). Evaluation uses the test split; model selection (trainers) uses the
validation split, never the test sentences.
"""

from __future__ import annotations

from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.evaluation import metrics
from sentibench.evaluation.sgts import Design, pair_unit_sums, sgts_all_pairs, sgts_on_split
from sentibench.evaluation.spearman import spearman_influence
from sentibench.evaluation.units import LINEARISED, UnitValues
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family


class SgTSTask(Task):
    """SgTS on one dataset's test split, under the all-pairs design (or SentiCSE's, `design="paper"`)."""

    def __init__(self, dataset: str, max_per_class: int | None = None, split: str = "test",
                 design: Design = "all-pairs") -> None:
        self.max_per_class, self.design = max_per_class, design
        paper = design == "paper"
        cap = f" over at most {max_per_class} sentences per class" if max_per_class else ""
        self.metadata = TaskMetadata(
            name=f"sgts-{'paper-' if paper else ''}{dataset}", type="SgTS", dataset=dataset, eval_splits=(split,),
            main_score="cosine_spearman", groups=("sgts-paper",) if paper else ("sgts",), version=2,
            description="Spearman correlation between the cosine similarity of a sentence pair and whether "
                        "the two sentences share a polarity (1) or not (0); "
                        + ("SentiCSE's design: each sentence of the balanced set in one pair" if paper
                           else "every pair of a balanced sentence set") + cap + ".",
            reference="SentiCSE (Kim et al., 2024), §2",
        )

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        split = self.metadata.eval_splits[0]
        columns = get_dataset(self.metadata.dataset).columns(split, ("text", "label"))  # arrow, at once
        cap = min(filter(None, (self.max_per_class, context.limit and context.limit // 2)), default=None)
        texts, labels = columns["text"], columns["label"]
        if self.design != "all-pairs":
            scores, details = sgts_on_split(encoder, texts, labels, seed=context.seed, max_per_class=cap,
                                            batch_size=context.batch_size, design=self.design)
            return Evaluation({split: scores}, details)
        details, cosines, gold = sgts_all_pairs(encoder, texts, labels, context.seed, cap, context.batch_size)
        if not context.intervals:
            return Evaluation({split: metrics.correlations(cosines, gold)}, details)
        scores = metrics.correlations(cosines, gold, spearman=False)
        units = None
        if scores["cosine_pearson"] is not None:
            rho, per_pair = spearman_influence(cosines, gold)
            n = details["n_sentences"]
            values = rho + n * pair_unit_sums(per_pair, n)
            scores["cosine_spearman"] = rho
            units = UnitValues(values, "sentence", LINEARISED, details["sentences_hash"])
        return Evaluation({split: scores}, details, units)


def sgts_family(spec: DatasetSpec) -> list[SgTSTask] | None:
    """Every binary sentiment dataset, packaged or on the Hub only (a hub-only one runs where the Hugging Face
    cache or endpoint can serve it); a long-text set is capped at `max_examples` per polarity."""
    if spec.is_binary and spec.has("sentiment"):
        return [SgTSTask(spec.name, max_per_class=spec.max_examples, design=design)
                for design in ("all-pairs", "paper")]
    return None


register_family("sgts", sgts_family)
