"""pytest fixtures every test folder may use; the helpers they share are modules of
``support`` (``tests/support/``: models, corpora, configs, the index's brute-force
references, runs of the workflow, figures), split by what they serve."""

from __future__ import annotations

import numpy as np
import pytest

from support.workflow import snakemake


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """The tiny config run once per test session (its results folder)."""
    out = tmp_path_factory.mktemp("tiny") / "results"
    proc = snakemake(
        "--cores", "2", "--configfile", "config/tiny.yaml", "--config", f"results={out}"
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out
