"""Analysis stage: everything measured on one (model, decoding) sample file.

For the samples of one setting (or the human baseline) this writes, per text and token, one
file each (the caller names every path, see :func:`analyze_setting`; the workflow keeps them
under ``analysis/<model>/<decoding>/``):

* ``tokens.parquet`` — Rusty-DAWG units (the model's tokens): L_t and C_t of every generated
  token against the training index (the prompt is never queried), the natural-only
  ``L_nat``/``C_nat`` (against the index of the natural training text, before any planting)
  and the ``source_class`` of the longest match (:mod:`copyscope.analyze.classes`);
* ``words.parquet`` — RAVEN units (Moses words): the pointwise duplication scores from training,
  from the context (prompt + earlier generated words) and their union, after clipping; the
  natural-only ``L_nat`` and the ``source_class`` of ``L_train``;
* ``quality.csv`` — the evaluator model's mean negative log-likelihood of each generation given
  its prompt (the quality proxy of RAVEN's novelty–quality tradeoff);
* ``supercopies.csv`` — every copied passage of ≥ ``supercopy_min`` words, with its training
  count and sources, its count in the natural text (``count_nat``) and its source ``class``
  (``natural``/``duplicate``: the whole passage occurs in natural text);
* ``planted.csv`` — for every planted passage (``corpus.inject.duplicates``), the longest copy
  of it in any generation.

Per model (not per setting), :func:`completion_loss_file` writes the per-token loss of a model on
the human continuations, joined to their L_t. The tables across settings are built by
:mod:`copyscope.report`. The metrics themselves live in :mod:`copyscope.novelty`,
:mod:`copyscope.raven` and :mod:`copyscope.lm`; this module only wires them to the files.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..index import Index, build_index, maximal_spans
from ..index import open as open_index
from ..index.fanout import save_queries
from ..io import atomic_path, read_jsonl, write_csv
from ..raven import score_texts, supercopies
from .classes import (
    DUPLICATE,
    natural_outside_duplicates,
    planted_lengths,
    source_classes,
    span_classes,
)

log = logging.getLogger(__name__)


def load_samples(path) -> pd.DataFrame:
    """Sample rows of a setting (see :mod:`copyscope.sample`) as a frame, in file order."""
    rows = list(read_jsonl(path))
    return pd.DataFrame(rows)


def _write_parquet(path, frame: pd.DataFrame) -> None:
    with atomic_path(path, suffix=".parquet") as tmp:
        frame.to_parquet(tmp, index=False)


def _flat(frame: pd.DataFrame, per_text: list[np.ndarray], columns: dict[str, list[np.ndarray]]):
    """Tidy per-token frame: text number, window, prompt length, position, then ``columns``."""
    lens = [len(x) for x in per_text]
    out = pd.DataFrame(
        {
            "text": np.repeat(np.arange(len(frame)), lens),
            "window": np.repeat(frame["window"].to_numpy(), lens),
            "prompt_length": np.repeat(frame["prompt_length"].to_numpy(), lens),
            "t": np.concatenate([np.arange(n) for n in lens]) if lens else [],
        }
    )
    for name, parts in columns.items():
        out[name] = np.concatenate(parts) if parts else []
    return out


def token_queries(samples: pd.DataFrame, index_tokenizer=None) -> list[np.ndarray]:
    """The generations in the index's tokens, what :func:`token_matches` queries: the sampled
    ids as they are, or with ``index_tokenizer`` (the index's tokenizer when it is not the
    model's: a released index in Llama-2's tokens and a Pythia model) each text encoded again
    with it (:func:`encoder`)."""
    if index_tokenizer is None:
        return [np.asarray(x, dtype=np.int64) for x in samples["ids"]]
    encode = encoder(index_tokenizer)
    return [np.asarray(encode(t), dtype=np.int64) for t in samples["text"]]


def encoder(hf_tokenizer):
    """Text → ids of a Hugging Face tokenizer, without special tokens (no BOS: the n-grams
    of the text only)."""

    def encode(text):
        return hf_tokenizer.encode(text, add_special_tokens=False)

    return encode


def word_queries(samples: pd.DataFrame, words) -> list[np.ndarray]:
    """The generations in Moses words: what :func:`word_scores` queries."""
    return [words.encode(t) for t in samples["text"]]


def token_matches(
    samples: pd.DataFrame,
    index: Index,
    index_tokenizer=None,
    tokenizer: str | None = None,
) -> pd.DataFrame:
    """L_t and C_t of every generated token against the training index, in the index's
    tokens (the model's, or ``index_tokenizer``'s: :func:`token_queries`); column
    ``tokenizer`` names the tokenizer of the ids and n-grams (when given)."""
    gens = token_queries(samples, index_tokenizer)
    m = index.longest_matches(gens)
    frame = _flat(
        samples, gens, {"id": gens, "L": m.split_lengths(), "C": np.split(m.count, m.offsets[1:-1])}
    )
    if tokenizer is not None:
        frame["tokenizer"] = tokenizer
    return frame


def natural_matches(
    frame: pd.DataFrame,
    gens: list[np.ndarray],
    natural_index: Index | None,
    planted: Mapping[str, list[str]],
    encode,
    length: str = "L",
    count: str | None = "C",
) -> dict[str, np.ndarray]:
    """Flat natural-only columns of a per-position frame (``frame[length]``: L against the
    training index, ``gens``: the queries in the index's units): ``L_nat`` (and ``C_nat`` when
    ``count`` is given) against ``natural_index`` (None: nothing is planted, natural = all)
    and ``source_class`` of the match (:func:`copyscope.analyze.classes.source_classes`, the
    planted texts encoded with ``encode``; an n-gram of a duplicated passage is ``duplicate``
    only when the natural text holds it nowhere else, by counts in ``natural_index``); also
    returns the per-class lengths under ``planted``, and the duplicated passages and
    ``encode`` (``duplicated``, ``encode``) for :func:`supercopy_sources`."""
    if natural_index is None:
        L_nat = frame[length].to_numpy()
        C_nat = frame[count].to_numpy() if count else None
    else:
        m = natural_index.longest_matches(gens)
        L_nat, C_nat = np.asarray(m.length, np.int64), np.asarray(m.count, np.int64)
    lens = planted_lengths(planted, encode, gens)
    out = {"L_nat": L_nat}
    if count:
        out["C_nat"] = C_nat
    L = frame[length].to_numpy(np.int64)
    outside = np.zeros(L.shape[0], dtype=bool)
    if natural_index is not None and lens.get(DUPLICATE) is not None:
        # an n-gram of a duplicated passage is a planted duplicate only if the natural text
        # holds it nowhere else (one common word of the passage stays natural)
        at = np.flatnonzero((L > 0) & (L_nat >= L) & (lens[DUPLICATE] >= L))
        flat = np.concatenate(gens) if gens else np.zeros(0, np.int64)
        grams = [flat[i - L[i] + 1 : i + 1] for i in at]
        if grams:
            duplicated = [np.asarray(encode(t), dtype=np.int64) for t in planted[DUPLICATE]]
            outside[at] = natural_outside_duplicates(
                grams, natural_index.count_many(grams), duplicated
            )
    out["source_class"] = source_classes(L, L_nat, lens, outside).astype(str)
    out["planted"] = lens
    out["duplicated"] = planted.get(DUPLICATE, [])
    out["encode"] = encode
    return out


def _add_natural(frame: pd.DataFrame, cols: dict) -> dict:
    for name in ("L_nat", "C_nat", "source_class"):
        if name in cols:
            frame[name] = cols[name]
    return cols


def supercopy_sources(
    sc: pd.DataFrame,
    gens: list[np.ndarray],
    natural: dict,
    natural_index: Index | None,
) -> pd.DataFrame:
    """The supercopies ``sc`` (:func:`copyscope.raven.supercopies` of ``gens``) with
    ``count_nat`` (occurrences of the passage in the natural text; ``count`` when nothing is
    planted) and ``class`` (:func:`~copyscope.analyze.classes.span_classes` of the whole
    passage, from ``natural``, the :func:`natural_matches` of ``gens``)."""
    sc = sc.copy()
    starts = np.concatenate([[0], np.cumsum([len(g) for g in gens], dtype=np.int64)])
    ends = starts[sc["text"].to_numpy(np.int64)] + sc["end"].to_numpy(np.int64) - 1
    if natural_index is None:
        sc["count_nat"] = sc["count"]
    else:
        sc["count_nat"] = natural_index.count_many(
            [gens[k][a:b] for k, a, b in zip(sc["text"], sc["start"], sc["end"], strict=True)]
        )
    outside = None
    if natural_index is not None and natural.get("duplicated"):
        grams = [gens[k][a:b] for k, a, b in zip(sc["text"], sc["start"], sc["end"], strict=True)]
        duplicated = [np.asarray(natural["encode"](t), np.int64) for t in natural["duplicated"]]
        outside = natural_outside_duplicates(grams, sc["count_nat"].to_numpy(), duplicated)
    classes = span_classes(
        sc["length"].to_numpy(), ends, natural["L_nat"], natural["planted"], outside
    )
    sc["class"] = classes.astype(str) if len(sc) else pd.Series([], dtype=str)
    return sc


def word_scores(
    samples: pd.DataFrame, words, word_index: Index, decode
) -> tuple[pd.DataFrame, list[np.ndarray], list[np.ndarray]]:
    """RAVEN pointwise scores in Moses words; ``decode`` turns model ids into text.

    The prompt and the generation are detokenized and Moses-tokenized separately, so a word that
    the model split across the prompt boundary counts as two words (documented limitation).
    """
    prompts = [
        words.encode(decode(p)) if len(p) else np.zeros(0, np.int64) for p in samples["prompt"]
    ]
    gens = word_queries(samples, words)
    train_len = word_index.longest_matches(gens).split_lengths()
    scores = score_texts(train_len, prompts, gens)
    frame = _flat(
        samples,
        gens,
        {
            "word": gens,
            "L_train": train_len,
            "s_train": scores["train"],
            "s_context": scores["context"],
            "s_union": scores["union"],
        },
    )
    return frame, gens, train_len


def quality(
    samples: pd.DataFrame,
    evaluator,
    eval_tok,
    same_tokenizer: bool,
    batch_size: int,
    device: str,
    evaluator_name: str = "",
) -> pd.DataFrame:
    """Mean NLL (nats/token) of each generation under the evaluator, given its prompt.

    With another tokenizer the generation text is re-encoded in the evaluator's tokens and
    scored without its prompt; a re-encoding longer than the evaluator's context is cut to
    its first ``context − 1`` tokens (``tokens`` records how many were scored). The last
    column, ``evaluator``, names the scoring model (``evaluator_name``; RAVEN scores each
    model's text with a different model, see :func:`copyscope.config.evaluator_of`).
    """
    from ..lm import context_length, token_logprobs

    if same_tokenizer:
        gens = [np.asarray(x, dtype=np.int64) for x in samples["ids"]]
        ctx = [np.asarray(x, dtype=np.int64) for x in samples["prompt"]]
    else:
        limit = context_length(evaluator)
        gens = [
            np.asarray(eval_tok.encode(t, add_special_tokens=False), np.int64)
            for t in samples["text"]
        ]
        cut = sum(limit is not None and len(g) > limit - 1 for g in gens)
        if cut:
            log.info("%d re-encoded generations cut to the evaluator's context of %d", cut, limit)
            gens = [g[: limit - 1] for g in gens]
        ctx = None
    lps = token_logprobs(
        evaluator,
        gens,
        eos_id=eval_tok.eos_token_id,
        batch_size=batch_size,
        device=device,
        context=ctx,
    )
    return pd.DataFrame(
        {
            "text": np.arange(len(samples)),
            "window": samples["window"].to_numpy(),
            "prompt_length": samples["prompt_length"].to_numpy(),
            "tokens": [len(x) for x in lps],
            "nll_sum": [float(-np.sum(x)) for x in lps],
            "evaluator": evaluator_name,
        }
    )


MIN_ATTRIBUTED = 4  # shorter matches with a planted passage are not attributed to it


def planted_copies(
    samples: pd.DataFrame, planted: list[dict], encode, min_copy: int
) -> pd.DataFrame:
    """Longest copy of each planted passage in any generation (model tokens).

    The passages are indexed on their own (one document each); every maximal span of at least
    ``MIN_ATTRIBUTED`` tokens of a generation that matches a passage is attributed to it
    (``longest_copy`` is 0 when no such span exists).
    """
    cols = [
        "id",
        "group",
        "copies",
        "occurrences",
        "passage_tokens",
        "longest_copy",
        "texts_with_copy",
        "reproduced",
    ]
    if not planted:
        return pd.DataFrame(columns=cols)
    ids = [np.asarray(encode(p["text"]), dtype=np.int64) for p in planted]
    dtype = np.uint16 if max(int(x.max()) for x in ids) < 65535 else np.uint32
    sep = np.iinfo(dtype).max
    stream = np.concatenate([np.append(x, sep).astype(dtype) for x in ids])
    best = np.zeros(len(planted), dtype=np.int64)
    texts = [set() for _ in planted]
    with tempfile.TemporaryDirectory() as tmp:
        build_index(stream, Path(tmp) / "planted", doc_ids=[p["id"] for p in planted])
        idx = open_index(Path(tmp) / "planted")
        gens = [np.asarray(x, dtype=np.int64) for x in samples["ids"]]
        m = idx.longest_matches(gens)
        spans = [
            (i, s, e)
            for i, L in enumerate(m.split_lengths())
            for s, e in maximal_spans(L, MIN_ATTRIBUTED)
        ]
        found = idx.locate_many([gens[i][s:e] for i, s, e in spans], limit=len(planted))
        for (i, s, e), where in zip(spans, found, strict=True):
            for _, doc, _ in where:
                best[doc] = max(best[doc], e - s)
                if e - s >= min_copy:
                    texts[doc].add(i)
    return pd.DataFrame(
        {
            "id": [p["id"] for p in planted],
            "group": [p.get("group", 0) for p in planted],
            "copies": [p["copies"] for p in planted],
            "occurrences": [p["occurrences"] for p in planted],
            "passage_tokens": [len(x) for x in ids],
            "longest_copy": best,
            "texts_with_copy": [len(t) for t in texts],
            "reproduced": best >= min_copy,
        }
    )


def check_pairing(index: Index, tokenizer, tokenizer_dir) -> None:
    """The index must be built with the tokenizer of the model (same vocabulary)."""
    from ..errors import InputError
    from ..tokenize import load_hf_tokenizer

    rel = index.manifest.get("tokenizer_dir")
    if rel is None:
        return
    indexed = load_hf_tokenizer(index.path / rel)
    if indexed.get_vocab() != tokenizer.get_vocab():
        raise InputError(
            index.path,
            f"this index was built with the tokenizer {index.manifest.get('tokenizer')!r} "
            f"({index.path / rel}), which differs from the model's tokenizer at {tokenizer_dir}",
        )


INPUTS = {
    "samples": "sample file of the setting (.jsonl, see copyscope.sample)",
    "tokenizer": "the model's tokenizer directory",
    "index": "index directory (or its index.json) in the model's tokens",
    "word_tokenizer": "Moses word tokenizer directory",
    "word_index": "index directory in Moses words",
    "manifest": "corpus manifest.json (its 'injected' list holds the planted passages)",
}
"""What :func:`analyze_setting` reads: name → what the path is."""

SCORED_INPUTS = {"evaluator": "the evaluator model's directory (absent: no quality.csv)"}
"""What :func:`analyze_setting` reads to score the texts with a model: absent for a set of
generations from outside copyscope (config ``generations:``), whose analyses need no model."""

RETOKENIZE_INPUTS = {
    "index_tokenizer": "the index's tokenizer directory when it is not the model's: the "
    "generations are encoded again with it before --index is queried (default: the model's "
    "sampled ids)",
}
"""Optional input of :func:`analyze_setting`: the tokenizer of a released index (Llama-2's,
GPT-2's, OLMo's) that is not the studied model's."""

NATURAL_INPUTS = {
    "natural_index": "index directory (or its index.json) of the natural training text in the model's tokens "
    "(default: --index, i.e. nothing planted)",
    "natural_word_index": "index directory of the natural training text in Moses words "
    "(default: --word-index)",
}
"""Optional inputs of :func:`analyze_setting`: absent (or the same path as the training index)
means natural = all; always queried directly (no per-shard fan-out)."""

OUTPUTS = {
    "tokens": "per-token L_t and C_t, L_nat, C_nat and source_class (model tokens), .parquet",
    "words": "per-word RAVEN scores, L_nat and source_class (Moses words), .parquet",
    "supercopies": "copied training passages of at least supercopy_min words, .csv",
    "planted": "longest copy of every planted passage, .csv",
}
"""What :func:`analyze_setting` writes: name → what the file holds (module docstring)."""

SCORED_OUTPUTS = {"quality": "per-text evaluator NLL, .csv (with --evaluator only)"}
"""What :func:`analyze_setting` writes with :data:`SCORED_INPUTS` only."""


def token_table(
    samples: pd.DataFrame,
    index: Index,
    natural_index: Index | None,
    planted: Mapping[str, list[str]],
    encode,
    index_tokenizer=None,
    tokenizer: str | None = None,
) -> pd.DataFrame:
    """The per-token frame of ``tokens.parquet``: L_t and C_t of every generated token against
    ``index`` (:func:`token_matches`; the prompt is never queried; with ``index_tokenizer`` the
    generations encoded again in the index's tokens, ``tokenizer`` naming them), and the
    natural-only ``L_nat``, ``C_nat`` and ``source_class`` (:func:`natural_matches`, the planted
    passages in the index's tokens by ``encode``; ``natural_index`` None: nothing is planted)."""
    frame = token_matches(samples, index, index_tokenizer, tokenizer)
    queries = token_queries(samples, index_tokenizer)
    _add_natural(frame, natural_matches(frame, queries, natural_index, planted, encode))
    return frame


def _natural_index(inputs: Mapping, name: str, of: str) -> Index | None:
    """The index ``inputs[name]`` of the natural text, None when absent or the same folder as
    ``inputs[of]`` (nothing planted: natural = all)."""
    path = inputs.get(name)
    if path is None or Path(path).resolve() == Path(inputs[of]).resolve():
        return None
    return open_index(path)


TOKEN_INPUTS = {
    "tokenizer": INPUTS["tokenizer"],
    "index": INPUTS["index"],
    "manifest": INPUTS["manifest"],
}
"""What :func:`token_files` reads besides the sets (and optionally ``natural_index``)."""


def token_files(inputs: Mapping[str, str | Path], sets: Sequence[Sequence[str | Path]]) -> int:
    """``tokens.parquet`` alone (:func:`token_table`) of each ``(samples, out)`` of ``sets``,
    with the shared ``inputs`` (:data:`TOKEN_INPUTS`, optionally ``natural_index``): the
    n-gram novelty of sample sets no other per-setting analysis reads (the training-prompt
    sets, ``sampling.training_prompts``). Each file is the one :func:`analyze_setting`
    writes. Returns the number of texts."""
    from ..corpus import planted_texts
    from ..errors import FlagError
    from ..io import read_json
    from ..tokenize import load_hf_tokenizer

    _require(inputs, TOKEN_INPUTS, "token_files(inputs=…)")
    if not sets:
        raise FlagError("--set", "expected at least one set (its samples and tokens.parquet)")
    tok = load_hf_tokenizer(inputs["tokenizer"])
    index = open_index(inputs["index"])
    check_pairing(index, tok, inputs["tokenizer"])
    natural = _natural_index(inputs, "natural_index", "index")
    texts = planted_texts(read_json(inputs["manifest"]))

    def encode(text):
        return tok.encode(text, add_special_tokens=False)

    n = 0
    for samples_path, out in sets:
        samples = load_samples(samples_path)
        _write_parquet(out, token_table(samples, index, natural, texts, encode))
        n += len(samples)
    return n


def _require(given: Mapping, names, what: str) -> None:
    from ..errors import InputError

    missing = sorted(set(names) - set(given))
    if missing:
        raise InputError(what, f"a path for each of {missing}")


def analyze_setting(
    inputs: Mapping[str, str | Path],
    out: Mapping[str, str | Path],
    *,
    evaluator_same_tokenizer: bool,
    supercopy_min: int,
    planted_min_copy: int,
    batch_size: int = 20,
    device: str = "cpu",
    matches: Mapping[str, str | Path | None] | None = None,
    evaluator_name: str | None = None,
    ngram_tokenizer: str | None = None,
) -> None:
    """Read ``inputs[name]`` for each name of :data:`INPUTS`, run every per-setting analysis on
    the samples and write ``out[name]`` for each name of :data:`OUTPUTS`; with an
    ``inputs["evaluator"]`` also the evaluator's ``out["quality"]`` (:data:`SCORED_OUTPUTS`;
    both or neither).  ``matches``
    (``index`` / ``word_index`` → merged per-shard fan-out file of :func:`write_queries`'s
    queries) replaces the L_t/C_t queries of that index by the file's answers.
    ``evaluator_name`` (default: the name of the evaluator's directory) fills quality.csv's
    ``evaluator`` column. With ``inputs["index_tokenizer"]`` (:data:`RETOKENIZE_INPUTS`) the
    generations are encoded again in that tokenizer's ids before the index is queried (the
    planted passages too); ``ngram_tokenizer`` (default: the name of the tokenizer's directory)
    fills tokens.parquet's ``tokenizer`` column, the tokenizer of its ids and n-grams.

    One job per setting on purpose: the steps share the samples, the model tokenizer and the
    Moses index, and splitting the evaluator step into its own job would add one Python/torch
    start-up (2-4 s on 2 cores) per setting, over the default run's 41 settings, for no gain.
    """
    import time

    from ..corpus import planted_texts
    from ..io import read_json
    from ..lm import load_model
    from ..tokenize import load, load_hf_tokenizer

    _require(inputs, INPUTS, "analyze_setting(inputs=…)")
    _require(out, OUTPUTS, "analyze_setting(out=…)")
    scored = "evaluator" in inputs
    if scored != ("quality" in out):
        from ..errors import InputError

        raise InputError("analyze_setting", "an evaluator and a quality file, both or neither")
    t0 = time.perf_counter()

    def done(what):
        log.info("%s done (%.1f s)", what, time.perf_counter() - t0)

    samples = load_samples(inputs["samples"])
    tok = load_hf_tokenizer(inputs["tokenizer"])

    def decode(ids):
        return tok.decode([int(i) for i in ids])

    def encode(text):
        return tok.encode(text, add_special_tokens=False)

    def natural(name, of):  # the natural text's index, None when it is the training index
        return _natural_index(inputs, name, of)

    manifest = read_json(inputs["manifest"])
    texts = planted_texts(manifest)
    matches = matches or {}
    index = open_index(inputs["index"], matches.get("index"))
    index_tok, index_encode, tok_dir = None, encode, inputs["tokenizer"]
    if inputs.get("index_tokenizer") is not None:
        tok_dir = inputs["index_tokenizer"]
        index_tok = load_hf_tokenizer(tok_dir)
        index_encode = encoder(index_tok)
        log.info("the generations encoded again in the index's tokenizer %s", tok_dir)
    check_pairing(index, index_tok or tok, tok_dir)
    name = ngram_tokenizer or Path(tok_dir).name
    nat = natural("natural_index", "index")
    tframe = token_table(samples, index, nat, texts, index_encode, index_tok, name)
    _write_parquet(out["tokens"], tframe)
    done("token matches")
    words = load("moses", inputs["word_tokenizer"])
    word_index = open_index(inputs["word_index"], matches.get("word_index"))
    wframe, word_gens, train_len = word_scores(samples, words, word_index, decode)
    word_nat = natural("natural_word_index", "word_index")
    wcols = _add_natural(
        wframe, natural_matches(wframe, word_gens, word_nat, texts, words.encode, "L_train", None)
    )
    _write_parquet(out["words"], wframe)
    done("word scores")
    sc = supercopies(word_index, word_gens, train_len, min_len=supercopy_min)
    write_csv(out["supercopies"], supercopy_sources(sc, word_gens, wcols, word_nat))
    planted = manifest["injected"]
    write_csv(out["planted"], planted_copies(samples, planted, encode, planted_min_copy))
    done("supercopies and planted passages")
    if not scored:
        return
    evaluator, eval_tok = load_model(inputs["evaluator"], device)
    name = evaluator_name or Path(inputs["evaluator"]).name
    q = quality(samples, evaluator, eval_tok, evaluator_same_tokenizer, batch_size, device, name)
    write_csv(out["quality"], q)
    done("evaluator perplexity")


def write_queries(samples_path, word_tokenizer_dir, out: Mapping, index_tokenizer_dir=None) -> int:
    """Write the L_t/C_t queries of :func:`analyze_setting` for the per-shard fan-out:
    ``out["tokens"]`` (:func:`token_queries`, against the index in the model's tokens, or in
    those of ``index_tokenizer_dir``) and ``out["words"]`` (:func:`word_queries`, against the
    Moses word index); returns the number of texts."""
    from ..tokenize import load, load_hf_tokenizer

    samples = load_samples(samples_path)
    index_tok = None if index_tokenizer_dir is None else load_hf_tokenizer(index_tokenizer_dir)
    save_queries(out["tokens"], token_queries(samples, index_tok))
    save_queries(out["words"], word_queries(samples, load("moses", word_tokenizer_dir)))
    return len(samples)


def completion_losses(
    model, eos_id: int, samples: pd.DataFrame, tokens: pd.DataFrame, prompt_length: int, device: str
) -> pd.DataFrame:
    """Per-token loss (nats) of ``model`` on the human continuations at one prompt length,
    joined to their L_t (``tokens``, from :func:`token_matches`) for the completion loss."""
    from ..lm import token_logprobs

    keep = (samples["prompt_length"] == prompt_length).to_numpy()
    sub = samples[keep]
    out = tokens[tokens["text"].isin(np.flatnonzero(keep))].copy()
    lps = token_logprobs(
        model,
        [np.asarray(x, np.int64) for x in sub["ids"]],
        eos_id=eos_id,
        device=device,
        context=[np.asarray(x, np.int64) for x in sub["prompt"]],
    )
    out["loss"] = -np.concatenate(lps)
    return out


def completion_loss_file(model_dir, samples_path, tokens_path, prompt_length: int, device, out):
    """:func:`completion_losses` of the model in ``model_dir`` on the human continuations
    (``samples_path``) and their L_t (``tokens_path``, a ``tokens.parquet``), written to ``out``.
    """
    from ..lm import load_model

    model, tok = load_model(model_dir, device)
    frame = completion_losses(
        model,
        tok.eos_token_id,
        load_samples(samples_path),
        pd.read_parquet(tokens_path),
        prompt_length,
        str(next(model.parameters()).device),
    )
    _write_parquet(out, frame)
    return frame


SET_FILES = ("samples", "tokens", "words", "quality", "supercopies", "planted")
"""The files of one set of a model's analyze job, in the order ``analyze model --set`` takes
them: its samples, then :data:`OUTPUTS` and :data:`SCORED_OUTPUTS`."""


def analyze_files(
    inputs: Mapping[str, str | Path],
    sets: list[Sequence[str | Path]],
    *,
    evaluator_same_tokenizer: bool,
    supercopy_min: int,
    planted_min_copy: int,
    device: str = "cpu",
    evaluator_name: str | None = None,
    matches: list[Sequence[str | Path]] | None = None,
    completion: Sequence[Sequence[str | Path]] = (),
    prompt_length: int | None = None,
    ngram_tokenizer: str | None = None,
) -> None:
    """A model's analyze job (or the human sets'): :func:`analyze_setting` of every set in
    ``sets`` (each its paths in the order of :data:`SET_FILES`) in order, with the shared
    ``inputs`` (every name of :data:`INPUTS` but ``samples``, :data:`NATURAL_INPUTS`,
    :data:`RETOKENIZE_INPUTS`, :data:`SCORED_INPUTS`) and the set's fan-out ``matches`` (one ``(token matches, word
    matches)`` pair per set, or None); then, for each ``(model, out)``
    of ``completion``, :func:`completion_loss_file` on the first set's samples and tokens at
    ``prompt_length``. The evaluator is loaded once for all sets (the models share a load,
    :func:`copyscope.lm.shared_models`); every file is the one each step writes alone."""
    from ..errors import FlagError
    from ..lm import shared_models

    if not sets:
        raise FlagError("--set", "expected at least one set (its samples and five files)")
    if matches is not None and len(matches) != len(sets):
        raise FlagError("--matches", f"expected one per --set ({len(sets)}), got {len(matches)}")
    if completion and prompt_length is None:
        raise FlagError("--prompt-length", "expected with --completion")
    with shared_models():
        for i, paths in enumerate(sets):
            files = dict(zip(SET_FILES, paths, strict=True))
            fanout = None
            if matches is not None:
                fanout = {"index": matches[i][0], "word_index": matches[i][1]}
            analyze_setting(
                {**inputs, "samples": files["samples"]},
                {name: files[name] for name in SET_FILES[1:]},
                evaluator_same_tokenizer=evaluator_same_tokenizer,
                supercopy_min=supercopy_min,
                planted_min_copy=planted_min_copy,
                device=device,
                matches=fanout,
                evaluator_name=evaluator_name,
                ngram_tokenizer=ngram_tokenizer,
            )
        samples, tokens = sets[0][0], sets[0][1]
        for model, out in completion:
            completion_loss_file(model, samples, tokens, prompt_length, device, out)
