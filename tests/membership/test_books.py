"""Name cloze on a researcher's own books (copyscope.membership.books, copyscope.report.books):
items of a hand-made prose book (each rejection reason), a character list, names found
twice without a recognizer, BookNLP .tokens/.entities files (an accepted item, rejections,
bad rows named), candidates and chance, the report table and its summary section, and one
end-to-end run of the workflow with a text book and a BookNLP book."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from copyscope.config import ConfigErrors, check_own_material, validate
from copyscope.errors import InputError
from copyscope.membership import books, cloze
from copyscope.report import books as report_books
from support.configs import (
    BOOKNLP,
    PARAGRAPHS,
    write_book,
    write_booknlp,
)
from support.models import make_tokenizer, tiny_model

CHARACTERS = "Olivia\nSebastian Marlowe\nMr. Toby Belch\n\nThe Duke of Orsino\n"






PARAMS = {"cloze_per_play": 10, "seed": 0}


# --------------------------------------------------------------------------- text books
def test_paragraphs_join_wrapped_lines():
    text = "First line\nof one paragraph.\n\n\n  Second\n  paragraph.  \n\n \n"
    assert books.paragraphs(text) == ["First line of one paragraph.", "Second paragraph."]
    # a paragraph whose first line ends with ":" is prose, not a speaker line
    assert books.paragraphs("He said:\nnothing.") == ["He said: nothing."]


def test_character_list_gives_single_token_names(tmp_path):
    path = tmp_path / "chars.txt"
    path.write_text(CHARACTERS)
    # Mr is a title, The and Duke are stop-listed, Orsino comes after "of"
    assert books.character_names(path) == ["Belch", "Marlowe", "Olivia", "Sebastian", "Toby"]
    path.write_text("Mr.\nthe servant\n")
    with pytest.raises(InputError, match="chars.txt: expected at least one character name"):
        books.character_names(path)


def test_text_book_items_each_rejection_reason(tmp_path):
    text = books.read_text(write_book(tmp_path))
    names = books.character_names(_chars(tmp_path))
    items, found, rejected = books.text_book_items("novel", text, names, PARAMS)
    assert found == names
    assert rejected == {
        "length": 1,
        "no_name": 1,
        "several_names": 1,
        "name_recurs": 1,
        "other_proper_name": 1,
        "accepted": 1,
    }
    (item,) = items
    # the wrapped lines are joined: the item is the whole first paragraph, Olivia masked
    assert item["passage"] == PARAGRAPHS["accepted"]
    assert item["text"] == PARAGRAPHS["accepted"].replace("Olivia", "[MASK]")
    assert item["answer"] == "Olivia" and item["item"] == "novel-0" and item["play"] == "novel"


def _chars(tmp_path):
    path = tmp_path / "chars.txt"
    path.write_text(CHARACTERS)
    return path


def test_titles_are_no_proper_names_in_a_book(tmp_path):
    # "Mr" mid-sentence would be another proper name under the plays' stop-list
    text = PARAGRAPHS["accepted"].replace("and Olivia walked", "and Mr. Olivia walked")
    items, _, rejected = books.text_book_items("b", text, ["Olivia"], PARAMS)
    assert rejected["accepted"] == 1 and rejected["other_proper_name"] == 0
    assert items[0]["answer"] == "Olivia"


def test_names_found_twice_without_a_recognizer(tmp_path):
    text = books.read_text(write_book(tmp_path))
    parts = books.paragraphs(text)
    # Olivia occurs mid-sentence five times; Sebastian and London once; "In" starts sentences
    assert books.capitalised_names(parts) == ["Olivia"]
    items, names, rejected = books.text_book_items("novel", text, None, PARAMS)
    assert names == ["Olivia"]
    assert [it["answer"] for it in items] == ["Olivia"]
    # Sebastian is no name now: another proper name, not a second name
    assert rejected["several_names"] == 0 and rejected["other_proper_name"] == 2
    # a place twice is a name too without a recognizer (documented)
    assert books.capitalised_names(["They went to Paris.", "It rained in Paris and Rome."]) == [
        "Paris"
    ]


def test_ner_names_keep_single_token_persons_found_twice():
    parts = ["Mr. Darcy met Olivia.", "Olivia's letter came; Darcy smiled.", "Emma Woodhouse sat."]
    ents = [
        [(0, 9, "PERSON"), (14, 20, "PERSON")],
        [(0, 8, "PERSON"), (22, 27, "PERSON")],
        [(0, 14, "PERSON")],
    ]
    assert books.ner_names(parts, ents) == ["Darcy", "Olivia"]
    # Emma Woodhouse is two words: never a name, however often
    assert books.ner_names(parts, ents, min_count=1) == ["Darcy", "Olivia"]


def test_read_text_names_the_line_of_a_bad_byte(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"one\ntwo \xff\n")
    with pytest.raises(InputError, match=r"bad.txt:2: expected UTF-8"):
        books.read_text(path)
    path.write_text("  \n")
    with pytest.raises(InputError, match="empty file"):
        books.read_text(path)






def test_booknlp_items_accept_one_and_reject_other_proper_names(tmp_path):
    tokens_path, entities_path = write_booknlp(tmp_path)
    tokens = books.read_tokens(tokens_path)
    entities = books.read_entities(entities_path, len(tokens))
    items, rejected = books.booknlp_items("emma", tokens, entities, per_play=10, seed=0)
    assert rejected == {
        "length": 0,
        "no_name": 1,  # paragraph 2: a two-token PROP PER is no single-token name
        "several_names": 0,
        "name_recurs": 0,
        "other_proper_name": 2,  # paragraph 1: Venice (PROP GPE); 3: Emma Woodhouse
        "accepted": 1,
    }
    (item,) = items
    assert item["answer"] == "Olivia" and item["item"] == "emma-0"
    # rebuilt from the tokens: a space where the book had one, none before the commas
    assert item["passage"] == BOOKNLP[0][0]
    assert item["text"] == (
        "In the grey morning the old house stood quiet by the river, and [MASK], who had not "
        "slept, walked slowly along the wet garden path, counting the roses that had fallen in "
        "the night, and thinking of the long letter she had not yet dared to answer."
    )
    assert 40 < item["last"] - item["first"] < 60
    # the candidates of a BookNLP book: its single-token PROP PER texts
    assert books.booknlp_names(entities) == ["Olivia"]


def test_booknlp_length_rule_counts_token_ids(tmp_path):
    tokens_path, entities_path = write_booknlp(tmp_path)
    tokens = books.read_tokens(tokens_path)
    entities = books.read_entities(entities_path, len(tokens))
    n = sum(1 for t in tokens if t.paragraph == 0)  # the accepted paragraph's tokens
    _, rejected = books.booknlp_items("emma", tokens, entities, lo=n - 1, hi=n + 5)
    assert rejected["accepted"] == 0  # last - first = n - 1 is not > n - 1
    _, rejected = books.booknlp_items("emma", tokens, entities, lo=n - 2, hi=n + 5)
    assert rejected["accepted"] == 1


def test_booknlp_names_pick_the_most_frequent_spelling():
    E = books.Entity
    ents = [E(0, 0, "PROP", "PER", "Olivia"), E(3, 3, "PROP", "PER", "Olivia"),
            E(5, 5, "PROP", "PER", "OLIVIA"), E(7, 7, "PROP", "PER", "God"),
            E(8, 9, "PROP", "PER", "Emma Woodhouse"), E(11, 11, "PROP", "LOC", "Venice"),
            E(12, 12, "NOM", "PER", "lady")]  # fmt: skip
    assert books.booknlp_names(ents) == ["Olivia"]


@pytest.mark.parametrize(
    "edit, where, match",
    [
        (lambda rows: [rows[0].replace("\tword\t", "\tWORD\t"), *rows[1:]], ":1", "missing word"),
        (lambda rows: [*rows[:3], rows[3].replace("\t", "\tx", 6), *rows[4:]], ":4", "column"),
        (lambda rows: [*rows[:2], rows[3], *rows[4:]], ":3", "token_ID_within_document"),
        (lambda rows: [*rows[:2], "\t".join(rows[2].split("\t")[:5]), *rows[3:]], ":3", "fields"),
    ],
)
def test_bad_token_rows_are_named(tmp_path, edit, where, match):
    tokens_path, _ = write_booknlp(tmp_path)
    rows = tokens_path.read_text().splitlines()
    tokens_path.write_text("\n".join(edit(rows)) + "\n")
    with pytest.raises(InputError, match=rf"emma\.tokens{where}: .*{match}"):
        books.read_tokens(tokens_path)


def test_bad_token_values_name_their_column(tmp_path):
    tokens_path, _ = write_booknlp(tmp_path)
    rows = tokens_path.read_text().splitlines()
    fields = rows[5].split("\t")
    fields[6] = "ten"  # byte_onset
    rows[5] = "\t".join(fields)
    tokens_path.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError, match=r"emma\.tokens:6: column byte_onset: expected an integer"):
        books.read_tokens(tokens_path)


def test_bad_entity_rows_are_named(tmp_path):
    tokens_path, entities_path = write_booknlp(tmp_path)
    n = len(books.read_tokens(tokens_path))
    rows = entities_path.read_text().splitlines()
    entities_path.write_text("\n".join([rows[0], rows[1], f"9\t3\t{n}\tPROP\tPER\tX"]) + "\n")
    with pytest.raises(InputError, match=r"emma\.entities:3: column end_token: expected a token"):
        books.read_entities(entities_path, n)
    entities_path.write_text("\n".join([rows[0], "9\t5\t4\tPROP\tPER\tX"]) + "\n")
    with pytest.raises(InputError, match=r"emma\.entities:2: column end_token: expected ≥"):
        books.read_entities(entities_path, n)
    entities_path.write_text("COREF\tstart_token\tend_token\tprop\ttext\n")
    with pytest.raises(InputError, match=r"emma\.entities:1: .*missing cat"):
        books.read_entities(entities_path, n)


# --------------------------------------------------------------------------- scoring
@pytest.fixture(scope="module")
def tok(tmp_path_factory):
    from transformers import PreTrainedTokenizerFast

    path = tmp_path_factory.mktemp("tok") / "tokenizer"
    make_tokenizer(path)
    return PreTrainedTokenizerFast.from_pretrained(str(path))


def test_candidates_chance_and_in_training(tok):
    model = tiny_model("gpt2")
    text = "w1 w2 [MASK] w5 w6 w7 w8 w9 w10 w11"
    item = {"play": "a", "item": "a-0", "text": text, "passage": text.replace("[MASK]", "w3"),
            "answer": "w3"}  # fmt: skip
    by_book = {"a": ([item], ["w3", "w4"]), "b": ([], ["w12", "w13", "w14"])}
    params = {"cloze_distractors": 2, "seed": 0, "prompt_tokens": 2, "new_tokens": 2}
    rows = books.book_rows(model, tok, by_book, params, {"a": True})
    (row,) = rows
    # the book's two names and two of the other book's three
    assert row["n_candidates"] == 4 and row["split"] == "book" and row["play"] == "a"
    assert row["in_training"] == 1 and row["excerpt_copies"] == 0
    assert row["correct_insensitive"] == int(row["predicted"] == "w3")
    cands = cloze.candidate_names({"a": ["w3", "w4"], "b": ["w12", "w13", "w14"]}, "a", 2, 0)
    assert row["predicted"] in cands and {"w3", "w4"} <= set(cands)
    assert books.book_rows(model, tok, by_book, params)[0]["in_training"] is None
    table = report_books.books_table(pd.DataFrame([{"model": "m", **row}]), n_boot=50, seed=0)
    assert table["chance"].tolist() == [0.25]


# --------------------------------------------------------------------------- report
def synthetic_cloze() -> pd.DataFrame:
    rows = []
    for model in ("m1", "m2"):
        for book, hits, known in (("novel", [1, 1, 0, 1], 1), ("emma", [0, 0, 0, 1], None)):
            for k, h in enumerate(hits):
                rows.append({"model": model, "play": book, "split": "book", "item": f"{book}-{k}",
                             "answer": "Olivia", "predicted": "Olivia" if h else "Toby",
                             "n_candidates": 4 if book == "novel" else 5,
                             "correct_insensitive": h, "correct_sensitive": h * (k != 0),
                             "in_training": known})  # fmt: skip
    return pd.DataFrame(rows)


def test_report_table_accuracy_and_ci(tmp_path):
    cloze_table = synthetic_cloze()
    paths = []
    for model, g in cloze_table.groupby("model", sort=False):
        paths.append((model, tmp_path / f"{model}.csv"))
        g.to_csv(paths[-1][1], index=False)
    status = _status_files(tmp_path, {"m1": [], "m2": []})
    out = tmp_path / "table.csv"
    report_books.run({"books": paths, "status": status}, {"table": out}, {"bootstrap": 200, "seed": 0})
    table = pd.read_csv(out)
    assert table[["model", "book"]].values.tolist() == [
        ["m1", "novel"],
        ["m1", "emma"],
        ["m2", "novel"],
        ["m2", "emma"],
    ]
    novel = table.iloc[0]
    assert novel["items"] == 4 and novel["acc_insensitive"] == 0.75
    assert novel["acc_sensitive"] == 0.5 and novel["chance"] == 0.25
    assert novel["acc_insensitive_lo"] <= 0.75 <= novel["acc_insensitive_hi"]
    assert 0 <= novel["acc_insensitive_lo"] < novel["acc_insensitive_hi"] <= 1
    assert novel["in_training"] == 1 and np.isnan(table.iloc[1]["in_training"])
    assert table.iloc[1]["chance"] == pytest.approx(0.2)
    # the interval is the seeded bootstrap of the item means
    again = tmp_path / "again.csv"
    report_books.run({"books": paths, "status": status}, {"table": again}, {"bootstrap": 200, "seed": 0})
    assert again.read_text() == out.read_text()
    assert table["reason"].isna().all()  # every book has items
    # without books: an empty table with its header
    report_books.run({"books": [], "status": []}, {"table": out}, {"bootstrap": 200, "seed": 0})
    assert out.read_text().strip() == ",".join(report_books.COLUMNS)


def _status_files(tmp_path, empty: dict[str, list[tuple[str, str]]]):
    """Each model's books_status.csv: novel and emma (the cloze table's order) with items,
    then the books of
    ``empty[model]`` (book, reason) without."""
    paths = []
    for model, none in empty.items():
        rows = [
            {"book": "novel", "names": 3, "passages": 12, "items": 4, "scored": 4,
             "in_training": 1, "reason": ""},
            {"book": "emma", "names": 2, "passages": 9, "items": 4, "scored": 4,
             "in_training": None, "reason": ""},
        ] + [
            {"book": b, "names": 0, "passages": 0, "items": 0, "scored": 0,
             "in_training": 0, "reason": why}
            for b, why in none
        ]  # fmt: skip
        paths.append((model, tmp_path / f"{model}_status.csv"))
        frame = pd.DataFrame(rows, columns=books.STATUS_COLUMNS)
        frame["in_training"] = frame["in_training"].astype("Int64")
        frame.to_csv(paths[-1][1], index=False)
    return paths


def test_a_book_without_items_has_its_row_and_reason(tmp_path):
    cloze_table = synthetic_cloze()
    paths = []
    for model, g in cloze_table.groupby("model", sort=False):
        paths.append((model, tmp_path / f"{model}.csv"))
        g.to_csv(paths[-1][1], index=False)
    why = "no person names: none found in the text, and no character list names one"
    status = _status_files(tmp_path, {"m1": [("blank", why)], "m2": [("blank", why)]})
    out = tmp_path / "table.csv"
    report_books.run({"books": paths, "status": status}, {"table": out}, {"bootstrap": 50, "seed": 0})
    table = pd.read_csv(out, keep_default_na=False)
    # in the status file's order, per model; the book without items keeps its row
    assert table[["model", "book"]].values.tolist() == [
        ["m1", "novel"], ["m1", "emma"], ["m1", "blank"],
        ["m2", "novel"], ["m2", "emma"], ["m2", "blank"],
    ]  # fmt: skip
    blank = table[table["book"] == "blank"].iloc[0]
    assert blank["items"] == 0 and blank["acc_insensitive"] == "" and blank["reason"] == why
    assert blank["in_training"] == "0"  # read as text (keep_default_na=False)
    assert (table[table["book"] != "blank"]["reason"] == "").all()
    lines = report_books.summary_section({"membership_books": pd.read_csv(out)}, {})
    assert f"- m1 on blank: no items: {why}" in lines
    # a model whose every book lacks items: no cloze rows at all, the rows still there
    status = _status_files(tmp_path, {"m1": [("blank", why)]})
    status_only = pd.read_csv(status[0][1]).iloc[2:]
    status_only.to_csv(status[0][1], index=False)
    empty = tmp_path / "empty.csv"
    pd.DataFrame(columns=books.BOOK_COLUMNS).to_csv(empty, index=False)
    report_books.run({"books": [("m1", empty)], "status": status}, {"table": out},
                     {"bootstrap": 50, "seed": 0})  # fmt: skip
    table = pd.read_csv(out, keep_default_na=False)
    assert table[["book", "items", "reason"]].values.tolist() == [["blank", 0, why]]


def test_no_item_reason_in_order():
    rejected = {"length": 3, "no_name": 5, "several_names": 0, "name_recurs": 1,
                "other_proper_name": 0, "accepted": 0}  # fmt: skip
    assert books.no_item_reason(0, dict.fromkeys(rejected, 0), 0, []).startswith(
        "no person names"
    )
    assert books.no_item_reason(2, dict.fromkeys(rejected, 0), 0, []) == (
        "the text has no passage of whole sentences to build an item from"
    )
    assert books.no_item_reason(2, rejected, 0, []) == (
        "no passage holds exactly one of its 2 names (9 passages: not 40 to 60 tokens long 3, "
        "no name 5, the name recurs 1)"
    )
    why = ["longer than the model's context (8 tokens)"] * 2 + ["too short to continue"]
    assert books.no_item_reason(2, rejected | {"accepted": 3}, 3, why) == (
        "all 3 items skipped in scoring: 2 longer than the model's context (8 tokens), "
        "1 too short to continue"
    )
    assert books.no_item_reason(2, rejected | {"accepted": 3}, 3, why[:2]) == ""


def test_book_status_of_a_character_list_naming_nobody(tmp_path):
    text = books.read_text(write_book(tmp_path))
    by_book = {
        "novel": books.text_book_items("novel", text, books.character_names(_chars(tmp_path)), PARAMS),
        "other": books.text_book_items("other", text, ["Zebedee"], PARAMS),
        "blank": books.text_book_items("blank", "no names here at all.", None, PARAMS),
    }
    status = books.book_status(by_book, [], {"novel": True}).set_index("book")
    assert status.loc["novel", "reason"] == "" and status.loc["novel", "scored"] == 1
    assert status.loc["novel", "in_training"] == 1 and pd.isna(status.loc["other", "in_training"])
    other = status.loc["other"]
    assert other["names"] == 1 and other["items"] == 0 and other["passages"] == 6
    assert other["reason"].startswith("no passage holds exactly one of its 1 names (6 passages: ")
    assert "no name" in other["reason"]
    assert status.loc["blank", "reason"].startswith("no person names")


def test_items_longer_than_the_context_are_the_reason(tok):
    from copyscope.lm import build_model
    from support.models import EOS, SPECS, VOCAB

    model = build_model(dict(SPECS["gpt2"], n_ctx=8, dropout=0.0), VOCAB, EOS).eval()
    text = "w1 w2 [MASK] w5 w6 w7 w8 w9 w10 w11"
    item = {"play": "a", "item": "a-0", "text": text, "passage": text.replace("[MASK]", "w3"),
            "answer": "w3"}  # fmt: skip
    by_book = {"a": ([item], ["w3", "w4"], {"accepted": 1}), "b": ([], ["w12"], {"no_name": 2})}
    params = {"cloze_distractors": 1, "seed": 0, "prompt_tokens": 2, "new_tokens": 2}
    skipped = []
    assert books.book_rows(model, tok, by_book, params, None, skipped) == []
    assert skipped == [("a", "longer than the model's context (8 tokens)")]
    status = books.book_status(by_book, skipped).set_index("book")
    assert status.loc["a", "reason"] == (
        "all 1 items skipped in scoring: 1 longer than the model's context (8 tokens)"
    )
    assert status.loc["a", ["items", "scored"]].tolist() == [1, 0]
    assert status.loc["b", "reason"] == (
        "no passage holds exactly one of its 1 names (2 passages: no name 2)"
    )


def test_summary_section_lists_each_book_and_nothing_without_books():
    table = report_books.books_table(synthetic_cloze(), n_boot=100, seed=0)
    lines = report_books.summary_section({"membership_books": table}, {})
    assert lines[1] == "## Name cloze on your books"
    book_lines = [x for x in lines if x.startswith("- ")]
    assert len(book_lines) == 4
    assert book_lines[0].startswith("- m1 on novel: 4 items; accuracy 0.75 [")
    assert "case-sensitive 0.5" in book_lines[0] and "chance 0.25; in training" in book_lines[0]
    assert book_lines[1].endswith("chance 0.2; membership not known")
    empty = pd.DataFrame(columns=report_books.COLUMNS)
    assert report_books.summary_section({"membership_books": empty}, {}) == []


# --------------------------------------------------------------------------- config
ROOT = Path(__file__).resolve().parents[2]


def _config(books_block):
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg.setdefault("analysis", {}).setdefault("membership", {})["books"] = books_block
    return cfg


def test_config_books_one_input_each_and_paths_checked(tmp_path):
    novel = write_book(tmp_path)
    cfg = validate(_config({"novel": {"text": str(novel), "in_training": True}}))
    assert cfg["analysis"]["membership"]["books"]["novel"]["in_training"] is True
    assert check_own_material(cfg) == []
    assert validate(_config({}))["analysis"]["membership"]["books"] == {}
    with pytest.raises(
        ConfigErrors, match=r"books\.both': expected exactly one of text or booknlp, found both"
    ):
        validate(_config({"both": {"text": "a", "booknlp": {"tokens": "t", "entities": "e"}}}))
    with pytest.raises(ConfigErrors, match=r"books\.x\.characters': expected no character list"):
        validate(_config({"x": {"booknlp": {"tokens": "t", "entities": "e"}, "characters": "c"}}))
    with pytest.raises(ConfigErrors, match="books.-x"):
        validate(_config({"-x": {"text": "a"}}))
    cfg = validate(_config({"emma": {"booknlp": {"tokens": "no.tokens", "entities": str(novel)}}}))
    missing, not_entities = check_own_material(cfg)  # the files are read: every problem
    assert missing[0] == "analysis.membership.books.emma.booknlp.tokens"
    assert "nothing there: 'no.tokens'" in missing[1]
    assert not_entities == (
        "analysis.membership.books.emma.booknlp.entities",
        f"{novel}:1: expected a BookNLP header (tab-separated column names) on line 1; missing "
        "COREF, start_token, end_token, prop, cat, text",
    )


# --------------------------------------------------------------------------- end to end
E2E_PROSE = [
    "Olivia woke before the bells of the town, and for a while she lay still and listened to "
    "the rain. The house was cold and quiet. When she rose at last, Olivia lit the small lamp "
    "by the window and read again the letter that had come the night before. It said very "
    "little, but it said enough.",
    "The garden was grey with water when she went down. She walked along the path to the old "
    "gate, where her brother used to wait for her, and stood there a long time. Sebastian had "
    "gone away in the spring, and no one had heard a word from him since the first warm days "
    "of summer.",
    "At noon the sun came out, and the whole valley shone. Olivia carried her basket to the "
    "mill, counting the steps as she had done when she was a child. The miller's wife gave her "
    "bread and a little cheese, and asked after the family. She answered kindly, and said that "
    "all was well.",
]


@pytest.mark.e2e
def test_books_run_end_to_end(tmp_path):
    from support.configs import external_config
    from support.workflow import snakemake

    cfg = external_config(tmp_path)
    cfg.pop("generations")
    cfg["sampling"]["prompts"] = 8
    cfg["models"]["zoo"]["gpt2-a"]["n_ctx"] = 128  # room for a 60-word passage
    novel = tmp_path / "novel.txt"
    novel.write_text("\n\n".join(textwrap.fill(p, 70) for p in E2E_PROSE) + "\n")
    characters = tmp_path / "characters.txt"
    characters.write_text("Olivia\nSebastian Marlowe\n")
    nobody = tmp_path / "nobody.txt"
    nobody.write_text("Zebedee\n")
    tokens, entities = write_booknlp(tmp_path)
    cfg["analysis"]["membership"] = {
        "books": {
            "novel": {"text": str(novel), "characters": str(characters), "in_training": False},
            "emma": {"booknlp": {"tokens": str(tokens), "entities": str(entities)}},
            "other": {"text": str(novel), "characters": str(nobody)},
        },
        "cloze_distractors": 1,
        "ner_model": None,
        "bootstrap": 50,
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    out = tmp_path / "results"
    target = str(out / "tables/membership_books.csv")
    proc = snakemake(target, "--cores", "2", "--configfile", str(tmp_path / "config.yaml"))
    assert proc.returncode == 0, proc.stderr[-4000:]
    rows = pd.read_csv(out / "membership/gpt2-a/books.csv")
    assert set(rows["play"]) == {"novel", "emma"} and set(rows["split"]) == {"book"}
    emma = rows[rows["play"] == "emma"]
    assert emma["answer"].tolist() == ["Olivia"] and emma["in_training"].isna().all()
    novel_rows = rows[rows["play"] == "novel"]
    assert len(novel_rows) >= 1 and (novel_rows["in_training"] == 0).all()
    assert set(novel_rows["answer"]) <= {"Olivia", "Sebastian"}
    # candidates: the book's own names plus one of the other books' (emma: Olivia + 1;
    # novel: Marlowe, Olivia, Sebastian + Zebedee, the one name of the others not its own)
    assert (emma["n_candidates"] == 2).all() and (novel_rows["n_candidates"] == 4).all()
    table = pd.read_csv(out / "tables/membership_books.csv").set_index("book")
    assert sorted(table.index) == ["emma", "novel", "other"] and set(table["model"]) == {"gpt2-a"}
    # the book whose character list names nobody in the text: its row, 0 items, the reason
    assert table.loc["other", "items"] == 0 and np.isnan(table.loc["other", "acc_insensitive"])
    assert table.loc["other", "reason"].startswith("no passage holds exactly one of its 1 names")
    summary = (out / "summary.md").read_text() if (out / "summary.md").exists() else None
    status = pd.read_csv(out / "membership/gpt2-a/books_status.csv").set_index("book")
    assert status.loc["other", "reason"] == table.loc["other", "reason"]
    assert summary is None or "gpt2-a on other: no items: no passage" in summary
    assert table.loc["emma", "items"] == 1 and table.loc["emma", "chance"] == 0.5
    assert table.loc["novel", "items"] == len(novel_rows)
    assert table.loc["novel", "in_training"] == 0 and np.isnan(table.loc["emma", "in_training"])
    assert table.loc["emma", "acc_insensitive"] == emma["correct_insensitive"].mean()
