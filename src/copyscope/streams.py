"""Token streams, the format between the tokenize and index stages: the dtypes an index
takes and the document separator (a base module: both stages import it, neither imports the
other for it)."""

from __future__ import annotations

import numpy as np

SUPPORTED_DTYPES = (np.dtype(np.uint16), np.dtype(np.uint32))


def default_sep(dtype) -> int:
    """The document separator: the largest value of the token dtype (65535 for uint16)."""
    return int(np.iinfo(np.dtype(dtype)).max)


def token_dtype_for(max_id: int):
    """Smallest supported dtype whose range holds ``max_id`` and a separator above it."""
    if max_id < np.iinfo(np.uint16).max:
        return np.dtype(np.uint16)
    if max_id < np.iinfo(np.uint32).max:
        return np.dtype(np.uint32)
    raise ValueError(f"token id {max_id} does not fit below the uint32 separator")
