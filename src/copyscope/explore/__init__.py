"""The explorer: one self-contained HTML page to *see* the copying (``copyscope explore``).

For chosen settings (model, decoding) it shows the texts with every generated token shaded by
its L_t, the maximal copied spans (:func:`copyscope.index.maximal_spans` of L_t) with their
training count, source class and source documents, RAVEN's per-word training and context
scores, and per model the memorization ladder. Nothing is measured here: L_t, C_t and the
source class come from the analysis stage (``tokens.parquet``), the RAVEN scores from
``words.parquet``, supercopy lengths from ``supercopies.csv``, the ladder from
``memorization/<model>.csv``; the sources of a span are the index's own answers
(:meth:`copyscope.index.Index.locate`), with a few tokens of context around each. The span
options of ``copyscope trace`` (:mod:`copyscope.index.spans`: rare spans only, a density cap
ranked by length or unigram log-probability, one source per document; all off by default)
narrow the spans and sources listed, exactly as there (:func:`shown_spans`).

The page data is one compact JSON object (:func:`explorer_data`) embedded in the page
(:func:`write_page`); the page also opens a ``copyscope trace --batch FILE --format json``
output (its rows, :func:`copyscope.index.query.trace_batch_rows`) from the user's disk.

Data layout (short keys: the page is kept small)::

    {"version": 1, "min_span": k, ["span_options": {max_count, max_density, rank_by,
     docs_per_span: value}, only those set (SpanOptions),]
     "prompt_length": P, "sampled": {...},
     "vocab": {TOKENIZER: {id: piece}}, "joiner": {TOKENIZER: str},
     "settings": [{"model", "decoding", "tok", "words", "texts": [TEXT, ...]}],
     "ladder": {MODEL: LADDER}}
    TEXT    = {"w": window, "p": prompt ids, "g": generated ids, "L": L_t per generated token,
               "s": [[start, end, count, class, [[doc, offset, before, after], ...]], ...],
               "W": Moses word ids, "rt": s_train, "rc": s_context (RAVEN, per word),
               "mL": mean L_t, "xL": longest span (max L_t), "sc": longest supercopy (words)}
    LADDER  = {"tok": TOKENIZER, "passages": [{"id", "kind", "copies", "exact", "lcp", "S",
               "prompt", "target": ids, "generated": ids}, ...]}
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..index.spans import OFF, SpanOptions

VERSION = 1
DEFAULT_DECODINGS = ("pure", "top_k_40", "greedy", "beam_4")
"""The settings shown by default (besides the human reference): every model's pure, top-40,
greedy and beam samples (those a run has)."""
HUMAN = ("human", "reference")
TEMPLATE = "page.html"
DATA_MARK = "/*__COPYSCOPE_DATA__*/null"


def choose_windows(
    windows: Sequence[Sequence[int]], max_texts: int, seed: int
) -> tuple[list[int], int]:
    """The prompt windows shown: those every setting has (else those any setting has), a
    seeded sample of ``max_texts`` of them when there are more, sorted; and how many there
    were before sampling."""
    sets = [set(map(int, w)) for w in windows if len(w)]
    if not sets:
        return [], 0
    pool = set.intersection(*sets) or set.union(*sets)
    pool = sorted(pool)
    if len(pool) <= max_texts:
        return pool, len(pool)
    rng = np.random.default_rng(seed)
    return sorted(int(w) for w in rng.choice(pool, size=max_texts, replace=False)), len(pool)


def common_prompt_length(samples: Sequence[pd.DataFrame]) -> int:
    """The prompt length that the most sample sets have (ties: the one with the most texts,
    then the longer): the decoding grid's, where only some decodings vary it."""
    sets: dict[int, int] = {}
    texts: dict[int, int] = {}
    for frame in samples:
        if len(frame):
            counts = frame["prompt_length"].value_counts()
            for length, n in counts.items():
                sets[int(length)] = sets.get(int(length), 0) + 1
                texts[int(length)] = texts.get(int(length), 0) + int(n)
    return max(sets, key=lambda n: (sets[n], texts[n], n)) if sets else 0


