"""Configs the tests change: the shipped tiny config, its validation problems, a config with text
from outside, a plan of a shipped config, a researcher's own books."""

from __future__ import annotations

import copy
import json
import re
import textwrap

import pytest
import yaml

from copyscope.config import validate
from copyscope.errors import ConfigError
from copyscope.membership import books
from copyscope.plan import Plan
from support.workflow import ROOT

TINY = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())


def problems(mutate) -> list[str]:
    """The lines of the ConfigError raised for the tiny config changed by ``mutate``."""
    cfg = copy.deepcopy(TINY)
    mutate(cfg)
    with pytest.raises(ConfigError) as err:
        validate(cfg)
    return str(err.value).splitlines()


def write_lines(path, lines) -> str:
    """Write each line (a dict as JSON, a string as it is) on its own line."""
    path.write_text(
        "".join((json.dumps(x) if isinstance(x, dict) else x) + "\n" for x in lines),
        encoding="utf-8",
    )
    return str(path)


# ------------------------------------------------------------------------ end to end
MORROW = "Good morrow, my lord, and what news from the court?"


DAGGER = (
    "Is this a dagger which I see before me, The handle toward my hand? Come, let me clutch thee."
)


def external_config(tmp_path) -> dict:
    """The tiny config trimmed for speed (one trained model, two decodings) with a generations
    file (with references) and a prompt file (with references) the test writes."""
    gens = [
        {"id": "dagger", "prompt": "MACBETH.", "text": " " + DAGGER, "reference": " " + DAGGER},
        {"id": 2, "prompt": "", "text": MORROW,
         "reference": "Fair is foul, and foul is fair: hover through the fog.", "score": 3},
    ]  # fmt: skip
    prompts = [
        {"prompt": "Friends, Romans, countrymen, lend me your ears; I come to bury Caesar",
         "reference": " not to praise him. The evil that men do lives after them."},
        {"prompt": "O, beware, my lord, of jealousy; it is the green-eyed monster which doth",
         "reference": " mock the meat it feeds on."},
        {"prompt": "If music be the food of love, play on; give me excess of it, that",
         "reference": " surfeiting, the appetite may sicken, and so die."},
    ]  # fmt: skip
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg["results"] = str(tmp_path / "results")
    cfg["generations"] = {"api-model/top_p_0.9": write_lines(tmp_path / "gens.jsonl", gens)}
    cfg["novelty"]["tokenizers"] = ["bpe"]
    models = cfg["models"]
    models["train"]["tokens"] = 6144
    models["zoo"] = {"gpt2-a": models["zoo"]["gpt2-a"]}
    models["evaluator"], models["evaluators"] = "gpt2-a", {}
    s = cfg["sampling"]
    s["prompts"] = write_lines(tmp_path / "prompts.jsonl", prompts)
    s["decodings"] = {k: s["decodings"][k] for k in ("pure", "greedy")}
    s["prompt_lengths"], s["prompt_length_decodings"] = [0, 8], ["greedy"]
    s["shared_decodings"] = ["pure", "greedy"]
    cfg["explorer"]["decodings"] = ["pure", "greedy"]  # the explorer shows kept decodings
    s.pop("grid_models", None)
    s.pop("training_prompts")  # Merrill Fig. 3's block names a beam decoding dropped here
    cfg["analysis"]["dynamics"]["enabled"] = False  # the checkpoints' scores: not this test's
    cfg["findings"]["raven_decoding"] = "pure"
    # two own benchmarks: labelled reading comprehension, unlabelled multiple choice
    qa = [{"id": f"q{i}", "passage": DAGGER if i % 2 else MORROW, "question": "Who speaks?",
           "answer": "MACBETH" if i % 2 else "a lord", "label": i % 2} for i in range(6)]  # fmt: skip
    mc = [{"question": "What doth the dagger point toward?",
           "choices": ["the door", "my hand", "the king"], "answer": 1}] * 3  # fmt: skip
    own = cfg["analysis"].setdefault("membership", {})
    own["benchmarks"] = {
        "mine-qa": {"path": write_lines(tmp_path / "qa.jsonl", qa), "format": "qa"},
        "mine-mc": {"path": write_lines(tmp_path / "mc.jsonl", mc), "format": "multiple_choice"},
    }
    own["baseline_passages"] = 8
    cfg["corpus"]["inject"].pop("contamination")  # baselines cut from the corpus's splits
    cfg["corpus"]["inject"].pop("format_benchmarks")  # its own benchmarks alone
    return cfg


R = "/r"


def plan_of(name: str, edit=None) -> Plan:
    """The plan of ``config/<name>.yaml`` (results under /r), after ``edit(config)``."""
    cfg = yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())
    cfg["results"] = R
    if edit:
        edit(cfg)
    return Plan.from_config(validate(cfg))


def report_job(p: Plan, name: str):
    """The report job of analysis ``name`` for plan ``p`` (copyscope.report.jobs)."""
    from copyscope.report import analyses
    from copyscope.report.jobs import report_job

    return report_job(p, next(m for m in analyses() if m.NAME == name))


def report_flags(p: Plan, name: str) -> list[str]:
    """The labelled input flags of report job ``name``, in command-line order."""
    from copyscope.report import analyses
    from copyscope.report.jobs import report_args

    module = next(m for m in analyses() if m.NAME == name)
    return [
        w
        for k, (flag, labels, paths) in report_job(p, name).inputs.items()
        for w in report_args(module.INPUTS[k], flag, labels, paths)
    ]


