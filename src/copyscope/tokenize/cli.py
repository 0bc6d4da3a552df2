"""``copyscope tokenize …``: fit a tokenizer of any registered kind; encode a split with it."""

from __future__ import annotations

import logging

from ..clikit import add_command, add_group, add_params

log = logging.getLogger("copyscope")


def cmd_fit(a):
    from ..io import read_jsonl
    from . import from_spec

    tok = from_spec(a.params_json, a.tokenizer_name)
    tok.fit([row["text"] for row in read_jsonl(a.train)], a.out)
    log.info("%s (%s): %d ids", a.tokenizer_name, tok.kind, tok.vocab_size)


def cmd_encode(a):
    from . import encode_split, load

    tok = load(a.tokenizer_kind, a.tokenizer)
    meta = encode_split(tok, a.docs, a.out_npy, a.out_json, a.tokenizer_name)
    n_docs, n_tokens, dtype = meta["n_docs"], meta["n_tokens"], meta["dtype"]
    log.info("%s: %d documents, %d tokens (%s)", a.docs, n_docs, n_tokens, dtype)


def _add_name(parser) -> None:
    parser.add_argument(
        "--tokenizer-name", required=True, help="the tokenizer's name under tokenizers:"
    )


def register(sub) -> None:
    g = add_group(sub, "tokenize", "tokenization stage: fit tokenizers, encode splits")
    f = add_command(g, "fit", cmd_fit, "fit a tokenizer on the training split and save it")
    _add_name(f)
    add_params(f, "its config block (tokenizers.<name>, with kind)")
    f.add_argument("--train", required=True, help="training documents (.jsonl)")
    f.add_argument("--out", required=True, metavar="DIR", help="tokenizer directory to write")
    f = add_command(g, "encode", cmd_encode, "encode a split into one token stream")
    _add_name(f)
    f.add_argument(
        "--tokenizer", required=True, metavar="DIR", help="tokenizer directory (from tokenize fit)"
    )
    f.add_argument(
        "--tokenizer-kind", required=True, help="its kind (tokenizers.<name>.kind), e.g. bpe"
    )
    f.add_argument("--docs", required=True, help="documents of the split (.jsonl)")
    f.add_argument("--out-npy", required=True, help="token stream to write (.npy)")
    f.add_argument("--out-json", required=True, help="its metadata to write (.json)")
