"""RAVEN's syntactic novelty (McCoy et al. 2023, "How much do language models copy from their
training data?", §6 and the authors' code ``tommccoy1/raven``, ``syntax_analyses.py``).

Each parsed sentence yields *items* of several *units*; an item of a generated passage is novel
when no training parse contains it. The units (names are the keys of every table):

* ``pos_sequence``: the sentence's whole tag sequence.
* ``constituency_structure``: the constituency tree with every word replaced by ``w``
  (preterminal tags and phrase labels kept); only for sentences with a tree (stanza, benepar).
* ``dependency_structure``: copyscope's substitute when no constituency parse exists (the spaCy
  backend): the dependency tree with every word replaced by its tag, each node written
  ``(rel <left children> TAG <right children>)`` with the children in sentence order, so the
  string is the same for the same tree whatever the word order of the input arcs. Computed for
  every sentence, so it is also available next to ``constituency_structure``.
* ``cfg_rule``: each non-preterminal node's rule ``(label, (child labels))`` of the
  constituency tree (the authors' "nonterminal rules"); only where a tree exists.
* ``labeled_arc``: ``(rel, dependent word, head word)``; the root's arc has head ``ROOT``.
* ``unlabeled_arc``: ``(dependent word, head word)``.
* ``dependency_role``: ``(dependent, "_" + rel)`` and ``(head, rel + "_")`` for every arc, counted
  only for words seen in training (a word new to training has trivially new roles). The root
  pseudo-word ``ROOT`` has no roles (the authors give it a ``root_`` role that is never novel).
* ``argument_structure``: per head word with core arguments, ``(head, "rel,rel,...")`` with the
  argument relations sorted and named as the authors' Stanford labels (``dobj``, ``iobj``,
  ``nsubj``, ``nsubjpass``, plus ``pobj`` for a prepositional phrase with an object attached to a
  head that already has another argument); only for heads seen in training. The label set of
  the parser is mapped onto these names (:data:`ARGUMENT_LABELS`: ClearNLP for spaCy, Universal
  Dependencies for stanza, where a PP is an ``obl`` dependent with a ``case`` child).
* ``labeled_path_k`` / ``unlabeled_path_k`` (k = 1..``max_path_words``): for every word, its
  upward path word → rel → head → rel → … → ``ROOT``; the item is the path's prefix of its
  first k nodes (``ROOT`` counts as a node), with the k − 1 relations between them in the labeled
  version. A path with fewer than k nodes has no item of size k. Every path contributes its
  prefixes up to ``min(k_max, its length)``: the authors' unlabeled paths instead test the cap
  against the *whole* path's length, so a word deeper than the cap has no unlabeled paths at
  all; copyscope does not copy that bug.

Counting rule (the authors' ``count_generation_appearances`` and
``count_first_appearances_in_generations``), per text set of passages (prompt + continuation):

* Sentence roles (:func:`sentence_roles`): the authors append the first generated sentence to
  the prompt before splitting the prompt into sentences, and drop the last generated sentence
  (often cut off). On parses of prompt + continuation this is: the first sentence holding a
  generated word (the one straddling the boundary, or the first one of the continuation) is
  ``glued``, and counts as prompt, as in the authors' code (its sentence index is below their
  ``first_gen_index``); the last sentence holding a generated word is ``dropped`` (ignored
  entirely) unless it is the glued one; sentences in between are ``generated``; sentences
  before are ``prompt``.
* Denominator: every occurrence of an item in a ``generated`` sentence.
* Numerator: each item absent from all training parses counts once per passage, and only if its
  first occurrence in the passage (prompt and glued sentences included) is in a ``generated``
  sentence: a prompt occurrence blocks it.
* Novelty = Σ numerators / Σ denominators over the passages, with a percentile bootstrap CI
  over passages (:func:`copyscope.novelty.metrics.bootstrap_novelty`).

Differences from the authors' pipeline (stated in the README): copyscope parses with spaCy
(ClearNLP labels, no constituency) or stanza (Universal Dependencies, constituency) instead of
benepar + Stanford dependencies; POS sequences come from the parser's tags, not the
constituency tree's preterminals; the authors' per-word "novel POS tag" unit is not computed.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..errors import InputError
from ..novelty.metrics import bootstrap_novelty
from .types import Passage, Sentence

ROOT = "ROOT"
"""The pseudo-word at the top of every dependency path and the head of the root's arc."""

