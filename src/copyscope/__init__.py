"""copyscope: how much of what language models write is copied from their training data."""

__version__ = "0.1.0"
