# copyscope: how much of what language models write is copied from their training data.
# Run:  snakemake --cores all            (embedded default: Shakespeare's plays)
#       snakemake --cores 2 --configfile config/tiny.yaml


from snakemake.utils import min_version, validate

min_version("9.0")


# the embedded default, unless config files are given on the command line (they replace it)
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


validate(config, "config/schema.yaml")


report: "report/workflow.rst"


include: "rules/common.smk"
include: "rules/corpus.smk"
include: "rules/tokenize.smk"
include: "rules/index.smk"
include: "rules/novelty.smk"
include: "rules/models.smk"
include: "rules/sample.smk"
include: "rules/analyze.smk"
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
