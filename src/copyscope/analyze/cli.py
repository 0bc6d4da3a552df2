"""``copyscope analyze``: the per-setting analyses and the per-model completion loss."""

from __future__ import annotations

import logging

from ..clikit import add_command, add_device, add_group

log = logging.getLogger(__name__)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _given(a, names, prefix: str = "") -> dict:
    """name → path of the flags ``--<prefix><name>`` that were given."""
    paths = {n: getattr(a, prefix + n) for n in names}
    return {n: p for n, p in paths.items() if p is not None}


def cmd_setting(a) -> None:
    from .. import analyze as an

    inputs = (*an.INPUTS, *an.NATURAL_INPUTS, *an.RETOKENIZE_INPUTS, *an.SCORED_INPUTS)
    an.analyze_setting(
        _given(a, inputs),
        _given(a, (*an.OUTPUTS, *an.SCORED_OUTPUTS), "out_"),
        evaluator_same_tokenizer=a.same_tokenizer, supercopy_min=a.supercopy_min,
        planted_min_copy=a.planted_min, device=a.device,
        matches={"index": a.token_matches, "word_index": a.word_matches},
        evaluator_name=a.evaluator_name, ngram_tokenizer=a.ngram_tokenizer,
    )  # fmt: skip
    log.info("%s: analysed", a.samples)


def cmd_model(a) -> None:
    from . import INPUTS, NATURAL_INPUTS, RETOKENIZE_INPUTS, SCORED_INPUTS, analyze_files

    given = (*INPUTS, *NATURAL_INPUTS, *RETOKENIZE_INPUTS, *SCORED_INPUTS)
    shared = [n for n in given if n != "samples"]
    analyze_files(
        _given(a, shared), a.set, evaluator_same_tokenizer=a.same_tokenizer,
        supercopy_min=a.supercopy_min, planted_min_copy=a.planted_min, device=a.device,
        evaluator_name=a.evaluator_name, matches=a.matches, completion=a.completion or [],
        prompt_length=a.prompt_length, ngram_tokenizer=a.ngram_tokenizer,
    )  # fmt: skip
    log.info("%d sets analysed, completion loss of %d models", len(a.set), len(a.completion or []))


def _add_retokenize(f) -> None:
    """The flags of the tokenizer of the n-grams, which ``setting`` and ``model`` share."""
    from . import RETOKENIZE_INPUTS

    for name, what in RETOKENIZE_INPUTS.items():
        f.add_argument(_flag(name), help=what)
    f.add_argument(
        "--ngram-tokenizer",
        help="the name of the tokenizer of the index's ids, for tokens.parquet's column "
        "tokenizer (default: the name of its directory)",
    )


def _add_scoring(f) -> None:
    """The flags ``setting`` and ``model`` share: the evaluator's tokenizer and name, the
    supercopy and planted-copy thresholds, the device, the tokenizer of the n-grams."""
    _add_retokenize(f)
    f.add_argument(
        "--same-tokenizer",
        action="store_true",
        help="the evaluator shares the model's tokenizer (score the sampled ids directly)",
    )
    f.add_argument(
        "--evaluator-name",
        help="the evaluator's model name, for quality.csv (default: its directory's name)",
    )
    f.add_argument(
        "--supercopy-min", type=int, default=100, help="shortest supercopy (Moses words)"
    )
    f.add_argument(
        "--planted-min", type=int, default=20, help="shortest copy of a planted passage (tokens)"
    )
    add_device(f)


def cmd_queries(a) -> None:
    from . import write_queries

    n = write_queries(
        a.samples,
        a.word_tokenizer,
        {"tokens": a.out_tokens, "words": a.out_words},
        a.index_tokenizer,
    )
    log.info("%s: queries of %d texts", a.samples, n)


def cmd_tokens(a) -> None:
    from . import token_files

    inputs = {"tokenizer": a.tokenizer, "index": a.index, "manifest": a.manifest}
    if a.natural_index:
        inputs["natural_index"] = a.natural_index
    n = token_files(inputs, a.set)
    log.info("%d sets (%d texts): tokens.parquet written", len(a.set), n)


def cmd_completion_loss(a) -> None:
    from . import completion_loss_file

    frame = completion_loss_file(a.model, a.samples, a.tokens, a.prompt_length, a.device, a.out)
    log.info("%s: completion loss of %d tokens", a.model, len(frame))


