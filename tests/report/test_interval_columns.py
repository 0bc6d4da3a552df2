"""The interval-column convention of the written tables: ``<quantity>_lo`` / ``<quantity>_hi``
(tests/support/tables.py; the tiny run's tables are checked in tests/workflow/test_workflow.py)."""

from __future__ import annotations

import pytest

from support.tables import declared_headers, interval_problems
from support.workflow import ROOT


def test_a_conforming_header_has_no_problem():
    cols = ["model", "n", "novelty", "novelty_lo", "novelty_hi", "auc", "auc_lo", "auc_hi"]
    assert interval_problems(cols) == []
    assert interval_problems(["lower_bound", "hits", "rate_lo", "rate_hi", "rate"]) == []


@pytest.mark.parametrize(
    ("cols", "bad"),
    [
        (["rate", "lo", "hi"], ["lo", "hi"]),
        (["loss", "ci_low", "ci_high"], ["ci_low", "ci_high"]),
        (["x", "x_ci_low", "x_ci_high"], ["x_ci_low", "x_ci_high"]),
        (["delta_auc_vs_loss", "delta_auc_lo", "delta_auc_hi"], ["delta_auc_lo", "delta_auc_hi"]),
        (["rate", "rate_lo"], ["rate_lo"]),  # no partner
        (["power_lo", "power_hi"], ["power_lo", "power_hi"]),  # no quantity
    ],
)
def test_each_broken_column_is_named(cols, bad):
    lines = interval_problems(cols)
    assert [line.split(":")[0] for line in lines] == bad


def test_the_declared_headers_follow_the_convention():
    headers = declared_headers(ROOT / "src" / "copyscope")
    # the scan finds the declarations (a scan that finds nothing cannot fail)
    assert "report/contamination.py:RATE_COLUMNS" in headers
    assert "report/membership.py:EMPTY[nll_delta]" in headers
    assert len(headers) >= 20
    bad = {k: p for k, cols in headers.items() if (p := interval_problems(cols))}
    assert bad == {}
