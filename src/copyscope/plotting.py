"""One consistent figure style for every copyscope figure (seaborn), saved atomically.

Colours carry meaning and never depend on plotting order:

- a model has one colour in every figure (:func:`model_colors`: the colour-blind palette in
  the models' canonical order, :func:`model_order`: by the size the name states, a shape
  ``t4x256`` or a parameter count ``70m``, else by its size words ``small`` < ``medium``);
- human text is always :data:`HUMAN` (black), a second human baseline (the excerpt plays)
  :data:`HUMAN_OTHER` (grey);
- decodings (:func:`decoding_colors`), detectors (:func:`detector_colors`) and ordinal
  parameters (prompt length, n: :func:`ordinal_colors`) have palettes of their own, so a decoding
  is never drawn in a model's colour.
"""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from .io import atomic_path  # noqa: E402

HUMAN = "black"
HUMAN_OTHER = "0.45"
#: size words in their order, for :func:`model_order` of names that state no size (gpt2-small
#: before gpt2-medium)
SIZES = ("nano", "micro", "tiny", "mini", "small", "base", "medium", "large", "xl", "xxl")
#: detector colours (Dark2, fixed per detector); blind baselines are greys (dashed in figures)
DETECTORS = {
    "loss": "#1b9e77",
    "min_k": "#d95f02",
    "zlib": "#7570b3",
    "reference": "#e7298a",
    "lowercase": "#66a61e",
    "min_k_pp": "#a6761d",
    "dc_pdd": "#e6ab02",
    "blind_length": "0.55",
    "blind_bow": "0.3",
}


#: a shape in a model's name: ``<kind><layers>x<width>`` (``t4x256``, ``lstm2x512``)
SHAPE = re.compile(r"(?:^|[-_/. ])[a-z]*(\d+)x(\d+)(?=$|[-_/. ])")
#: a parameter count in a model's name: ``70m``, ``1.4b``, ``125M``
COUNT = re.compile(r"(?:^|[-_/. ])(\d+(?:\.\d+)?)([kmb])(?=$|[-_/. ])")
#: a checkpoint of a series (:func:`copyscope.config.with_checkpoints`): ``<model>@step<k>``
STEP = re.compile(r"@step(\d+)$")


def model_size(name: str) -> float | None:
    """The size a model's name states, or None: for a shape ``<kind><L>x<d>`` (``t4x256``: 4
    layers of width 256) 12·L·d², the parameters of L transformer blocks of width d (embeddings
    left out; the same proxy for an LSTM named ``lstm2x512``), for a parameter count
    (``pythia-70m``, ``gpt-1.4b``) that count; a checkpoint ``<model>@step<k>`` has its
    model's size."""
    base = STEP.sub("", str(name).lower())
    shape = SHAPE.search(base)
    if shape:
        layers, width = int(shape.group(1)), int(shape.group(2))
        return 12.0 * layers * width**2
    count = COUNT.search(base)
    if count:
        return float(count.group(1)) * {"k": 1e3, "m": 1e6, "b": 1e9}[count.group(2)]
    return None


def _words_key(name: str) -> tuple:
    """Sort key of a name without a stated size: its parts in order, size words by
    :data:`SIZES` (``gpt2-small`` before ``gpt2-medium``), numbers by value, the rest as text."""
    key = []
    for part in re.split(r"[-_/. ]+", name):
        if part in SIZES:
            key.append((1, SIZES.index(part), ""))
        elif re.fullmatch(r"\d+(?:\.\d+)?", part):
            key.append((1, float(part), ""))
        else:
            key.append((0, 0, part))
    return tuple(key)


def _model_key(name: str, sizes=None) -> tuple:
    """Sort key of a model name: by its size (``sizes[name]`` when given, e.g. the parameter
    count of its training summary, else :func:`model_size` of the name) before the names with
    none, those by :func:`_words_key`; a checkpoint ``<model>@step<k>`` after its model's
    earlier checkpoints, before the model itself."""
    name = str(name)
    step = STEP.search(name.lower())
    base = STEP.sub("", name.lower())
    size = (sizes or {}).get(name)
    if size is None:
        size = (sizes or {}).get(STEP.sub("", name))
    if size is None:
        size = model_size(base)
    rank = (0, float(size), ()) if size is not None else (1, 0.0, _words_key(base))
    return (*rank, base, int(step.group(1)) if step else float("inf"))


