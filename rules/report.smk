# Report: one rule per analysis (named report_<analysis>, one module of copyscope.report each),
# reading the per-setting files it needs and writing its own tables and figures; then
# summary.md from the declared tables only, and the runtime table after every other job.
# Labelled inputs go on the command line as "--flag MODEL [DECODING] PATH" (see labelled()).


rule report_novelty:
    input:
        tokens=PLAN.analysis_files("tokens.parquet"),
        indexes=[PLAN.index_file(PLAN.model_tokenizer(m)) for m in PLAN.index_models()],
        natural=[
            PLAN.index_file(PLAN.natural_index(PLAN.model_tokenizer(m)))
            for m in PLAN.index_models()
        ],
    output:
        curves=report(
            f"{R}/tables/novelty_samples.csv",
            caption="../report/novelty_samples.rst",
            category="n-gram novelty",
        ),
        nnsl=report(
            f"{R}/tables/nnsl_samples.csv",
            caption="../report/nnsl_samples.rst",
            category="n-gram novelty",
        ),
        fig_models=report(
            f"{R}/figures/novelty_by_model.png",
            caption="../report/novelty_by_model.rst",
            category="n-gram novelty",
        ),
        fig_decoding=report(
            f"{R}/figures/novelty_by_decoding.png",
            caption="../report/novelty_by_decoding.rst",
            category="n-gram novelty",
        ),
        fig_prompt_length=report(
            f"{R}/figures/novelty_by_prompt_length.png",
            caption="../report/novelty_by_prompt_length.rst",
            category="n-gram novelty",
        ),
    log:
        f"{R}/logs/report_novelty.log",
    benchmark:
        f"{R}/benchmarks/report_novelty.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        tokens=lambda w, input: labelled("--tokens", PLAN.settings(), input.tokens),
        indexes=lambda w, input: labelled(
            "--index-manifest", PLAN.index_models(), input.indexes
        ),
        natural=lambda w, input: labelled(
            "--natural-index-manifest",
            PLAN.index_models(),
            input.natural,
        ),
        config=as_json(
            {
                "novelty": config["novelty"],
                "sampling": config["sampling"],
                "models": {"evaluator": config["models"]["evaluator"]},
            }
        ),
    shell:
        "python -m copyscope report novelty {params.tokens} {params.indexes} {params.natural} "
        "--params-json {params.config:q} --out-curves {output.curves} "
        "--out-nnsl {output.nnsl} --out-fig-models {output.fig_models} "
        "--out-fig-decoding {output.fig_decoding} "
        "--out-fig-prompt-length {output.fig_prompt_length} > {log} 2>&1"


rule report_completion_loss:
    input:
        PLAN.completion_outputs(),
    output:
        table=f"{R}/tables/completion_loss.csv",
        fig=report(
            f"{R}/figures/completion_loss.png",
            caption="../report/completion_loss.rst",
            category="n-gram novelty",
        ),
        frequency=f"{R}/tables/completion_loss_frequency.csv",
        fig_frequency=report(
            f"{R}/figures/completion_loss_frequency.png",
            caption="../report/completion_loss_frequency.rst",
            category="n-gram novelty",
        ),
        slope=report(
            f"{R}/tables/completion_loss_slope.csv",
            caption="../report/completion_loss_slope.rst",
            category="n-gram novelty",
        ),
    log:
        f"{R}/logs/report_completion_loss.log",
    benchmark:
        f"{R}/benchmarks/report_completion_loss.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        losses=lambda w, input: labelled("--losses", PLAN.completion_models, input),
        config=as_json({"novelty": config["novelty"]}),
    shell:
        "python -m copyscope report completion-loss {params.losses} "
        "--params-json {params.config:q} --out-table {output.table} "
        "--out-fig {output.fig} --out-frequency {output.frequency} "
        "--out-fig-frequency {output.fig_frequency} --out-slope {output.slope} "
        "> {log} 2>&1"


