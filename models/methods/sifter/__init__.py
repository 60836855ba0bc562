"""SIFTER (Yu et al.): scale a sentence's information to the downstream task. Registers two methods,
each with its control under the same code path:

- `sifter-simcse` (§3): positives X + backbone and X minus articles/conjunctions, three-way InfoNCE;
  `--option variant=simcse` is unsupervised SimCSE (dropout-only positives).
- `sifter-lstm` (§4): an LSTM whose input gate is short-circuited to 1 for sentiment words;
  `--option gate=standard` is the plain LSTM with the same hyperparameters.
"""

import argparse
from pathlib import Path

from sentibench.training.checkpoint import register_encoder_kind
from sentibench.training.methods import Command, Method, register_method


def _classify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seeds", default="0,1,2,3,4", help="comma-separated seeds, one classifier per (gate, seed)")
    parser.add_argument("--base", default="all-minilm-l6-v2", help="model card whose word embeddings feed the LSTM")
    parser.add_argument("--data", default="mr", help="binary labelled dataset with train/validation/test splits")
    parser.add_argument("--preset", default="cpu", help="hyper-parameter preset: cpu (this machine) or paper (GPU)")
    parser.add_argument("--option", action="append", default=[], help="KEY=VALUE preset override")
    parser.add_argument("--output", type=Path, required=True, help="JSON record (resumed when it exists)")


REFERENCE = ("Yu, C., Zhu, W., Liu, C., Zhang, X. & Zhai, Q. SIFTER: A Task-specific Alignment Strategy for "
             "Enhancing Sentence Embeddings.")

register_method(Method(
    name="sifter-simcse", presets=("paper", "cpu", "plateau"),
    entry_point="sentibench.models.methods.sifter.simcse:train",
    description="SIFTER-SimCSE: positives made by appending the sentence's backbone (a dependency-parse triple) "
                "and by deleting articles and conjunctions; three-way InfoNCE. variant=simcse: unsupervised "
                "SimCSE.",
    reference=REFERENCE + " §3, §5.4, eq. 2.",
))
register_method(Method(
    name="sifter-lstm", presets=("paper", "cpu"), entry_point="sentibench.models.methods.sifter.lstm_train:train",
    description="SIFTER-LSTM: an LSTM classifier whose input gate is short-circuited to 1 for sentiment words "
                "(Hu & Liu opinion lexicon); sentence vector = final hidden state. gate=standard: plain LSTM.",
    reference=REFERENCE + " §4, §5.4, eq. 4.",
    commands=(Command(("sifter-lstm", "classify"), "SIFTER's Table 3: SIFTER-LSTM vs the standard LSTM as "
                      "classifiers, test accuracy over seeds (resumable JSON)", _classify_arguments,
                      "sentibench.models.methods.sifter.classify:command"),),
))
register_encoder_kind("sifter-lstm", "sentibench.models.methods.sifter.lstm:load_checkpoint")
