"""A researcher's own benchmark (config ``analysis.membership.benchmarks``), audited as Li
(2023) audits one: every item formatted into one text and scored by each model (Li's per-sample
NLL, the loss, Min-K% Prob, the zlib and lowercase ratios; the reference ratio in the report),
beside a memorised and a clean baseline taken from the corpus.

* **File**: JSONL, one item per non-empty line, with the fields of its ``format``
  (:data:`FORMATS`), an optional ``id`` (a string or integer, unique in the file; default the
  line number) and an optional ``label`` (membership ground truth: ``1``/``true`` = the item
  is known to be in the training data, ``0``/``false`` = known not to be; every line has one
  or none does). Other fields are ignored. A bad line is an
  :class:`~copyscope.errors.InputError` naming ``file:line`` and the field, raised before
  anything is written; every bad line of the file is reported at once.
* **Formats** (the text each item becomes, :func:`format_item`; Li 2023 audits reading
  comprehension, summarisation and multiple-choice benchmarks):

  - ``text``: ``text`` as it is;
  - ``qa`` (reading comprehension): ``{passage}\\n\\nQuestion: {question}\\nAnswer: {answer}``;
  - ``summarization``: ``{document}\\n\\nSummary: {summary}``;
  - ``multiple_choice``: ``Question: {question}``, then one line ``A. {choice}`` per choice
    (letters in order), then ``Answer: {letter}. {choice}``; ``answer`` is the 0-based index
    of the right choice or its exact text.
* **Baselines** (:func:`corpus_baselines`): with a planted contamination set
  (``corpus.inject.contamination``) its memorised and clean passages; otherwise ``passages``
  seeded windows of ``words`` whitespace words from the natural training text (memorised:
  text the trained models saw) and from the validation split (clean: text they never saw;
  the corpus stage has already cut every planted passage out of it). For a pretrained model
  whose training data is unknown both baselines are only "the corpus's training split" and
  "its held-out split".
* **Scores** (:func:`score_benchmark_files`, all of a model's benchmarks in one pass): the item
  texts and both baselines go through the planted set's scorer (:func:`copyscope.membership.stage.membership_scores`, with the
  training index in the model's tokens for DC-PDD: Li's window of
  ``li_words`` words, truncation to the model's context counted), one table per model and
  benchmark (:data:`COLUMNS`; ``label`` empty without labels).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd

from ..corpus.format_benchmarks import LETTERS, item_text
from ..errors import InputError
from ..sample.external import record_id, records, string_field
from .scores import MEMBER_SIGN

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
"""A benchmark name: letters, digits, ``.``, ``_`` and ``-`` (not first): it names files."""

FORMATS = {
    "text": ("text",),
    "qa": ("passage", "question", "answer"),
    "summarization": ("document", "summary"),
    "multiple_choice": ("question", "choices", "answer"),
}
"""Each format's required fields (strings, non-blank; ``choices`` a list of them)."""

SETS = ("benchmark", "memorised", "clean")

COLUMNS = [
    "model",
    "benchmark",
    "format",
    "set",
    "id",
    "label",
    "n_tokens",
    "truncated",
    *[c for c in MEMBER_SIGN if c != "reference"],
    "li_nll",
    "n_params",
    "absent",
]
"""The per-model table of one benchmark: one row per item (``set`` = ``benchmark``) and per
baseline passage (``memorised``, ``clean``; ``label`` 1 and 0 by construction); ``absent``
names a score that could not be computed and why (DC-PDD without the training index)."""


def check_name(name: str) -> str:
    """``name`` when it is a valid benchmark name (:data:`NAME`), else ValueError."""
    if not NAME.match(name):
        raise ValueError(
            f"expected letters, digits, '.', '_' and '-' (not first), found {name!r}"
        )
    return name


def _choices(where: str, obj: dict) -> list[str]:
    if "choices" not in obj:
        raise InputError(
            where, f"field 'choices': missing (expected a list of 2 to {len(LETTERS)} strings)"
        )
    cs = obj["choices"]
    if (
        not isinstance(cs, list)
        or not 2 <= len(cs) <= len(LETTERS)
        or not all(isinstance(c, str) and c.strip() for c in cs)
    ):
        raise InputError(
            where,
            f"field 'choices': expected a list of 2 to {len(LETTERS)} non-empty strings, "
            f"found {json.dumps(cs)[:200]}",
        )
    return cs


