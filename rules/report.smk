# Report: one rule per analysis command of copyscope.report (report_<name>), generated from the
# analysis module's one declaration (NAME, INPUTS as plan queries, OUTPUTS with paths and
# captions, PARAMS; copyscope.report.jobs.report_jobs: the files it reads and writes in its
# command line's order, captions, its --params-json block). The command line is copyscope.report.cli.command_line's, from the job's
# input and output paths as Snakemake gives them; it is a param, as a loop's shell: text is
# evaluated again when the job runs (with the loop's last values). Then, by hand (not analysis
# commands): summary.md from the tables the summary sections declare, and the runtime table
# after every other job.
from copyscope.report.summary import tables as summary_tables

for job in REPORT_JOBS:

    rule:
        name:
            job.rule
        input:
            **{k: paths for k, (_, _, paths) in job.inputs.items()},
        output:
            **{k: report_file(*spec) for k, spec in job.outputs.items()},
        log:
            f"{R}/logs/{job.rule}.log",
        benchmark:
            f"{R}/benchmarks/{job.rule}.tsv"
        conda:
            "../envs/novelty.yaml"
        threads: job.threads
        params:
            command=report_command(job),
            # the --params-json block again, as a plain value: Snakemake re-runs a job whose
            # plain params changed, but not one whose params are derived from its inputs and
            # outputs, as the command line is (a changed findings.alpha would leave the scorecard
            # stale)
            config=as_json(job.params) if job.params is not None else "",
        shell:
            "{params.command} > {log} 2>&1"


# summary.md: the tables the summary sections read (copyscope.report.summary.tables: the
# SUMMARY_TABLES of each module), by name, and the trained models' logs
SUMMARY_TABLES = summary_tables()


rule summary:
    input:
        tables=[report_jobs_of.table_path(PLAN, t) for t in SUMMARY_TABLES],
        training=PLAN.model_files("tables/training/{model}.csv", PLAN.trained),
        index=f"{R}/index/{PLAN.model_tok}/index.json",
    output:
        report(
            f"{R}/summary.md",
            caption="../report/summary.rst",
            category=report_jobs_of.category_title("summary"),
        ),
    log:
        f"{R}/logs/summary.log",
    benchmark:
        f"{R}/benchmarks/summary.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        tables=lambda w, input: labelled("--table", SUMMARY_TABLES, input.tables),
        logs=lambda w, input: labelled("--training-log", PLAN.trained, input.training),
        config=as_json(
            PLAN.with_language(
                {
                    "sampling": config["sampling"],
                    "analysis": config["analysis"],
                    "models": {
                        "tokenizer": PLAN.model_tok,
                        "evaluator": config["models"]["evaluator"],
                    },
                    "signature": SIGNATURE,
                }
            )
        ),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope report summary {params.tables} {params.logs} "
        "--index-manifest {input.index} --params-json {params.config:q} "
        "--out {output} > {log} 2>&1"


rule runtime:
    input:
        upstream_outputs,
    output:
        report(
            f"{R}/tables/runtime.csv",
            caption="../report/runtime.rst",
            category=report_jobs_of.category_title("models"),
        ),
    log:
        f"{R}/logs/runtime.log",
    benchmark:
        f"{R}/benchmarks/runtime.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        benchmarks=f"{R}/benchmarks",
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope report runtime --benchmarks {params.benchmarks} "
        "--out {output} > {log} 2>&1"
