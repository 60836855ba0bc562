"""SIFTER (Yu et al.): scale a sentence's information to the downstream task. Registers two methods,
each with its control under the same code path:

- `sifter-simcse` (§3): positives X + backbone and X minus articles/conjunctions, three-way InfoNCE;
  `--option variant=simcse` is unsupervised SimCSE (dropout-only positives).
- `sifter-lstm` (§4): an LSTM whose input gate is short-circuited to 1 for sentiment words;
  `--option gate=standard` is the plain LSTM with the same hyperparameters.
"""

from sentibench.training.checkpoint import register_encoder_kind
from sentibench.training.methods import Method, register_method

REFERENCE = ("Yu, C., Zhu, W., Liu, C., Zhang, X. & Zhai, Q. SIFTER: A Task-specific Alignment Strategy for "
             "Enhancing Sentence Embeddings.")

register_method(Method(
    name="sifter-simcse", presets=("paper", "cpu"), entry_point="sentibench.models.sifter.simcse:train",
    description="SIFTER-SimCSE: positives made by appending the sentence's backbone (a dependency-parse triple) "
                "and by deleting articles and conjunctions; three-way InfoNCE. variant=simcse: unsupervised "
                "SimCSE.",
    reference=REFERENCE + " §3, §5.4, eq. 2.",
))
register_method(Method(
    name="sifter-lstm", presets=("paper", "cpu"), entry_point="sentibench.models.sifter.lstm_train:train",
    description="SIFTER-LSTM: an LSTM classifier whose input gate is short-circuited to 1 for sentiment words "
                "(Hu & Liu opinion lexicon); sentence vector = final hidden state. gate=standard: plain LSTM.",
    reference=REFERENCE + " §4, §5.4, eq. 4.",
))
register_encoder_kind("sifter-lstm", "sentibench.models.sifter.lstm:load_checkpoint")