rule report_raven:
    input:
        words=PLAN.analysis_files("words.parquet"),
        quality=PLAN.analysis_files("quality.csv", own=True),
    output:
        summary=report(
            f"{R}/tables/raven_summary.csv",
            caption="../report/raven_summary.rst",
            category="RAVEN",
        ),
        curves=f"{R}/tables/raven_novelty.csv",
        fig_novelty=report(
            f"{R}/figures/raven_novelty.png",
            caption="../report/raven_novelty.rst",
            category="RAVEN",
        ),
        fig_quality=report(
            f"{R}/figures/novelty_quality.png",
            caption="../report/novelty_quality.rst",
            category="RAVEN",
        ),
        contrasts=report(
            f"{R}/tables/raven_contrasts.csv",
            caption="../report/raven_contrasts.rst",
            category="RAVEN",
        ),
        texts=f"{R}/tables/raven_texts.csv",
    log:
        f"{R}/logs/report_raven.log",
    benchmark:
        f"{R}/benchmarks/report_raven.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        words=lambda w, input: labelled("--words", PLAN.settings(), input.words),
        quality=lambda w, input: labelled(
            "--quality", PLAN.own_settings(), input.quality
        ),
        config=as_json(
            {
                "novelty": config["novelty"],
                "sampling": config["sampling"],
                **(
                    {"unscored": PLAN.unscored_names()}
                    if PLAN.external_settings
                    else {}
                ),
            }
        ),
    shell:
        "python -m copyscope report raven {params.words} {params.quality} "
        "--params-json {params.config:q} --out-summary {output.summary} "
        "--out-curves {output.curves} --out-fig-novelty {output.fig_novelty} "
        "--out-fig-quality {output.fig_quality} --out-contrasts {output.contrasts} "
        "--out-texts {output.texts} > {log} 2>&1"


rule report_supercopies:
    input:
        PLAN.analysis_files("supercopies.csv"),
    output:
        table=report(
            f"{R}/tables/supercopies.csv",
            caption="../report/supercopies.rst",
            category="RAVEN",
        ),
        counts=report(
            f"{R}/tables/supercopies_by_source.csv",
            caption="../report/supercopies_by_source.rst",
            category="RAVEN",
        ),
        fig=report(
            f"{R}/figures/supercopies.png",
            caption="../report/supercopies_by_source.rst",
            category="RAVEN",
        ),
    log:
        f"{R}/logs/report_supercopies.log",
    benchmark:
        f"{R}/benchmarks/report_supercopies.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        supercopies=lambda w, input: labelled("--supercopies", PLAN.settings(), input),
    shell:
        "python -m copyscope report supercopies {params.supercopies} "
        "--out-table {output.table} --out-counts {output.counts} "
        "--out-fig {output.fig} > {log} 2>&1"


rule report_planted:
    input:
        PLAN.analysis_files("planted.csv", own=True),
    output:
        table=report(
            f"{R}/tables/planted.csv",
            caption="../report/planted_table.rst",
            category="planted ground truth",
        ),
        fig=report(
            f"{R}/figures/planted.png",
            caption="../report/planted.rst",
            category="planted ground truth",
        ),
    log:
        f"{R}/logs/report_planted.log",
    benchmark:
        f"{R}/benchmarks/report_planted.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        planted=lambda w, input: labelled("--planted", PLAN.own_settings(), input),
    shell:
        "python -m copyscope report planted {params.planted} "
        "--out-table {output.table} --out-fig {output.fig} > {log} 2>&1"


rule report_memorization:
    input:
        PLAN.ladder_files(),
    output:
        table=report(
            f"{R}/tables/memorization.csv",
            caption="../report/memorization_table.rst",
            category="planted ground truth",
        ),
        fig=report(
            f"{R}/figures/memorization.png",
            caption="../report/memorization.rst",
            category="planted ground truth",
        ),
    log:
        f"{R}/logs/report_memorization.log",
    benchmark:
        f"{R}/benchmarks/report_memorization.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        extraction=lambda w, input: labelled("--extraction", PLAN.ladder_models, input),
        config=as_json(PLAN.memorization),
    shell:
        "python -m copyscope report memorization {params.extraction} "
        "--params-json {params.config:q} --out-table {output.table} "
        "--out-fig {output.fig} > {log} 2>&1"


