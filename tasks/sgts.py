"""SgTS, Sentiment-guided Textual Similarity (SentiCSE, Kim et al., 2024, §2).

Pairs of sentences get gold similarity 1 when their polarities agree and 0 when they differ; the score is
Spearman's rho (main) and Pearson's r between the pairs' cosine similarities and that 0/1 gold.

Pairs (version 2: all pairs). The paper gives only "429 pairs with 0/1 labels from the 872 validation
sentences" (each sentence used once); any set of pairs over a fixed sentence set estimates the same
quantity, and sampling pairs adds noise of its own (4,000 sampled pairs over MR's test set: SD 0.015 rho
over pair seeds, as large as the gaps between models). Pairs cost nothing to add once each sentence is
encoded, so the score uses every pair of the balanced sentence set. The protocol, whole, is one evaluator,
`sentibench.evaluation.sgts.SgTSEvaluator`; this module holds the tasks' metadata and data:
  1. the split's positive (larger label value) and negative indices are each shuffled with
     `numpy.random.default_rng(seed)` (positives first) and the first m = min(#pos, #neg, max_per_class)
     of each are kept (IMDB: 2,000 reviews per class);
  2. every unordered pair of those 2m sentences is scored: m(m-1) same-polarity pairs (gold 1) and m^2
     mixed pairs (gold 0). MR's test split: m = 522, 544,446 pairs.
The sentence set's hash (`sentences_hash`) is in every result. The paper's one-pair-per-sentence design is
the `sgts-paper-*` tasks (group `sgts-paper`); version 1's 4,000 sampled pairs are
`SgTSEvaluator(..., design="sampled")`.

Confidence interval: pairs share sentences, so the unit is the sentence: the linearised bootstrap over
the 2m sentences (`sentibench.evaluation.spearman.spearman_influence`, each pair weighted by the product of
its two sentences' weights). Evaluation uses the test split; model selection (trainers) uses the
validation split, never the test sentences.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sentibench.data import get_dataset
from sentibench.data.spec import DatasetSpec
from sentibench.embed.encoders import Encoder
from sentibench.tasks.base import EvalContext, Evaluation, Task, TaskMetadata
from sentibench.tasks.registry import register_family

if TYPE_CHECKING:  # numpy and the evaluator load when a task runs, not when tasks are listed
    from sentibench.evaluation.sgts import Design


class SgTSTask(Task):
    """SgTS on one dataset's test split, under the all-pairs design (or SentiCSE's, `design="paper"`)."""

    def __init__(self, dataset: str, max_per_class: int | None = None, split: str = "test",
                 design: Design = "all-pairs", lite: bool = False) -> None:
        self.max_per_class, self.design = max_per_class, design
        paper = design == "paper"
        cap = f" over at most {max_per_class} sentences per class" if max_per_class else ""
        group = "sgts-paper" if paper else "sgts-lite" if lite else "sgts"
        self.metadata = TaskMetadata(
            name=f"sgts-{'paper-' if paper else ''}{dataset}{'-lite' if lite else ''}", type="SgTS", dataset=dataset,
            eval_splits=(split,), main_score="cosine_spearman", groups=(group,), version=2,
            description="Spearman correlation between the cosine similarity of a sentence pair and whether "
                        "the two sentences share a polarity (1) or not (0); "
                        + ("SentiCSE's design: each sentence of the balanced set in one pair" if paper
                           else "every pair of a balanced sentence set") + cap + "."
                        + (f" The lite version of sgts-{dataset}: its sentences are a subset of that task's." if lite
                           else ""),
            reference="SentiCSE (Kim et al., 2024), §2",
        )

    def chance_level(self) -> float:
        """0.0: a correlation main score: Spearman's rho against the same/different-polarity gold of a model that
        ignores the text has expectation 0 (its cosines carry no information about the gold, so their ranks are
        independent of it); no data is needed."""
        return 0.0

    def evaluate(self, encoder: Encoder, context: EvalContext) -> Evaluation:
        from sentibench.evaluation.sgts import SgTSEvaluator

        split = self.metadata.eval_splits[0]
        columns = get_dataset(self.metadata.dataset).columns(split, ("text", "label"))  # arrow, at once
        cap = min(filter(None, (self.max_per_class, context.limit and context.limit // 2)), default=None)
        evaluator = SgTSEvaluator(columns["text"], columns["label"], context.seed, cap, self.design)
        scored = evaluator(encoder, context.batch_size, context.intervals)
        return Evaluation({split: scored.scores}, scored.details, scored.units)


def sgts_family(spec: DatasetSpec) -> list[SgTSTask] | None:
    """Every binary sentiment dataset, packaged or on the Hub only (a hub-only one runs where the Hugging Face
    cache or endpoint can serve it); a long-text set is capped at `max_examples` per polarity. A dataset with
    `lite_examples` also gets `sgts-NAME-lite`, the same protocol over that many sentences per polarity (the first
    of the same shuffles, so a subset of the full task's sentences), for lite benchmarks."""
    if not (spec.is_binary and spec.has("sentiment")):
        return None
    tasks = [SgTSTask(spec.name, max_per_class=spec.max_examples, design=design) for design in ("all-pairs", "paper")]
    if spec.lite_examples:
        tasks.append(SgTSTask(spec.name, max_per_class=spec.lite_examples, lite=True))
    return tasks


register_family("sgts", sgts_family)
