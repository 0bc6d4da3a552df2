# copyscope: how much of what language models write is copied from their training data.
# Run:  snakemake --cores all            (embedded default: Shakespeare's plays)
#       snakemake --cores 2 --configfile config/tiny.yaml


import importlib.util
import os
import sys

from snakemake.utils import min_version

min_version("9.0")

# the workflow's own package (config validation), whatever environment snakemake runs in
sys.path.insert(0, os.path.join(workflow.basedir, "src"))
from copyscope.config import (
    ConfigError,
    ConfigErrors,
    check_paths,
    load_files,
    located_in_files,
    typed_overrides,
    validate as validate_config,
)
from copyscope.errors import InputError
from snakemake.utils import update_config

# the config files read again, strictly (copyscope.config.load_files, as `copyscope config
# check` reads them): a key written twice in a mapping, which Snakemake's own loader keeps
# silently (the last one wins), and a byte that is not UTF-8 in the embedded default are one
# line FILE:LINE each. (A --configfile that is not UTF-8 stops Snakemake's loader before this
# file is read: `copyscope config check FILE`, which `make run` runs first, names the line.)
CONFIG_FILES = workflow.overwrite_configfiles or ["config/config.yaml"]
try:
    load_files(CONFIG_FILES)
except InputError as exc:
    sys.exit(f"copyscope: config error:\n{exc}")

# jobs run `python -m copyscope …`: when the Python running Snakemake has copyscope's
# libraries (`.venv/bin/snakemake` run without activating the venv), its folder comes first
# on the jobs' PATH (rules/common.smk's shell prefix; a --sdm conda environment is still
# activated on top of it)
JOB_PYTHON_DIR = (
    os.path.dirname(sys.executable)
    if all(importlib.util.find_spec(m) for m in ("pandas", "torch"))
    else None
)

# the embedded default, unless config files are given on the command line (they replace it)
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


# the one validation of the config (src/copyscope/schema.yaml + cross-key checks), defaults
# filled in, and its input paths (corpus, local tokenizers, pretrained models), before any job runs
try:
    # --config index='{shard_tokens: 100}': Snakemake keeps the 100 a string; typed as in a file
    update_config(config, typed_overrides(workflow.config_settings.config))
    config.update(validate_config(config))
    # and every own-data file read completely (generations, prompts, benchmarks, books), once
    # by the main process (not again in each cluster job)
    # (own material in another language than corpus.language: a warning naming the file)
    own_warnings = []
    check_paths(config, read_own=not workflow.remote_exec, warnings=own_warnings)
    for line in own_warnings:
        print(f"copyscope: warning: {line}", file=sys.stderr)
except ConfigErrors as exc:
    # each problem at the line of its key, as `copyscope config check` prints it
    overridden = set(workflow.config_settings.config)  # --config keys are in no file
    sys.exit(
        f"copyscope: config error:\n{located_in_files(exc, CONFIG_FILES, overridden)}"
    )
except ConfigError as exc:
    sys.exit(f"copyscope: config error:\n{exc}")


report: "report/workflow.rst"


include: "rules/common.smk"
include: "rules/corpus.smk"
include: "rules/tokenize.smk"
include: "rules/index.smk"
include: "rules/novelty.smk"
include: "rules/models.smk"
include: "rules/sample.smk"
include: "rules/analyze.smk"
include: "rules/syntax.smk"
include: "rules/membership.smk"
include: "rules/probe.smk"
include: "rules/dynamics.smk"
include: "rules/report.smk"
include: "rules/explore.smk"


# one run per results folder (copyscope.runlock): the lock is taken here, by the main process
# of a real run only (not --dry-run, --lint, --report, --unlock, nor cluster jobs: --no-hooks),
# and held until it ends; where each job's progress is, and one line per long job at the end
onstart:
    from copyscope.runlock import RunLockError, hold_results_lock

    try:
        hold_results_lock(R)
    except RunLockError as exc:
        sys.exit(f"copyscope: error: {exc}")
    print(
        f"copyscope: each job writes its progress to its log: tail -f {R}/logs/<rule>/...",
        file=sys.stderr,
    )


onsuccess:
    from copyscope.runlog import success_summary

    print(success_summary(log), file=sys.stderr)


# a failed job's own error (in its log under results/logs/) on the terminal, with the log's path
onerror:
    from copyscope.runlog import failure_summary

    print(failure_summary(log), file=sys.stderr)


# tiny bookkeeping jobs run on the submitting machine, not as cluster jobs
localrules:
    all,
    index_plan,
    index,
    runtime,


rule all:
    default_target: True
    input:
        all_outputs(),
