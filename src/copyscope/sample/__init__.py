"""Sampling stage: prompts cut from held-out documents, and generations under a decoding grid.

Prompts and the human baseline come from the same windows: a window is a prompt slot of
``max(prompt_lengths)`` tokens followed by ``new_tokens`` continuation tokens.  For prompt length
P the prompt is the last P tokens of the slot, so every prompt length shares the same true
continuation (the human baseline), and prompt length 0 is unconditional generation.

The windows come only from the validation split, i.e. the *clean* held-out documents. With
``corpus.inject.excerpts`` a second human set, ``human/contaminated``, is cut the same way
(the same window width, prompt lengths and record format, at most ``sampling.prompts``
windows) from the excerpt plays (``corpus/excerpts.jsonl``): held-out text some of whose
speeches are in training (Merrill et al.'s explanation of why validation text looks less
novel: it duplicates training n-grams).

With ``sampling.training_prompts`` (Merrill et al. Fig. 3) further windows are cut the same way
from the natural training text (:func:`write_training_prompts`), whose greedy and beam
continuations are sample sets of their own.
"""

from __future__ import annotations

import numpy as np

from ..corpus.windows import prompt_windows

__all__ = [
    "generate_file",
    "generate_files",
    "prompt_sets",
    "retokenize_prompts",
    "training_prompt_sets",
    "write_prompts",
    "write_training_prompts",
]


def prompt_sets(
    docs: list[np.ndarray],
    prompt_lengths: list[int],
    new_tokens: int,
    n: int,
    seed: int,
    keep=None,
) -> list[dict]:
    """One record per window: ``prompts[P]`` for every prompt length P, and the continuation.

    See the module docstring: all prompt lengths share the window's true continuation.
    ``keep``: which candidate windows may be drawn (:func:`copyscope.corpus.windows.prompt_windows`).
    """
    slot = max(prompt_lengths)
    rows = []
    for i, w in enumerate(prompt_windows(docs, slot, new_tokens, n, seed, keep)):
        rows.append(
            {
                "window": i,
                "doc": w["doc"],
                "start": w["start"],
                "prompts": {str(p): w["prompt"][slot - p :] for p in prompt_lengths},
                "continuation": w["continuation"],
            }
        )
    return rows


def decoding_family(method: dict) -> str:
    """The decoding family of a method (the papers' grouping): pure, top-k, top-p,
    temperature, greedy or beam."""
    kind = method.get("kind")
    if kind in ("greedy", "beam"):
        return kind
    if method.get("top_k"):
        return "top-k"
    if method.get("top_p"):
        return "top-p"
    if float(method.get("temperature", 1.0)) != 1.0:
        return "temperature"
    return "pure"


def setting_seed(seed: int, *parts) -> int:
    """A stable 31-bit seed for one (model, decoding, prompt length) setting."""
    import zlib

    return (seed * 1_000_003 + zlib.crc32("/".join(map(str, parts)).encode())) % (2**31)




def human_rows(
    windows: list[dict], prompt_lengths: list[int], decode, decoding: str = "reference"
) -> list[dict]:
    """The human baseline as sample rows (model ``human``, decoding ``decoding``, one of
    :data:`copyscope.config.schema.HUMAN_DECODINGS`): the true continuation after each prompt."""
    return [
        {
            "model": "human",
            "decoding": decoding,
            "window": w["window"],
            "prompt_length": p,
            "prompt": w["prompts"][str(p)],
            "ids": w["continuation"],
            "text": decode(w["continuation"]),
            "logprobs": [],
            "stopped_at_eos": False,
        }
        for p in prompt_lengths
        for w in windows
    ]


def generate_rows(
    model,
    tokenizer,
    windows: list[dict],
    model_name: str,
    decoding: str,
    method: dict,
    prompt_lengths: list[int],
    new_tokens: int,
    seed: int,
    batch_size: int,
    device: str,
) -> list[dict]:
    """Generate at most ``new_tokens`` after every window's prompt, for each prompt length.

    A generation ends at the model's first eos (see :func:`copyscope.lm.generate`): its row
    holds the ids before the eos (fewer than ``new_tokens``, possibly none), their text and
    log-probabilities, and ``stopped_at_eos: true``; no row contains the eos id."""
    from ..lm import generate

    eos = tokenizer.eos_token_id
    rows = []
    for p in prompt_lengths:
        prompts = [np.asarray(w["prompts"][str(p)], dtype=np.int64) for w in windows]
        outs = generate(
            model,
            prompts,
            method,
            max_new_tokens=new_tokens,
            eos_id=eos,
            seed=setting_seed(seed, model_name, decoding, p),
            batch_size=batch_size,
            device=device,
        )
        for w, prompt, out in zip(windows, prompts, outs, strict=True):
            ids = [int(x) for x in out["ids"]]
            rows.append(
                {
                    "model": model_name,
                    "decoding": decoding,
                    "window": w["window"],
                    "prompt_length": p,
                    "prompt": prompt.tolist(),
                    "ids": ids,
                    "text": tokenizer.decode(ids),
                    "logprobs": [round(float(x), 5) for x in out["logprobs"]],
                    "stopped_at_eos": bool(out["stopped_at_eos"]),
                }
            )
    return rows


