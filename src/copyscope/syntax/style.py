"""Style vs exact memorization (Shaib et al. 2024, "Detection and Measurement of Syntactic
Templates in Generated Text", §8).

Two sources of training text the models have seen a known number of times:

* the memorization ladder's passages (:mod:`copyscope.memorize`: planted ``copies`` times,
  controls 0), whose greedy generations the ``memorize`` rule already wrote;
* *naturally repeated training n-grams*: spans of N = P + S tokens of the training stream
  sampled by how often they occur there (:func:`sample_repeats`; strata of counts), their
  first P tokens given as prompt and S tokens decoded greedily (:func:`extract_repeats`).
  Spans inside the ladder's passages (the first source) are left out by default, spans
  touching any planted text (duplicates, contamination-set items) are flagged ``planted``
  (:func:`planted_mask`; ``analysis.style.exclude_planted: all`` leaves them out too, so only
  the corpus's own repetition remains — in Shakespeare's plays it hardly reaches 4 copies of
  a 32-token span).

For every passage, the true continuation (*target*) and the generation are POS-tagged in
context (prompt + continuation, the syntax stage's backend and counting of generated words),
and compared word by word (:func:`aligned_match`) on the W words of the target: position
i < W matches when the generation has an i-th word equal to the target's (words) or with the
same Penn Treebank tag (tags); a generation shorter than W words misses its absent positions,
words beyond W are ignored. Per passage (:func:`style_measures`):

* ``word_match`` / ``word_exact`` — exact memorization: the share of the W positions whose
  words are equal / all W equal (Shaib et al.: the continuation equals the training text);
* ``pos_match`` / ``pos_exact`` — POS (style) memorization: the same on the tags (the
  continuation's POS sequence equals the training text's).

Deliberate differences from the paper: Shaib et al. prompt with 50 tokens of repeated 100-grams;
here P and S are configured (``analysis.style``) and the counts come from the index of the
model's tokenizer over the training split; a count is that of the whole P + S span (the
"repeated n-gram"), the prefix's count is recorded beside it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..corpus import ladder_passages
from ..errors import InputError
from ..index.ngrams import doc_starts, training_stream, window_counts
from ..memorize import COLUMNS as MEMORIZE_COLUMNS
from ..memorize import extraction_row
from ..memorize.extraction import greedy_extract, position_matches
from .parse import Text, parse_texts
from .types import Passage

log = logging.getLogger("copyscope")

PLANTED_TRIM = 2
"""Tokens cut from each end of a planted text before it is located: its first and last tokens
may be tokenized differently inside the training text than on their own."""

# the extraction table's columns (copyscope.memorize) plus the sampler's strata and provenance
REPEAT_COLUMNS = [
    *MEMORIZE_COLUMNS[:4],
    "prefix_copies",
    "stratum",
    "position",
    "planted",
    *MEMORIZE_COLUMNS[4:],
]
STYLE_COLUMNS = [
    "model",
    "source",
    "passage",
    "kind",
    "copies",
    "stratum",
    "planted",
    "token_exact",
    "n_target_words",
    "n_generated_words",
    "word_match",
    "word_exact",
    "pos_match",
    "pos_exact",
    "target_tags",
    "generated_tags",
]


# ---------------------------------------------------------------- the measures
def aligned_match(target: Sequence, generated: Sequence) -> tuple[float, bool]:
    """``(fraction, exact)`` of a generation against a target, position by position over the
    W = len(target) positions of the target: position i matches when ``i < len(generated)``
    and ``generated[i] == target[i]`` (:func:`copyscope.memorize.extraction.position_matches`,
    the extraction test's definition); fraction = matches / W, exact = every position matches
    (so a generation shorter than the target is never exact; symbols after W are ignored).
    (NaN, False) for an empty target."""
    if len(target) == 0:
        return math.nan, False
    hit = position_matches(generated, target)
    return float(hit.mean()), bool(hit.all())


def style_measures(target_words, target_tags, generated_words, generated_tags) -> dict:
    """Exact (words) and POS (tags) memorization of one passage (module docstring):
    ``word_match``, ``word_exact``, ``pos_match``, ``pos_exact`` and the two word counts."""
    if len(target_words) != len(target_tags) or len(generated_words) != len(generated_tags):
        raise ValueError("one tag per word expected")
    word_match, word_exact = aligned_match(target_words, generated_words)
    pos_match, pos_exact = aligned_match(target_tags, generated_tags)
    return {
        "n_target_words": len(target_words),
        "n_generated_words": len(generated_words),
        "word_match": word_match,
        "word_exact": int(word_exact),
        "pos_match": pos_match,
        "pos_exact": int(pos_exact),
    }


def continuation(passage: Passage) -> tuple[list[str], list[str]]:
    """(words, tags) of a parsed passage's generated words (the continuation), in order."""
    words = [w for s in passage.sentences for w in s.words if w.generated]
    return [w.text for w in words], [w.tag for w in words]


def tag_continuations(backend, prompts: Sequence[str], texts: Sequence[str], params: Mapping):
    """(words, tags) of each continuation ``texts[i]``, tagged after its prompt ``prompts[i]``
    (one piece of text, as the syntax stage parses samples) with ``backend``."""
    items = [Text(p + t, len(p), continuation=True) for p, t in zip(prompts, texts, strict=True)]
    passages, _ = parse_texts(
        backend, items, "style", None, params["max_sentence_words"], params["chunk_chars"]
    )
    return [continuation(p) for p in passages]


def style_rows(frame: pd.DataFrame, source: str, backend, params: Mapping) -> pd.DataFrame:
    """:data:`STYLE_COLUMNS` for every passage (row) of an extraction table (columns of
    :data:`copyscope.memorize.COLUMNS`; ``stratum`` optional): target and generation tagged
    after the prompt, then :func:`style_measures`."""
    if not len(frame):
        return pd.DataFrame(columns=STYLE_COLUMNS)
    prompts = frame["prompt"].fillna("").astype(str).tolist()
    targets = tag_continuations(backend, prompts, frame["target"].fillna("").astype(str), params)
    gens = tag_continuations(backend, prompts, frame["generated"].fillna("").astype(str), params)
    rows = []
    for r, (tw, tt), (gw, gt) in zip(frame.to_dict("records"), targets, gens, strict=True):
        stratum = r.get("stratum")
        rows.append(
            {
                "model": r["model"],
                "source": source,
                "passage": r["passage"],
                "kind": r["kind"],
                "copies": int(r["copies"]),
                "stratum": stratum if isinstance(stratum, str) else copies_label(r["copies"]),
                "planted": int(r.get("planted", r["copies"] > 0)),
                "token_exact": int(r["exact"]),
                **style_measures(tw, tt, gw, gt),
                "target_tags": " ".join(tt),
                "generated_tags": " ".join(gt),
            }
        )
    return pd.DataFrame(rows, columns=STYLE_COLUMNS)


def copies_label(copies: int) -> str:
    """The stratum label of a ladder rung: ``control`` for 0 copies, else the count."""
    return "control" if int(copies) == 0 else str(int(copies))


# ---------------------------------------------------------------- repeated training n-grams


def strata_labels(bounds: Sequence[int]) -> list[str]:
    """Labels of the count strata with lower bounds ``bounds`` (increasing): ``[a, b)`` →
    ``"a"`` when b = a + 1, ``"a-(b−1)"`` otherwise; the last is ``"a+"``."""
    out = []
    for lo, hi in zip(bounds, [*bounds[1:], None], strict=True):
        out.append(f"{lo}+" if hi is None else str(lo) if hi == lo + 1 else f"{lo}-{hi - 1}")
    return out


def stratum_of(count: int, bounds: Sequence[int]) -> int:
    """Index of the stratum holding ``count`` (−1 below the first bound)."""
    return int(np.searchsorted(np.asarray(bounds), count, side="right")) - 1


def sample_repeats(
    counts: np.ndarray,
    keys: np.ndarray,
    n: int,
    bounds: Sequence[int],
    per_stratum: int,
    seed: int,
    excluded: np.ndarray | None = None,
) -> pd.DataFrame:
    """Sample distinct training n-grams by their number of occurrences.

    ``counts`` and ``keys`` are those of the n-gram at every position of the stream
    (:func:`window_counts`; key −1: a separator inside). Every distinct n-gram (no token marked
    in ``excluded`` either) is taken at its first occurrence and falls into the stratum
    [bounds[k], bounds[k+1]) of its count; from each stratum up to ``per_stratum`` n-grams are
    drawn without replacement with ``numpy.random.default_rng(seed)``. Returns columns
    ``position`` (start in the stream), ``count`` and ``stratum`` (index), in stratum then
    position order."""
    valid = keys >= 0
    if excluded is not None and len(keys):
        bad = np.concatenate([[0], np.cumsum(np.asarray(excluded, dtype=np.int64))])
        valid &= (bad[n : n + len(keys)] - bad[: len(keys)]) == 0  # no excluded token in it
    pos = np.flatnonzero(valid)
    _, first = np.unique(keys[pos], return_index=True)
    return stratified_sample(np.sort(pos[first]), counts, bounds, per_stratum, seed)


def stratified_sample(
    pos: np.ndarray, counts: np.ndarray, bounds: Sequence[int], per_stratum: int, seed: int
) -> pd.DataFrame:
    """Up to ``per_stratum`` of the positions ``pos`` (sorted) from each stratum
    [bounds[k], bounds[k+1]) of their ``counts``, drawn without replacement with
    ``numpy.random.default_rng(seed)``, stratum by stratum: columns ``position``, ``count``,
    ``stratum``, in stratum then position order."""
    stratum = np.searchsorted(np.asarray(bounds), counts[pos], side="right") - 1
    rng = np.random.default_rng(seed)
    parts = []
    for k in range(len(bounds)):
        cand = pos[stratum == k]
        take = np.sort(rng.choice(cand, size=min(per_stratum, len(cand)), replace=False))
        parts.append(pd.DataFrame({"position": take, "count": counts[take], "stratum": k}))
    return pd.concat(parts, ignore_index=True)


def excluded_texts(manifest: Mapping, which: str = "all") -> list[str]:
    """The texts the corpus stage planted into the training split: the ladder's planted
    passages (``which="ladder"``), with ``"all"`` also the injected duplicates and the
    contamination set's planted items."""
    out = [p["text"] for p in ladder_passages(manifest) if p.get("kind") == "planted"]
    if which == "all":
        out += [r["text"] for r in manifest.get("injected", [])]
        out += [
            p["text"] for p in (manifest.get("contamination") or {}).get("items", []) if p["planted"]
        ]
    return [t for t in out if t.strip()]


def planted_mask(index, encode, texts: Sequence[str]) -> np.ndarray:
    """Tokens of :func:`training_stream` that lie in a planted text: each text's ids
    (``encode``) without :data:`PLANTED_TRIM` tokens at either end are located in the index
    (every occurrence) and marked, widened by the trimmed tokens."""
    starts = doc_starts(index)
    mask = np.zeros(index.n_tokens, bool)
    ids = [np.asarray(encode(text), dtype=np.int64) for text in texts]
    ids = [x for x in ids if len(x) > 2 * PLANTED_TRIM]
    cores = [x[PLANTED_TRIM : len(x) - PLANTED_TRIM] for x in ids]
    for x, found in zip(ids, index.locate_many(cores, limit=index.n_tokens), strict=True):
        for _, doc, offset in found:
            lo = int(starts[doc]) + offset - PLANTED_TRIM
            mask[max(lo, 0) : lo + len(x)] = True
    return mask


def touches(mask: np.ndarray, positions: Sequence[int], n: int) -> np.ndarray:
    """Whether the n-token span at each position holds a token marked in ``mask``."""
    marked = np.concatenate([[0], np.cumsum(np.asarray(mask, dtype=np.int64))])
    pos = np.asarray(positions, dtype=np.int64)
    return (marked[pos + n] - marked[pos]) > 0


def repeat_spans(index, params: Mapping, encode, manifest: Mapping):
    """The sampled spans (:func:`sample_repeats`) of the index's training stream, with exact
    counts from the index (``copies`` of the whole span, ``prefix_copies`` of its first P
    tokens), their stratum re-derived from the exact count, and ``planted`` (the span touches
    any text the corpus stage planted, :func:`planted_mask`); ``params`` is the
    ``analysis.style`` block. ``exclude_planted`` (``none`` | ``ladder`` | ``all``) leaves out
    the spans touching the ladder's passages (the other source of this analysis) or any
    planted text; ``encode`` turns text into the index's token ids."""
    p, s = params["prompt_tokens"], params["suffix_tokens"]
    tokens = training_stream(index)
    planted = planted_mask(index, encode, excluded_texts(manifest, "all"))
    which = params["exclude_planted"]
    excluded = None
    if which == "all":
        excluded = planted
    elif which == "ladder":
        excluded = planted_mask(index, encode, excluded_texts(manifest, "ladder"))
    log.info("%d of %d training tokens lie in planted text", planted.sum(), len(tokens))
    counts, keys = window_counts(index, p + s, tokens=tokens)
    spans = sample_repeats(
        counts, keys, p + s, params["strata"], params["per_stratum"], params["seed"], excluded
    )
    ids = [tokens[x : x + p + s].astype(np.int64) for x in spans["position"]]
    spans["copies"] = index.count_many(ids)
    spans["prefix_copies"] = index.count_many([x[:p] for x in ids])
    labels = strata_labels(params["strata"])
    spans["stratum"] = [labels[stratum_of(c, params["strata"])] for c in spans["copies"]]
    spans["planted"] = touches(planted, spans["position"], p + s).astype(int)
    return spans, ids


def extract_repeats(model, tokenizer, spans, ids, *, model_name, params, device) -> pd.DataFrame:
    """:data:`REPEAT_COLUMNS` for every sampled span: prompt with its first P tokens (after the
    eos token), decode S tokens greedily and score them against the span's last S tokens
    (:func:`copyscope.memorize.extraction.greedy_extract`, end-of-text policy ``"continue"``,
    as the ladder's)."""
    p, s = params["prompt_tokens"], params["suffix_tokens"]
    found = greedy_extract(
        model,
        ids,
        prompt_tokens=p,
        suffix_tokens=s,
        eos_id=tokenizer.eos_token_id,
        at_eos="continue",
        batch_size=params["batch_size"],
        device=device,
    )
    rows = []
    for r, x, (generated, measures) in zip(spans.to_dict("records"), ids, found, strict=True):
        rows.append(
            {
                "model": model_name,
                "passage": f"span-{int(r['position'])}",
                "kind": "training",
                "copies": int(r["copies"]),
                "prefix_copies": int(r["prefix_copies"]),
                "stratum": r["stratum"],
                "position": int(r["position"]),
                "planted": int(r["planted"]),
                "n_tokens": p + s,
                **extraction_row(tokenizer, x, p, s, generated, measures),
            }
        )
    return pd.DataFrame(rows, columns=REPEAT_COLUMNS)


def repeats_file(model_dir, model_name, index_dir, manifest_json, params, out, device="auto"):
    """Sample the repeated training n-grams of the index in ``index_dir`` (the model's
    tokenizer), decode them with the model in ``model_dir``, write :data:`REPEAT_COLUMNS` to
    ``out`` (.csv) and return the frame."""
    from ..index import open as open_index
    from ..io import read_json, write_csv
    from ..lm import load_model

    model, tok = load_model(model_dir, device)
    index = open_index(index_dir)
    manifest = read_json(manifest_json)
    spans, ids = repeat_spans(
        index, params, lambda t: tok.encode(t, add_special_tokens=False), manifest
    )
    if not len(spans):
        raise InputError(index_dir, "training spans of prompt_tokens + suffix_tokens tokens")
    frame = extract_repeats(
        model,
        tok,
        spans,
        ids,
        model_name=model_name,
        params=params,
        device=str(next(model.parameters()).device),
    )
    write_csv(out, frame)
    return frame


def style_files(syntax_params: Mapping, ladder: Sequence, repeats: Sequence, out: Sequence):
    """Tag and measure every model's passages: ``ladder`` and ``repeats`` are ``(model,
    path)`` pairs of extraction tables (ladder: :mod:`copyscope.memorize`; repeats:
    :func:`repeats_file`), ``out`` ``(model, path)`` of the per-passage style tables to write
    (:data:`STYLE_COLUMNS`). One backend (``syntax:`` block) tags them all."""
    from ..io import write_csv
    from .parse import make_backend

    if not out:
        raise InputError("--out", "at least one MODEL PATH to write")
    backend = make_backend(syntax_params)
    sources = {m: [] for m, _ in out}
    for source, pairs in (("ladder", ladder), ("training", repeats)):
        for model, path in pairs:
            if model not in sources:
                raise InputError(path, f"a model with an --out file, found {model!r}")
            sources[model].append(style_rows(pd.read_csv(path), source, backend, syntax_params))
    written = {}
    for model, path in out:
        parts = [f for f in sources[model] if len(f)]
        frame = (
            pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=STYLE_COLUMNS)
        )
        write_csv(path, frame)
        written[model] = frame
    return written
