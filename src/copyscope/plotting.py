"""One consistent figure style for every copyscope figure (seaborn), saved atomically."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from .io import atomic_path  # noqa: E402


def setup() -> None:
    sns.set_theme(context="paper", style="whitegrid", palette="colorblind", font_scale=1.2)


def save(fig, path, dpi: int = 150) -> None:
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)


def log_axis(ax, axis: str = "x") -> None:
    """A log-scaled axis whose major ticks read as plain numbers (1, 10, 100 — not 10⁰, 10¹)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    scale = ax.set_xscale if axis == "x" else ax.set_yscale
    scale("log")
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(LogLocator(base=10))
    target.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())