def copied_spans(L: np.ndarray, C: np.ndarray, classes: Sequence[str], min_len: int) -> list:
    """``[start, end, count, class]`` of every maximal copied span of at least ``min_len``
    tokens (:func:`~copyscope.index.maximal_spans` of ``L``): the span ending at t is the
    longest match at t, so its count is C_t and its source class ``classes[t]``."""
    from ..index import maximal_spans

    return [
        [int(s), int(e), int(C[e - 1]), str(classes[e - 1])] for s, e in maximal_spans(L, min_len)
    ]


def shown_spans(spans: list, index, ids: np.ndarray, options: SpanOptions) -> list:
    """The spans of :func:`copied_spans` (``[start, end, count, class]``) that the span
    options keep (:func:`copyscope.index.spans.select_spans`; the unigram log-probabilities,
    when spans are ranked by them, from the index's own counts), in text order."""
    from ..index.query import token_logprobs
    from ..index.spans import logprob_sum, select_spans

    if not options.filters:
        return spans
    sums = None
    if options.needs_logprobs and spans:
        logp = token_logprobs(index, ids)
        sums = [logprob_sum(logp, sp[0], sp[1]) for sp in spans]
    keep = select_spans([sp[:2] for sp in spans], [sp[2] for sp in spans], len(ids), options, sums)
    return [spans[i] for i in keep]


def span_sources(
    index, tokenizer, ids: np.ndarray, limit: int, context: int, docs: int | None = None
) -> list:
    """``[doc, offset, before, after]`` of up to ``limit`` occurrences of ``ids`` in the index
    (:meth:`~copyscope.index.Index.locate`), or with ``docs`` of one occurrence in each of up
    to ``docs`` documents (:meth:`~copyscope.index.Index.locate_documents`): the document id,
    the span's offset in it and up to ``context`` tokens of the document before and after the
    occurrence, decoded."""
    out = []
    found = index.locate(ids, limit) if docs is None else index.locate_documents([ids], docs)[0]
    for doc, number, offset in found:
        tokens = index.document(number)
        before = tokens[max(0, offset - context) : offset]
        after = tokens[offset + len(ids) : offset + len(ids) + context]
        out.append([str(doc), int(offset), tokenizer.decode(before), tokenizer.decode(after)])
    return out


def _per_text(frame: pd.DataFrame, columns: Sequence[str], n: int) -> dict[int, dict]:
    """Per text number (0..n-1): ``column -> array`` in token order."""
    out = {k: {c: np.zeros(0, np.int64) for c in columns} for k in range(n)}
    for k, g in frame.sort_values(["text", "t"]).groupby("text", sort=True):
        out[int(k)] = {c: g[c].to_numpy() for c in columns}
    return out


def setting_texts(
    samples: pd.DataFrame,
    tokens: pd.DataFrame,
    words: pd.DataFrame,
    supercopies: pd.DataFrame,
    keep: Sequence[int],
    index,
    tokenizer,
    *,
    min_span: int,
    sources: int,
    context: int,
    options: SpanOptions = OFF,
) -> list[dict]:
    """The TEXT records (module docstring) of the sample rows ``keep`` (row numbers = the
    ``text`` column of the analysis files); the spans and sources those ``options`` keep
    (:func:`shown_spans`, :func:`span_sources`)."""
    n = len(samples)
    if "source_class" not in tokens:  # an analysis from before the source classes
        tokens = tokens.assign(source_class="unknown")
    tok = _per_text(tokens, ["id", "L", "C", "source_class"], n)
    wrd = _per_text(words, ["word", "s_train", "s_context"], n)
    longest = supercopies.groupby("text")["length"].max() if len(supercopies) else pd.Series()
    out = []
    for k in keep:
        row = samples.iloc[k]
        t = tok[k]
        ids, L = np.asarray(t["id"], np.int64), np.asarray(t["L"], np.int64)
        spans = copied_spans(L, t["C"], t["source_class"], min_span)
        spans = shown_spans(spans, index, ids, options)
        for sp in spans:
            sp.append(
                span_sources(
                    index, tokenizer, ids[sp[0] : sp[1]], sources, context, options.docs_per_span
                )
            )
        out.append(
            {
                "w": int(row["window"]),
                "p": [int(i) for i in row["prompt"]],
                "g": ids.tolist(),
                "L": L.tolist(),
                "s": spans,
                "W": np.asarray(wrd[k]["word"], np.int64).tolist(),
                "rt": np.asarray(wrd[k]["s_train"], np.int64).tolist(),
                "rc": np.asarray(wrd[k]["s_context"], np.int64).tolist(),
                "mL": round(float(L.mean()), 3) if len(L) else 0.0,
                "xL": int(L.max()) if len(L) else 0,
                "sc": int(longest.get(k, 0)),
            }
        )
    return out


