"""RAVEN's syntactic novelty (McCoy et al. 2023): each unit on a hand-worked parse, and the
counting rule (prompt blocking, once-per-passage numerator, glue/drop) on hand-built passages."""

from __future__ import annotations

import numpy as np
import pytest

from copyscope.errors import InputError
from copyscope.syntax.syntactic_novelty import (
    argument_structures,
    cfg_rules,
    constituency_structure,
    dependency_paths,
    dependency_roles,
    dependency_structure,
    extract_set,
    labeled_arcs,
    novelty_table,
    passage_counts,
    path_unit,
    pos_sequence,
    query_items,
    sentence_roles,
    syntactic_novelty,
    training_hits,
    units,
    unlabeled_arcs,
)
from copyscope.syntax.types import Passage, Sentence, Word

# "The cat sat on the mat ." with spaCy's ClearNLP labels
CAT = [
    ("The", "DT", 2, "det"),
    ("cat", "NN", 3, "nsubj"),
    ("sat", "VBD", 0, "ROOT"),
    ("on", "IN", 3, "prep"),
    ("the", "DT", 6, "det"),
    ("mat", "NN", 4, "pobj"),
    (".", ".", 3, "punct"),
]
CAT_TREE = "(S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .))"


def sent(spec, generated=False, tree=None) -> Sentence:
    """A sentence from (text, tag, head, deprel) rows; ``generated`` is one flag or one per word."""
    flags = generated if isinstance(generated, list) else [generated] * len(spec)
    return Sentence(
        tuple(Word(t, g, h, r, f) for (t, g, h, r), f in zip(spec, flags, strict=True)), tree
    )


def chain(words: str, generated=False) -> Sentence:
    """A sentence whose words each depend on the next (the last is the root), tags = NN."""
    ws = words.split()
    return sent(
        [(w, "NN", i + 2 if i + 1 < len(ws) else 0, "dep") for i, w in enumerate(ws)], generated
    )


def passage(*sentences, name="gen", index=0) -> Passage:
    return Passage(name, index, tuple(sentences))


# --- units on a hand-worked sentence -----------------------------------------------------------


def test_pos_sequence():
    assert pos_sequence(sent(CAT)) == [("DT", "NN", "VBD", "IN", "DT", "NN", ".")]


def test_constituency_structure_replaces_words_and_keeps_tags():
    assert constituency_structure(sent(CAT, tree=CAT_TREE)) == [
        "(S (NP (DT w) (NN w)) (VP (VBD w) (PP (IN w) (NP (DT w) (NN w)))) (. w))"
    ]
    assert constituency_structure(sent(CAT)) == []  # no tree: no item


def test_constituency_structure_is_independent_of_spacing_and_words():
    other = "(S(NP (DT A)  (NN dog))(VP (VBD ran) (PP (IN in) (NP (DT a) (NN park))))(. !))"
    assert constituency_structure(sent(CAT, tree=other)) == constituency_structure(
        sent(CAT, tree=CAT_TREE)
    )


def test_cfg_rules():
    assert cfg_rules(sent(CAT, tree=CAT_TREE)) == [
        ("S", ("NP", "VP", ".")),
        ("NP", ("DT", "NN")),
        ("VP", ("VBD", "PP")),
        ("PP", ("IN", "NP")),
        ("NP", ("DT", "NN")),
    ]


def test_bad_tree_is_an_input_error():
    with pytest.raises(InputError, match="one bracketed tree"):
        constituency_structure(sent(CAT, tree="(S (NP (DT The)"))


def test_dependency_structure_words_replaced_by_tags():
    assert dependency_structure(sent(CAT)) == [
        "(ROOT (nsubj (det DT) NN) VBD (prep IN (pobj (det DT) NN)) (punct .))"
    ]


def test_dependency_structure_rejects_a_cycle():
    bad = [("a", "DT", 2, "det"), ("b", "NN", 1, "x"), ("c", "VB", 0, "ROOT")]
    with pytest.raises(InputError, match="cycle"):
        dependency_structure(sent(bad))


def test_arcs():
    s = sent(CAT)
    assert labeled_arcs(s)[:3] == [
        ("det", "The", "cat"),
        ("nsubj", "cat", "sat"),
        ("ROOT", "sat", "ROOT"),
    ]
    assert unlabeled_arcs(s)[3] == ("on", "sat")


def test_roles_both_sides_and_no_role_for_the_root_pseudo_word():
    roles = dependency_roles(sent(CAT))
    assert roles[:4] == [("The", "_det"), ("cat", "det_"), ("cat", "_nsubj"), ("sat", "nsubj_")]
    assert ("sat", "_ROOT") in roles
    assert not [r for r in roles if r[0] == "ROOT"]
    assert len(roles) == 2 * 7 - 1
    assert dependency_roles(sent(CAT), vocabulary={"cat"}) == [("cat", "det_"), ("cat", "_nsubj")]


