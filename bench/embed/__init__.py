"""Texts to vectors: encoders, the embedding cache."""