def ladder_rows(frame: pd.DataFrame, tokenizer) -> list[dict]:
    """The PASSAGE records of a model's extraction test (``memorization/<model>.csv``), most
    copies first: the target and the greedy generation in the model's tokens (their decoded
    text encoded again, for display), ``lcp`` (the test's own longest common prefix of the S
    tokens: the first divergence is at that position) and ``S`` (the number of target tokens)."""
    out = []
    order = frame.sort_values(["copies", "passage"], ascending=[False, True])
    for r in order.itertuples(index=False):
        target = tokenizer.encode(str(r.target) if pd.notna(r.target) else "")
        generated = tokenizer.encode(str(r.generated) if pd.notna(r.generated) else "")
        out.append(
            {
                "id": str(r.passage),
                "kind": str(r.kind),
                "copies": int(r.copies),
                "exact": int(r.exact),
                "lcp": int(r.lcp),
                "S": len(target),
                "prompt": str(r.prompt) if pd.notna(r.prompt) else "",
                "target": target.tolist(),
                "generated": generated.tolist(),
            }
        )
    return out


def piece_table(tokenizer, ids) -> dict[str, str]:
    """id (as a JSON key) -> its printable piece (:func:`copyscope.index.query.pieces`), for
    every id of ``ids`` in increasing order."""
    from ..index.query import pieces

    ids = sorted({int(i) for i in ids})
    return dict(zip(map(str, ids), pieces(tokenizer, ids), strict=True))


def _read(path, what: str, reader):
    path = Path(path)
    if not path.exists():
        raise InputError(path, f"file not found (expected {what})")
    return reader(path)


def in_index_tokens(prompts, own_dir, index_tokenizer) -> list[list[int]]:
    """Prompts in a model's own ids (its tokenizer in ``own_dir``) as the index's tokenizer
    encodes their text."""
    from ..tokenize import load_hf_tokenizer

    own = load_hf_tokenizer(own_dir)
    return [
        index_tokenizer.encode(own.decode([int(i) for i in p])).tolist() if len(p) else []
        for p in prompts
    ]