RUN_MODELS: dict[str, float | None] = {}
"""The run's models (name → size, or None where the config states none), set once per command
by :func:`use_run_models`: :func:`model_colors` gives a model its colour by its place among
them, so that a figure showing only some of them keeps each model's colour."""


def use_run_models(models) -> None:
    """Make ``models`` (a mapping name → size or None, or names) the run's models."""
    RUN_MODELS.clear()
    RUN_MODELS.update(models if isinstance(models, dict) else dict.fromkeys(models))


def _sizes(sizes=None) -> dict:
    """The sizes known: the run's (:data:`RUN_MODELS`), then ``sizes``."""
    return {m: s for m, s in RUN_MODELS.items() if s is not None} | dict(sizes or {})


def model_order(models, sizes=None) -> list[str]:
    """The models' canonical order, by size (:func:`_model_key`; ``sizes``: model → parameter
    count where known, beside the run's, :data:`RUN_MODELS`): the same in every figure,
    whatever order a table lists them in."""
    known = _sizes(sizes)
    return sorted(dict.fromkeys(str(m) for m in models), key=lambda m: _model_key(m, known))


def model_colors(models, sizes=None) -> dict[str, tuple]:
    """Model → colour: the colour-blind palette in :func:`model_order` (by size; ``sizes`` as
    there) of the run's models (:data:`RUN_MODELS`) and these, so that a model has one colour
    in every figure of a run, whichever of the models a figure shows; human names map to
    :data:`HUMAN`."""
    palette = sns.color_palette("colorblind", 10)
    present = set(map(str, models))
    humans = ("human", "human text")
    everyone = [m for m in model_order([*RUN_MODELS, *present], sizes) if m not in humans]
    colors = {m: palette[i % 10] for i, m in enumerate(everyone) if m in present}
    return colors | {h: HUMAN for h in humans if h in present}


def decoding_colors(decodings) -> dict[str, tuple]:
    """Decoding → colour within one figure, in the order given (most to least constrained by
    the callers): the sequential 'flare' palette, never a model colour."""
    names = list(dict.fromkeys(decodings))
    palette = sns.color_palette("flare", max(len(names), 2))
    return {d: palette[i] for i, d in enumerate(names)}


def detector_colors(detectors) -> dict[str, str]:
    """Detector → its fixed colour (:data:`DETECTORS`, matched by prefix: ``min_k_20`` →
    ``min_k``); unknown detectors get dark grey."""
    out = {}
    for d in detectors:
        match = [k for k in DETECTORS if str(d) == k or str(d).startswith(k)]
        out[d] = DETECTORS[max(match, key=len)] if match else "0.2"
    return out


def set_colors(sets) -> dict[str, tuple | str]:
    """Colours of Li's placement sets: the baselines neutral (clean light grey, memorised
    black), the contamination set and its unplanted items from 'Set2', planted copy counts darker with
    more copies ('rocket')."""
    sets = list(dict.fromkeys(sets))
    planted = [s for s in sets if s.startswith("contamination_copies_")]
    shades = sns.color_palette("rocket_r", len(planted) + 2)[1:-1] if planted else []
    other = sns.color_palette("Set2", 8)
    fixed = {"clean": "0.6", "memorised": HUMAN}
    fixed |= {"contamination": other[1], "contamination_unplanted": other[2]}
    out = {s: fixed[s] for s in sets if s in fixed}
    out |= dict(zip(planted, shades, strict=True))
    rest = [s for s in sets if s not in out]
    return out | {s: other[3 + i % 5] for i, s in enumerate(rest)}


def ordinal_colors(values) -> dict:
    """Ordered parameter values (prompt lengths, n) → viridis colours, low to high."""
    names = sorted(dict.fromkeys(values))
    cmap = plt.get_cmap("viridis")
    return {v: cmap(k / max(1, len(names) - 1) * 0.9) for k, v in enumerate(names)}


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
