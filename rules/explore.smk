# The explorer (copyscope explore): one self-contained page with the texts of the human
# reference and of every model's explorer.decodings, their copied spans and sources (the
# index), and the memorization ladder of every model. Its inputs and flags: copyscope.plan
# (Plan.explorer_inputs, Plan.explorer_args).


rule explore:
    input:
        unpack(explorer_inputs),
    output:
        page=report(
            EXPLORER_PAGE,
            caption="../report/explorer.rst",
            category=report_jobs_of.category_title("summary"),
        ),
    log:
        f"{R}/logs/explore.log",
    benchmark:
        f"{R}/benchmarks/explore.tsv"
    conda:
        "../envs/models.yaml"
    params:
        flags=lambda w, input: args(PLAN.explorer_args(input)),
        prompt_length=config["sampling"]["prompt_length"],
        max_texts=PLAN.explorer["max_texts"],
        min_span=PLAN.explorer["min_span"],
        sources=PLAN.explorer["sources"],
        context=PLAN.explorer["context_tokens"],
        seed=PLAN.explorer["seed"],
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope explore {params.flags} --word-tokenizer {input.words} "
        "--prompt-length {params.prompt_length} --max-texts {params.max_texts} "
        "--min-span {params.min_span} --sources {params.sources} "
        "--context-tokens {params.context} --seed {params.seed} --out {output.page} "
        "> {log} 2>&1"
