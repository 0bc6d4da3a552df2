"""Workflow hygiene: every rule logs and benchmarks, rules stay thin, captions exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _rules():
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        text = smk.read_text()
        for m in re.finditer(r"^(rule|checkpoint) (\w+):\n(.*?)(?=^\S|\Z)", text, re.M | re.S):
            yield smk.name, m.group(2), m.group(3)


def test_every_rule_has_log_and_benchmark():
    rules = list(_rules())
    assert len(rules) >= 15
    for smk, name, body in rules:
        assert "\n    log:\n" in body, f"{smk}: rule {name} has no log:"
        assert "\n    benchmark:\n" in body, f"{smk}: rule {name} has no benchmark:"


def test_rules_are_thin_and_call_the_package():
    for smk, name, body in _rules():
        assert "\n    run:\n" not in body, f"{smk}: rule {name} holds logic in run:"
        if "\n    shell:\n" in body:
            assert "python -m copyscope" in body, f"{smk}: rule {name} runs something else"


def test_report_captions_exist():
    for smk in (ROOT / "rules").glob("*.smk"):
        for caption in re.findall(r'caption="\.\./(report/[\w.]+)"', smk.read_text()):
            assert (ROOT / caption).exists(), caption
