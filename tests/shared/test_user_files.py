"""Every reader of a user's file is one reader (issue 41): a byte that is not UTF-8, invalid
JSON, a line that is not an object, a missing field and a duplicate config key each become one
line ``FILE:LINE: what was expected``; every problem of a file (and of a config's own files) is
reported at once, by ``copyscope config check`` and by the workflow before any job."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from copyscope.config import (
    ConfigErrors,
    check_file,
    language_warnings,
    load_file,
    located_in_files,
    validate,
)
from copyscope.corpus.sources import read_jsonl, read_txt_dir
from copyscope.errors import ConfigError, CopyscopeError, InputError, InputErrors
from copyscope.index.query import read_batch
from copyscope.index.query import read_text as query_text
from copyscope.io import read_lines, read_text_file
from copyscope.language import WARN_MIN_PROBABILITY, detect, mismatch_warning
from copyscope.membership import books
from copyscope.membership.own_benchmarks import FORMATS, read_benchmark
from copyscope.sample.external import read_generations, read_prompt_file
from support.configs import write_book, write_booknlp
from support.workflow import ROOT, snakemake

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
ITEMS = {
    "text": [{"text": "to be or not to be"}, {"text": "that is the question"}],
    "qa": [{"passage": "p one", "question": "q?", "answer": "a"},
           {"passage": "p two", "question": "what?", "answer": "that"}],
    "summarization": [{"document": "a long text", "summary": "short"},
                      {"document": "another text", "summary": "brief"}],
    "multiple_choice": [{"question": "which?", "choices": ["a", "b"], "answer": 0},
                        {"question": "and that?", "choices": ["yes", "no"], "answer": "no"}],
}  # fmt: skip
GENERATIONS = [
    {"id": "a", "prompt": "to be or", "text": " not to be"},
    {"id": 7, "prompt": "", "text": "out, damned spot! out, I say"},
]


def jsonl(path: Path, rows) -> Path:
    """Each row (a dict as JSON, a string as it is) on its own line, UTF-8."""
    path.write_text("".join((json.dumps(r) if isinstance(r, dict) else r) + "\n" for r in rows))
    return path


def spoil(path: Path, line: int = 2) -> int:
    """Replace the first letter of line ``line`` (ASCII) by the Latin-1 byte of 'é' (0xe9);
    returns its column (1-based)."""
    lines = path.read_bytes().split(b"\n")
    column = re.search(rb"[A-Za-z]", lines[line - 1]).start() + 1
    lines[line - 1] = lines[line - 1][: column - 1] + b"\xe9" + lines[line - 1][column:]
    path.write_bytes(b"\n".join(lines))
    return column


def own_files(tmp: Path) -> dict:
    """name → (a good file of that kind, its reader): every reader of a user's file."""
    tokens, entities = write_booknlp(tmp)
    (tmp / "corpus").mkdir()
    (tmp / "corpus" / "doc.txt").write_text("first line\nsecond line\n")
    (tmp / "characters.txt").write_text("Olivia\nViola, a lady\n")
    files = {
        "generations": (jsonl(tmp / "g.jsonl", GENERATIONS), read_generations),
        "prompts.jsonl": (jsonl(tmp / "p.jsonl", [{"prompt": "to be"}, {"prompt": "a b"}]),
                          read_prompt_file),
        "prompts.txt": (jsonl(tmp / "p.txt", ["to be or not", "and a second"]), read_prompt_file),
        "book": (write_book(tmp), books.read_text),
        "characters": (tmp / "characters.txt", books.character_names),
        "booknlp.tokens": (tokens, books.read_tokens),
        "booknlp.entities": (entities, lambda p: books.read_entities(p, None)),
        "corpus.jsonl": (jsonl(tmp / "c.jsonl", [{"id": "x", "text": "t"}, {"id": "y", "text": "a"}]),
                         read_jsonl),
    }  # fmt: skip
    files["query --batch .jsonl"] = (jsonl(tmp / "q.jsonl", [{"text": "to be"}, {"text": "a"}]),
                                     read_batch)
    files["query --batch .txt"] = (jsonl(tmp / "q.txt", ["to be", "or not"]), read_batch)
    files["query --file"] = (jsonl(tmp / "f.txt", ["to be", "or not"]), query_text)
    for fmt, rows in ITEMS.items():
        files[f"benchmark.{fmt}"] = (
            jsonl(tmp / f"{fmt}.jsonl", rows),
            lambda p, fmt=fmt: read_benchmark(p, fmt),
        )
    return files


