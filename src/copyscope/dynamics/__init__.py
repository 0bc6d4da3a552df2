"""Training dynamics: every kept checkpoint of a trained model scored as the final models are.

A model trained with ``models.train.checkpoints`` keeps its weights at log-spaced steps
(:mod:`copyscope.lm.checkpoints`). This stage loads each checkpoint in turn and measures, with
the per-model functions of the other stages (no second implementation):

* ``valid_loss`` — the validation loss recorded at that step (``checkpoints.json``; nats per
  token on the fixed validation subset of :func:`copyscope.lm.train.train_model`);
* ``extraction`` — the share of ladder passages extracted exactly (Carlini et al. 2023;
  :func:`copyscope.memorize.extract`), per rung (``copies <c>``, ``controls``) and per timing
  group of the planted passages (``timing early`` / ``late`` / ``spread``,
  :mod:`copyscope.corpus.timing`);
* ``nll_gap`` — Li's per-sample NLL of the planted contamination set, mean over the unplanted
  items minus mean over the planted ones (nats; :func:`copyscope.membership.stage.membership_scores`,
  the interval by :func:`copyscope.stats.bootstrap_difference_ci`, as the membership report's
  ``unplanted - planted`` contrast);
* ``name_cloze`` — case-insensitive top-1 accuracy of the name cloze
  (items drawn once from the run's candidate passages,
  :func:`copyscope.membership.stage.draw_cloze`, and scored per checkpoint,
  :func:`~copyscope.membership.stage.score_items`, without the continuation overlap,
  which the dynamics do not read) per play split (``train``, ``excerpt``, ``valid``) and per
  timing group of the training plays;
* ``template_ppl`` — perplexity (``exp`` of the mean token NLL) of the tokens inside a
  syntactic template and of the other tokens (Shaib et al. 2024, §6.1) on a fixed set of
  ``template_sentences`` held-out sentences (seeded, from the syntax stage's parse of the
  validation split, at least n words each): the templates are the ``top_k`` most frequent POS
  n-grams (n = ``template_headline_n``) of the training split's parse
  (:func:`copyscope.syntax.templates.top_templates`); a word is *inside* when some template
  n-gram of its sentence covers it (:func:`template_marks`), and a token belongs to its word
  (each word encoded alone, after a space but the first: :func:`sentence_ids`); the interval is
  the exponentiated bootstrap interval of the mean NLL over tokens;
* ``novelty`` — the pooled share of novel n-grams (``n = novelty_n``) of a fixed set of
  continuations (the first ``prompts`` prompt windows, ``new_tokens`` tokens, ``greedy`` and
  ``pure`` sampling with a fixed seed) against the training index (Merrill et al. 2024;
  :func:`copyscope.novelty.metrics.count_matrix`, interval
  :func:`~copyscope.novelty.metrics.bootstrap_novelty`).

Every mean comes with a 95% percentile bootstrap interval over its items (``bootstrap``
resamples, ``seed``). The table is long: one row per ``(model, step, quantity, set)`` with
``value``, ``value_lo``, ``value_hi`` and ``n`` (items; NaN bounds where there is no
interval).
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from ..corpus import ladder_passages
from ..corpus.timing import GROUPS, SPREAD, set_name, timing_of
from ..errors import InputError
from ..lm.checkpoints import load_checkpoint, read_checkpoints
from ..stats import bootstrap_difference_ci, bootstrap_mean_ci

log = logging.getLogger(__name__)

COLUMNS = ["model", "step", "quantity", "set", "value", "value_lo", "value_hi", "n"]
QUANTITIES = ("valid_loss", "extraction", "nll_gap", "name_cloze", "template_ppl", "novelty")
"""The quantities of the table, in order (module docstring)."""
GAP_SET = "contamination"
"""The set of contamination texts whose Li NLL gives ``nll_gap`` (the benchmark items)."""
DECODINGS = {"greedy": {"kind": "greedy"}, "pure": {"kind": "sample", "temperature": 1.0}}
"""The decodings of the novelty continuations."""


def mean_row(quantity: str, name: str, values, params: dict) -> dict:
    """One row: the mean of ``values`` with its bootstrap interval (NaN bounds for fewer than
    two values or ``bootstrap`` 0; a NaN value without values)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return {"quantity": quantity, "set": name, "value": np.nan, "n": 0}
    if v.size < 2 or params["bootstrap"] <= 0:
        lo = hi = np.nan
        mean = float(v.mean())
    else:
        mean, lo, hi = bootstrap_mean_ci(v, n_boot=params["bootstrap"], seed=params["seed"])
    return {"quantity": quantity, "set": name, "value": mean, "value_lo": lo, "value_hi": hi,
            "n": int(v.size)}  # fmt: skip