rule report_membership:
    input:
        texts=PLAN.model_files("membership/{model}/texts.csv", PLAN.cloze_models),
        cloze=PLAN.model_files("membership/{model}/cloze.csv", PLAN.cloze_models),
        manifest=[f"{R}/corpus/manifest.json"] if PLAN.cloze else [],
        overlap=[f"{R}/membership/overlap.csv"] if PLAN.benchmark else [],
    output:
        placement=report(
            f"{R}/tables/membership_placement.csv",
            caption="../report/membership_tables.rst",
            category="planted ground truth",
        ),
        detectors=report(
            f"{R}/tables/membership_detectors.csv",
            caption="../report/membership_tables.rst",
            category="planted ground truth",
        ),
        cloze=report(
            f"{R}/tables/membership_cloze.csv",
            caption="../report/membership_tables.rst",
            category="planted ground truth",
        ),
        cloze_summary=report(
            f"{R}/tables/membership_cloze_summary.csv",
            caption="../report/membership_tables.rst",
            category="planted ground truth",
        ),
        cloze_excerpts=report(
            f"{R}/tables/membership_cloze_excerpts.csv",
            caption="../report/membership_excerpts.rst",
            category="planted ground truth",
        ),
        cloze_trend=report(
            f"{R}/tables/membership_cloze_trend.csv",
            caption="../report/membership_excerpts.rst",
            category="planted ground truth",
        ),
        cloze_genre=report(
            f"{R}/tables/membership_cloze_genre.csv",
            caption="../report/membership_tables.rst",
            category="name cloze",
        ),
        cloze_popularity=report(
            f"{R}/tables/membership_cloze_popularity.csv",
            caption="../report/membership_tables.rst",
            category="name cloze",
        ),
        nll_delta=report(
            f"{R}/tables/membership_nll_delta.csv",
            caption="../report/membership_nll_delta.rst",
            category="planted ground truth",
        ),
        overlap=report(
            f"{R}/tables/membership_overlap.csv",
            caption="../report/membership_strata.rst",
            category="planted ground truth",
        ),
        strata=report(
            f"{R}/tables/membership_strata.csv",
            caption="../report/membership_strata.rst",
            category="planted ground truth",
        ),
        thresholds=report(
            f"{R}/tables/membership_thresholds.csv",
            caption="../report/membership_thresholds.rst",
            category="planted ground truth",
        ),
        fig_placement=report(
            f"{R}/figures/membership_placement.png",
            caption="../report/membership_placement.rst",
            category="planted ground truth",
        ),
        fig_roc_planted=report(
            f"{R}/figures/membership_roc_planted.png",
            caption="../report/membership_roc.rst",
            category="planted ground truth",
        ),
        fig_roc_training=report(
            f"{R}/figures/membership_roc_training.png",
            caption="../report/membership_roc.rst",
            category="planted ground truth",
        ),
        fig_cloze=report(
            f"{R}/figures/membership_cloze.png",
            caption="../report/membership_cloze.rst",
            category="planted ground truth",
        ),
    log:
        f"{R}/logs/report_membership.log",
    benchmark:
        f"{R}/benchmarks/report_membership.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        texts=lambda w, input: labelled("--texts", PLAN.cloze_models, input.texts),
        cloze=lambda w, input: labelled("--cloze", PLAN.cloze_models, input.cloze),
        benchmark=lambda w, input: args(
            PLAN.membership_report_args(input.manifest, input.overlap)
        ),
        config=as_json(PLAN.membership),
    shell:
        "python -m copyscope report membership {params.texts} {params.cloze} "
        "{params.benchmark} "
        "--params-json {params.config:q} --out-placement {output.placement} "
        "--out-detectors {output.detectors} --out-cloze {output.cloze} "
        "--out-cloze-summary {output.cloze_summary} "
        "--out-cloze-excerpts {output.cloze_excerpts} --out-cloze-trend {output.cloze_trend} "
        "--out-cloze-genre {output.cloze_genre} "
        "--out-cloze-popularity {output.cloze_popularity} "
        "--out-nll-delta {output.nll_delta} --out-overlap {output.overlap} "
        "--out-strata {output.strata} --out-thresholds {output.thresholds} "
        "--out-fig-placement {output.fig_placement} "
        "--out-fig-roc-planted {output.fig_roc_planted} "
        "--out-fig-roc-training {output.fig_roc_training} --out-fig-cloze {output.fig_cloze} "
        "> {log} 2>&1"