def explorer_data(
    sets: Sequence[tuple[str, str, str, str, str, str]],
    indexes: Mapping[str, str],
    word_tokenizer,
    ladders: Sequence[tuple[str, str]] = (),
    *,
    prompt_length: int | None = None,
    max_texts: int = 100,
    min_span: int = 8,
    sources: int = 3,
    context: int = 16,
    seed: int = 0,
    max_span_count: int | None = None,
    max_span_density: float | None = None,
    rank_spans_by: str = "length",
    docs_per_span: int | None = None,
    prompt_tokenizers: Mapping[str, str] | None = None,
) -> dict:
    """The page data (module docstring) of the settings ``sets`` (model, decoding, samples
    .jsonl, tokens.parquet, words.parquet, supercopies.csv), the index of each model's tokens
    (``indexes[model]``, a directory; the human sets use ``indexes["human"]``), the Moses word
    tokenizer directory and the ladder files ``(model, memorization csv)``.

    Only texts with ``prompt_length`` (default: :func:`common_prompt_length`) are shown, at
    most ``max_texts`` prompt windows (a seeded sample, the same in every set). The span
    options (``max_span_count`` … ``docs_per_span``: :class:`copyscope.index.spans.SpanOptions`)
    are off by default; those set are recorded in the data as ``span_options``.
    ``prompt_tokenizers``: model → its own tokenizer directory, for a model whose analysis
    encoded its text again in its index's tokenizer (``models.zoo.<m>.index_tokenizer``): its
    prompts, sampled in its own ids, are decoded with that tokenizer and encoded in the
    index's, as its generated text was."""
    from ..analyze import load_samples
    from ..index.query import open_with_tokenizer
    from ..tokenize import load

    if not sets:
        raise InputError("--set", "expected at least one setting (MODEL DECODING 4 PATHS)")
    options = SpanOptions(max_span_count, max_span_density, rank_spans_by, docs_per_span)
    words_tok = load("moses", word_tokenizer)
    samples = [_read(s[2], "a sample file (.jsonl)", load_samples) for s in sets]
    if prompt_length is None:
        prompt_length = common_prompt_length(samples)
    windows = [
        f.loc[f["prompt_length"] == prompt_length, "window"].tolist() if len(f) else []
        for f in samples
    ]
    chosen, available = choose_windows(windows, max_texts, seed)
    opened: dict[str, tuple] = {}  # index directory -> (index, tokenizer, name on the page)
    used: dict[str, set[int]] = {}  # index directory -> the token ids the page shows

    def index_of(label: str, flag: str):
        if label not in indexes:
            raise InputError(flag, f"expected an index for {label!r} (--index {label} DIR)")
        where = str(indexes[label])
        if where not in opened:
            index, tokenizer = open_with_tokenizer(where)
            if tokenizer is None:
                raise InputError(Path(where) / "index.json", "expected a recorded tokenizer")
            opened[where] = (index, tokenizer, f"t{len(opened)}")
            used[where] = set()
        return where

    word_ids: set[int] = set()
    out_sets = []
    for (model, decoding, _, tokens_path, words_path, sc_path), frame in zip(
        sets, samples, strict=True
    ):
        where = index_of(model, "--index")
        index, tokenizer, _ = opened[where]
        if model in (prompt_tokenizers or {}) and len(frame):
            frame = frame.assign(prompt=in_index_tokens(frame["prompt"], prompt_tokenizers[model],
                                                        tokenizer))  # fmt: skip
        keep = []  # the sample rows shown (an empty sample file has no columns)
        if len(frame):
            shown = frame["prompt_length"].eq(prompt_length) & frame["window"].isin(chosen)
            keep = np.flatnonzero(shown).tolist()
        texts = setting_texts(
            frame,
            _read(tokens_path, "tokens.parquet", pd.read_parquet),
            _read(words_path, "words.parquet", pd.read_parquet),
            _read(sc_path, "supercopies.csv", pd.read_csv),
            keep,
            index,
            tokenizer,
            min_span=min_span,
            sources=sources,
            context=context,
            options=options,
        )
        for t in texts:
            used[where].update((*t["p"], *t["g"]))
            word_ids.update(t["W"])
        name = opened[where][2]
        out_sets.append(
            {"model": model, "decoding": decoding, "tok": name, "words": "words", "texts": texts}
        )
    ladder = {}
    for model, path in ladders:
        where = index_of(model, "--ladder")
        rows = ladder_rows(
            _read(path, "a memorization table (.csv)", pd.read_csv), opened[where][1]
        )
        used[where].update(i for r in rows for i in (*r["target"], *r["generated"]))
        ladder[model] = {"tok": opened[where][2], "passages": rows}
    options_set = {k: v for k, v in vars(options).items() if v != getattr(OFF, k)}
    return {
        "version": VERSION,
        "min_span": min_span,
        **({"span_options": options_set} if options_set else {}),
        "prompt_length": prompt_length,
        "sampled": {"windows": len(chosen), "available": available, "seed": seed},
        "vocab": {
            **{opened[w][2]: piece_table(opened[w][1], ids) for w, ids in used.items()},
            "words": piece_table(words_tok, word_ids),
        },
        "joiner": {**{t[2]: t[1].joiner for t in opened.values()}, "words": words_tok.joiner},
        "settings": out_sets,
        "ladder": ladder,
    }


