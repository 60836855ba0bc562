"""InfoDCL (Zhang et al., 2023): distantly supervised contrastive learning on surrogate labels (here
hashtags), LCL-LiT + NPMI-weighted CCL + surrogate label prediction + MLM, with epoch-wise re-pairing.
Registers the method."""

import argparse

from sentibench.training.methods import Command, Method, register_method


def _npmi_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="tweet dataset, e.g. tweets-3class")
    parser.add_argument("--preset", default="cpu", help="InfoDCL preset whose corpus rules and NPMI floors apply")
    parser.add_argument("--option", action="append", default=[], help="InfoDCL option KEY=VALUE (repeatable)")
    parser.add_argument("--top", type=int, default=15, help="most related label pairs to print")
    parser.add_argument("--output", help="write the matrix (JSON with its sha256) here")


METHOD = register_method(Method(
    name="infodcl",
    presets=("paper", "cpu", "plateau"),
    entry_point="sentibench.models.methods.infodcl.train:train",
    description="InfoDCL: distantly supervised contrastive learning with hashtag surrogate labels (LCL-LiT + "
                "NPMI-weighted corpus-aware contrastive loss + surrogate label prediction + MLM).",
    reference="Zhang, C., Abdul-Mageed, M. & Jawahar, G. (2023). Contrastive Learning of Sociopragmatic Meaning "
              "in Social Media. Findings of ACL. §3, B, C.1, D.3, E.4, Table 18.",
    commands=(Command(("data", "npmi"), "InfoDCL's surrogate-label corpus of a tweet dataset and its NPMI matrix",
                      _npmi_arguments, "sentibench.models.methods.infodcl.commands:npmi"),),
))
