"""Text from outside copyscope: a researcher's own generations and prompts.

* **Generations** (config ``generations:``, name → JSONL file): each line one generated text,
  ``{"id", "prompt", "text"}`` plus an optional ``reference`` (the true continuation) and any
  other fields (kept as ``meta``). A file is one setting, named ``<model>/<decoding>``
  (:func:`check_setting_name`); :func:`import_generations` turns it into a sample file of the
  same format as the sampling stage writes (the prompt and the text in the index's tokenizer),
  and the references into that setting's own human baseline, the human set
  ``human/<model>+<decoding>`` (:func:`reference_decoding`). Every row is labelled with the
  main prompt length (``sampling.prompt_length``): the set is one setting; the prompt is used
  whole, its true length in tokens is the row's ``prompt_tokens``.
* **Prompts** (``sampling.prompts: PATH``): a JSONL file of ``{"prompt"}`` with an optional
  ``reference`` (other fields ignored), or a ``.txt`` file with one prompt per non-empty
  line; :func:`prompt_file_windows` tokenizes them into the prompt windows the models sample
  from (:func:`copyscope.sample.prompt_sets`' format).

Both readers read every line (:func:`copyscope.io.read_lines`) before anything is written: a
bad line is an :class:`~copyscope.errors.InputError` naming ``file:line`` and the field, and
every bad line of the file is reported at once. ``reference`` is all or none: every line has
one or no line has one. A ``.txt`` prompt file whose every line is a JSON object is refused
(rename it ``.jsonl``): it would prompt every model with ``{"prompt": …}`` as text.
"""

from __future__ import annotations

import json
import re

from ..errors import InputError
from ..io import json_object, read_lines, require_file, utf8_line

NAME_PART = r"[A-Za-z0-9][A-Za-z0-9._-]*"
SETTING_NAME = re.compile(rf"^({NAME_PART})/({NAME_PART})$")
"""A generations setting name: ``<model>/<decoding>``, each part letters, digits, ``.``, ``_``
and ``-`` (not first)."""

REFERENCE_SEP = "+"
"""Joins model and decoding in the decoding name of a setting's human baseline."""


def check_setting_name(name: str) -> tuple[str, str]:
    """``(model, decoding)`` of a generations setting name, or ValueError saying what is
    expected. Example: ``"api-model/top_p_0.9"`` → ``("api-model", "top_p_0.9")``."""
    m = SETTING_NAME.match(name)
    if not m:
        raise ValueError(
            f"expected <model>/<decoding>, each of letters, digits, '.', '_' and '-' "
            f"(not first), found {name!r}"
        )
    return m.group(1), m.group(2)


def reference_decoding(model: str, decoding: str) -> str:
    """The decoding name of the human baseline of generations setting ``model/decoding``:
    ``<model>+<decoding>`` (so its files are ``samples/human/<model>+<decoding>.jsonl``)."""
    return f"{model}{REFERENCE_SEP}{decoding}"


def is_reference_decoding(decoding: str) -> bool:
    """Whether a human set's decoding name is the baseline of a generations setting."""
    return REFERENCE_SEP in decoding


def records(path, parse) -> list:
    """``parse(where, lineno, obj)`` of every non-empty line of a JSONL file, each a JSON
    object (:func:`copyscope.io.read_lines`): every bad line is reported at once."""
    return read_lines(path, parse, jsonl=True)


def string_field(where: str, obj: dict, field: str, *, empty: bool = False) -> str:
    """``obj[field]``, a string (non-blank unless ``empty``)."""
    if field not in obj:
        want = "a string" if empty else "a non-empty string"
        raise InputError(where, f"field {field!r}: missing (expected {want})")
    value = obj[field]
    if not isinstance(value, str):
        raise InputError(where, f"field {field!r}: expected a string, found {json.dumps(value)}")
    if not empty and not value.strip():
        raise InputError(where, f"field {field!r}: expected a non-empty string")
    return value


