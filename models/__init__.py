"""Models: the catalogue (`catalog/`: model kinds, cards, the loaders that turn a card, a folder or a hub id into
an encoder, trained cards, in-process models) and the trainable methods (`methods/`, each a subpackage that
registers itself through `sentibench.training.methods`; they never import the catalogue).

The public seam for the layers above (the runner, submissions, mteb): `card_for` (`catalog/lookup.py`),
`prepare` (a trained card gets its checkpoint, trained on first use), `load_encoder`, `open_encoder` (the three in
one pass, `catalog/opening.py`), `load_trainable`, `describe`. The loaders are
imported on first use (PEP 562), so reading cards (`bench list models`) does not load the encoder stack, and
the cards themselves are read only when asked for, so importing a method package loads no card."""

__all__ = ["ModelCard", "all_cards", "card_for", "describe", "get_card", "load_encoder", "load_trainable",
           "open_encoder", "prepare",
           "smoke_trained", "weights_folder"]
_LAZY = {"ModelCard": "cards", "all_cards": "cards", "get_card": "cards",
         "card_for": "lookup", "describe": "loaders", "load_encoder": "loaders", "load_trainable": "loaders",
         "weights_folder": "loaders", "prepare": "trained", "open_encoder": "opening",
         "smoke_trained": "trained"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        module = import_module(f"sentibench.models.catalog.{_LAZY[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
