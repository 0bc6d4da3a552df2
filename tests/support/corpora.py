"""Synthetic corpora (play-like documents of random words) and their corpus settings, with a
ladder."""

from __future__ import annotations

import json

import numpy as np

WORDS = [f"w{i}" for i in range(400)] + ["'tis", "O,", "--", "lord!", "thee;", "(aside)"]


def synthetic_corpus(path, n_docs: int = 6, n_lines: int = 240, seed: int = 3) -> None:
    """``n_docs`` play-like documents (speaker lines, blank lines, indented verse with
    punctuation) of random words, as a jsonl source."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as fh:
        for d in range(n_docs):
            lines = []
            for i in range(n_lines):
                if i % 7 == 0:
                    lines += ["", f"SPEAKER{int(rng.integers(5))}:"]
                indent = "  " if i % 5 == 0 else ""
                lines.append(indent + " ".join(rng.choice(WORDS, size=int(rng.integers(3, 9)))))
            fh.write(json.dumps({"id": f"doc{d}", "text": "\n".join(lines) + "\n"}) + "\n")


LADDER = {"copies": [1, 3, 9], "per_rung": 2, "controls": 3, "words": 16, "seed": 1}


CORPUS = {
    "source": "jsonl",
    "text_field": "text",
    "id_field": "id",
    "split": {"valid_ids": ["doc4", "doc5"]},
    "inject": {
        "duplicates": [{"k": 2, "m": 2, "words": 12, "seed": 0}],
        "ladder": LADDER,
    },
}
