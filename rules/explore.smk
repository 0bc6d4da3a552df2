# The explorer (copyscope explore): one self-contained page with the texts of the human
# reference and of every model's explorer.decodings, their copied spans and sources (the
# index), and the memorization ladder of every model. Its inputs: rules/common.smk.


rule explore:
    input:
        unpack(explorer_inputs),
    output:
        page=report(
            EXPLORER_PAGE,
            caption="../report/explorer.rst",
            category="explorer",
        ),
    log:
        f"{R}/logs/explore.log",
    benchmark:
        f"{R}/benchmarks/explore.tsv"
    conda:
        "../envs/models.yaml"
    params:
        flags=explorer_flags,
        prompt_length=config["sampling"]["prompt_length"],
        max_texts=EXPLORER["max_texts"],
        min_span=EXPLORER["min_span"],
        sources=EXPLORER["sources"],
        context=EXPLORER["context_tokens"],
        seed=EXPLORER["seed"],
    shell:
        "python -m copyscope explore {params.flags} --word-tokenizer {input.words} "
        "--prompt-length {params.prompt_length} --max-texts {params.max_texts} "
        "--min-span {params.min_span} --sources {params.sources} "
        "--context-tokens {params.context} --seed {params.seed} --out {output.page} "
        "> {log} 2>&1"