def _answer_index(where: str, obj: dict, choices: list[str]) -> int:
    if "answer" not in obj:
        raise InputError(
            where, "field 'answer': missing (expected the index or the text of a choice)"
        )
    a = obj["answer"]
    if isinstance(a, int) and not isinstance(a, bool):
        if 0 <= a < len(choices):
            return a
    elif isinstance(a, str) and a in choices:
        return choices.index(a)
    raise InputError(
        where,
        f"field 'answer': expected a 0-based index below {len(choices)} or the text of one "
        f"of the choices, found {json.dumps(a)[:200]}",
    )


def format_item(fmt: str, obj: dict, where: str = "item") -> str:
    """The text of one item of format ``fmt`` (the templates of this module's docstring,
    :func:`copyscope.corpus.format_benchmarks.item_text`, which the planted benchmarks use
    too); InputError naming ``where`` and the field for a missing or malformed field."""
    if fmt not in FORMATS:
        raise InputError(where, f"format: expected one of {', '.join(FORMATS)}, found {fmt!r}")
    if fmt == "multiple_choice":
        q = string_field(where, obj, "question")
        cs = _choices(where, obj)
        fields = {"question": q, "choices": cs, "answer": _answer_index(where, obj, cs)}
    else:
        fields = {f: string_field(where, obj, f) for f in FORMATS[fmt]}
    return item_text(fmt, fields)


def _label(where: str, value) -> int:
    if isinstance(value, bool) or value in (0, 1):
        return int(value)
    raise InputError(where, f"field 'label': expected 0, 1, true or false, found {json.dumps(value)}")


def read_benchmark(path, fmt: str) -> tuple[list[dict], bool]:
    """The items of a benchmark file, checked: ``{"line", "id", "text"[, "label"]}`` per
    non-empty line (``text`` from :func:`format_item`), and whether they carry labels. ``id``
    defaults to the line number (as text); ids are unique; ``label`` is on every line or none
    (as on the first good line). Every bad line is reported at once."""
    seen: dict = {}
    has: list[tuple[bool, int]] = []  # (labelled, line) of the first good line

    def parse(w: str, lineno: int, obj: dict) -> dict:
        iid = record_id(w, obj.get("id", lineno), lineno, seen)
        row = {"line": lineno, "id": str(iid), "text": format_item(fmt, obj, w)}
        labelled = "label" in obj
        if labelled:
            row["label"] = _label(w, obj["label"])
        if not has:
            has.append((labelled, lineno))
        elif labelled != has[0][0]:
            raise InputError(
                w,
                f"field 'label': every line has one or none does ("
                f"{'present' if has[0][0] else 'absent'} on line {has[0][1]}, "
                f"{'present' if labelled else 'absent'} here)",
            )
        return row

    rows = records(path, parse)
    if not rows:
        raise InputError(path, f"expected at least one item of format {fmt!r}, found none")
    return rows, has[0][0]


def _windows(docs: list[str], n: int, words: int, rng, where: str) -> list[str]:
    """``n`` windows of ``words`` whitespace words: each from a document drawn with
    probability proportional to its number of possible starts, at a uniform start."""
    split = [d.split() for d in docs]
    starts = np.array([max(len(w) - words + 1, 0) for w in split], dtype=np.float64)
    if starts.sum() == 0:
        raise InputError(where, f"expected a document of at least {words} words for the baselines")
    out = []
    for _ in range(n):
        i = int(rng.choice(len(split), p=starts / starts.sum()))
        s = int(rng.integers(0, int(starts[i])))
        out.append(" ".join(split[i][s : s + words]))
    return out


