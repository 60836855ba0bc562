"""A model's name to a ready encoder, the walk `bench run -m NAME` takes, read top to bottom (issue 56, item 2):

1. the card the name stands for: a registered card, a local folder or a hub id (`catalog.lookup.card_for`);
2. its weights in place: a card trained here gets its checkpoint, trained on first use (`catalog.trained.prepare`;
   any other card is ready as it is);
3. the encoder behind the embedding cache (`catalog.loaders.load_encoder`): the kind looked up once, the weights
   folder located and checked once, a transformers model loaded only when a text misses the cache.
"""

from __future__ import annotations

from sentibench.embed.cache import CachedEncoder
from sentibench.models.catalog.loaders import load_encoder
from sentibench.models.catalog.lookup import card_for
from sentibench.models.catalog.trained import prepare


def open_encoder(name: str, device: str | None = None, use_cache: bool = True) -> CachedEncoder:
    """The model called `name` (card, local folder or hub id) ready to encode, behind the embedding cache."""
    card = prepare(card_for(name))
    return load_encoder(card, device=device, use_cache=use_cache)