KINDS = [
    "generations", "prompts.jsonl", "prompts.txt", "book", "characters", "booknlp.tokens",
    "booknlp.entities", "corpus.jsonl", "query --batch .jsonl", "query --batch .txt",
    "query --file", *(f"benchmark.{f}" for f in FORMATS),
]  # fmt: skip


# --------------------------------------------------------------------------- the one reader
@pytest.mark.parametrize("kind", KINDS)
def test_a_byte_that_is_not_utf8_is_named_by_file_line_and_column(tmp_path, kind):
    path, read = own_files(tmp_path)[kind]
    read(path)  # the good file reads
    column = spoil(path)
    with pytest.raises(InputError) as err:
        read(path)
    assert str(err.value) == (
        f"{path}:2: expected UTF-8 text, found the byte 0xe9 at column {column} (save the file "
        "as UTF-8)"
    )


def test_a_corpus_folder_names_the_line_of_every_file(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"fine\ncaf\xe9\n")
    (tmp_path / "b.txt").write_bytes(b"\xff\n")
    with pytest.raises(InputErrors) as err:
        read_txt_dir(tmp_path)
    assert str(err.value).splitlines() == [
        f"{tmp_path / 'a.txt'}:2: expected UTF-8 text, found the byte 0xe9 at column 4 (save "
        "the file as UTF-8)",
        f"{tmp_path / 'b.txt'}:1: expected UTF-8 text, found the byte 0xff at column 1 (save "
        "the file as UTF-8)",
    ]