def write_prompts(
    valid_npy,
    valid_json,
    tokenizer_dir,
    params: dict,
    out,
    out_human,
    excerpts=None,
    out_contaminated=None,
) -> list[int]:
    """Cut the prompt windows (:func:`prompt_sets`) from the tokenized validation split for the
    ``sampling:`` block ``params`` (``prompt_length``, ``prompt_lengths``, ``new_tokens``,
    ``prompts``, ``seed``); write them to ``out`` and the human baseline (:func:`human_rows`,
    decoded with the tokenizer in ``tokenizer_dir``) to ``out_human`` (jsonl). With
    ``excerpts`` (the ``(npy, json)`` of the tokenized excerpt plays) the contaminated human
    set, windows cut the same way from those documents only (decoding ``contaminated``), is
    written to ``out_contaminated``. Returns the prompt lengths.

    With a path for ``prompts`` (``sampling.prompts: PATH``) the prompt windows are that file's
    prompts (:func:`copyscope.sample.external.prompt_file_windows`, in the tokenizer of
    ``tokenizer_dir``) and the human baseline their references; a file without references
    keeps the held-out windows as the human baseline, as many as it has prompts (as does the
    contaminated set)."""
    from ..errors import InputError
    from ..io import write_jsonl
    from ..tokenize import load_hf_tokenizer, read_split

    if (excerpts is None) != (out_contaminated is None) or None in (excerpts or ()):
        raise InputError(
            "--out-contaminated",
            "the excerpt plays' tokens (npy and json) and the contaminated set's path together",
        )
    p = params
    lengths = sorted({p["prompt_length"], *p["prompt_lengths"]})
    tok = load_hf_tokenizer(tokenizer_dir)

    def decode(ids):
        return tok.decode(list(ids))

    count, written, held_out = p["prompts"], [], [(valid_npy, valid_json, out, out_human)]
    if isinstance(p["prompts"], str):
        from .external import prompt_file_windows

        windows, refs = prompt_file_windows(
            p["prompts"],
            lambda text: tok.encode(text, add_special_tokens=False),
            lengths,
            p["new_tokens"],
        )
        count = len(windows)
        written.append((out, windows))
        if refs:
            written.append((out_human, human_rows(windows, lengths, decode)))
        held_out = [] if refs else [(valid_npy, valid_json, None, out_human)]
    sets = [(*x, "reference", "validation") for x in held_out]
    if excerpts is not None:
        sets.append((*excerpts, None, out_contaminated, "contaminated", "excerpt-play"))
    for npy, meta, out_windows, out_rows, decoding, what in sets:
        _, _, docs = read_split(npy, meta)
        windows = prompt_sets(docs, lengths, p["new_tokens"], count, p["seed"])
        if not windows:
            raise InputError(
                meta,
                f"no {what} document has {max(lengths)} + "
                f"{p['new_tokens']} tokens for one prompt window",
            )
        if out_windows is not None:
            written.append((out_windows, windows))
        written.append((out_rows, human_rows(windows, lengths, decode, decoding)))
    for path, rows in written:  # every set checked and cut before any file is written
        write_jsonl(path, rows)
    return lengths


def training_prompt_sets(
    docs: list[np.ndarray], lengths: list[int], new_tokens: int, n: int, seed: int, index
) -> list[dict]:
    """Prompt windows taken from the training data (Merrill et al. 2024, Fig. 3: prompts of 1,
    10 and 100 tokens from the training set): :func:`prompt_sets` of ``docs``, one record per
    window with ``prompts[P]`` for every length P (the last P tokens of a slot of
    ``max(lengths)``) and the slot's true continuation of ``new_tokens``, at most ``n`` windows,
    seeded.

    ``docs`` is the natural training text (the training split before anything is planted), so
    no window holds planted text; a window is drawn only when the training ``index`` holds it
    whole (:meth:`~copyscope.index.Index.count_many` > 0), since planting inserts passages
    into training documents and a natural window across an insertion is not training text."""
    return prompt_sets(
        docs, sorted(lengths), new_tokens, n, seed, keep=lambda w: index.count_many(w) > 0
    )