def test_argument_structure_with_prepositional_object():
    assert argument_structures(sent(CAT), "clearnlp") == [("sat", "nsubj,pobj")]
    assert argument_structures(sent(CAT), "clearnlp", vocabulary={"cat"}) == []


def test_argument_structure_pp_needs_another_argument_and_an_object():
    # "sat on" (no pobj) and a noun with a PP but no core argument
    s = sent([("cat", "NN", 2, "nsubj"), ("sat", "VBD", 0, "ROOT"), ("on", "IN", 2, "prep")])
    assert argument_structures(s) == [("sat", "nsubj")]
    s = sent([("cat", "NN", 0, "ROOT"), ("on", "IN", 1, "prep"), ("mat", "NN", 2, "pobj")])
    assert argument_structures(s) == []


def test_argument_structure_ud_labels():
    # "She gave him a book in town" (UD: obj, iobj, obl with case)
    s = sent(
        [
            ("She", "PRP", 2, "nsubj"),
            ("gave", "VBD", 0, "root"),
            ("him", "PRP", 2, "iobj"),
            ("a", "DT", 5, "det"),
            ("book", "NN", 2, "obj"),
            ("in", "IN", 7, "case"),
            ("town", "NN", 2, "obl"),
        ]
    )
    assert argument_structures(s, "ud") == [("gave", "dobj,iobj,nsubj,pobj")]
    with pytest.raises(InputError, match="one of"):
        argument_structures(s, "penn")


def test_dependency_paths_hand_worked():
    paths = dependency_paths(sent(CAT))
    # "the" (word 5): the -det-> mat -pobj-> on -prep-> sat -ROOT-> ROOT
    assert ("the", "det", "mat", "pobj", "on") in paths[path_unit(True, 3)]
    assert ("the", "mat", "on", "sat", "ROOT") in paths[path_unit(False, 5)]
    assert paths[path_unit(True, 1)] == [(w[0],) for w in CAT]
    # every word has a path of 2 nodes, only "the" reaches 5 nodes, nobody 6
    assert len(paths[path_unit(False, 2)]) == 7
    assert paths[path_unit(False, 5)] == [("the", "mat", "on", "sat", "ROOT")]
    assert paths[path_unit(False, 6)] == []


def test_path_cap_counts_nodes_of_the_prefix_not_of_the_whole_path():
    """RAVEN's unlabeled-path cap tests the whole path's length, so a deep word has no short
    paths either; here "the" (a 5-node path) keeps its prefixes of 1..3 nodes."""
    paths = dependency_paths(sent(CAT), max_path_words=3)
    assert set(paths) == {path_unit(lab, k) for lab in (True, False) for k in (1, 2, 3)}
    assert ("the", "mat", "on") in paths[path_unit(False, 3)]
    assert ("the", "det", "mat", "pobj", "on") in paths[path_unit(True, 3)]


def test_units_names():
    assert units(2)[-4:] == (
        "labeled_path_1",
        "labeled_path_2",
        "unlabeled_path_1",
        "unlabeled_path_2",
    )


# --- the counting rule -------------------------------------------------------------------------


def test_roles_glue_the_straddling_sentence_and_drop_the_last():
    p = passage(
        chain("a b"),
        chain("c d e", generated=[False, True, True]),  # straddles the prompt/continuation boundary
        chain("f g", True),
        chain("h i", True),
        chain("j k", True),
    )
    assert sentence_roles(p) == ("prompt", "glued", "generated", "generated", "dropped")


def test_roles_one_or_two_generated_sentences():
    assert sentence_roles(passage(chain("a"), chain("b", True))) == ("prompt", "glued")
    assert sentence_roles(passage(chain("a"), chain("b", True), chain("c", True))) == (
        "prompt",
        "glued",
        "dropped",
    )
    assert sentence_roles(passage(chain("a"))) == ("prompt",)


def counts(p: Passage, unit: str, training: list[Passage], max_path_words=3):
    parsed = extract_set("gen", [p], max_path_words=max_path_words)
    query, words = query_items([parsed])
    hits = training_hits(training, query, words, max_path_words=max_path_words)
    found = hits.found.get(unit, frozenset())
    return passage_counts(parsed.passages[0], unit, found, hits.vocabulary)


TRAIN = [passage(chain("x y z"), name="train")]


def test_prompt_occurrence_blocks_a_novel_item():
    p = passage(
        chain("a b"), chain("c d", True), chain("a b", True), chain("e f", True), chain("g h", True)
    )
    # generated: "a b" (first seen in the prompt: blocked) and "e f" (novel); "c d" glued, "g h" dropped
    assert counts(p, "unlabeled_arc", TRAIN) == (2, 4)  # (e,f), (f,ROOT) novel; 4 generated arcs
    assert counts(p, "pos_sequence", TRAIN) == (0, 2)  # NN NN first occurs in the prompt


def test_glued_sentence_counts_as_prompt_and_blocks():
    p = passage(chain("c d", True), chain("c d", True), chain("g h", True))
    assert counts(p, "unlabeled_arc", TRAIN) == (0, 2)


