"""InfoDCL's command-line command (declared in the package's `Method`, run by `bench data npmi`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from sentibench.training.methods import Services
from sentibench.training.options import parse_option_pairs


def npmi(args: argparse.Namespace, services: Services) -> int:
    """`bench data npmi NAME`: the surrogate-label corpus of a tweet dataset and its NPMI matrix."""
    from tabulate import tabulate

    from sentibench.models.methods.infodcl.train import prepare, resolve_config

    corpus, matrix, where = prepare(args.name, resolve_config(args.preset, parse_option_pairs(args.option)))
    print(f"{args.name}: {corpus.stats.frequent_label} labelled tweets, {len(corpus.label_names)} labels "
          f"(tweets matching {', '.join(where)} removed: {corpus.stats.held_out_matches}); NPMI counted over "
          f"{matrix.tweets} tweets with >= {matrix.min_labels} labels, {len(matrix.kept)} ordered pairs kept")
    print(tabulate(matrix.top_pairs(args.top), headers=["label", "label", "npmi", "co-occurrences"], floatfmt=".3f"))
    if args.output:
        matrix.save(Path(args.output))
        print(f"wrote {args.output} (sha256 {matrix.sha256})")
    return 0
