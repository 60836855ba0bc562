"""SentiCSE (Kim et al., 2024): sentiment-aware word-level (polarity-aware MLM over
SentiWordNet) and sentence-level (quadruple supervised contrastive) objectives. Registers the method."""

from sentibench.training.methods import Method, register_method

METHOD = register_method(Method(
    name="senticse",
    presets=("paper", "cpu", "plateau"),
    entry_point="sentibench.models.methods.senticse.train:train",
    description="SentiCSE: polarity-aware masked-word prediction (SentiWordNet) plus a quadruple supervised "
                "contrastive loss over positive and negative sentences.",
    reference="Kim, J. et al. (2024). SentiCSE: A Sentiment-aware Contrastive Sentence Embedding Framework "
              "with Sentiment-guided Textual Similarity. LREC-COLING. §3, §4.3, Tables 7 and 11.",
))
