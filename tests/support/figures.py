"""What a figure shows, read back from its PNG."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def pixels(path: Path) -> np.ndarray:
    """The RGB pixels of a PNG file (a figure test compares them between two renderings: a
    figure that draws its data changes when the data change; a file size cannot tell)."""
    from matplotlib import image

    assert Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG file"
    return image.imread(path)[..., :3]