rule report_own_benchmarks:
    input:
        scores=[f"{R}/membership/{m}/own/{b}.csv" for m, b in PLAN.own_pairs],
        files=[PLAN.own_benchmarks[b]["path"] for b in PLAN.own_benchmarks],
    output:
        scores=own_report(f"{R}/tables/own_benchmark_scores.csv"),
        placement=own_report(f"{R}/tables/own_benchmark_placement.csv"),
        nll_delta=own_report(f"{R}/tables/own_benchmark_nll_delta.csv"),
        detectors=own_report(f"{R}/tables/own_benchmark_detectors.csv"),
    log:
        f"{R}/logs/report_own_benchmarks.log",
    benchmark:
        f"{R}/benchmarks/report_own_benchmarks.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        scores=lambda w, input: labelled("--scores", PLAN.own_pairs, input.scores),
        item_files=lambda w, input: labelled(
            "--items",
            [(b, PLAN.own_benchmarks[b]["format"]) for b in PLAN.own_benchmarks],
            input.files,
        ),
        config=as_json(PLAN.membership),
    shell:
        "python -m copyscope report own-benchmarks {params.scores} {params.item_files} "
        "--params-json {params.config:q} --out-scores {output.scores} "
        "--out-placement {output.placement} --out-nll-delta {output.nll_delta} "
        "--out-detectors {output.detectors} > {log} 2>&1"


rule report_books:
    input:
        books=PLAN.model_files("membership/{model}/books.csv", PLAN.book_models),
    output:
        table=books_report(f"{R}/tables/membership_books.csv"),
    log:
        f"{R}/logs/report_books.log",
    benchmark:
        f"{R}/benchmarks/report_books.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        books=lambda w, input: labelled("--books", PLAN.book_models, input.books),
        config=as_json({k: PLAN.membership[k] for k in ("bootstrap", "seed")}),
    shell:
        "python -m copyscope report books {params.books} --params-json {params.config:q} "
        "--out-table {output.table} > {log} 2>&1"


rule report_training:
    input:
        PLAN.model_files("tables/training/{model}.csv", PLAN.trained),
    output:
        fig=report(
            f"{R}/figures/training.png",
            caption="../report/training.rst",
            category="models",
        ),
    log:
        f"{R}/logs/report_training.log",
    benchmark:
        f"{R}/benchmarks/report_training.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        logs=lambda w, input: labelled("--log", PLAN.trained, input),
    shell:
        "python -m copyscope report training {params.logs} --out-fig {output.fig} "
        "> {log} 2>&1"


SYNTAX_ANALYSIS = as_json(
    {
        "syntax": PLAN.with_language({"backend": config["syntax"]["backend"]}),
        "analysis": {"syntax": config["analysis"]["syntax"]},
        "sampling": {"decodings": config["sampling"]["decodings"]},
        "models": PLAN.models,  # a list: the config's order (JSON objects are sorted)
    }
)


rule report_syntax_novelty:
    input:
        parses=PLAN.parse_files(),
        training=f"{R}/syntax/train.parquet",
    output:
        table=report(
            f"{R}/tables/syntax_novelty.csv",
            caption="../report/syntax_novelty.rst",
            category="syntax",
        ),
        table1=report(
            f"{R}/tables/syntax_table1.csv",
            caption="../report/syntax_table1.rst",
            category="syntax",
        ),
        fig=report(
            f"{R}/figures/syntax_paths.png",
            caption="../report/syntax_paths.rst",
            category="syntax",
        ),
    log:
        f"{R}/logs/report_syntax_novelty.log",
    benchmark:
        f"{R}/benchmarks/report_syntax_novelty.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        parses=lambda w, input: labelled("--parses", PLAN.settings(), input.parses),
        config=SYNTAX_ANALYSIS,
    shell:
        "python -m copyscope report syntax-novelty {params.parses} "
        "--training train {input.training} --params-json {params.config:q} "
        "--out-table {output.table} --out-table1 {output.table1} --out-fig {output.fig} "
        "> {log} 2>&1"


rule report_templates:
    input:
        PLAN.parse_files(),
    output:
        table=report(
            f"{R}/tables/templates.csv",
            caption="../report/templates_table.rst",
            category="syntax",
        ),
        listing=f"{R}/tables/template_listing.csv",
        fig=report(
            f"{R}/figures/templates.png",
            caption="../report/templates.rst",
            category="syntax",
        ),
    log:
        f"{R}/logs/report_templates.log",
    benchmark:
        f"{R}/benchmarks/report_templates.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        parses=lambda w, input: labelled("--parses", PLAN.settings(), input),
        config=SYNTAX_ANALYSIS,
    shell:
        "python -m copyscope report templates {params.parses} "
        "--params-json {params.config:q} --out-table {output.table} "
        "--out-listing {output.listing} --out-fig {output.fig} > {log} 2>&1"


