import json
import os
import re
import shlex

from copyscope.plan import Plan, as_json, labelled as labelled_args, shell_words
from copyscope.report import analyses
from copyscope.report import jobs as report_jobs_of
from copyscope.report.cli import command_line
from copyscope.report.signature import config_digest

# the run plan (copyscope.plan): every decision the config makes, and the command lines of the
# model jobs, computed once; the rule files declare paths and ask it
PLAN = Plan.from_config(config)
R = PLAN.results
# the run's config digest, for the signature line of summary.md and findings.md
SIGNATURE = {"config_sha256": config_digest(config), "seed": config["models"]["seed"]}
# the index jobs (and the validation novelty that queries the index) run before any other
# ready job: they take seconds, but with two threads each one waits until both cores are free,
# and jobs that need an index (the analyses) waited behind them with a core idle (the word
# index of the default run waited from 23 s to 22 min into a 2-core run, a core idle ~70 s)
INDEX_PRIORITY = 10
# every command line sets OMP_NUM_THREADS and NUMBA_NUM_THREADS to the threads of its job (1
# where those threads are worker processes: the spaCy processes of a parse, the forked workers
# of a report job, copyscope.report.cli.ONE_THREAD): the parallel index kernels of Numba
# otherwise start a thread per core that spins between kernels, and on 2 cores it took the
# other core from the job beside it (the t4x256 probe: 52 s alone, 130 s beside one busy
# process, 78 s with one Numba thread; see "Thread pools" in the performance page)
# every job runs the package from this repository (venv, conda env or cluster node alike),
# with the Python that runs Snakemake first on its PATH when it has copyscope's libraries
# (JOB_PYTHON_DIR, Snakefile)
shell.prefix(
    (
        "export PATH=" + shlex.quote(JOB_PYTHON_DIR) + ":$PATH; "
        if JOB_PYTHON_DIR
        else ""
    )
    + "export PYTHONPATH="
    + os.path.join(workflow.basedir, "src")
    + ":${{PYTHONPATH:-}}; "
)


def _alternatives(names):
    return "|".join(re.escape(n) for n in names) or "^$"


wildcard_constraints:
    tok=_alternatives(PLAN.tokenizers),
    split="train|valid|natural|excerpts",
    shard=r"shard-\d+",
    qset=r"novelty/[^/]+|analysis/[^/]+/[^/]+/(?:tokens|words)",
    model=_alternatives(PLAN.models + ["human"] + PLAN.external_models),
    decoding=_alternatives(
        PLAN.decodings + PLAN.human_decodings + PLAN.external_decodings
    ),


def args(words):
    """A plan's argument list as one shell-quoted params string."""
    return shell_words(words)


def labelled(flag, labels, paths):
    """Labelled inputs as one params string, ``FLAG LABEL… PATH`` for each label and path
    (copyscope.plan.labelled)."""
    return shell_words(labelled_args(flag, labels, paths))


# ---------------------------------------------------------------- input functions (wildcards)
def corpus_inputs(wildcards):
    return PLAN.corpus_inputs()


def tokenizer_source(wildcards):
    return PLAN.tokenizer_source(wildcards.tok)


def model_input(wildcards):
    return {"model": PLAN.model_dir(wildcards.model)}


def sample_inputs(wildcards):
    return PLAN.sample_inputs(wildcards.model)


def analyzed(wildcards):
    """Whose sets an analyze job analyses: the model (analyze, analyze_shared) or ``human``
    (analyze_human, which has no model wildcard)."""
    return wildcards.get("model", "human")


def analyze_inputs(wildcards):
    return PLAN.analyze_inputs(analyzed(wildcards))


def index_tokenizer_input(wildcards):
    """The index's tokenizer of a model whose text the analyses encode again in it (none
    when the index is in the model's own tokens)."""
    return PLAN.retokenize_inputs(wildcards.model)


def probe_inputs(wildcards):
    return PLAN.probe_inputs(wildcards.model)


def explorer_inputs(wildcards):
    return PLAN.explorer_inputs()


# ---------------------------------------------------------------- index shards (checkpoint)
def shard_names(tok):
    """The shard names of index ``tok``: from its plan (a checkpoint); the joined index
    (``<tok>-joined``, RAVEN's stream) is one document, so one shard (``index build``).
    """
    if tok.endswith("-joined"):
        return ["shard-000"]
    if tok in PLAN.external_index:  # built elsewhere: the shards its index.json lists
        with open(os.path.join(PLAN.external_index[tok], "index.json")) as fh:
            return json.load(fh)["shards"]
    plan = checkpoints.index_plan.get(tok=tok).output[0]
    with open(plan) as fh:
        return [s["name"] for s in json.load(fh)["shards"]]


def shard_dir(tok, shard):
    """The directory of shard ``shard`` of index ``tok``: under results/, or in the index
    built elsewhere (``tokenizers.<tok>.index``)."""
    if tok in PLAN.external_index:
        return os.path.join(PLAN.external_index[tok], shard)
    return f"{R}/index/{tok}/{shard}"


def index_shards(wildcards):
    return [f"{R}/index/{wildcards.tok}/{n}" for n in shard_names(wildcards.tok)]


