"""Evaluators that tasks compose: metrics, SgTS pairs, uncertainty."""