rule report_template_coverage:
    input:
        parses=PLAN.parse_files(),
        training_tags=f"{R}/syntax/train-tags.jsonl",
        pos_index=PLAN.pos_index,
    output:
        table=report(
            f"{R}/tables/template_coverage.csv",
            caption="../report/template_coverage_table.rst",
            category="syntax",
        ),
        training=f"{R}/tables/template_training.csv",
        fig=report(
            f"{R}/figures/template_coverage.png",
            caption="../report/template_coverage.rst",
            category="syntax",
        ),
        delta=report(
            f"{R}/tables/template_coverage_delta.csv",
            caption="../report/template_coverage_delta.rst",
            category="syntax",
        ),
    log:
        f"{R}/logs/report_template_coverage.log",
    benchmark:
        f"{R}/benchmarks/report_template_coverage.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        parses=lambda w, input: labelled("--parses", PLAN.settings(), input.parses),
        pos_index=lambda w, input: args(PLAN.pos_index_args(input.pos_index)),
        config=SYNTAX_ANALYSIS,
    shell:
        "python -m copyscope report template-coverage {params.parses} "
        "--training-tags train {input.training_tags} {params.pos_index} "
        "--params-json {params.config:q} "
        "--out-table {output.table} --out-training {output.training} "
        "--out-fig {output.fig} --out-delta {output.delta} > {log} 2>&1"


rule report_style:
    input:
        PLAN.model_files("style/measures/{model}.csv", PLAN.models),
    output:
        table=report(
            f"{R}/tables/style_memorization.csv",
            caption="../report/style_memorization_table.rst",
            category="syntax",
        ),
        fig=report(
            f"{R}/figures/style_memorization.png",
            caption="../report/style_memorization.rst",
            category="syntax",
        ),
    log:
        f"{R}/logs/report_style.log",
    benchmark:
        f"{R}/benchmarks/report_style.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        measures=lambda w, input: labelled("--measures", PLAN.models, input),
        config=as_json(config["analysis"]["style"]),
    shell:
        "python -m copyscope report style {params.measures} "
        "--params-json {params.config:q} --out-table {output.table} "
        "--out-fig {output.fig} > {log} 2>&1"


rule report_calibration:
    input:
        tokens=f"{R}/analysis/human/reference/tokens.parquet",
        words=f"{R}/analysis/human/reference/words.parquet",
        quality=f"{R}/analysis/human/reference/quality.csv",
        index=f"{R}/index/{PLAN.model_tok}/index.json",
        extraction=PLAN.ladder_files(),
        membership=PLAN.model_files(
            "membership/{model}/texts.csv", PLAN.benchmark_models
        ),
        completion=PLAN.completion_outputs(),
        cloze=PLAN.model_files("membership/{model}/cloze.csv", PLAN.benchmark_models),
        parses=f"{R}/syntax/human/reference.parquet",
        contaminated=(
            [f"{R}/syntax/human/contaminated.parquet"] if PLAN.excerpts else []
        ),
        training_tags=f"{R}/syntax/train-tags.jsonl",
        pos_index=PLAN.pos_index,
        training_parses=f"{R}/syntax/train.parquet",
        style=PLAN.model_files("style/measures/{model}.csv", PLAN.models),
    output:
        csv=report(
            f"{R}/tables/findings_calibration.csv",
            caption="../report/findings_calibration.rst",
            category="findings",
        ),
    log:
        f"{R}/logs/report_calibration.log",
    benchmark:
        f"{R}/benchmarks/report_calibration.tsv"
    conda:
        "../envs/novelty.yaml"
    threads: 2
    params:
        extraction=lambda w, input: labelled(
            "--extraction", PLAN.ladder_models, input.extraction
        ),
        membership=lambda w, input: labelled(
            "--membership", PLAN.benchmark_models, input.membership
        ),
        completion=lambda w, input: labelled(
            "--completion", PLAN.completion_models, input.completion
        ),
        cloze=lambda w, input: labelled("--cloze", PLAN.benchmark_models, input.cloze),
        style=lambda w, input: labelled("--style", PLAN.models, input.style),
        pos_index=lambda w, input: args(PLAN.pos_index_args(input.pos_index)),
        contaminated=lambda w, input: labelled(
            "--parses",
            [("human", "contaminated")] * len(input.contaminated),
            input.contaminated,
        ),
        config=as_json(
            {
                "findings": config["findings"],
                "novelty": config["novelty"],
                "sampling": config["sampling"],
                "syntax": PLAN.with_language({"backend": config["syntax"]["backend"]}),
                "models": {
                    "zoo": config["models"]["zoo"],
                    "evaluator": config["models"]["evaluator"],
                    "evaluators": config["models"].get("evaluators") or {},
                },
                "analysis": {
                    "syntax": config["analysis"]["syntax"],
                    "style": config["analysis"]["style"],
                    "memorization": config["analysis"]["memorization"],
                    "membership": config["analysis"]["membership"],
                },
            }
        ),
    shell:
        "COPYSCOPE_PROCESSES={threads} "
        "python -m copyscope report calibration --tokens human reference {input.tokens} "
        "--words human reference {input.words} --quality human reference {input.quality} "
        "--index-manifest human {input.index} {params.extraction} {params.membership} "
        "{params.completion} {params.cloze} --parses human reference {input.parses} "
        "{params.contaminated} "
        "--training-tags train {input.training_tags} {params.pos_index} "
        "--training-parses train {input.training_parses} {params.style} "
        "--params-json {params.config:q} --out-csv {output.csv} > {log} 2>&1"