# ---------------------------------------------------------------- per-shard query fan-out
# index.query_fanout: a query set {R}/fanout/<qset>/queries.npz is answered by one job per
# shard of its index (<qset>/<shard>.npz) and one merge job (<qset>/matches.npz).
def fanout_parts(wildcards):
    names = shard_names(PLAN.fanout_index(wildcards.qset))
    return [f"{R}/fanout/{wildcards.qset}/{n}.npz" for n in names]


def fanout_matches(**qsets):
    """Input function: with fan-out, name → the merged matches of query set ``qset``."""

    def inputs(wildcards):
        if not PLAN.fanout:
            return {}
        return {
            k: f"{R}/fanout/{q.format(**wildcards)}/matches.npz"
            for k, q in qsets.items()
        }

    return inputs


def fanout_flags(**flags):
    """params: ``--flag <input.name>`` for each flag → input name, with fan-out only
    (copyscope.plan: Plan.fanout_args)."""

    def flag_line(wildcards, input):
        if not PLAN.fanout:
            return ""
        return args(PLAN.fanout_args({f: input[k] for f, k in flags.items()}))

    return flag_line


# ---------------------------------------------------------------- cluster resources
# Memory (MB) and runtime (minutes) follow from the data, so a SLURM profile can request
# what a job needs. Measured on 2 cores: suffix sorting peaks near 12 bytes per token byte.
def _mb(path):
    return os.path.getsize(path) / 2**20 if os.path.exists(path) else 0.0


def shard_mem_mb(wildcards, input):
    shard = min(_mb(input.tokens), config["index"]["shard_tokens"] * 4 / 2**20)
    return int(1000 + 12 * shard)


def shard_runtime(wildcards, input):
    return int(10 + _mb(input.tokens) / 20)


def _dir_mb(directory):
    return sum(
        _mb(os.path.join(root, f))
        for root, _, files in os.walk(directory)
        for f in files
    )


def index_query_mem_mb(wildcards, input):
    """A query job maps the whole index; with fan-out its shards are read by shard jobs."""
    if PLAN.fanout:
        return 1500
    return int(1500 + 1.2 * _dir_mb(os.path.dirname(input.index)))


def shard_query_mem_mb(wildcards, input):
    """A fan-out job maps one shard."""
    return int(
        1500
        + 1.2 * _dir_mb(os.path.join(os.path.dirname(input.index), wildcards.shard))
    )


def train_runtime(wildcards):
    # 1,000 tokens/s is a conservative CPU rate for the default models
    return int(15 + PLAN.model_spec(wildcards.model)["train"]["tokens"] / 1000 / 60)


# the GPU (sbatch --gres, and its partition) of every job that loads a model: cluster.gpu, or
# gpu:1 with models.device: cuda alone (Plan.model_job_resources); the index jobs ask for none
MODEL_JOB_RESOURCES = PLAN.model_job_resources()


# ---------------------------------------------------------------- outputs of the workflow
EXPLORER_PAGE = f"{R}/explorer/index.html"


def report_outputs():
    """Every output of the report rules (rules named ``report_*``, one per analysis)."""
    return [f for r in workflow.rules if r.name.startswith("report_") for f in r.output]


def all_outputs():
    """The workflow's final targets: the figures, tables, report files, explorer and summary,
    and the intermediate files the plan keeps (Plan.kept_files: rebuilt when missing).
    """
    return [
        f"{R}/figures/novelty_valid.png",
        f"{R}/figures/nnsl_hist_valid.png",
        f"{R}/tables/novelty_valid.csv",
        f"{R}/tables/nnsl_valid.csv",
        *report_outputs(),
        EXPLORER_PAGE,
        f"{R}/summary.md",
        f"{R}/tables/runtime.csv",
        *PLAN.kept_files(),
    ]


def upstream_outputs(wildcards):
    """Every output of the run but the runtime table: the runtime job reads every other job's
    benchmark file, so it waits for all of them."""
    runtime = f"{R}/tables/runtime.csv"
    return [f for f in all_outputs() if f != runtime]


# ---------------------------------------------------------------- report jobs (rules/report.smk)
# the analysis modules of copyscope.report by command name: each declares its command's inputs
# (plan queries), outputs (paths, captions) and parameters, from which its report job and rule
# are generated (copyscope.report.jobs)
REPORT_MODULES = {m.NAME: m for m in analyses()}
REPORT_JOBS = report_jobs_of.report_jobs(PLAN, REPORT_MODULES.values())


def report_file(path, caption, category):
    """A report job's output: in the HTML report under its caption, or plain (caption None)."""
    if caption is None:
        return path
    return report(path, caption=f"../report/{caption}.rst", category=category)


def report_command(job):
    """params: the command line of report job ``job`` (copyscope.report.cli.command_line): its
    module's declaration filled with the job's input and output paths as Snakemake gives them
    (each input's labelled flags: copyscope.report.jobs.report_args), its --params-json block,
    threads and the run's models (--run-models: the figures' model colours).
    """
    analysis = REPORT_MODULES[job.name]
    params = None if job.params is None else as_json(job.params)

    def command(wildcards, input, output, threads):
        flags = {
            k: report_jobs_of.report_args(analysis.INPUTS[k], flag, labels, input[k])
            for k, (flag, labels, _) in job.inputs.items()
        }
        return command_line(analysis, flags, output, params, threads, job.models)

    return command