PLACEHOLDER = "w"
"""What replaces every word in a constituency structure (the authors' placeholder)."""

MAX_PATH_WORDS = 10
"""The longest dependency-path prefix, in nodes (the authors' k ≤ 10)."""


def path_unit(labeled: bool, k: int) -> str:
    """The unit name of dependency-path prefixes of k nodes."""
    return f"{'labeled' if labeled else 'unlabeled'}_path_{k}"


BASE_UNITS = (
    "pos_sequence",
    "constituency_structure",
    "dependency_structure",
    "cfg_rule",
    "labeled_arc",
    "unlabeled_arc",
    "dependency_role",
    "argument_structure",
)
"""The units other than dependency paths, in table order."""


def units(max_path_words: int = MAX_PATH_WORDS) -> tuple[str, ...]:
    """Every unit name, in table order: :data:`BASE_UNITS`, then labeled and unlabeled paths by k."""
    paths = [path_unit(lab, k) for lab in (True, False) for k in range(1, max_path_words + 1)]
    return BASE_UNITS + tuple(paths)


@dataclass(frozen=True)
class ArgumentLabels:
    """How one dependency label set marks RAVEN's argument relations.

    ``core`` maps a label to the authors' name (``dobj``, ``iobj``, ``nsubj``, ``nsubjpass``);
    ``prep``/``pobj`` are the labels of a preposition attached to the head and of its object
    (ClearNLP, Stanford); ``oblique``/``case`` are the UD alternative: an oblique dependent of
    the head that has a case-marking child; with ``subtypes`` an oblique label with any UD
    subtype (``obl:arg``, ``obl:mod``, ``obl:agent``: the French pipelines) counts too.
    """

    core: Mapping[str, str]
    prep: str | None = None
    pobj: str | None = None
    oblique: str | None = None
    case: str | None = None
    subtypes: bool = False

    def is_oblique(self, label: str) -> bool:
        """``label`` is the oblique label (or, with ``subtypes``, one of its subtypes)."""
        if self.oblique is None:
            return False
        return label == self.oblique or (self.subtypes and label.split(":")[0] == self.oblique)


_STANFORD = ArgumentLabels(
    core={"dobj": "dobj", "iobj": "iobj", "nsubj": "nsubj", "nsubjpass": "nsubjpass"},
    prep="prep",
    pobj="pobj",
)
_UD = ArgumentLabels(
    core={"obj": "dobj", "iobj": "iobj", "nsubj": "nsubj", "nsubj:pass": "nsubjpass"},
    oblique="obl",
    case="case",
)
ARGUMENT_LABELS: dict[str, ArgumentLabels] = {
    "stanford": _STANFORD,
    "clearnlp": replace(  # spaCy's English labels: ``dative`` for the indirect object
        _STANFORD,
        core={"dobj": "dobj", "dative": "iobj", "nsubj": "nsubj", "nsubjpass": "nsubjpass"},
    ),
    "ud": _UD,
    "ud_fr": replace(_UD, subtypes=True),
}
"""Argument relations per label set: ``stanford`` (the authors' parser), ``clearnlp`` (spaCy's
English pipeline), ``ud`` (stanza's English models), ``ud_fr`` (the French pipelines of spaCy
and stanza: UD whose obliques carry subtypes, ``obl:arg``, ``obl:mod``, ``obl:agent``)."""


# --- per-sentence extractors -------------------------------------------------------------------


def _check_heads(sentence: Sentence) -> None:
    n = len(sentence.words)
    for i, w in enumerate(sentence.words, start=1):
        if not 0 <= w.head <= n or w.head == i:
            raise InputError(
                "parsed sentence",
                f"word {i} ({w.text!r}) has head {w.head}; expected 0..{n}, not itself",
            )