def test_read_lines_reports_every_bad_line_and_skips_blank_ones(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n\n[1]\n{"a": \n"s"\nnull\n\xe9\n{"a": 2}\r\n')
    with pytest.raises(InputErrors) as err:
        read_lines(path, jsonl=True)
    assert str(err.value).splitlines() == [
        f"{path}:3: expected one JSON object per line, found a list",
        f"{path}:4: expected one JSON object per line, found invalid JSON (Expecting value, "
        "column 7)",
        f"{path}:5: expected one JSON object per line, found a string",
        f"{path}:6: expected one JSON object per line, found null",
        f"{path}:7: expected UTF-8 text, found the byte 0xe9 at column 1 (save the file as "
        "UTF-8)",
    ]
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n\n{"a": 2}\r\n')  # a BOM, a blank line, CRLF
    assert read_lines(path, jsonl=True) == [{"a": 1}, {"a": 2}]
    assert read_lines(path, lambda w, n, obj: (w, n, obj["a"]), jsonl=True) == [
        (f"{path}:1", 1, 1),
        (f"{path}:3", 3, 2),
    ]
    assert read_text_file(path) == '{"a": 1}\n\n{"a": 2}\r\n'
    with pytest.raises(InputError, match=r"none\.jsonl: expected a file, found nothing there"):
        read_lines(tmp_path / "none.jsonl")


def test_many_problems_show_twenty_lines_per_file_and_count_the_rest(tmp_path):
    path = jsonl(tmp_path / "g.jsonl", ["not json"] * 25)
    with pytest.raises(InputErrors) as err:
        read_generations(path)
    lines = str(err.value).splitlines()
    assert len(err.value.problems) == 25 and len(lines) == 21
    assert lines[19].startswith(f"{path}:20: expected one JSON object per line")
    assert lines[20] == f"{path}: and 5 more problem(s) like these"


def test_every_bad_line_of_a_generations_file_at_once(tmp_path):
    path = jsonl(tmp_path / "g.jsonl", [
        GENERATIONS[0], '{"id": "b", "prompt": "x", "text": ', {"id": "c", "prompt": "x"},
        {"id": "a", "prompt": "x", "text": "y"}, {"prompt": "x", "text": "y"},
    ])  # fmt: skip
    with pytest.raises(InputErrors) as err:
        read_generations(path)
    assert str(err.value).splitlines() == [
        f"{path}:2: expected one JSON object per line, found invalid JSON (Expecting value, "
        "column 36)",
        f"{path}:3: field 'text': missing (expected a non-empty string)",
        f"{path}:4: field 'id': 'a' again (first on line 1)",
        f"{path}:5: field 'id': missing (expected a string or an integer)",
    ]


@pytest.mark.parametrize(
    "fmt,field", [(f, x) for f, fields in FORMATS.items() for x in fields]
)
def test_a_missing_benchmark_field_is_named_with_its_line(tmp_path, fmt, field):
    rows = [dict(r) for r in ITEMS[fmt]]
    del rows[1][field]
    path = jsonl(tmp_path / "b.jsonl", [rows[0], rows[1], "[]"])
    with pytest.raises(InputErrors) as err:
        read_benchmark(path, fmt)
    first, second = str(err.value).splitlines()
    assert first.startswith(f"{path}:2: field '{field}': missing (expected ")
    assert second == f"{path}:3: expected one JSON object per line, found a list"


def test_booknlp_rows_with_missing_or_extra_fields_are_all_named(tmp_path):
    tokens, entities = write_booknlp(tmp_path)
    lines = entities.read_text().splitlines()
    lines[1] += "\textra"
    lines[2] = "\t".join(lines[2].split("\t")[:-1])
    entities.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputErrors) as err:
        books.read_entities(entities, None)
    assert str(err.value).splitlines() == [
        f"{entities}:2: expected 6 tab-separated fields as in the header, found 7",
        f"{entities}:3: expected 6 tab-separated fields as in the header, found 5 (no column "
        "text)",
    ]


# --------------------------------------------------------------------------- prompts: JSONL as .txt
def test_a_txt_prompt_file_of_json_objects_is_refused(tmp_path):
    path = jsonl(tmp_path / "prompts.txt", [{"prompt": "to be or not"}, "", {"prompt": "x"}])
    with pytest.raises(InputError) as err:
        read_prompt_file(path)
    assert str(err.value) == (
        f"{path}:1: expected one prompt per line of text (a .txt file), found a JSON object on "
        "every line: rename the file to .jsonl to read its 'prompt' (and 'reference') fields"
    )
    renamed = path.rename(tmp_path / "prompts.jsonl")
    assert [r["prompt"] for r in read_prompt_file(renamed)[0]] == ["to be or not", "x"]
    # text with some JSON in it is text
    mixed = jsonl(tmp_path / "mixed.txt", [{"prompt": "to be"}, "and a line of prose"])
    rows, refs = read_prompt_file(mixed)
    assert [r["prompt"] for r in rows] == ['{"prompt": "to be"}', "and a line of prose"]
    assert refs is False


# --------------------------------------------------------------------------- the config file
DEFAULT = (ROOT / "config" / "config.yaml").read_text()
TINY = (ROOT / "config" / "tiny.yaml").read_text()


def line_of(text: str, line: str) -> int:
    return text.splitlines().index(line) + 1


def test_a_pasted_block_repeating_a_top_level_key_is_named(tmp_path):
    """The README's ``analysis:`` snippet pasted at the end of ``config/config.yaml``."""
    readme = (ROOT / "README.md").read_text()
    snippet = re.search(r"```yaml\n(.*?)```", readme, re.S).group(1)
    pasted = snippet[snippet.index("analysis:") :]
    text = DEFAULT + pasted
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_file(path)
    first = line_of(DEFAULT, "analysis:")
    again = len(DEFAULT.splitlines()) + 1
    assert str(err.value) == (
        f"{path}:{again}: config key 'analysis': expected once in its mapping, found it again "
        f"(first on line {first}; YAML would keep only this one: merge the two)"
    )


def test_a_nested_duplicate_key_is_named(tmp_path):
    text = TINY.replace("  shard_tokens: 60000\n", "  shard_tokens: 60000\n  shard_tokens: 9\n")
    flow = "    gpt2-a: {kind: gpt2, n_layer: 1, n_embd: 32, n_head: 2, n_ctx: 64}"
    text = text.replace(flow, flow.replace("n_layer: 1,", "n_layer: 1, n_layer: 3,"))
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(InputErrors) as err:
        load_file(path)
    shard = line_of(text, "  shard_tokens: 60000")
    layer = line_of(TINY, flow)
    assert shard < layer
    assert str(err.value).splitlines() == [
        f"{path}:{shard + 1}: config key 'index.shard_tokens': expected once in its mapping, "
        f"found it again (first on line {shard}; YAML would keep only this one: merge the two)",
        f"{path}:{layer + 1}: config key 'models.zoo.gpt2-a.n_layer': expected once in its "
        f"mapping, found it again (first on line {layer + 1}; YAML would keep only this one: "
        "merge the two)",
    ]


def test_a_byte_that_is_not_utf8_in_the_config_is_named(tmp_path):
    path = write_config(tmp_path / "c.yaml", TINY + f"# caf{LATIN1}\n")
    with pytest.raises(InputError) as err:
        load_file(path)
    assert str(err.value) == (
        f"{path}:{len(TINY.splitlines()) + 1}: expected UTF-8 text, found the byte 0xe9 at "
        "column 6 (save the file as UTF-8)"
    )


LATIN1 = "<0xe9>"  # written as the byte 0xe9 (Latin-1 'é')


def write_config(path: Path, text: str) -> Path:
    """``text`` as UTF-8, each :data:`LATIN1` marker as the byte 0xe9."""
    path.write_bytes(text.encode().replace(LATIN1.encode(), b"\xe9"))
    return path


MISTAKES = {
    # name: (text -> text with the mistake, what its line in the report says)
    "latin-1": (lambda t: t + f"# caf{LATIN1}\n", "expected UTF-8 text, found the byte 0xe9"),
    "duplicate": (lambda t: t + "tokenizers:\n  bpe: {kind: bpe}\n",
                  "config key 'tokenizers': expected once in its mapping"),
    "nested duplicate": (lambda t: t.replace("  shard_tokens: 60000\n",
                                             "  shard_tokens: 60000\n  shard_tokens: 9\n"),
                         "config key 'index.shard_tokens': expected once in its mapping"),
    "flow duplicate": (lambda t: t.replace("{kind: gpt2, n_layer: 1,", "{kind: gpt2, n_layer: 1, "
                                           "n_layer: 3,"),
                       "config key 'models.zoo.gpt2-a.n_layer': expected once in its mapping"),
    "unknown key": (lambda t: t.replace("  max_windows: 200\n", "  max_windowz: 200\n"),
                    "config key 'novelty.max_windowz': expected one of"),
    "wrong type": (lambda t: t.replace("  bootstrap: 200\n", "  bootstrap: many\n"),
                   "config key 'novelty.bootstrap': expected an integer, found 'many'"),
    "syntax": (lambda t: t + "oops: [1\n", "expected valid YAML, found a syntax error"),
}  # fmt: skip
FILE_LEVEL = ("latin-1", "syntax")  # still found after a syntax error


@pytest.mark.parametrize("names", [c for n in (1, 2, 3) for c in itertools.combinations(MISTAKES, n)])
def test_config_check_reports_combined_mistakes_without_crashing(tmp_path, names):
    """Every combination of up to three mistakes in one file: one error (never a crash), one
    line per problem naming the file and line, each mistake among them (after a syntax error
    only the bytes that are not UTF-8 and the syntax error itself)."""
    text = TINY
    for name in names:
        text = MISTAKES[name][0](text)
    path = write_config(tmp_path / "c.yaml", text)
    with pytest.raises(CopyscopeError) as err:
        check_file(path)
    lines = str(err.value).splitlines()
    assert all(re.match(rf"{re.escape(str(path))}:\d+: ", line) for line in lines), lines
    shown = [n for n in names if "syntax" not in names or n in FILE_LEVEL]
    for name in shown:
        assert any(MISTAKES[name][1] in line for line in lines), (name, lines)


def test_the_workflow_places_each_problem_in_the_last_file_holding_its_key(tmp_path):
    """What the Snakefile prints for a config error: the lines of ``config check``, each key at
    its line in the last ``--configfile`` holding it (or its block), a key given with
    ``--config`` or found in no file without a place."""
    a = tmp_path / "a.yaml"
    a.write_text("index:\n  shard_tokens: 5\nresults: r\nnovelty: {n_max: 3}\n")
    b = tmp_path / "b.yaml"
    b.write_text("# b\nnovelty:\n  n_max: 0\n")
    exc = ConfigErrors([("index.shard_tokens", "x"), ("novelty.n_max", "y"), ("results", "z"),
                        ("foo", "w"), ("index.query_fanout", "v")])  # fmt: skip
    assert str(located_in_files(exc, [a, b], overridden={"results"})).splitlines() == [
        f"{a}:2: config key 'index.shard_tokens': x",
        f"{b}:3: config key 'novelty.n_max': y",
        "config key 'results': z",
        "config key 'foo': w",
        f"{a}:1: config key 'index.query_fanout': v",
    ]
    only = ConfigErrors([("foo", "w")])
    assert located_in_files(only, [a, b]) is only


SNIPPETS = [b"\xe9", b"\xff\xfe", b"index:\n  x: 1", b"  shard_tokens: 9", b": :", b"[",
            b"{a: 1, a: 2}", b"\x00", b"\x07", b"\t", b"- a", b"results: [1]", b"models: null",
            b"? [a]\n: b", b"&a x: *a", b"<<: {a: 1}", b"1: 2", b"null: 1", b"  true: x",
            b"tokenizers: {}", b"models: {zoo: {}}", b"x: !!binary abc", b"---\na: 1",
            b"generations: {a/b: /nowhere.jsonl}", b"sampling: {prompts: 3.5}"]  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 400), st.sampled_from(SNIPPETS), st.booleans()),
                min_size=1, max_size=4))  # fmt: skip
