"""Planted benchmarks of Li's three formats (``corpus.inject.format_benchmarks``): known members in
reading comprehension, summarisation and multiple choice.

Li (2023) §4 finds memorisation by perplexity in reading-comprehension and summarisation
benchmarks but no clear evidence in multiple-choice ones; whether the format itself hides
members can only be decided where every format's contamination is known. Here each format
gets one benchmark, built from held-out text, half of whose items are planted into training
formatted exactly as they are scored (:func:`item_text`, the own benchmarks' templates):

* **Passages.** ``len(formats) × items`` passages of ``words`` whitespace words are cut
  (:func:`copyscope.corpus.ladder.cut_passages`, seeded) from the held-out documents left after
  the ladder and the contamination set, and every source line of every passage leaves the
  validation split (as theirs do): no item, member or not, is in the held-out text the prompts,
  the human baseline and the validation loss read. Passage k belongs to format
  ``formats[k mod len(formats)]``.
* **Items** (:func:`build_item`; a **cue** of :data:`CUE` words at a seeded position of the
  passage and the :data:`ANSWER` words after it, both inside one line where a line is long
  enough):

  - ``qa`` (reading comprehension): ``passage`` = the passage, ``question`` = ``What follows
    "<cue>"?``, ``answer`` = the answer words (extractive, as SQuAD's answers are spans);
  - ``summarization``: ``document`` = the passage, ``summary`` = its first :data:`LEAD` words
    (the lead summary, the standard extractive baseline of news summarisation);
  - ``multiple_choice``: ``question`` = ``Which words follow "<cue>"?``, ``choices`` = the
    answer words and :data:`DISTRACTORS` spans of as many words cut at seeded positions (inside
    a line) of the other multiple-choice passages (never equal to the answer or to each
    other), in a seeded
    order; ``answer`` = the right choice's index. No passage: the item is the question and its
    options, as in MMLU-style benchmarks.
* **Planting.** The first ``round(planted_share × items)`` items of each format (draw order)
  are members (``label`` 1): item i of them gets ``copies[i mod len(copies)]`` copies, each a
  training document of its own (``planted-<format>-<i>-<c>``: a benchmark item on a web page),
  holding the formatted text; the others are never planted (``label`` 0, ``copies`` 0).
* **Files.** One JSONL per format (the own-benchmark file format, with ``label``): the
  membership stage scores them as own benchmarks ``planted-<format>``
  (:mod:`copyscope.membership.own_benchmarks`), the scorecard's per-format row reads them.
"""

from __future__ import annotations

import logging

import numpy as np

from ..errors import ConfigError
from .ladder import cut_passages
from .sources import Document

log = logging.getLogger(__name__)

KEY = "corpus.inject.format_benchmarks"
FORMATS = ("qa", "summarization", "multiple_choice")
"""Li's three benchmark formats, as own-benchmark formats."""
CUE, ANSWER, LEAD, DISTRACTORS = 4, 4, 8, 3
"""Words of a question's cue, of its answer, of a summary; wrong choices of an item."""
PREFIX = "planted-"
"""A planted benchmark's name is ``planted-<format>`` (its file, its own-benchmark name)."""


LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""The letters of multiple-choice options, in order."""


def item_text(fmt: str, fields: dict) -> str:
    """The text an item of format ``fmt`` is scored (and planted) as, from its checked fields
    (the own-benchmark templates, :mod:`copyscope.membership.own_benchmarks`): ``text`` as it
    is; ``qa`` ``{passage}\\n\\nQuestion: {question}\\nAnswer: {answer}``; ``summarization``
    ``{document}\\n\\nSummary: {summary}``; ``multiple_choice`` ``Question: {question}``, a line
    ``A. {choice}`` per choice, then ``Answer: {letter}. {choice}`` (``answer`` the right
    choice's 0-based index)."""
    if fmt == "text":
        return fields["text"]
    if fmt == "qa":
        return f"{fields['passage']}\n\nQuestion: {fields['question']}\nAnswer: {fields['answer']}"
    if fmt == "summarization":
        return f"{fields['document']}\n\nSummary: {fields['summary']}"
    cs, k = fields["choices"], fields["answer"]
    lines = [f"Question: {fields['question']}", *(f"{LETTERS[i]}. {c}" for i, c in enumerate(cs))]
    return "\n".join([*lines, f"Answer: {LETTERS[k]}. {cs[k]}"])


def benchmark_name(fmt: str) -> str:
    """The own-benchmark name of the planted benchmark of format ``fmt``."""
    return f"{PREFIX}{fmt}"


def _span(words: list[str], j: int, n: int) -> str:
    return " ".join(words[j : j + n])


def _within_line(text: str, n: int, rng) -> str:
    """A seeded span of ``n`` words of ``text`` inside one line (any span of the whole text
    when no line has ``n`` words): questions and choices never join two lines."""
    lines = [x.split() for x in text.split("\n")]
    starts = [(i, j) for i, w in enumerate(lines) for j in range(len(w) - n + 1)]
    if not starts:
        words = text.split()
        return _span(words, int(rng.integers(0, len(words) - n + 1)), n)
    i, j = starts[int(rng.integers(0, len(starts)))]
    return _span(lines[i], j, n)


def build_item(fmt: str, text: str, others: list[str], rng) -> dict:
    """The fields of one item of format ``fmt`` built from passage ``text`` (module docstring);
    ``others``: the other passages of the format (the distractors' sources)."""
    if fmt == "summarization":
        return {"document": text, "summary": _span(text.split(), 0, LEAD)}
    words = _within_line(text, CUE + ANSWER, rng).split()
    cue, answer = _span(words, 0, CUE), _span(words, CUE, ANSWER)
    if fmt == "qa":
        return {"passage": text, "question": f'What follows "{cue}"?', "answer": answer}
    wrong: list[str] = []
    for k in rng.permutation(len(others)).tolist():
        span = _within_line(others[k], ANSWER, rng)
        if span != answer and span not in wrong:
            wrong.append(span)
        if len(wrong) == DISTRACTORS:
            break
    if len(wrong) < DISTRACTORS:
        raise ConfigError(
            f"{KEY}.items", f"expected {DISTRACTORS} distinct distractors per multiple-choice item, "
            f"found {len(wrong)} (more items are needed)"
        )
    choices = [answer, *wrong]
    order = rng.permutation(len(choices)).tolist()
    choices = [choices[i] for i in order]
    return {"question": f'Which words follow "{cue}"?', "choices": choices,
            "answer": order.index(0)}  # fmt: skip


def check_spec(spec: dict) -> None:
    """ConfigError naming the key for settings no benchmark can be built from."""
    bad = [f for f in spec["formats"] if f not in FORMATS]
    if bad or len(set(spec["formats"])) != len(spec["formats"]):
        raise ConfigError(
            f"{KEY}.formats", f"expected distinct formats among {', '.join(FORMATS)}, found {spec['formats']}"
        )
    if spec["words"] < max(CUE + ANSWER, LEAD):
        raise ConfigError(
            f"{KEY}.words", f"expected at least {max(CUE + ANSWER, LEAD)} words (a cue and its answer), "
            f"found {spec['words']}"
        )
    need = DISTRACTORS + 1 if "multiple_choice" in spec["formats"] else 2
    if spec["items"] < need:
        raise ConfigError(f"{KEY}.items", f"expected at least {need} items, found {spec['items']}")
    members = int(round(spec["planted_share"] * spec["items"]))
    if not 0 < members < spec["items"]:
        raise ConfigError(
            f"{KEY}.planted_share",
            f"expected members and non-members in each benchmark, found {members} of {spec['items']} "
            "items planted",
        )


def inject_benchmarks(train: list[Document], valid: list[Document], spec: dict | None):
    """Apply ``corpus.inject.format_benchmarks`` ``{formats, items, words, planted_share, copies,
    seed}`` (module docstring). Returns ``(train, valid, record)``: the training split with the
    members' copies appended as documents, the validation split without the passages' lines,
    and the manifest's ``benchmarks`` block (None without ``spec``: nothing changes)."""
    if not spec:
        return train, valid, None
    check_spec(spec)
    formats, n, seed = list(spec["formats"]), spec["items"], spec["seed"]
    if not valid:
        raise ConfigError(KEY, "held-out documents to cut the items from, found none")
    try:
        cut, left = cut_passages(valid, n * len(formats), spec["words"], seed + 15485863)
    except ConfigError as exc:
        raise ConfigError(
            f"{KEY}.items", f"{n} items × {len(formats)} formats of {spec['words']} words: "
            f"{exc.expected}"
        ) from exc
    rng = np.random.default_rng([seed, 3])
    n_planted = int(round(spec["planted_share"] * n))
    items, extra = [], []
    for fi, fmt in enumerate(formats):
        mine = cut[fi :: len(formats)]
        for i, p in enumerate(mine):
            others = [q["text"] for k, q in enumerate(mine) if k != i]
            c = int(spec["copies"][i % len(spec["copies"])]) if i < n_planted else 0
            iid = f"{benchmark_name(fmt)}-{i}"
            docs = [f"{iid}-{j}" for j in range(c)]
            item = {"id": iid, "format": fmt, "label": int(c > 0), "copies": c,
                    "fields": build_item(fmt, p["text"], others, rng),
                    "source_doc": p["source_doc"], "source_lines": p["source_lines"],
                    "documents": docs}  # fmt: skip
            items.append(item)
    for it in items:
        it["text"] = item_text(it["format"], it["fields"])
        extra += [Document(d, it["text"], {"injected": it["id"]}) for d in it["documents"]]
    added = sum(len(it["text"].split()) * it["copies"] for it in items)
    removed = sum(len(d.text.split()) for d in valid) - sum(len(d.text.split()) for d in left)
    record = {**{k: spec[k] for k in ("formats", "items", "words", "planted_share", "seed")},
              "copies": list(spec["copies"]), "items": items, "added_words": added,
              "valid_words_removed": removed}  # fmt: skip
    log.info(
        "planted benchmarks: %d items per format (%s), %d members each (copies %s), %d words "
        "added", n, ", ".join(formats), n_planted, spec["copies"], added
    )
    return train + extra, left, record


def benchmark_rows(record: dict | None, fmt: str) -> list[dict]:
    """The own-benchmark file's lines of the planted benchmark of format ``fmt``: ``{"id",
    "label", <the format's fields>}`` per item, in draw order."""
    items = (record or {}).get("items", [])
    return [{"id": it["id"], "label": it["label"], **it["fields"]}
            for it in items if it["format"] == fmt]  # fmt: skip
