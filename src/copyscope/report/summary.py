"""``summary.md``: the headline numbers of a run, built from its tables only.

Every analysis module of :data:`copyscope.report.ANALYSES` that defines
``summary_section(tables, params) -> list[str]`` contributes its lines, in registry order,
after a header giving the corpus size and the sampling setup. ``tables`` maps a table's name
(its file name without ``.csv``, e.g. ``nnsl_samples``) to the table; ``training`` is the
models' training logs with a ``model`` column (see :func:`copyscope.report.training.logs`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from ..io import read_json, write_text
from . import analyses, training

Section = Callable[[Mapping[str, pd.DataFrame], Mapping], list[str]]


def sections() -> dict[str, tuple[tuple[str, ...], Section]]:
    """The summary registry: analysis name → (names of the tables it reads, its
    ``summary_section``), in registry order."""
    return {
        m.NAME: (m.SUMMARY_TABLES, m.summary_section)
        for m in analyses()
        if hasattr(m, "summary_section")
    }


def tables() -> list[str]:
    """The names of the tables ``summary`` reads by ``--table``: every section's tables, in
    registry order, but ``training`` (the training logs, ``--training-log``)."""
    names = [t for needed, _ in sections().values() for t in needed if t != "training"]
    return list(dict.fromkeys(names))


def header(corpus_tokens: int, params: Mapping) -> list[str]:
    """Title, training corpus size (in the models' tokenizer) and sampling setup; the
    corpus language when it is not English (``params["language"]``)."""
    from ..language import DEFAULT, NAMES, language_of

    s, tok = params["sampling"], params["models"]["tokenizer"]
    language = language_of(params)
    corpus = "Training corpus" if language == DEFAULT else (
        f"Training corpus ({NAMES[language]}, corpus.language {language})"
    )
    prompts = (
        f"{s['prompts']} prompts of {s['prompt_length']} tokens"
        if isinstance(s["prompts"], int)
        else f"the prompts of {s['prompts']} (their last {s['prompt_length']} tokens)"
    )
    return [
        "# copyscope summary",
        "",
        f"{corpus}: {corpus_tokens:,} tokens ({tok}); {prompts}, "
        f"{s['new_tokens']} new tokens per sample.",
    ]


def markdown(tables: Mapping[str, pd.DataFrame], corpus_tokens: int, params: Mapping) -> str:
    """The header and every registered section, as one markdown document."""
    from ..errors import InputError

    lines = header(corpus_tokens, params)
    for name, (needed, section) in sections().items():
        missing = [t for t in needed if t not in tables]
        if missing:
            raise InputError("--table", f"the tables {missing} (read by the {name} section)")
        lines += section(tables, params)
    return "\n".join(lines) + "\n"


def signature_line(manifest: Mapping, sig: Mapping, shards: Mapping | None = None) -> str:
    """The markdown line of the run's signature (:func:`copyscope.report.signature.signature`:
    ``sig`` holds ``config_sha256`` and ``seed``, the index and tokenizer digests come from
    the training index's ``manifest`` and its ``shards``' metadata)."""
    from .signature import signature

    return f"Signature: `{signature(sig['config_sha256'], manifest, sig['seed'], shards)}`"


def write_summary(
    tables: Sequence[tuple[str, str]],
    training_logs: Sequence[tuple[str, str]],
    index_manifest,
    params: Mapping,
    out,
) -> str:
    """Read the named tables ``(name, path)``, the training logs ``(model, path)`` and the
    corpus size from ``index_manifest`` (the models' index.json); write :func:`markdown`, with
    the run's signature line under the title when ``params`` has ``signature``."""
    frames = {name: pd.read_csv(path) for name, path in tables}
    frames["training"] = training.logs(training_logs)
    manifest = read_json(index_manifest)
    text = markdown(frames, int(manifest["n_tokens"]), params)
    if params.get("signature"):  # the run's signature line under the title
        title, rest = text.split("\n", 1)
        from .signature import shard_metas

        line = signature_line(manifest, params["signature"], shard_metas(index_manifest))
        text = f"{title}\n\n{line}\n{rest}"
    write_text(out, text)
    return text
