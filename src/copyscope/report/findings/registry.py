"""The registry's order: importing the paper modules, in the order of :data:`PAPER_MODULES`,
registers every claim (:data:`copyscope.report.findings.core.CLAIMS`), each module's claims in
the order they are written there (a paper package, :mod:`~copyscope.report.findings.merrill`
or :mod:`~copyscope.report.findings.raven`, imports its modules in the order of its
``PARTS``). That order is the scorecard's rows, the calibration table's
and the numbering of findings.md (1, 2, … for the five papers' claims, R1, R2, … for the
related ones)."""

from __future__ import annotations

import importlib

from .core import CLAIMS

PAPER_MODULES = ("merrill", "raven", "shaib", "li", "literature", "related")
"""The paper modules of :mod:`copyscope.report.findings`, in registry order (imported here, in
this order: an import sorter cannot reorder them)."""
PAPERS = tuple(importlib.import_module(f"{__package__}.{m}") for m in PAPER_MODULES)


def claims_of(module) -> list[str]:
    """The ids of the claims a paper module (or a paper package's modules) registers, in
    registry order."""
    name = module.__name__
    return [
        c.id
        for c in CLAIMS.values()
        if c.decide.__module__ == name or c.decide.__module__.startswith(f"{name}.")
    ]
