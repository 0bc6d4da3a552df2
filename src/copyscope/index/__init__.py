"""Suffix-array + LCP index over integer token streams (stage ``index``).

:func:`open` is the one way to open an index, given its folder or its ``index.json``.
Opening and querying an index (:class:`Index`) imports neither the suffix sorter nor numba;
the building functions are imported from :mod:`copyscope.index.build` on first use.
"""

from .core import Index, Matches, maximal_spans

_BUILD = ("build_index", "build_shard", "default_sep", "join_documents", "shard_plan",
          "token_dtype_for")  # fmt: skip

__all__ = ["Index", "Matches", "maximal_spans", "open", *_BUILD]


def open(path, matches=None, token_dtype=None):  # shadows the builtin in this module only
    """The index at ``path``: a folder holding ``index.json`` (or one shard's ``meta.json``), or
    that ``index.json``; its arrays memory-mapped and checked (:class:`Index`; a damaged index
    is an :class:`~copyscope.errors.InputError` naming the file). An infini-gram index folder
    (``tokenized.*``, ``table.*``, ``offset.*``, …) opens as it is
    (:class:`~copyscope.index.infinigram.InfiniGramIndex`; ``token_dtype`` u8/u16/u32 where
    its file sizes leave the token width open), as does the ``index.json`` that links one
    (``copyscope index link --format infini-gram``). With ``matches`` (the merged file of the
    per-shard query fan-out) a :class:`~copyscope.index.fanout.MatchedIndex` that answers
    ``longest_matches`` from it and opens the index itself for anything else."""
    from .infinigram import InfiniGramIndex, is_infinigram, open_linked

    linked = open_linked(path, matches)
    if linked is not None:
        return linked
    if is_infinigram(path):
        if matches is not None:
            from ..errors import InputError

            raise InputError(matches, "per-shard matches are not read for an infini-gram index")
        return InfiniGramIndex(path, token_dtype)
    if token_dtype is not None:
        from ..errors import InputError

        raise InputError(path, "a token width (token_dtype) is given for infini-gram indexes only")
    if matches is None:
        return Index(path)
    from .fanout import MatchedIndex

    return MatchedIndex(path, matches)


def __getattr__(name: str):
    if name in _BUILD:
        from . import build

        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