def pos_sequence(sentence: Sentence) -> list[Hashable]:
    """The sentence's tag sequence, one item."""
    return [sentence.tags] if sentence.words else []


_TREE_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def parse_tree(tree: str) -> tuple:
    """A Penn Treebank bracket string as nested ``(label, children)`` tuples; a leaf (word) is a
    ``str``. An unlabeled outer bracket gets the label ``""``."""
    stack: list[tuple[str, list]] = [("", [])]
    expect_label = False
    for tok in _TREE_TOKEN.findall(tree):
        if tok == "(":
            if expect_label:
                stack.append(("", []))
            expect_label = True
        elif tok == ")":
            if expect_label:
                stack.append(("", []))
                expect_label = False
            if len(stack) < 2:
                raise InputError(
                    "constituency tree", f"balanced brackets, found an extra ')' in {tree!r}"
                )
            label, children = stack.pop()
            stack[-1][1].append((label, tuple(children)))
        elif expect_label:
            stack.append((tok, []))
            expect_label = False
        else:
            stack[-1][1].append(tok)
    if len(stack) != 1 or len(stack[0][1]) != 1 or isinstance(stack[0][1][0], str):
        raise InputError("constituency tree", f"one bracketed tree, found {tree!r}")
    return stack[0][1][0]


def _is_preterminal(node) -> bool:
    return len(node[1]) == 1 and isinstance(node[1][0], str)


def abstract_tree(tree: str) -> str:
    """The bracket string with every word replaced by :data:`PLACEHOLDER` (labels and
    preterminal tags kept), spaced canonically: ``(S (NP (DT w) (NN w)) (VP (VBD w)))``."""
    parse_tree(tree)  # validates the brackets
    out: list[str] = []
    after_open = False
    for tok in _TREE_TOKEN.findall(tree):
        if tok == "(":
            out.append(" (" if out and out[-1] != "(" else "(")
            after_open = True
            continue
        if tok == ")":
            out.append(")")
        elif after_open:
            out.append(tok)
        else:
            out.append(" " + PLACEHOLDER)
        after_open = False
    return "".join(out).strip()


def constituency_structure(sentence: Sentence) -> list[Hashable]:
    """The abstract constituency tree (one item), or nothing without a tree."""
    return [abstract_tree(sentence.tree)] if sentence.tree else []


def cfg_rules(sentence: Sentence) -> list[Hashable]:
    """``(label, (child labels))`` of every non-preterminal node, in pre-order."""
    if not sentence.tree:
        return []
    out, stack = [], [parse_tree(sentence.tree)]
    while stack:
        node = stack.pop()
        if isinstance(node, str) or _is_preterminal(node):
            continue
        label, children = node
        out.append((label, tuple(c if isinstance(c, str) else c[0] for c in children)))
        stack.extend(reversed(children))
    return out


def _children(sentence: Sentence) -> list[list[int]]:
    """Children (1-based) of every node 0..n, in sentence order."""
    kids: list[list[int]] = [[] for _ in range(len(sentence.words) + 1)]
    for i, w in enumerate(sentence.words, start=1):
        kids[w.head].append(i)
    return kids


def dependency_structure(sentence: Sentence) -> list[Hashable]:
    """The dependency tree with words replaced by tags (one item); see the module docstring."""
    if not sentence.words:
        return []
    _check_heads(sentence)
    kids = _children(sentence)
    words = sentence.words
    order = list(_walk(kids))
    if len(order) != len(words):
        raise InputError("parsed sentence", "dependency heads forming a tree, found a cycle")
    done: dict[int, str] = {}
    for i in reversed(order):  # reversed pre-order: every node after its descendants
        left = [done[c] for c in kids[i] if c < i]
        right = [done[c] for c in kids[i] if c > i]
        done[i] = "(" + " ".join([words[i - 1].deprel, *left, words[i - 1].tag, *right]) + ")"
    return [" ".join(done[r] for r in kids[0])]


def _walk(kids: list[list[int]]):
    stack = list(kids[0])
    while stack:
        i = stack.pop()
        yield i
        stack.extend(kids[i])