def register(sub) -> None:
    """Add the ``analyze`` group: ``setting``, ``model``, ``queries``, ``tokens`` and
    ``completion-loss``."""
    from . import INPUTS, NATURAL_INPUTS, OUTPUTS, SCORED_INPUTS, SCORED_OUTPUTS

    group = add_group(sub, "analyze", "per-setting analyses of the samples")
    f = add_command(group, "setting", cmd_setting, "every analysis of one sample file")
    for name, what in INPUTS.items():
        f.add_argument(_flag(name), required=True, help=what)
    for name, what in NATURAL_INPUTS.items():
        f.add_argument(_flag(name), help=what)
    for name, what in OUTPUTS.items():
        f.add_argument(_flag(f"out_{name}"), required=True, help=what)
    for name, what in SCORED_INPUTS.items():
        f.add_argument(_flag(name), help=what)
    for name, what in SCORED_OUTPUTS.items():
        f.add_argument(_flag(f"out_{name}"), help=what)
    _add_scoring(f)
    f.add_argument(
        "--token-matches",
        help="merged per-shard L_t/C_t of the token queries (.npz; index.query_fanout) "
        "instead of querying --index here",
    )
    f.add_argument(
        "--word-matches",
        help="merged per-shard L_t/C_t of the word queries (.npz; index.query_fanout) "
        "instead of querying --word-index here",
    )

    f = add_command(
        group, "model", cmd_model, "every analysed set of one model (one evaluator load)"
    )
    for name, what in INPUTS.items():
        if name != "samples":
            f.add_argument(_flag(name), required=True, help=what)
    for name, what in NATURAL_INPUTS.items():
        f.add_argument(_flag(name), help=what)
    for name, what in SCORED_INPUTS.items():
        f.add_argument(_flag(name), required=True, help=what)
    f.add_argument(
        "--set",
        nargs=6,
        action="append",
        default=[],
        metavar=("SAMPLES", "TOKENS", "WORDS", "QUALITY", "SUPERCOPIES", "PLANTED"),
        help="one set: its samples (.jsonl) and the files to write (what analyze setting's "
        "--out-* flags write); once per set, in order",
    )
    f.add_argument(
        "--matches",
        nargs=2,
        action="append",
        metavar=("TOKENS", "WORDS"),
        help="merged per-shard matches of a set's token and word queries (.npz; "
        "index.query_fanout), once per --set in the same order",
    )
    _add_scoring(f)
    f.add_argument(
        "--completion",
        nargs=2,
        action="append",
        metavar=("MODEL", "OUT"),
        help="after the sets: a model directory whose per-token loss on the first set's "
        "continuations is written to OUT (.parquet); once per model",
    )
    f.add_argument(
        "--prompt-length", type=int, help="prompt length whose texts --completion scores"
    )

    f = add_command(group, "queries", cmd_queries, "the texts a setting queries (fan-out)")
    f.add_argument("--samples", required=True, help="sample file of the setting (.jsonl)")
    f.add_argument("--word-tokenizer", required=True, help="Moses word tokenizer directory")
    f.add_argument(
        "--index-tokenizer",
        help="the index's tokenizer directory when it is not the model's (the texts encoded "
        "again with it)",
    )
    f.add_argument("--out-tokens", required=True, help="queries in the index's tokens (.npz)")
    f.add_argument("--out-words", required=True, help="queries in Moses words (.npz)")

    f = add_command(
        group,
        "tokens",
        cmd_tokens,
        "tokens.parquet alone (L_t, L_nat) of sample sets no other analysis reads",
    )
    for name in ("tokenizer", "index", "manifest"):
        f.add_argument(_flag(name), required=True, help=INPUTS[name])
    f.add_argument(_flag("natural_index"), help=NATURAL_INPUTS["natural_index"])
    f.add_argument(
        "--set",
        nargs=2,
        action="append",
        default=[],
        metavar=("SAMPLES", "TOKENS"),
        help="one set: its samples (.jsonl) and the tokens.parquet to write; once per set",
    )

    f = add_command(
        group,
        "completion-loss",
        cmd_completion_loss,
        "per-token loss of a model on the human continuations",
    )
    f.add_argument("--model", required=True, help="model directory")
    f.add_argument("--samples", required=True, help="human reference samples (.jsonl)")
    f.add_argument("--tokens", required=True, help="their tokens.parquet (L_t per token)")
    f.add_argument(
        "--prompt-length", type=int, required=True, help="prompt length whose texts are scored"
    )
    add_device(f)
    f.add_argument("--out", required=True, help="per-token losses (.parquet)")
