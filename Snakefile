# copyscope: how much of what language models write is copied from their training data.
# Run:  snakemake --cores all            (embedded default: Shakespeare's plays)
#       snakemake --cores 2 --configfile config/tiny.yaml


import os
import sys

from snakemake.utils import min_version

min_version("9.0")

# the workflow's own package (config validation), whatever environment snakemake runs in
sys.path.insert(0, os.path.join(workflow.basedir, "src"))
from copyscope.config import ConfigError, validate as validate_config

# the embedded default, unless config files are given on the command line (they replace it)
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


# the one validation of the config (config/schema.yaml + cross-key checks), defaults filled in
try:
    config.update(validate_config(config))
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
include: "rules/memorize.smk"
include: "rules/membership.smk"
include: "rules/report.smk"


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