def labeled_arcs(sentence: Sentence) -> list[Hashable]:
    """``(rel, dependent word, head word)`` per word."""
    _check_heads(sentence)
    words = sentence.words
    return [(w.deprel, w.text, ROOT if w.head == 0 else words[w.head - 1].text) for w in words]


def unlabeled_arcs(sentence: Sentence) -> list[Hashable]:
    """``(dependent word, head word)`` per word."""
    return [(dep, head) for _, dep, head in labeled_arcs(sentence)]


def dependency_roles(sentence: Sentence, vocabulary: Set[str] | None = None) -> list[Hashable]:
    """``(dependent, "_" + rel)`` and ``(head, rel + "_")`` per arc (the root has no head role),
    only for words of the training ``vocabulary`` when one is given (when counting, the filter
    is :func:`eligible`)."""
    roles = _roles(labeled_arcs(sentence))
    return roles if vocabulary is None else [r for r in roles if r[0] in vocabulary]


def _roles(arcs: list) -> list[Hashable]:
    out: list[Hashable] = []
    for rel, dep, head in arcs:
        out.append((dep, "_" + rel))
        if head != ROOT:
            out.append((head, rel + "_"))
    return out


def argument_structures(
    sentence: Sentence, labels: str = "clearnlp", vocabulary: Set[str] | None = None
) -> list[Hashable]:
    """``(head word, "rel,rel,…")`` per head with a core argument, relations sorted (see the
    module docstring); heads in sentence order; only heads of the training ``vocabulary`` when
    one is given (when counting, the filter is :func:`eligible`)."""
    if labels not in ARGUMENT_LABELS:
        raise InputError("dependency labels", f"one of {sorted(ARGUMENT_LABELS)}, found {labels!r}")
    spec = ARGUMENT_LABELS[labels]
    _check_heads(sentence)
    kids = _children(sentence)
    words = sentence.words
    args: dict[int, list[str]] = {}
    for w in words:
        if w.deprel in spec.core and w.head > 0:
            args.setdefault(w.head, []).append(spec.core[w.deprel])
    for i, w in enumerate(words, start=1):
        if w.head == 0 or w.head not in args:
            continue
        child_rels = {words[c - 1].deprel for c in kids[i]}
        pp = (spec.prep is not None and w.deprel == spec.prep and spec.pobj in child_rels) or (
            spec.is_oblique(w.deprel) and spec.case in child_rels
        )
        if pp:
            args[w.head].append("pobj")
    out = [(words[h - 1].text, ",".join(sorted(args[h]))) for h in sorted(args)]
    return out if vocabulary is None else [a for a in out if a[0] in vocabulary]


def dependency_paths(
    sentence: Sentence, max_path_words: int = MAX_PATH_WORDS
) -> dict[str, list[Hashable]]:
    """Labeled and unlabeled upward-path prefixes of k = 1..max_path_words nodes, per word (a
    word's prefixes stop at ``ROOT``, or at the cap; the cap also bounds a malformed cycle)."""
    _check_heads(sentence)
    labeled: list[list[Hashable]] = [[] for _ in range(max_path_words)]
    unlabeled: list[list[Hashable]] = [[] for _ in range(max_path_words)]
    words = sentence.words
    for i, start in enumerate(words, start=1):
        lab = unl = (start.text,)
        labeled[0].append(lab)
        unlabeled[0].append(unl)
        j = i
        for k in range(1, max_path_words):
            if j == 0:
                break
            w = words[j - 1]
            j = w.head
            node = ROOT if j == 0 else words[j - 1].text
            lab = (*lab, w.deprel, node)
            unl = (*unl, node)
            labeled[k].append(lab)
            unlabeled[k].append(unl)
    out = {path_unit(True, k + 1): items for k, items in enumerate(labeled)}
    out.update({path_unit(False, k + 1): items for k, items in enumerate(unlabeled)})
    return out