def extraction_rows(frame: pd.DataFrame, timing: dict, params: dict) -> list[dict]:
    """``extraction`` rows of one checkpoint's extraction table (:data:`copyscope.memorize.COLUMNS`):
    the exact-extraction share per rung (``copies <c>``; ``controls`` for the never-planted
    passages) and, with timing, per timing group of the planted passages (``timing <group>``)."""
    rows = []
    planted = frame[frame["copies"] > 0]
    for c in sorted(planted["copies"].unique()):
        rows.append(
            mean_row(
                "extraction", f"copies {c}", planted.loc[planted["copies"] == c, "exact"], params
            )
        )
    controls = frame[frame["copies"] == 0]
    if len(controls):
        rows.append(mean_row("extraction", "controls", controls["exact"], params))
    if timing:
        group = planted["passage"].map(lambda p: timing.get(p, SPREAD))
        for g in (*GROUPS, SPREAD):
            rows.append(
                mean_row("extraction", set_name(g), planted.loc[group == g, "exact"], params)
            )
    return rows


def nll_gap_row(texts: list[dict], params: dict) -> dict:
    """The ``nll_gap`` row of one checkpoint's contamination texts with their ``li_nll``
    (:func:`copyscope.membership.stage.li_nlls`): mean Li NLL of the unplanted
    contamination-set items minus that of the planted ones."""
    bench = [t for t in texts if t["set"] == GAP_SET]
    a = np.array([t["li_nll"] for t in bench if not t["planted"]], dtype=np.float64)
    b = np.array([t["li_nll"] for t in bench if t["planted"]], dtype=np.float64)
    row = {"quantity": "nll_gap", "set": "unplanted - planted", "n": int(a.size + b.size)}
    if a.size == 0 or b.size == 0:
        return {**row, "value": np.nan}
    d, lo, hi = bootstrap_difference_ci(a, b, n_boot=params["bootstrap"], seed=params["seed"])
    return {**row, "value": d, "value_lo": lo, "value_hi": hi}


def cloze_rows(rows: list[dict], timing: dict, params: dict) -> list[dict]:
    """``name_cloze`` rows from one checkpoint's cloze rows
    (:func:`copyscope.membership.stage.score_items` with ``play`` and ``split``): the accuracy
    per split and, with timing, per timing group of the training plays (``timing <group>``)."""
    out = []
    frame = pd.DataFrame(rows, columns=["play", "split", "correct_insensitive"])
    for split in ("train", "excerpt", "valid"):
        part = frame.loc[frame["split"] == split, "correct_insensitive"]
        if len(part):
            out.append(mean_row("name_cloze", split, part, params))
    if timing:
        train = frame[frame["split"] == "train"]
        group = train["play"].map(lambda p: timing.get(p, SPREAD))
        for g in (*GROUPS, SPREAD):
            out.append(
                mean_row(
                    "name_cloze",
                    set_name(g),
                    train.loc[group == g, "correct_insensitive"],
                    params,
                )
            )
    return out


def template_marks(tags, templates: set, n: int) -> np.ndarray:
    """One bool per word of a sentence (its POS ``tags``): some n-gram of the sentence that
    covers the word is one of ``templates``. Example (n = 2, templates {(DT, NN)}): tags
    DT NN VBZ DT NN → [T, T, F, T, T]."""
    inside = np.zeros(len(tags), dtype=bool)
    for i in range(len(tags) - n + 1):
        if tuple(tags[i : i + n]) in templates:
            inside[i : i + n] = True
    return inside