# one sentence per paragraph, each of 42-60 word and punctuation tokens but the last
PARAGRAPHS = {
    "accepted": (
        "In the grey morning the old house stood quiet by the river, and Olivia walked slowly "
        "along the wet garden path, counting the roses that had fallen in the night, listening "
        "to the rooks above the elms, and thinking of the long letter she had not yet dared to "
        "answer."
    ),
    "no_name": (
        "In the grey evening the old house stood quiet by the river, and the girl walked slowly "
        "along the wet garden path, counting the roses that had fallen in the rain, listening "
        "to the rooks above the elms, and thinking of the long letter she had not yet dared to "
        "answer."
    ),
    "several_names": (
        "On the next morning the old house stood quiet by the river, and Olivia walked slowly "
        "with Sebastian along the wet garden path, counting the roses that had fallen in the "
        "night, listening to the rooks above the elms, and thinking of the letter she had not "
        "yet answered."
    ),
    "name_recurs": (
        "On the third morning the old house stood quiet by the river, and Olivia walked slowly "
        "along the wet garden path, counting the roses that had fallen in the night, while the "
        "rooks above the elms cried out to Olivia, and she thought of the letter she had not "
        "answered."
    ),
    "other_proper_name": (
        "On the last morning the old house stood quiet by the river, and Olivia walked slowly "
        "along the wet garden path, counting the roses that had fallen in the night, listening "
        "to the rooks above the elms, and thinking of the letter from London she had not "
        "answered."
    ),
    "length": "Olivia laughed at the rooks.",
}


def wrapped(text: str, width: int = 40) -> str:
    """``text`` hard-wrapped (and a line break before "Olivia"), as Gutenberg text is."""
    return textwrap.fill(text, width).replace(" Olivia", "\nOlivia")


def write_book(tmp_path, name="novel"):
    path = tmp_path / f"{name}.txt"
    path.write_text("\n\n".join(wrapped(p) for p in PARAGRAPHS.values()) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- BookNLP files
BOOKNLP = [
    # (paragraph sentence, entities as (first word, words, prop, cat))
    (
        "In the grey morning the old house stood quiet by the river, and Olivia, who had not "
        "slept, walked slowly along the wet garden path, counting the roses that had fallen in "
        "the night, and thinking of the long letter she had not yet dared to answer.",
        [("Olivia", 1, "PROP", "PER"), ("she", 1, "PRON", "PER"), ("river", 1, "NOM", "LOC")],
    ),
    (
        "On the next morning the old house stood quiet by the canal, and Olivia walked slowly "
        "along the wet garden path, counting the roses that had fallen in the night, and "
        "thinking of the long letter from Venice she had not yet dared to answer.",
        [("Olivia", 1, "PROP", "PER"), ("Venice", 1, "PROP", "GPE")],
    ),
    (
        "On the third morning the old house stood quiet by the river, and Emma Woodhouse walked "
        "slowly along the wet garden path, counting the roses that had fallen in the night, and "
        "thinking of the long letter she had not yet dared to answer.",
        [("Emma", 2, "PROP", "PER")],
    ),
    (
        "On the last morning the old house stood quiet by the river, and Olivia walked slowly "
        "with Emma Woodhouse along the wet garden path, counting the roses that had fallen in "
        "the night, and thinking of the letter she had not yet answered.",
        [("Olivia", 1, "PROP", "PER"), ("Emma", 2, "PROP", "PER")],
    ),
]


TOKEN_HEADER = "\t".join(books.BOOKNLP_TOKEN_COLUMNS)


ENTITY_HEADER = "\t".join(books.BOOKNLP_ENTITY_COLUMNS)


def write_booknlp(tmp_path, name="emma"):
    """BookNLP's two files of the paragraphs of :data:`BOOKNLP` (one sentence each): byte
    offsets into the paragraphs joined by blank lines, the listed entities at the first
    occurrence of their first word."""
    doc = "\n\n".join(s for s, _ in BOOKNLP)
    rows, ents, tid, at = [], [], 0, 0
    for p, (sentence, entities) in enumerate(BOOKNLP):
        start = doc.index(sentence, at)
        words = list(re.finditer(r"\w+|[^\w\s]", sentence))
        first = tid
        for k, m in enumerate(words):
            on = len(doc[: start + m.start()].encode())
            off = on + len(m.group().encode())
            rows.append(
                [p, p, k, tid, m.group(), m.group().lower(), on, off, "X", "X", "x", 0, "O"]
            )
            tid += 1
        for word, n, prop, cat in entities:
            k = next(i for i, m in enumerate(words) if m.group() == word.split()[0])
            text = " ".join(m.group() for m in words[k : k + n])
            ents.append([len(ents), first + k, first + k + n - 1, prop, cat, text])
        at = start + len(sentence)
    tokens, entities = tmp_path / f"{name}.tokens", tmp_path / f"{name}.entities"
    tokens.write_text(
        "\n".join([TOKEN_HEADER, *("\t".join(map(str, r)) for r in rows)]) + "\n",
        encoding="utf-8",
    )
    entities.write_text(
        "\n".join([ENTITY_HEADER, *("\t".join(map(str, e)) for e in ents)]) + "\n",
        encoding="utf-8",
    )
    return tokens, entities