rule report_power:
    input:
        tokens=f"{R}/analysis/human/reference/tokens.parquet",
        index=f"{R}/index/{PLAN.model_tok}/index.json",
        extraction=PLAN.ladder_files(),
        membership=PLAN.model_files(
            "membership/{model}/texts.csv", PLAN.benchmark_models
        ),
    output:
        csv=report(
            f"{R}/tables/findings_power.csv",
            caption="../report/findings_power.rst",
            category="findings",
        ),
        fig=report(
            f"{R}/figures/findings_power.png",
            caption="../report/findings_power.rst",
            category="findings",
        ),
    log:
        f"{R}/logs/report_power.log",
    benchmark:
        f"{R}/benchmarks/report_power.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        extraction=lambda w, input: labelled(
            "--extraction", PLAN.ladder_models, input.extraction
        ),
        membership=lambda w, input: labelled(
            "--membership", PLAN.benchmark_models, input.membership
        ),
        config=as_json(
            {
                "findings": config["findings"],
                "novelty": config["novelty"],
                "sampling": config["sampling"],
                "models": {"zoo": config["models"]["zoo"]},
                "analysis": {
                    "memorization": config["analysis"]["memorization"],
                    "membership": config["analysis"]["membership"],
                },
            }
        ),
    shell:
        "python -m copyscope report power --tokens human reference {input.tokens} "
        "--index-manifest human {input.index} {params.extraction} {params.membership} "
        "--params-json {params.config:q} --out-csv {output.csv} --out-fig {output.fig} "
        "> {log} 2>&1"


# the tables the findings scorecard reads (copyscope.report.findings.TABLES), by name;
# a claim whose table is not listed here is reported as inconclusive, "not measured";
FINDINGS_TABLES = {
    "novelty_samples": rules.report_novelty.output.curves,
    "nnsl_samples": rules.report_novelty.output.nnsl,
    "raven_summary": rules.report_raven.output.summary,
    "completion_loss": rules.report_completion_loss.output.table,
    "memorization": rules.report_memorization.output.table,
    "membership_detectors": rules.report_membership.output.detectors,
    "membership_cloze_summary": rules.report_membership.output.cloze_summary,
    "syntax_novelty": rules.report_syntax_novelty.output.table,
    "templates": rules.report_templates.output.table,
    "style_memorization": rules.report_style.output.table,
    "findings_calibration": rules.report_calibration.output.csv,
    "findings_power": rules.report_power.output.csv,
    "completion_loss_slope": rules.report_completion_loss.output.slope,
    "template_coverage_delta": rules.report_template_coverage.output.delta,
    "raven_contrasts": rules.report_raven.output.contrasts,
    "raven_texts": rules.report_raven.output.texts,
    "membership_nll_delta": rules.report_membership.output.nll_delta,
    "membership_cloze_excerpts": rules.report_membership.output.cloze_excerpts,
    "membership_cloze_trend": rules.report_membership.output.cloze_trend,
}