def corpus_baselines(
    manifest: dict, natural: list[str], valid: list[str], *, passages: int, words: int, seed: int
) -> list[dict]:
    """The memorised and clean baseline texts (``{"set", "id", "text", "label"}``; this
    module's docstring): the planted contamination set's when the manifest has one, else
    ``passages`` seeded windows each of the natural training text and of the validation
    split."""
    from .stage import contamination_texts

    if manifest.get("contamination"):
        return [
            {"set": t["set"], "id": str(t["id"]), "text": t["text"], "label": int(t["set"] == "memorised")}
            for t in contamination_texts(manifest, "corpus manifest")
            if t["set"] != "contamination"
        ]
    rng = np.random.default_rng(seed)
    out = []
    for name, docs, label in (("memorised", natural, 1), ("clean", valid, 0)):
        for i, text in enumerate(_windows(docs, passages, words, rng, f"corpus {name} split")):
            out.append({"set": name, "id": f"{name}-{i}", "text": text, "label": label})
    return out


def score_benchmark_file(
    model_dir,
    model_name: str,
    benchmark: str,
    spec: dict,
    paths: dict,
    params: dict,
    out,
    device: str = "auto",
) -> pd.DataFrame:
    """One model's table of one benchmark (:data:`COLUMNS`): :func:`score_benchmark_files`
    with the one benchmark ``benchmark`` (config entry ``spec`` ``{path, format}``) written to
    ``out``."""
    return score_benchmark_files(
        model_dir, model_name, [(benchmark, spec, out)], paths, params, device
    )[benchmark]


def score_benchmark_files(
    model_dir,
    model_name: str,
    benchmarks: list[tuple[str, dict, object]],
    paths: dict,
    params: dict,
    device: str = "auto",
) -> dict[str, pd.DataFrame]:
    """One model's table of each benchmark (:data:`COLUMNS`), by name: ``benchmarks`` holds
    ``(name, spec, out)`` per benchmark, ``spec`` its config entry ``{path, format}``;
    ``paths`` the corpus stage's ``manifest``, ``natural`` and ``valid`` files and, optionally,
    ``index`` (the training index in the model's tokens: DC-PDD's frequencies); ``params`` the
    config block ``analysis.membership`` (``li_words``, ``seed``, ``batch_size``,
    ``baseline_passages``). Every file is read and checked before the model is loaded (a bad
    line anywhere: nothing is written); the model is loaded once and scores every benchmark's
    items followed by the baselines in one pass (so each table's baseline rows are the same);
    each table is written atomically."""
    from ..io import read_json, read_jsonl, write_csv
    from ..lm import load_model
    from .stage import membership_scores

    read = [(name, spec, out, *read_benchmark(spec["path"], spec["format"]))
            for name, spec, out in benchmarks]  # fmt: skip
    manifest = read_json(paths["manifest"])
    natural = [r["text"] for r in read_jsonl(paths["natural"])]
    valid = [r["text"] for r in read_jsonl(paths["valid"])]
    base = corpus_baselines(
        manifest,
        natural,
        valid,
        passages=params["baseline_passages"],
        words=params["li_words"],
        seed=params["seed"],
    )
    texts = [
        {"set": "benchmark", "id": it["id"], "planted": it.get("label", 0), "copies": 0,
         "text": it["text"]}  # fmt: skip
        for *_, items, _ in read
        for it in items
    ] + [{"set": b["set"], "id": b["id"], "planted": b["label"], "copies": 0, "text": b["text"]}
         for b in base]  # fmt: skip
    index = None
    if paths.get("index"):
        from ..index import open as open_index

        index = open_index(paths["index"])
    model, tok = load_model(model_dir, device)
    kw = {"batch_size": params["batch_size"], "device": str(next(model.parameters()).device)}
    rows = membership_scores(
        model, tok, texts, li_words=params["li_words"], seed=params["seed"], index=index, **kw
    )
    n_params = sum(p.numel() for p in model.parameters())
    n_items = sum(len(items) for *_, items, _ in read)
    baselines, first, frames = rows[n_items:], 0, {}
    for name, spec, _, items, labelled in read:
        frame = pd.DataFrame(rows[first : first + len(items)] + baselines)
        first += len(items)
        frame["label"] = frame["planted"].astype("Int64")
        if not labelled:
            frame.loc[frame["set"] == "benchmark", "label"] = pd.NA
        frame["model"], frame["benchmark"], frame["format"] = model_name, name, spec["format"]
        frame["n_params"] = n_params
        frames[name] = frame.reindex(columns=COLUMNS)  # an absent score: its column empty
    for name, _, out, *_ in read:
        write_csv(out, frames[name])
    return frames