def write_training_prompts(natural_npy, natural_json, index_dir, params: dict, out) -> int:
    """Cut the training-prompt windows (:func:`training_prompt_sets`) from the tokenized
    natural training text, each held whole by the training index in ``index_dir``, for
    ``params`` (``lengths``, ``prompts``, ``seed``, ``new_tokens``: the block
    ``sampling.training_prompts`` with ``sampling.new_tokens``) and write them to ``out``
    (jsonl, the record format of ``sample prompts``' windows). Returns the number of windows;
    InputError when no document has room for one."""
    from ..errors import InputError
    from ..index import open as open_index
    from ..io import write_jsonl
    from ..tokenize import read_split

    _, _, docs = read_split(natural_npy, natural_json)
    p = params
    windows = training_prompt_sets(
        docs, p["lengths"], p["new_tokens"], p["prompts"], p["seed"], open_index(index_dir)
    )
    if not windows:
        raise InputError(
            natural_json,
            f"no natural training document has {max(p['lengths'])} + {p['new_tokens']} tokens "
            "of training text for one prompt window",
        )
    write_jsonl(out, windows)
    return len(windows)


def retokenize_prompts(windows: list[dict], tokenizer, prompt_tokenizer) -> list[dict]:
    """``windows`` with every prompt in ``tokenizer``'s ids.  Prompts are cut in
    ``prompt_tokenizer``'s ids; if the two vocabularies differ, each prompt is decoded with
    ``prompt_tokenizer`` and encoded again (no special tokens), else nothing changes."""
    if tokenizer.get_vocab() == prompt_tokenizer.get_vocab():
        return windows
    return [
        {
            **w,
            "prompts": {
                k: tokenizer.encode(prompt_tokenizer.decode(v), add_special_tokens=False)
                for k, v in w["prompts"].items()
            },
        }
        for w in windows
    ]


def generate_file(
    model_dir,
    model_name: str,
    decoding: str,
    method: dict,
    prompts_jsonl,
    prompt_tokenizer_dir,
    out,
    *,
    prompt_lengths: list[int],
    new_tokens: int,
    seed: int,
    batch_size: int,
    device: str = "auto",
) -> tuple[int, int]:
    """Generate with the model in ``model_dir`` after the prompts of ``prompts_jsonl`` (cut in
    the tokenizer of ``prompt_tokenizer_dir``; see :func:`retokenize_prompts`) for decoding
    ``method`` (:func:`generate_rows`); write the rows to ``out`` (jsonl). Returns the number
    of rows and how many of them stopped at eos before ``new_tokens``."""
    from ..io import read_jsonl, write_jsonl
    from ..lm import load_model
    from ..tokenize import load_hf_tokenizer

    model, tok = load_model(model_dir, device)
    windows = retokenize_prompts(
        list(read_jsonl(prompts_jsonl)), tok, load_hf_tokenizer(prompt_tokenizer_dir)
    )
    rows = generate_rows(
        model,
        tok,
        windows,
        model_name,
        decoding,
        method,
        prompt_lengths,
        new_tokens,
        seed,
        batch_size,
        str(next(model.parameters()).device),
    )
    write_jsonl(out, rows)
    return len(rows), sum(r["stopped_at_eos"] for r in rows)


def job_sets(params: dict, outs: list[tuple[str, str]], flag: str = "--out") -> None:
    """FlagError unless the decodings of ``outs`` (``(decoding, path)`` pairs, as given) are
    exactly those of ``params["decodings"]``, each once."""
    from ..errors import FlagError

    named = [d for d, _ in outs]
    wanted = list(params["decodings"])
    if len(set(named)) != len(named) or set(named) != set(wanted):
        raise FlagError(
            flag, f"expected one file for each decoding of --params-json {wanted}, got {named}"
        )


def generate_files(
    model_dir,
    model_name: str,
    params: dict,
    prompts_jsonl,
    prompt_tokenizer_dir,
    outs: list[tuple[str, str]],
    device: str = "auto",
) -> dict[str, tuple[int, int]]:
    """A model's sample job: every set of :func:`generate_file` from one loaded model.

    ``params`` holds ``new_tokens``, ``seed``, ``batch_size`` and ``decodings`` (name →
    ``{"method": the decoding's config block, "prompt_lengths": [...]}``); ``outs`` the file of
    each decoding, written in this order. Each file is the one :func:`generate_file` writes
    alone (every set is seeded by its own model, decoding and prompt length). Returns decoding
    → (rows, rows stopped at eos)."""
    from ..lm import shared_models

    job_sets(params, outs)
    done = {}
    with shared_models():
        for decoding, out in outs:
            spec = params["decodings"][decoding]
            done[decoding] = generate_file(
                model_dir, model_name, decoding, spec["method"], prompts_jsonl,
                prompt_tokenizer_dir, out, prompt_lengths=spec["prompt_lengths"],
                new_tokens=params["new_tokens"], seed=params["seed"],
                batch_size=params["batch_size"], device=device,
            )  # fmt: skip
    return done