def record_id(where: str, value, lineno: int, seen: dict):
    """``value`` checked as a record's ``id``: a non-empty string or an integer, not seen
    before in the file (compared as text; ``seen`` maps the ids so far to their line and gets
    this one)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value) == "":
        raise InputError(
            where, f"field 'id': expected a non-empty string or an integer, found {json.dumps(value)}"
        )
    if str(value) in seen:
        raise InputError(where, f"field 'id': {value!r} again (first on line {seen[str(value)]})")
    seen[str(value)] = lineno
    return value


def _references(path, rows: list[dict], where: list[str]) -> bool:
    """Whether the rows have references: every one or none (else an error naming the first
    line that differs from line one)."""
    has = ["reference" in r for r in rows]
    for w, h in zip(where, has, strict=True):
        if h != has[0]:
            first = where[0].rsplit(":", 1)[-1]
            raise InputError(
                w,
                f"field 'reference': every line has one or none does "
                f"({'present' if has[0] else 'absent'} on line {first}, "
                f"{'present' if h else 'absent'} here)",
            )
    return bool(has and has[0])


def read_generations(path) -> tuple[list[dict], bool]:
    """The lines of a generations file (``id``, ``prompt``, ``text``, optional ``reference``,
    the other fields under ``meta``), checked, and whether they have references.

    ``id``: a string or integer, unique in the file (compared as text); ``prompt``: a string
    (may be empty: unconditional generation); ``text`` and ``reference``: non-empty strings.
    Every bad line is reported at once (:func:`records`).
    """
    seen: dict = {}

    def parse(w: str, lineno: int, obj: dict) -> dict:
        if "id" not in obj:
            raise InputError(w, "field 'id': missing (expected a string or an integer)")
        row = {
            "line": lineno,
            "id": record_id(w, obj["id"], lineno, seen),
            "prompt": string_field(w, obj, "prompt", empty=True),
            "text": string_field(w, obj, "text"),
        }
        if "reference" in obj:
            row["reference"] = string_field(w, obj, "reference")
        meta = {k: v for k, v in obj.items() if k not in ("id", "prompt", "text", "reference")}
        if meta:
            row["meta"] = meta
        return row

    rows = records(path, parse)
    if not rows:
        raise InputError(path, "expected at least one line {id, prompt, text}, found none")
    return rows, _references(path, rows, [f"{path}:{r['line']}" for r in rows])


def has_references(path) -> bool:
    """Whether a generations file's first record has a ``reference`` (what the workflow reads
    to plan the setting's human baseline; :func:`read_generations` checks every line). A
    missing or unreadable file counts as none: the import job reports it."""
    try:
        with open(path, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                line = utf8_line(raw, f"{path}:{lineno}")
                if line.strip():
                    return "reference" in json_object(line, f"{path}:{lineno}")
    except (InputError, OSError):
        return False
    return False


def json_lines_as_text(path, rows: list[dict]) -> InputError | None:
    """The error for a ``.txt`` prompt file whose every prompt line is a JSON object (JSONL
    under the wrong name: each model would be prompted with ``{"prompt": …}`` as text), else
    None."""
    for r in rows:
        try:
            json_object(r["prompt"], "")
        except InputError:
            return None
    return InputError(
        f"{path}:{rows[0]['line']}",
        "expected one prompt per line of text (a .txt file), found a JSON object on every "
        "line: rename the file to .jsonl to read its 'prompt' (and 'reference') fields",
    )


def read_prompt_file(path) -> tuple[list[dict], bool]:
    """The prompts of ``path``: ``.txt``, one prompt per non-empty line (no references; a
    file whose every line is a JSON object is refused, :func:`json_lines_as_text`); else
    JSONL with a non-empty string ``prompt`` and an optional ``reference`` (all or none).
    Returns rows ``{"line", "prompt"[, "reference"]}`` and whether they have references;
    every bad line is reported at once."""
    path = require_file(path)
    if path.suffix == ".txt":
        rows = read_lines(path, lambda w, lineno, line: {"line": lineno, "prompt": line})
        refused = json_lines_as_text(path, rows) if rows else None
        if refused is not None:
            raise refused
    else:

        def parse(w: str, lineno: int, obj: dict) -> dict:
            row = {"line": lineno, "prompt": string_field(w, obj, "prompt")}
            if "reference" in obj:
                row["reference"] = string_field(w, obj, "reference")
            return row

        rows = records(path, parse)
    if not rows:
        raise InputError(path, "expected at least one prompt, found none")
    if path.suffix == ".txt":
        return rows, False
    return rows, _references(path, rows, [f"{path}:{r['line']}" for r in rows])


def prompt_file_windows(
    path, encode, prompt_lengths: list[int], new_tokens: int
) -> tuple[list[dict], bool]:
    """The prompt windows of a prompt file (:func:`read_prompt_file`), in
    :func:`copyscope.sample.prompt_sets`' format: window ``i`` = the i-th prompt, whose
    ``prompts[P]`` are the last P of its tokens (``encode``: text → ids) for every prompt
    length P, and whose ``continuation`` is the first ``new_tokens`` tokens of its reference
    (empty without one); also whether the prompts have references. A prompt shorter than the
    longest prompt length is an error naming its line (choose a shorter
    ``sampling.prompt_length`` / ``prompt_lengths``)."""
    rows, refs = read_prompt_file(path)
    slot = max(prompt_lengths)
    windows = []
    for i, r in enumerate(rows):
        ids = [int(x) for x in encode(r["prompt"])]
        if len(ids) < slot:
            raise InputError(
                f"{path}:{r['line']}",
                f"field 'prompt': expected at least {slot} tokens (the longest prompt length), "
                f"found {len(ids)}",
            )
        cont = [int(x) for x in encode(r["reference"])][:new_tokens] if refs else []
        if refs and not cont:
            raise InputError(f"{path}:{r['line']}", "field 'reference': no tokens")
        windows.append(
            {
                "window": i,
                "line": r["line"],
                "prompts": {str(p): ids[len(ids) - p :] if p else [] for p in prompt_lengths},
                "continuation": cont,
            }
        )
    return windows, refs


def generation_rows(
    path,
    rows: list[dict],
    encode,
    model: str,
    decoding: str,
    prompt_length: int,
    field: str = "text",
) -> list[dict]:
    """Sample rows (:mod:`copyscope.sample`'s format) of generations ``rows``: window = line
    order, ``prompt`` and ``ids`` the prompt and ``field`` (``text``, or ``reference`` for the
    human baseline) in the index's tokenizer (``encode``), labelled ``prompt_length``, with
    the file's ``id`` (``gen_id``), the prompt's length in tokens (``prompt_tokens``) and the
    line's other fields (``meta``). A text of no tokens is an error naming ``path:line``."""
    out = []
    for i, r in enumerate(rows):
        prompt = [int(x) for x in encode(r["prompt"])] if r["prompt"] else []
        ids = [int(x) for x in encode(r[field])]
        if not ids:
            raise InputError(f"{path}:{r['line']}", f"field {field!r}: no tokens")
        out.append(
            {
                "model": model,
                "decoding": decoding,
                "window": i,
                "prompt_length": prompt_length,
                "prompt": prompt,
                "ids": ids,
                "text": r[field],
                "logprobs": [],
                "stopped_at_eos": False,
                "gen_id": r["id"],
                "prompt_tokens": len(prompt),
                **({"meta": r["meta"]} if "meta" in r else {}),
            }
        )
    return out


def import_generations(
    path, tokenizer_dir, name: str, prompt_length: int, out=None, out_reference=None
) -> tuple[int, bool]:
    """Check the generations file ``path`` (:func:`read_generations`) of setting ``name``
    (``<model>/<decoding>``); write its sample rows (:func:`generation_rows`, in the tokenizer
    of ``tokenizer_dir``) to ``out`` and/or its references as the setting's human baseline
    (model ``human``, decoding :func:`reference_decoding`) to ``out_reference``. Every line is
    checked before anything is written. Returns (rows, whether the file has references)."""
    from ..io import write_jsonl
    from ..tokenize import load_hf_tokenizer

    try:
        model, decoding = check_setting_name(name)
    except ValueError as exc:
        raise InputError("--setting", str(exc)) from None
    if out is None and out_reference is None:
        raise InputError("--out", "a path for the samples, their references or both")
    rows, refs = read_generations(path)
    if out_reference is not None and not refs:
        raise InputError(path, "field 'reference' on every line (a human baseline was asked for)")
    tok = load_hf_tokenizer(tokenizer_dir)

    def encode(text):
        return tok.encode(text, add_special_tokens=False)

    written = []
    if out is not None:
        written.append((out, generation_rows(path, rows, encode, model, decoding, prompt_length)))
    if out_reference is not None:
        ref = reference_decoding(model, decoding)
        human = generation_rows(path, rows, encode, "human", ref, prompt_length, "reference")
        written.append((out_reference, human))
    for target, sample_rows in written:
        write_jsonl(target, sample_rows)
    return len(rows), refs