rule report_findings:
    input:
        **FINDINGS_TABLES,
    output:
        csv=report(
            f"{R}/findings.csv",
            caption="../report/findings.rst",
            category="findings",
        ),
        md=report(
            f"{R}/findings.md",
            caption="../report/findings.rst",
            category="findings",
        ),
    log:
        f"{R}/logs/report_findings.log",
    benchmark:
        f"{R}/benchmarks/report_findings.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        tables=lambda w, input: labelled(
            "--table", list(FINDINGS_TABLES), [input[n] for n in FINDINGS_TABLES]
        ),
        config=as_json(
            {
                "findings": config["findings"],
                "analysis": {"syntax": config["analysis"]["syntax"]},
                "sampling": config["sampling"],
                **(
                    {"unscored": PLAN.unscored_names()}
                    if PLAN.external_settings
                    else {}
                ),
                # a trained model or planted text: the training data is known
                "ground_truth": bool(PLAN.trained) or PLAN.plants,
                "models": {
                    "zoo": config["models"]["zoo"],
                    "evaluator": config["models"]["evaluator"],
                    "evaluators": config["models"].get("evaluators") or {},
                },
            }
        ),
    shell:
        "python -m copyscope report findings {params.tables} "
        "--params-json {params.config:q} --out-csv {output.csv} --out-md {output.md} "
        "> {log} 2>&1"


# the tables summary.md reads, under the names the summary sections use (SUMMARY_TABLES of
# each copyscope.report module); each is an input of the summary rule under that name
SUMMARY_TABLES = [
    "novelty_samples",
    "nnsl_samples",
    "completion_loss_frequency",
    "raven_summary",
    "supercopies",
    "planted",
    "memorization",
    "syntax_novelty",
    "templates",
    "template_coverage",
    "style_memorization",
    "membership_placement",
    "membership_detectors",
    "membership_cloze_summary",
    "membership_nll_delta",
    "membership_cloze_trend",
    "own_benchmark_placement",
    "own_benchmark_nll_delta",
    "own_benchmark_detectors",
    "membership_books",
]


rule summary:
    input:
        novelty_samples=rules.report_novelty.output.curves,
        nnsl_samples=rules.report_novelty.output.nnsl,
        completion_loss_frequency=rules.report_completion_loss.output.frequency,
        raven_summary=rules.report_raven.output.summary,
        supercopies=rules.report_supercopies.output.table,
        planted=rules.report_planted.output.table,
        memorization=rules.report_memorization.output.table,
        syntax_novelty=rules.report_syntax_novelty.output.table,
        templates=rules.report_templates.output.table,
        template_coverage=rules.report_template_coverage.output.table,
        style_memorization=rules.report_style.output.table,
        membership_placement=rules.report_membership.output.placement,
        membership_detectors=rules.report_membership.output.detectors,
        membership_cloze_summary=rules.report_membership.output.cloze_summary,
        membership_nll_delta=rules.report_membership.output.nll_delta,
        membership_cloze_trend=rules.report_membership.output.cloze_trend,
        own_benchmark_placement=rules.report_own_benchmarks.output.placement,
        own_benchmark_nll_delta=rules.report_own_benchmarks.output.nll_delta,
        own_benchmark_detectors=rules.report_own_benchmarks.output.detectors,
        membership_books=rules.report_books.output.table,
        training=PLAN.model_files("tables/training/{model}.csv", PLAN.trained),
        index=f"{R}/index/{PLAN.model_tok}/index.json",
    output:
        report(f"{R}/summary.md", caption="../report/summary.rst", category="summary"),
    log:
        f"{R}/logs/summary.log",
    benchmark:
        f"{R}/benchmarks/summary.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        tables=lambda w, input: labelled(
            "--table",
            SUMMARY_TABLES,
            [input[name] for name in SUMMARY_TABLES],
        ),
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
        "python -m copyscope report summary {params.tables} {params.logs} "
        "--index-manifest {input.index} --params-json {params.config:q} "
        "--out {output} > {log} 2>&1"


rule runtime:
    input:
        summary=rules.summary.output,
        reports=lambda w: report_outputs(),
        explorer=EXPLORER_PAGE,
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
        benchmarks=f"{R}/benchmarks",
    shell:
        "python -m copyscope report runtime --benchmarks {params.benchmarks} "
        "--out {output} > {log} 2>&1"