def test_config_check_never_crashes(edits):
    """Any mistakes pasted anywhere (bytes, YAML, keys, types): `config check` raises one
    CopyscopeError whose every line names the file and its line, never another exception.
    (Found so: a control character, and a key that is not text, crashed it.)"""
    import tempfile

    lines = TINY.encode().split(b"\n")
    for at, snippet, replace in edits:
        at = at % len(lines)
        if replace:
            lines[at] = snippet
        else:
            lines.insert(at, snippet)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.yaml"
        path.write_bytes(b"\n".join(lines))
        try:
            check_file(path)
        except CopyscopeError as exc:
            assert all(line.startswith(f"{path}") for line in str(exc).splitlines()), str(exc)


def test_a_control_character_and_a_key_that_is_not_text_are_named(tmp_path):
    """The two crashes the property test below found, each with its line."""
    text = TINY.replace("index:\n", "index:\n  true: x\n  1: 2\n") + "# \x00\n"
    path = write_config(tmp_path / "c.yaml", text)
    with pytest.raises(InputErrors) as err:
        check_file(path)
    assert str(err.value).splitlines() == [
        f"{path}:{len(text.splitlines())}: expected YAML text, found the control character "
        "#x0000"
    ]
    path.write_text(text.replace("# \x00\n", ""))
    with pytest.raises(InputErrors) as err:
        check_file(path)
    line = line_of(text, "  true: x")
    assert str(err.value).splitlines() == [
        f"{path}:{line}: config key 'index': expected names (text) as keys, found the key "
        "'true' (quote it)",
        f"{path}:{line + 1}: config key 'index': expected names (text) as keys, found the key "
        "'1' (quote it)",
    ]