def sentence_ids(tokenizer, words) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, word)``: the sentence's token ids, each word encoded alone (no special tokens)
    after a space but the first, and the index of the word of every token."""
    ids, word = [], []
    for i, w in enumerate(words):
        x = tokenizer.encode(w if i == 0 else " " + w, add_special_tokens=False)
        ids += list(x)
        word += [i] * len(x)
    return np.asarray(ids, dtype=np.int64), np.asarray(word, dtype=np.int64)


def template_set(train_parses, n: int, top_k: int) -> set:
    """The templates: the ``top_k`` most frequent POS n-grams of the training split's parse
    (:func:`copyscope.syntax.templates.top_templates`)."""
    from ..syntax.templates import top_templates

    texts = [[[(w.text, w.tag) for w in s.words] for s in p.sentences] for p in train_parses]
    return {t for t, _ in top_templates(texts, n, top_k)}


def template_sentences(valid_parses, n: int, k: int, seed: int) -> list:
    """``k`` sentences (seeded, in order) of the validation split's parse with at least ``n``
    words: the fixed text set of ``template_ppl``."""
    pool = [s for p in valid_parses for s in p.sentences if len(s.words) >= n]
    if len(pool) <= k:
        return pool
    pick = np.sort(np.random.default_rng([seed, 7]).choice(len(pool), size=k, replace=False))
    return [pool[i] for i in pick.tolist()]


def template_rows(nll: list[np.ndarray], inside: list[np.ndarray], params: dict) -> list[dict]:
    """``template_ppl`` rows: ``exp`` of the mean NLL of the tokens inside a template and of
    the other tokens (``nll[i]``, ``inside[i]`` per sentence), the interval exponentiated."""
    x = np.concatenate(nll) if nll else np.zeros(0)
    mask = np.concatenate(inside) if inside else np.zeros(0, dtype=bool)
    rows = []
    for name, part in (("template tokens", x[mask]), ("other tokens", x[~mask])):
        r = mean_row("template_ppl", name, part, params)
        for k in ("value", "value_lo", "value_hi"):
            if k in r:
                r[k] = float(np.exp(r[k]))
        rows.append(r)
    return rows


def template_ppl(model, tok, sentences, templates: set, n: int, params: dict, **kw) -> list[dict]:
    """The ``template_ppl`` rows of one model on ``sentences`` (module docstring); a sentence
    is cut to the model's context minus one token."""
    from ..lm.models import context_length
    from ..lm.score import token_logprobs

    limit = context_length(model)
    seqs, inside = [], []
    for s in sentences:
        ids, word = sentence_ids(tok, [w.text for w in s.words])
        keep = ids.size if limit is None else min(ids.size, limit - 1)
        marks = template_marks([w.tag for w in s.words], templates, n)
        seqs.append(ids[:keep])
        inside.append(marks[word[:keep]])
    lps = token_logprobs(model, seqs, eos_id=tok.eos_token_id, **kw)
    return template_rows([-lp for lp in lps], inside, params)


def novelty_row(decoding: str, lengths: list[np.ndarray], params: dict) -> dict:
    """The ``novelty`` row of one decoding: the pooled share of novel ``novelty_n``-grams of
    the continuations' L_t (:func:`copyscope.novelty.metrics.count_matrix`) with its bootstrap
    interval over continuations (:func:`~copyscope.novelty.metrics.bootstrap_novelty`)."""
    from ..novelty.metrics import bootstrap_novelty, count_matrix

    n = params["novelty_n"]
    novel, total = count_matrix(lengths, n)
    row = {"quantity": "novelty", "set": decoding, "n": len(lengths)}
    if total[:, n - 1].sum() == 0:
        return {**row, "value": np.nan}
    lo, hi = bootstrap_novelty(novel, total, params["bootstrap"], params["seed"])
    value = novel[:, n - 1].sum() / total[:, n - 1].sum()
    return {
        **row,
        "value": float(value),
        "value_lo": float(lo[n - 1]),
        "value_hi": float(hi[n - 1]),
    }


def continuation_lengths(model, tok, prompts, index, params: dict, device) -> dict:
    """Per decoding of :data:`DECODINGS`: the L_t (training index) of each continuation's
    tokens, read after its prompt (:func:`copyscope.lm.generate`, seed ``params["seed"]``)."""
    from ..lm import generate

    out = {}
    for name, method in DECODINGS.items():
        gens = generate(
            model, prompts, method, max_new_tokens=params["new_tokens"], eos_id=tok.eos_token_id,
            seed=params["seed"], batch_size=params["batch_size"], device=device,
        )  # fmt: skip
        queries = [
            np.concatenate([p, g["ids"]]).astype(np.int64)
            for p, g in zip(prompts, gens, strict=True)
        ]
        lengths = index.longest_matches(queries).split_lengths()
        out[name] = [L[len(p) :] for p, L in zip(prompts, lengths, strict=True)]
    return out


