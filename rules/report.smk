rule summarize:
    input:
        tokens=analysis_files("tokens.parquet"),
        words=analysis_files("words.parquet"),
        quality=analysis_files("quality.csv"),
        supercopies=analysis_files("supercopies.csv"),
        planted=analysis_files("planted.csv"),
        completion=expand(
            f"{R}/analysis/{{model}}/completion_loss.parquet",
            model=COMPLETION_MODELS,
        ),
        training=expand(f"{R}/tables/training/{{model}}.csv", model=TRAINED),
        index=f"{R}/index/{MODEL_TOK}/index.json",
        valid=f"{R}/tables/novelty_valid.csv",
    output:
        fig_models=report(
            f"{R}/figures/novelty_by_model.png",
            caption="../report/novelty_by_model.rst",
            category="n-gram novelty",
        ),
        fig_loss=report(
            f"{R}/figures/completion_loss.png",
            caption="../report/completion_loss.rst",
            category="n-gram novelty",
        ),
        fig_decoding=report(
            f"{R}/figures/novelty_by_decoding.png",
            caption="../report/novelty_by_decoding.rst",
            category="n-gram novelty",
        ),
        fig_prompt=report(
            f"{R}/figures/novelty_by_prompt_length.png",
            caption="../report/novelty_by_prompt_length.rst",
            category="n-gram novelty",
        ),
        fig_raven=report(
            f"{R}/figures/raven_novelty.png",
            caption="../report/raven_novelty.rst",
            category="RAVEN",
        ),
        fig_quality=report(
            f"{R}/figures/novelty_quality.png",
            caption="../report/novelty_quality.rst",
            category="RAVEN",
        ),
        fig_planted=report(
            f"{R}/figures/planted.png",
            caption="../report/planted.rst",
            category="planted ground truth",
        ),
        fig_training=report(
            f"{R}/figures/training.png",
            caption="../report/training.rst",
            category="models",
        ),
        novelty=report(
            f"{R}/tables/novelty_samples.csv",
            caption="../report/novelty_samples.rst",
            category="n-gram novelty",
        ),
        nnsl=report(
            f"{R}/tables/nnsl_samples.csv",
            caption="../report/nnsl_samples.rst",
            category="n-gram novelty",
        ),
        loss=f"{R}/tables/completion_loss.csv",
        raven=report(
            f"{R}/tables/raven_summary.csv",
            caption="../report/raven_summary.rst",
            category="RAVEN",
        ),
        raven_curves=f"{R}/tables/raven_novelty.csv",
        supercopies=report(
            f"{R}/tables/supercopies.csv",
            caption="../report/supercopies.rst",
            category="RAVEN",
        ),
        planted=report(
            f"{R}/tables/planted.csv",
            caption="../report/planted_table.rst",
            category="planted ground truth",
        ),
        summary=report(
            f"{R}/summary.md", caption="../report/summary.rst", category="summary"
        ),
    log:
        f"{R}/logs/summarize.log",
    benchmark:
        f"{R}/benchmarks/summarize.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        config=as_json(
            {
                "models": config["models"],
                "sampling": config["sampling"],
                "analysis": config["analysis"],
                "novelty": config["novelty"],
                "settings": settings(),
                "results": R,
                "model_tokenizers": {
                    m: model_tokenizer(m) for m in MODELS + ["human"]
                },
                "completion_models": COMPLETION_MODELS,
                "trained": TRAINED,
            }
        ),
    shell:
        "python -m copyscope report summarize --params-json {params.config:q} "
        "--index {input.index} > {log} 2>&1"


rule runtime:
    input:
        rules.summarize.output.summary,
    output:
        report(
            f"{R}/tables/runtime.csv",
            caption="../report/runtime.rst",
            category="runtime",
        ),
    log:
        f"{R}/logs/runtime.log",
    benchmark:
        f"{R}/benchmarks/runtime.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        folder=lambda w, input: os.path.join(os.path.dirname(input[0]), "benchmarks"),
    shell:
        "python -m copyscope report runtime --benchmarks {params.folder} "
        "--out {output} > {log} 2>&1"