def page_html(data: dict, title: str = "copyscope explorer") -> str:
    """The page: the template (``page.html`` of this package) with ``data`` embedded as
    JSON (``</`` escaped, so no text can end the script element)."""
    template = resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    if DATA_MARK not in template:
        raise RuntimeError(f"{TEMPLATE}: no data marker {DATA_MARK!r}")
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    payload = (
        payload.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    )
    return template.replace("__TITLE__", title).replace(DATA_MARK, payload)


def write_page(path, data: dict) -> int:
    """Write the page (atomically) and return its size in bytes."""
    from ..io import write_text

    html = page_html(data)
    write_text(path, html)
    return len(html.encode("utf-8"))


def discover(results, decodings: Sequence[str] = DEFAULT_DECODINGS, models=None) -> dict:
    """The explicit inputs of :func:`explorer_data` found in a results folder (the layout
    of the workflow): the human reference and every model's sets among ``decodings`` (those
    present), the index of the models' tokenizer (:func:`_model_index`, for every set), the
    Moses word tokenizer ``tokenizers/words`` and the ladder files ``memorization/*.csv``."""
    results = Path(results)
    if not (results / "analysis").is_dir():
        raise InputError(results, "expected a results folder with analysis/ (a finished run)")
    sets = []
    pairs = [HUMAN] + [
        (m.name, d)
        for m in sorted((results / "analysis").iterdir())
        if m.is_dir() and m.name != "human" and (models is None or m.name in models)
        for d in decodings
    ]
    for model, decoding in pairs:
        a = results / "analysis" / model / decoding
        s = results / "samples" / model / f"{decoding}.jsonl"
        files = [s, a / "tokens.parquet", a / "words.parquet", a / "supercopies.csv"]
        if all(f.exists() for f in files):
            sets.append((model, decoding, *map(str, files)))
    index = _model_index(results)
    indexes = {m: index for m, *_ in sets}
    ladders = [
        (p.stem, str(p))
        for p in sorted((results / "memorization").glob("*.csv"))
        if p.stem in indexes or models is None
    ]
    indexes.update({m: index for m, _ in ladders})
    words = results / "tokenizers" / "words"
    return {"sets": sets, "indexes": indexes, "word_tokenizer": str(words), "ladders": ladders}


def _model_index(results: Path) -> str:
    """The index of the run's model tokenizer: the one whose tokenizer is a BPE/HF kind
    (not Moses words, not POS tags), natural-only and joined indexes excluded."""
    from ..io import read_json

    for manifest in sorted((results / "index").glob("*/index.json")):
        name = manifest.parent.name
        if "-natural" in name or name.endswith("-joined"):
            continue
        kind = read_json(manifest).get("tokenizer_kind", "")
        if kind not in ("moses", "pos"):
            return str(manifest.parent)
    raise InputError(results / "index", "expected the index of the models' tokenizer")


def explore(
    out,
    *,
    results=None,
    sets: Sequence = (),
    indexes: Mapping[str, str] | None = None,
    word_tokenizer=None,
    ladders: Sequence = (),
    decodings: Sequence[str] = DEFAULT_DECODINGS,
    **params,
) -> tuple[int, dict]:
    """``copyscope explore``: the page of the explicit inputs (the workflow's rule), or of
    those :func:`discover` finds in ``results`` (explicit ones win); written to ``out``.
    Returns the page's size in bytes and its data (``params``: see :func:`explorer_data`)."""
    if results is not None:
        found = discover(results, decodings)
        sets = list(sets) or found["sets"]
        indexes = {**found["indexes"], **(indexes or {})}
        word_tokenizer = word_tokenizer or found["word_tokenizer"]
        ladders = list(ladders) or found["ladders"]
    if not sets:
        raise InputError("copyscope explore", "expected --results DIR or --set … (one or more)")
    if word_tokenizer is None:
        raise InputError("copyscope explore", "expected --word-tokenizer DIR (or --results DIR)")
    data = explorer_data(sets, indexes or {}, word_tokenizer, ladders, **params)
    return write_page(out, data), data
