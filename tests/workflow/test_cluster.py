"""What the jobs ask a cluster for: every job that loads a model asks for the GPU of
``cluster.gpu`` (sbatch --gres, and its partition), the index, tokenize, novelty and report
jobs never do; read from a dry run of the tiny configuration (the resources each planned job
would be submitted with) and from the SLURM executor plugin's own sbatch arguments."""

from __future__ import annotations

import re

import pytest
import yaml

from support.configs import plan_of
from support.workflow import ROOT, snakemake

# the rules whose jobs load a model (training, sampling, scoring, probes, membership)
MODEL_RULES = {
    "train_model",
    "sample",
    "sample_shared",
    "sample_training_prompts",
    "analyze",
    "analyze_shared",
    "analyze_human",
    "probe",
    "membership_books",
    "membership_benchmark",
    "dynamics",
}


def planned_resources(text: str) -> dict[str, list[dict[str, str]]]:
    """rule → the resources of each of its jobs, from a dry run's output."""
    out: dict[str, list[dict[str, str]]] = {}
    for block in re.split(r"\n(?=(?:local)?rule \w+:\n)", text):
        head = re.match(r"(?:local)?rule (\w+):\n", block)
        if not head:
            continue
        found = re.search(r"^\s+resources: (.*)$", block, re.M)
        pairs = found.group(1).split(", ") if found else []
        out.setdefault(head.group(1), []).append(dict(p.split("=", 1) for p in pairs if "=" in p))
    return out


@pytest.mark.e2e
def test_model_jobs_ask_for_the_gpu_and_index_jobs_do_not(tmp_path):
    cfg = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
    cfg["results"] = str(tmp_path / "results")
    cfg["cluster"] = {"gpu": {"gres": "gpu:a100:1", "partition": "gpu"}}
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake("-n", "--configfile", str(path), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    jobs = planned_resources(proc.stdout)
    models = {r for r in jobs if r in MODEL_RULES}
    assert {"train_model", "sample", "analyze", "analyze_human", "probe"} <= models
    assert any(r.startswith("index") for r in jobs) and "novelty_valid" in jobs
    for rule, each in jobs.items():
        for res in each:
            if rule in MODEL_RULES:
                assert res.get("gres") == "gpu:a100:1", (rule, res)
                assert res.get("slurm_partition") == "gpu", (rule, res)
            else:
                assert "gres" not in res and "slurm_partition" not in res, (rule, res)


def test_the_model_job_resources_of_a_config():
    assert plan_of("tiny").model_job_resources() == {}  # no GPU asked for

    def cuda(cfg):
        cfg["models"]["device"] = "cuda"

    assert plan_of("tiny", cuda).model_job_resources() == {"gres": "gpu:1"}

    def gres_only(cfg):
        cfg["cluster"] = {"gpu": {}}

    assert plan_of("tiny", gres_only).model_job_resources() == {"gres": "gpu:1"}


@pytest.mark.parametrize(
    "gpu, want",
    [
        ({}, " --gres=gpu:1"),
        ({"gres": "gpu:a100:2", "partition": "gpu"}, " --gres=gpu:a100:2"),
    ],
)
def test_the_slurm_plugin_submits_the_gres(gpu, want):
    """The resources become sbatch's --gres by the plugin's own code (never slurm_extra,
    where the plugin refuses --gres); the partition is its -p."""
    plugin = pytest.importorskip("snakemake_executor_plugin_slurm")
    from snakemake_executor_plugin_slurm.utils import set_gres_string
    from snakemake_executor_plugin_slurm.validation import validate_slurm_extra

    def edit(cfg):
        cfg["cluster"] = {"gpu": gpu}

    resources = plan_of("tiny", edit).model_job_resources()

    class Resources(dict):
        __getattr__ = dict.get

    class Job:
        pass

    job = Job()
    job.resources = Resources(resources)
    assert set_gres_string(job) == want
    validate_slurm_extra(job)  # nothing in slurm_extra
    assert job.resources.get("slurm_partition") == gpu.get("partition")
    assert plugin is not None