def sentence_units(
    sentence: Sentence, labels: str = "clearnlp", max_path_words: int = MAX_PATH_WORDS
) -> dict[str, list[Hashable]]:
    """Every unit's items of one sentence (occurrences, in order), keyed by :func:`units`."""
    if not sentence.words:
        return {u: [] for u in units(max_path_words)}
    arcs = labeled_arcs(sentence)
    out = {
        "pos_sequence": pos_sequence(sentence),
        "constituency_structure": constituency_structure(sentence),
        "dependency_structure": dependency_structure(sentence),
        "cfg_rule": cfg_rules(sentence),
        "labeled_arc": arcs,
        "unlabeled_arc": [(dep, head) for _, dep, head in arcs],
        "dependency_role": _roles(arcs),
        "argument_structure": argument_structures(sentence, labels),
    }
    out.update(dependency_paths(sentence, max_path_words))
    return out


# --- the counting rule -------------------------------------------------------------------------

PROMPT, GLUED, GENERATED, DROPPED = "prompt", "glued", "generated", "dropped"


def sentence_roles(passage: Passage) -> tuple[str, ...]:
    """Each sentence's role in RAVEN's counting rule (module docstring): ``prompt``, ``glued``
    (the first sentence with a generated word; counts as prompt), ``generated``, ``dropped``
    (the last sentence with a generated word, unless it is the glued one)."""
    gen = [i for i, s in enumerate(passage.sentences) if s.any_generated]
    roles = [PROMPT] * len(passage.sentences)
    for i in gen:
        roles[i] = GENERATED
    if gen:
        roles[gen[0]] = GLUED
        if len(gen) > 1:
            roles[gen[-1]] = DROPPED
    return tuple(roles)


def eligible(unit: str, item, vocabulary: Set[str]) -> bool:
    """Whether an item counts at all: roles and argument structures only for a word (head)
    seen in training; every other item always."""
    if unit in ("dependency_role", "argument_structure"):
        return item[0] in vocabulary
    return True


@dataclass(frozen=True)
class ParsedSet:
    """One text set's items: per passage, per counted sentence, its role and unit → items."""

    name: str
    passages: tuple[tuple[tuple[str, dict[str, list[Hashable]]], ...], ...]


def extract_set(
    name: str,
    passages: Iterable[Passage],
    labels: str = "clearnlp",
    max_path_words: int = MAX_PATH_WORDS,
) -> ParsedSet:
    """The items of every non-dropped sentence of every passage of a text set."""
    out = []
    for p in passages:
        sents = tuple(
            (role, sentence_units(s, labels, max_path_words))
            for role, s in zip(sentence_roles(p), p.sentences, strict=True)
            if role != DROPPED
        )
        out.append(sents)
    return ParsedSet(name, tuple(out))


def query_items(sets: Iterable[ParsedSet]) -> tuple[dict[str, set], set[str]]:
    """Per unit, every item the text sets contain; and every word they contain (the words whose
    presence in training decides role and argument-structure eligibility)."""
    items: dict[str, set] = {}
    words: set[str] = set()
    for ps in sets:
        for passage in ps.passages:
            for _, unit_items in passage:
                for unit, its in unit_items.items():
                    items.setdefault(unit, set()).update(its)
                words.update(a[1] for a in unit_items["labeled_arc"])
    return items, words


@dataclass(frozen=True)
class TrainingHits:
    """Which queried items occur in some training parse, and which queried words training has."""

    found: dict[str, frozenset]
    vocabulary: frozenset[str]


def training_hits(
    training: Iterable[Passage],
    query: Mapping[str, set],
    query_words: set[str],
    labels: str = "clearnlp",
    max_path_words: int = MAX_PATH_WORDS,
) -> TrainingHits:
    """One streaming pass over the training parses (like the authors': only the queried items
    are kept, so memory follows the generations, not the training set)."""
    found: dict[str, set] = {u: set() for u in query}
    vocab: set[str] = set()
    for p in training:
        for s in p.sentences:
            vocab.update(w.text for w in s.words if w.text in query_words)
            for unit, its in sentence_units(s, labels, max_path_words).items():
                q = query.get(unit)
                if q:
                    found[unit].update(q.intersection(its))
    return TrainingHits({u: frozenset(v) for u, v in found.items()}, frozenset(vocab))