def test_repeated_novel_item_counts_once_in_numerator_k_times_in_denominator():
    p = passage(
        chain("q", True),
        chain("a b", True),
        chain("a b", True),
        chain("a b", True),
        chain("z", True),
    )
    assert counts(p, "pos_sequence", TRAIN) == (1, 3)
    assert counts(p, "labeled_arc", TRAIN) == (2, 6)


def test_training_occurrence_makes_an_item_not_novel():
    p = passage(chain("q", True), chain("x y", True), chain("z", True))
    # arc (x,y) is in training, (y,ROOT) is not (y is no root there); unigram paths x, y are
    assert counts(p, "unlabeled_arc", TRAIN) == (1, 2)
    assert counts(p, path_unit(False, 1), TRAIN) == (0, 2)


def test_dropped_sentence_is_ignored():
    p = passage(chain("q", True), chain("z", True), chain("a b c d", True))
    assert counts(p, "unlabeled_arc", TRAIN) == (0, 1)


def test_roles_only_for_words_seen_in_training():
    p = passage(chain("q", True), chain("new x", True), chain("z", True))
    # roles (new,_dep), (x,dep_), (x,_dep): only x is in training, where it is a dependent
    # (x,_dep) but never a head, so (x,dep_) is novel
    assert counts(p, "dependency_role", TRAIN) == (1, 2)


def test_novelty_table_bootstrap_over_passages():
    gen = [
        passage(
            chain("q", True), chain("a b", True), chain("x y z", True), chain("end", True), index=0
        ),
        passage(chain("q", True), chain("x y z", True), chain("end", True), index=1),
        passage(chain("q", True), chain("c d e", True), chain("end", True), index=2),
    ]
    parsed = extract_set("gen", gen, max_path_words=3)
    query, words = query_items([parsed])
    hits = training_hits(TRAIN, query, words, max_path_words=3)
    t = novelty_table(parsed, hits, max_path_words=3, n_boot=200, seed=1).set_index("unit")
    arcs = t.loc["unlabeled_arc"]
    # passage 0: (a,b), (b,ROOT) novel, (x,y), (y,z), (z,ROOT) in training; passage 1: 0 of 3;
    # passage 2: 3 of 3
    assert (arcs.novel, arcs.total) == (5, 11)
    assert arcs.novelty == pytest.approx(5 / 11)
    assert arcs.novelty_lo <= arcs.novelty <= arcs.novelty_hi
    assert np.isnan(t.loc["constituency_structure", "novelty"])  # no trees
    assert t.loc["labeled_path_2", "family"] == "labeled_path" and t.loc["labeled_path_2", "k"] == 2
    again = novelty_table(parsed, hits, max_path_words=3, n_boot=200, seed=1).set_index("unit")
    assert again.loc["unlabeled_arc", "novelty_lo"] == arcs.novelty_lo


def test_syntactic_novelty_streams_training_once_per_call():
    gen = [passage(chain("q", True), chain("a b", True), chain("end", True))]
    human = [passage(chain("q", True), chain("x y", True), chain("end", True))]
    calls = []

    def training():
        calls.append(1)
        yield from TRAIN

    table = syntactic_novelty(
        {"m/pure": gen, "human": human}, training(), max_path_words=2, n_boot=50
    )
    assert len(calls) == 1
    rows = table.set_index(["set", "unit"])
    assert rows.loc[("m/pure", "unlabeled_arc"), "novelty"] == 1.0
    assert rows.loc[("human", "unlabeled_arc"), "novelty"] == 0.5
    assert rows.loc[("human", "unlabeled_path_1"), "novelty"] == 0.0
    assert set(table["set"]) == {"m/pure", "human"}


# --- bad input ---------------------------------------------------------------------------------


def test_empty_passages_and_sentences_count_nothing():
    empty = Sentence(())
    gen = [passage(index=0), passage(empty, Sentence((), None), index=1)]
    table = syntactic_novelty({"g": gen}, iter([passage(empty, name="train")]), n_boot=10)
    assert (table["total"] == 0).all() and table["novelty"].isna().all()


def test_very_long_and_deep_sentences_do_not_hit_the_recursion_limit():
    words = " ".join(f"w{i}" for i in range(3000))
    long = chain(words, True)  # a 3000-node chain: the deepest possible dependency tree
    deep = sent([("x", "NN", 0, "ROOT")], True, "(S " * 3000 + "(NN x)" + ")" * 3000)
    p = passage(chain("q", True), long, deep, chain("z", True))
    parsed = extract_set("g", [p], max_path_words=10)
    units_of_long = parsed.passages[0][1][1]
    assert (
        len(units_of_long["labeled_path_10"]) == 3000 - 8
    )  # the last 8 words are within 9 of ROOT
    assert units_of_long["dependency_structure"][0].count("(") == 3000
    units_of_deep = parsed.passages[0][2][1]
    assert units_of_deep["constituency_structure"][0].startswith("(S (S (S")
    assert len(units_of_deep["cfg_rule"]) == 3000