def test_config_check_command_two_mistakes_one_error_no_traceback(tmp_path):
    """A byte that is not UTF-8 and an unknown key: config check crashed on the pair."""
    text = TINY.replace("  shard_tokens: 60000\n", "  shard_tokns: 6\n") + f"# caf{LATIN1}\n"
    path = write_config(tmp_path / "c.yaml", text)
    proc = subprocess.run([sys.executable, "-m", "copyscope", "config", "check", str(path)],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == (
        f"copyscope: error: {path}:{len(text.splitlines())}: expected UTF-8 text, found the "
        "byte 0xe9 at column 6 (save the file as UTF-8)"
    )
    unknown = f"{path}:{line_of(text, '  shard_tokns: 6')}: config key 'index.shard_tokns': "
    assert any(line.startswith(unknown) and line.endswith("an unknown key") for line in lines)
    assert all(line.startswith(f"{path}:") for line in lines[1:]), lines


# --------------------------------------------------------------------------- own files, before any job
def own_config(tmp: Path) -> tuple[Path, dict]:
    """The tiny config with one bad file of each kind of own material; its path and files."""
    files = own_files(tmp)
    cfg = yaml.safe_load(TINY)
    cfg["results"] = str(tmp / "results")
    gens = files["generations"][0]
    gens.write_text(gens.read_text() + '{"id": "z", "prompt": "x"}\n[1]\n')
    prompts = jsonl(tmp / "prompts.txt", [{"prompt": "to be"}, {"prompt": "or not"}])
    bench = files["benchmark.qa"][0]
    spoil(bench, 1)
    tokens = files["booknlp.tokens"][0]
    rows = tokens.read_text().splitlines()
    rows[1] = "\t".join(["0", "zero", *rows[1].split("\t")[2:]])  # sentence_ID of line 2
    tokens.write_text("\n".join(rows) + "\n")
    cfg["generations"] = {"api/x": str(gens)}
    cfg["sampling"]["prompts"] = str(prompts)
    membership = cfg.setdefault("analysis", {}).setdefault("membership", {})
    membership["benchmarks"] = {"my-qa": {"path": str(bench), "format": "qa"}}
    membership["books"] = {
        "novel": {"text": str(files["book"][0]), "characters": str(files["characters"][0])},
        "emma": {"booknlp": {"tokens": str(tokens), "entities": str(files["booknlp.entities"][0])}},
    }
    path = tmp / "my.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path, {"generations": gens, "prompts": prompts, "bench": bench, "tokens": tokens}


def test_config_check_reads_every_own_file_and_reports_every_problem(tmp_path):
    path, f = own_config(tmp_path)
    with pytest.raises(ConfigError) as err:
        check_file(path)
    text = path.read_text()
    at = {k: line_of(text, line) for k, line in [
        ("gens", f"  api/x: {f['generations']}"), ("prompts", f"  prompts: {f['prompts']}"),
        ("bench", f"        path: {f['bench']}"), ("tokens", f"          tokens: {f['tokens']}"),
    ]}  # fmt: skip
    lines = str(err.value).splitlines()
    assert lines[:2] == [
        f"{path}:{at['gens']}: config key 'generations.api/x': {f['generations']}:3: field "
        "'text': missing (expected a non-empty string)",
        f"{path}:{at['gens']}: config key 'generations.api/x': {f['generations']}:4: expected "
        "one JSON object per line, found a list",
    ]
    assert lines[2].startswith(
        f"{path}:{at['prompts']}: config key 'sampling.prompts': {f['prompts']}:1: expected one "
        "prompt per line of text (a .txt file), found a JSON object on every line: rename"
    )
    assert lines[3].startswith(
        f"{path}:{at['bench']}: config key 'analysis.membership.benchmarks.my-qa.path': "
        f"{f['bench']}:1: expected UTF-8 text, found the byte 0xe9"
    )
    assert lines[4] == (
        f"{path}:{at['tokens']}: config key 'analysis.membership.books.emma.booknlp.tokens': "
        f"{f['tokens']}:2: column sentence_ID: expected an integer, found 'zero'"
    )
    assert len(lines) == 5


@pytest.mark.e2e
def test_the_workflow_reports_own_file_problems_before_any_job(tmp_path):
    path, f = own_config(tmp_path)
    proc = snakemake("-n", "--configfile", str(path))
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out, out[-3000:]
    assert "copyscope: config error:\n" in out
    assert (
        f"config key 'generations.api/x': {f['generations']}:3: field 'text': missing" in out
    )
    assert f"{f['tokens']}:2: column sentence_ID: expected an integer, found 'zero'" in out
    assert "train_model" not in out  # no job was planned


@pytest.mark.e2e
@pytest.mark.parametrize("nested", [False, True])
def test_the_workflow_names_a_duplicate_config_key(tmp_path, nested):
    cfg = yaml.safe_load(TINY)
    cfg["results"] = str(tmp_path / "results")
    text = yaml.safe_dump(cfg, sort_keys=False)
    if nested:
        first = line_of(text, "  shard_tokens: 60000")
        text = text.replace("  shard_tokens: 60000\n", "  shard_tokens: 60000\n  shard_tokens: 9\n")
        key, again = "index.shard_tokens", first + 1
    else:
        first = line_of(text, "analysis:")
        text += "analysis:\n  words: words\n"
        key, again = "analysis", len(text.splitlines()) - 1
    path = tmp_path / "my.yaml"
    path.write_text(text)
    proc = snakemake("-n", "--configfile", str(path))
    assert proc.returncode != 0
    assert (
        f"copyscope: config error:\n{path}:{again}: config key '{key}': expected once in its "
        f"mapping, found it again (first on line {first}"
    ) in proc.stderr, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- another language
FRENCH = (
    "Il était une fois, dans un petit village au bord de la mer, une vieille femme qui vivait "
    "seule avec son chat. Chaque matin, elle descendait au port pour acheter du poisson frais "
    "et parler avec les pêcheurs de la pluie et du beau temps."
)
ENGLISH = (
    "Once upon a time, in a small village by the sea, there lived an old woman alone with her "
    "cat. Every morning she walked down to the harbour to buy fresh fish and to talk with the "
    "fishermen about the rain and the fine weather."
)


def test_own_material_in_another_language_is_named_with_the_language(tmp_path):
    """Generations in French under an English config (issue 41 §4): config check warns with the
    file, its key and the detected language, and still passes; English text, a short text and
    a character list of names give no warning."""
    cfg = yaml.safe_load(TINY)
    cfg["results"] = str(tmp_path / "results")
    gens = jsonl(tmp_path / "gens.jsonl", [{"id": i, "prompt": "", "text": FRENCH} for i in range(3)])
    prompts = jsonl(tmp_path / "prompts.jsonl", [{"prompt": ENGLISH}])
    short = jsonl(tmp_path / "short.jsonl", [{"id": 0, "prompt": "", "text": "Bonjour, ça va ?"}])
    cfg["generations"] = {"api/fr": str(gens), "api/short": str(short)}
    cfg["sampling"]["prompts"] = str(prompts)
    path = write_config(tmp_path / "c.yaml", yaml.safe_dump(cfg, sort_keys=False))
    proc = subprocess.run([sys.executable, "-m", "copyscope", "config", "check", str(path)],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"{path}: a valid config"
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(
        f"warning: {gens} (config key 'generations.api/fr'): the text reads as French (fr, p = "
    ), line
    assert line.endswith(
        "not the config's corpus.language en (English): it is analysed with the English tools "
        "all the same"
    )
    # the same text under a French config: no warning; the English prompts then get one
    cfg["corpus"]["language"] = "fr"
    lines = language_warnings(validate(cfg))
    assert len(lines) == 1 and f"{prompts} (config key 'sampling.prompts')" in lines[0]
    assert "reads as English (en, p = " in lines[0] and "corpus.language fr (French)" in lines[0]


def test_mismatch_warning_by_hand():
    assert mismatch_warning("f.txt", ENGLISH, "en") is None
    assert mismatch_warning("f.txt", FRENCH[:150], "en") is None  # too short to tell
    german = (
        "Es war einmal in einem kleinen Dorf am Meer eine alte Frau, die allein mit ihrer Katze "
        "lebte. Jeden Morgen ging sie zum Hafen hinunter, um frischen Fisch zu kaufen und mit "
        "den Fischern über das Wetter zu reden."
    )
    line = mismatch_warning("f.txt", german, "en")
    assert line.startswith("f.txt: the text reads as language 'de' (ISO 639-1, p = "), line
    code, prob = detect(FRENCH)
    assert code == "fr" and prob > WARN_MIN_PROBABILITY


@pytest.mark.e2e
def test_the_workflow_warns_of_own_material_in_another_language(tmp_path):
    cfg = yaml.safe_load(TINY)
    cfg["results"] = str(tmp_path / "results")
    gens = jsonl(tmp_path / "gens.jsonl", [{"id": i, "prompt": "", "text": FRENCH} for i in range(3)])
    cfg["generations"] = {"api/fr": str(gens)}
    path = write_config(tmp_path / "c.yaml", yaml.safe_dump(cfg, sort_keys=False))
    proc = snakemake("-n", "--configfile", str(path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (
        f"copyscope: warning: {gens} (config key 'generations.api/fr'): the text reads as "
        "French (fr, p = "
    ) in proc.stderr


# --------------------------------------------------------------------------- README
def readme_commands() -> list[str]:
    """The commands of the README's "Your own material" section, in order: the code spans
    that start with ``. .venv``, ``copyscope`` or ``snakemake``."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Your own material", 1)[1].split("\n## ", 1)[0]
    spans = [" ".join(s.split()) for s in re.findall(r"`([^`]+)`", section)]
    return [s for s in spans if s.startswith((". .venv", "copyscope ", "snakemake "))]


@pytest.mark.e2e
def test_the_readme_own_config_commands_work_from_a_fresh_shell(tmp_path):
    """The README's commands, in a clean environment (no PATH to the venv, no PYTHONPATH), on
    the tiny config, the run as a dry run. ``.venv`` is the one this test runs in (the
    repository's, as ``make setup`` makes it, or the one given as sys.prefix)."""
    commands = readme_commands()
    assert [c.split()[0] for c in commands] == [".", "copyscope", "snakemake"], commands
    venv = ROOT / ".venv" if (ROOT / ".venv" / "bin" / "activate").is_file() else Path(sys.prefix)
    assert (venv / "bin" / "activate").is_file(), venv
    cfg = yaml.safe_load(TINY)
    cfg["results"] = str(tmp_path / "results")
    (tmp_path / "my.yaml").write_text(yaml.safe_dump(cfg))
    script = " && ".join(
        c.replace(".venv/", f"{venv}/").replace("my.yaml", str(tmp_path / "my.yaml"))
        + (" -n" if c.startswith("snakemake") else "")
        for c in commands
    )
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    bash = shutil.which("bash")
    proc = subprocess.run([bash, "-c", script], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, (script, proc.stdout[-2000:], proc.stderr[-3000:])
    assert f"{tmp_path / 'my.yaml'}: a valid config" in proc.stdout
    assert "train_model" in proc.stdout  # the dry run planned the jobs


@pytest.mark.e2e
def test_the_venv_snakemake_run_directly_finds_its_python(tmp_path):
    """``.venv/bin/snakemake`` run without activating the venv (no venv on PATH, no
    PYTHONPATH): its jobs' ``python -m copyscope …`` is the venv's Python (it was no Python,
    or one without pandas)."""
    docs = [{"id": f"d{i}", "text": " ".join(f"w{j} l{i}" for j in range(300))} for i in range(8)]
    corpus = jsonl(tmp_path / "c.jsonl", docs)
    cfg = yaml.safe_load(TINY)
    cfg["results"] = str(tmp_path / "results")
    cfg["corpus"] = {"source": "jsonl", "path": str(corpus), "split": {"valid_ids": ["d1", "d2"]},
                     "inject": {}}  # fmt: skip
    (tmp_path / "my.yaml").write_text(yaml.safe_dump(cfg))
    snakemake_bin = Path(sys.executable).parent / "snakemake"
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    proc = subprocess.run(
        [str(snakemake_bin), "--cores", "1", "--configfile", str(tmp_path / "my.yaml"),
         "--until", "corpus"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "results" / "corpus" / "train.jsonl").is_file()


def test_a_generated_carriage_return_survives_the_csv_round_trip(tmp_path):
    """A model's text may hold a bare ``\\r``: pandas leaves such a field unquoted and reads
    the ``\\r`` back as the end of a row (the style stage of a pretrained model's run failed
    on it). Such a table is written quoted; one without keeps its plain bytes."""
    import pandas as pd

    from copyscope.io import write_csv

    frame = pd.DataFrame({"model": ["m", "m"], "copies": [2, 3], "text": ["a\rb", "c\u2028d"]})
    write_csv(tmp_path / "cr.csv", frame)
    back = pd.read_csv(tmp_path / "cr.csv")
    assert back.to_dict("list") == frame.to_dict("list")
    plain = frame.assign(text=["ab", "cd"])
    write_csv(tmp_path / "plain.csv", plain)
    assert (tmp_path / "plain.csv").read_text() == "model,copies,text\nm,2,ab\nm,3,cd\n"
