"""Evaluators that tasks compose: metrics, SgTS pairs, resampling units, bootstrap intervals, Spearman influences."""
