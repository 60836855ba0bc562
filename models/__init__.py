"""Model cards, the loaders that turn them into encoders, baselines and trainable methods."""

from sentibench.models.cards import ModelCard, all_cards, get_card
from sentibench.models.loaders import card_for, load_encoder, load_trainable

__all__ = ["ModelCard", "all_cards", "card_for", "get_card", "load_encoder", "load_trainable"]