def passage_counts(
    sentences: Sequence[tuple[str, Mapping[str, list[Hashable]]]],
    unit: str,
    in_training: frozenset | set,
    vocabulary: frozenset[str] | set[str],
) -> tuple[int, int]:
    """(numerator, denominator) of one unit in one passage under RAVEN's counting rule: the
    sentences in order with their roles (dropped ones already left out); ``in_training`` holds
    the unit's items found in training (at least every one of the passage's that is)."""
    seen: set = set()
    novel = total = 0
    for role, unit_items in sentences:
        counted = role == GENERATED
        for item in unit_items.get(unit, ()):
            if not eligible(unit, item, vocabulary):
                continue
            if counted:
                total += 1
            if item not in seen:
                seen.add(item)
                if counted and item not in in_training:
                    novel += 1
    return novel, total


def count_matrices(
    parsed: ParsedSet, hits: TrainingHits, unit_names: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """(numerators, denominators), shape (passages, units)."""
    novel = np.zeros((len(parsed.passages), len(unit_names)), dtype=np.int64)
    total = np.zeros_like(novel)
    for u, unit in enumerate(unit_names):
        found = hits.found.get(unit, frozenset())
        for d, sentences in enumerate(parsed.passages):
            novel[d, u], total[d, u] = passage_counts(sentences, unit, found, hits.vocabulary)
    return novel, total


def novelty_table(
    parsed: ParsedSet,
    hits: TrainingHits,
    max_path_words: int = MAX_PATH_WORDS,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """One text set's syntactic novelty: per unit ``novel``, ``total``, ``novelty`` (pooled
    novel / total; NaN without occurrences, e.g. constituency units without trees) and its
    bootstrap 95% CI over passages (``novelty_lo``, ``novelty_hi``); ``family`` (``unit``,
    ``labeled_path``, ``unlabeled_path``) and ``k`` (path nodes; 0 for other units) for RAVEN's
    Fig. 5-style curves."""
    names = units(max_path_words)
    novel, total = count_matrices(parsed, hits, names)
    return novelty_rows(parsed.name, names, novel, total, n_boot, seed)


def novelty_rows(
    name: str, names: Sequence[str], novel: np.ndarray, total: np.ndarray, n_boot: int, seed: int
) -> pd.DataFrame:
    """:func:`novelty_table`'s rows from a set's per-passage counts (``novel``, ``total``:
    passages × units, :func:`count_matrices`; a passage's counts depend on it alone, so a
    subset of passages is a subset of rows)."""
    with warnings.catch_warnings():  # a unit without occurrences (no trees) has NaN bounds
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = bootstrap_novelty(novel, total, n_boot, seed)
    sums_n, sums_t = novel.sum(0), total.sum(0)
    rate = np.full(len(names), np.nan)
    np.divide(sums_n, sums_t, out=rate, where=sums_t > 0)
    family = [n.rsplit("_", 1)[0] if "_path_" in n else "unit" for n in names]
    k = [int(n.rsplit("_", 1)[1]) if "_path_" in n else 0 for n in names]
    return pd.DataFrame(
        {
            "set": name,
            "unit": names,
            "family": family,
            "k": k,
            "novel": sums_n,
            "total": sums_t,
            "novelty": rate,
            "novelty_lo": lo,
            "novelty_hi": hi,
            "passages": len(novel),
        }
    )


def syntactic_novelty(
    text_sets: Mapping[str, Iterable[Passage]],
    training: Iterable[Passage],
    labels: str = "clearnlp",
    max_path_words: int = MAX_PATH_WORDS,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """RAVEN's syntactic novelty of every text set against the training parses (streamed once):
    the rows of :func:`novelty_table` for every set, stacked."""
    parsed = [extract_set(name, ps, labels, max_path_words) for name, ps in text_sets.items()]
    query, words = query_items(parsed)
    hits = training_hits(training, query, words, labels, max_path_words)
    return pd.concat(
        [novelty_table(p, hits, max_path_words, n_boot, seed) for p in parsed], ignore_index=True
    )
