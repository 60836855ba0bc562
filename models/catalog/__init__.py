"""The model catalogue: model kinds, cards and their schema, the loaders that turn a card (or a folder, a hub id)
into an encoder, trained cards, in-process models, card scaffolding and the baselines. The methods
(`sentibench.models.methods`) never import it; the engine reaches it through `sentibench.models`."""
