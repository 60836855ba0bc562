"""Submitting, verifying and reproducing results."""
