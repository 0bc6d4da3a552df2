"""Suffix-array + LCP index over integer token streams (stage ``index``).

Opening and querying an index (:class:`Index`) imports neither the suffix sorter nor numba;
the building functions are imported from :mod:`copyscope.index.build` on first use.
"""

from .core import Index, Matches, maximal_spans

_BUILD = ("build_index", "build_shard", "default_sep", "join_documents", "shard_plan",
          "token_dtype_for")  # fmt: skip

__all__ = ["Index", "Matches", "maximal_spans", *_BUILD]


def __getattr__(name: str):
    if name in _BUILD:
        from . import build

        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