def score_checkpoints(
    model_dir, model_name: str, inputs: dict, params: dict, device="auto"
) -> pd.DataFrame:
    """The dynamics table of one trained model (module docstring; :data:`COLUMNS`).

    ``inputs``: ``manifest`` (corpus manifest), and optionally ``cloze_passages`` (the name
    cloze's candidate passages, :func:`copyscope.membership.stage.cloze_passages_file`),
    ``train_parses`` and ``valid_parses`` (the
    syntax stage's parses of the two splits: the template perplexity), ``index`` (folder of the
    training index in the model's tokens) and ``prompts`` (prompts.jsonl) for the novelty.
    ``params``: the config block ``analysis.dynamics`` with ``membership``
    (``analysis.membership``), ``memorization`` (``analysis.memorization``),
    ``prompt_length``, ``template_headline_n`` and ``top_k`` (``analysis.syntax``)."""
    from ..io import read_json, read_jsonl
    from ..membership import stage as mstage
    from ..memorize import extract

    checkpoints = read_checkpoints(model_dir)
    if not checkpoints:
        raise InputError(model_dir, "expected checkpoints (models.train.checkpoints > 0)")
    manifest = read_json(inputs["manifest"])
    timing = timing_of(manifest)
    passages = ladder_passages(manifest)
    texts = (
        mstage.contamination_texts(manifest, str(inputs["manifest"]))
        if manifest.get("contamination")
        else []
    )
    mem, memo = params["membership"], params["memorization"]
    items, cands = [], []
    if inputs.get("cloze_passages"):
        plays = mstage.read_cloze_passages(inputs["cloze_passages"], mem)
        items, cands = mstage.draw_cloze(plays, params["cloze_per_play"], mem["seed"])
    valid_ids, excerpts = set(manifest["valid_ids"]), mstage.excerpt_copies(manifest)
    sentences, templates, tn = [], set(), 0
    if inputs.get("train_parses") and inputs.get("valid_parses"):
        from ..syntax.io import read_parses

        tn, top_k = params["template_headline_n"], params["top_k"]
        templates = template_set(read_parses(inputs["train_parses"]), tn, top_k)
        valid_parses = read_parses(inputs["valid_parses"])
        sentences = template_sentences(
            valid_parses, tn, params["template_sentences"], params["seed"]
        )
    prompts, index = [], None
    if inputs.get("prompts") and inputs.get("index"):
        from ..index import open as open_index

        key = str(params["prompt_length"])
        windows = list(read_jsonl(inputs["prompts"]))[: params["prompts"]]
        prompts = [np.asarray(w["prompts"][key], dtype=np.int64) for w in windows]
        index = open_index(inputs["index"])
    rows = []
    for ck in checkpoints:
        step = int(ck["step"])
        out = [
            {
                "quantity": "valid_loss",
                "set": "validation",
                "value": float(ck["valid_loss"]),
                "n": np.nan,
            }
        ]
        model, tok = load_checkpoint(model_dir, step, device)
        dev = str(next(model.parameters()).device)
        kw = {"batch_size": mem["batch_size"], "device": dev}
        if passages:
            frame = extract(
                model, tok, passages, model_name=model_name, prompt_tokens=memo["prompt_tokens"],
                suffix_tokens=memo["suffix_tokens"], batch_size=memo["batch_size"], device=dev,
                where=str(inputs["manifest"]),
            )  # fmt: skip
            out += extraction_rows(frame, timing, params)
        if texts:
            nlls = mstage.li_nlls(  # the contamination set alone: what nll_gap_row reads
                model, tok, texts, li_words=mem["li_words"], seed=mem["seed"],
                sets=(GAP_SET,), **kw,
            )  # fmt: skip
            scored = [t | {"li_nll": x} for t, x in zip(texts, nlls, strict=True)]
            out.append(nll_gap_row(scored, params))
        if items:
            scored = [
                {
                    "play": it["play"],
                    "split": mstage.play_split(it["play"], valid_ids, excerpts),
                    **r,
                }
                for it, r in mstage.score_items(
                    model, tok, items, cands, mem, overlap_columns=False, **kw
                )
            ]
            out += cloze_rows(scored, timing, params)
        if sentences and templates:
            out += template_ppl(model, tok, sentences, templates, tn, params, **kw)
        if prompts:
            for name, lengths in continuation_lengths(
                model, tok, prompts, index, params, dev
            ).items():
                out.append(novelty_row(name, lengths, params))
        rows += [{"model": model_name, "step": step, **r} for r in out]
        log.info("%s: step %d scored (%d rows)", model_name, step, len(out))
    return pd.DataFrame(rows, columns=COLUMNS)


def score_file(
    model_dir, model_name: str, inputs: dict, params: dict, out, device="auto"
) -> pd.DataFrame:
    """:func:`score_checkpoints`, written to ``out`` (.csv)."""
    from ..io import write_csv

    frame = score_checkpoints(model_dir, model_name, inputs, params, device)
    write_csv(out, frame)
    return frame
