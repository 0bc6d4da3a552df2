"""Helpers the tests of several stages share, split by what they serve (models, corpora,
configs, the index's brute-force references, runs of the workflow, figures)."""
