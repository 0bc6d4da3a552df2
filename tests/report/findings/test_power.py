"""Power on known positives (copyscope.report.power): the power table over every claim's
known positives, the size for power, the figure."""

from __future__ import annotations

import numpy as np
import pandas as pd

from copyscope.report import findings as F
from copyscope.report import power as P
from support.findings import (
    POWER_PARAMS,
    cloze_items,
    corpus,
    data,
    human_tokens_with_ids,
    ladder_results,
)


def test_the_power_table_and_the_size_for_power(tmp_path):
    rng = np.random.default_rng(0)
    _, index = corpus(tmp_path, rng)
    d = data(tokens=human_tokens_with_ids(rng), extraction=ladder_results())
    table = P.power_table(d, index, POWER_PARAMS)
    assert list(table.columns) == P.COLUMNS
    # every resample seeded by itself: two forked workers draw the same table
    pd.testing.assert_frame_equal(P.power_table(d, index, POWER_PARAMS, processes=2), table)
    assert not P.STATE  # the workers' state is cleared after the table
    assert set(table["positive"]) == {
        "copier 10%", "copier 50%", "copier 10% vs 50%", "planted ladder",
        "clean text vs copier 10%", "copier 10% pure vs 50% greedy", "copier 50% as greedy",
    }  # fmt: skip
    assert sorted(set(table.loc[table["positive"] == "planted ladder", "size"])) == [5, 10, 20]
    assert set(table.loc[table["positive"] == "planted ladder", "observed"]) == {20}
    assert ((table["power"] >= 0) & (table["power"] <= 1)).all()
    sizes = P.size_for_power(pd.DataFrame(
        [("c", "p", 5, 0.5), ("c", "p", 10, 0.85), ("c", "p", 20, 0.9), ("d", "q", 5, 0.1)],
        columns=["claim", "positive", "size", "power"]))  # fmt: skip
    assert sizes["size_for_power"].iloc[0] == 10 and np.isnan(sizes["size_for_power"].iloc[1])
    P.fig.power(P.power_summary(table, 0.8), 0.8, tmp_path / "power.png")
    import matplotlib.image

    img = matplotlib.image.imread(tmp_path / "power.png")
    assert img[..., :3].std() > 0.05  # drawn, not blank


def test_the_power_summary_reads_each_positive_at_the_run_s_own_size():
    """Hand-worked: c/p drawn at 5, 10 (the run's own) and 20 reaches 0.8 first at 20
    (projected); d/q (no observed column value: its largest size) never does."""
    table = pd.DataFrame(
        [("c", "p", 5, 10, 0.5, 0.3, 0.7), ("c", "p", 10, 10, 0.6, 0.4, 0.8),
         ("c", "p", 20, 10, 0.9, 0.8, 0.95), ("d", "q", 4, np.nan, 0.1, 0.0, 0.3),
         ("d", "q", 8, np.nan, 0.2, 0.1, 0.4)],
        columns=["claim", "positive", "size", "observed", "power", "power_lo", "power_hi"],
    )  # fmt: skip
    s = P.power_summary(table, 0.8)
    assert list(s.columns) == P.SUMMARY_COLUMNS
    assert s[["claim", "size", "power", "power_lo", "largest", "projected"]].values.tolist() == [
        ["c", 10, 0.6, 0.4, 20, True], ["d", 8, 0.2, 0.1, 8, False]]  # fmt: skip
    assert s["size_for_power"].iloc[0] == 20 and np.isnan(s["size_for_power"].iloc[1])
    assert P.power_summary(table, 0.5)["projected"].tolist() == [False, False]


def test_the_positives_come_from_the_claims_in_the_tables_order():
    """Every claim's own positives (Claim.positives), listed in P.TABLE_ORDER (not registry
    order: the excerpt plays before the training plays), one per positive this run has data
    for (no copier without an index, no templater without parsed text)."""
    d = data(extraction=ladder_results(), cloze=cloze_items())
    found = P.positives(d, None, POWER_PARAMS)
    assert [(c, p.name) for c, p in found] == [
        ("extraction-duplication", "planted ladder"),
        ("cloze-excerpts", "planted excerpt plays (highest copies)"),
        ("cloze-training-plays", "training plays"),
        ("cloze-excerpt-copies", "training plays as the most-copied plays"),
        ("cloze-overlap-correlation", "planted agreement (r = 0.77)"),
    ]
    assert all(p.right == F.HOLDS and p.observed in p.sizes for _, p in found)
    assert list(F.CLAIMS).index("cloze-training-plays") < list(F.CLAIMS).index("cloze-excerpts")


def test_the_power_job_reads_what_the_positives_are_built_from():
    """The planted tradeoff needs the human reference's judged NLLs (Data.quality): without
    the quality input the job never builds it and row "novelty-quality" reads "no known
    positive in this run"; every input of the calibration that a positive reads is one of
    the power job's."""
    from copyscope.report import calibration as C

    assert {"tokens", "words", "quality", "index_manifest", "cloze", "dynamics"} <= set(P.INPUTS)
    assert all(P.INPUTS[k] is C.INPUTS[k] for k in P.INPUTS)


def test_the_power_jobs_params_hold_every_block_the_calibrations_nulls_read():
    """The positives are built from the nulls' tables (the style measures deranged, the
    syntax counts of the human parses): the power job's --params-json block holds the
    calibration's syntax, style and other analysis blocks, so no positive reads a missing key."""
    from copyscope.report import calibration as C
    from support.configs import plan_of

    for config in ("config", "tiny"):
        plan = plan_of(config)
        power, cal = P.PARAMS.of(plan), C.PARAMS.of(plan)
        assert power["syntax"] == cal["syntax"]
        assert power["analysis"] == cal["analysis"]
        for block in ("findings", "novelty", "sampling", "timing"):
            assert power[block] == cal[block]


def test_the_power_job_loads_its_data_with_its_params(monkeypatch, tmp_path):
    """The syntax positive counts the human parses against the training parses only when
    the data is loaded with the job's params (``Data.syntax_files``): without them the row
    had no positive in a real run."""
    seen = {}

    def load(inputs, params=None):
        seen["params"] = params
        return "data"

    def table(data, index, params, processes):
        seen["data"] = data
        return pd.DataFrame(columns=P.COLUMNS)

    monkeypatch.setattr(P, "load", load)
    monkeypatch.setattr(P, "power_table", table)
    monkeypatch.setattr(P.fig, "power", lambda *a: None)
    params = {"findings": {"power": {"target": 0.8}}, "syntax": {"backend": "spacy"}}
    P.run({}, {"csv": tmp_path / "p.csv", "fig": tmp_path / "p.png"}, params)
    assert seen == {"params": params, "data": "data"}
