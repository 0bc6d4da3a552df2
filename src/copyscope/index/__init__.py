"""Suffix-array + LCP index over integer token streams (stage ``index``)."""

from .build import (
    build_index,
    build_shard,
    default_sep,
    join_documents,
    shard_plan,
    token_dtype_for,
)
from .core import Index, Matches, maximal_spans

__all__ = [
    "Index",
    "Matches",
    "build_index",
    "build_shard",
    "default_sep",
    "join_documents",
    "maximal_spans",
    "shard_plan",
    "token_dtype_for",
]
