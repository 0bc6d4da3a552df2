# The explorer (copyscope explore, EXPLORER_PAGE): one self-contained page with the texts of the human
# reference and of every model's explorer.decodings, their copied spans and sources (the index),
# and the memorization ladder of every model.
EXPLORER = config["explorer"]
EXPLORER_SETTINGS = [
    (m, d) for m, d in settings() if d == "reference" or d in EXPLORER["decodings"]
]
EXPLORER_FILES = ("samples", "tokens", "words", "supercopies")


def explorer_inputs(wildcards):
    """Per explorer setting its sample file and analysis files, the index of each model's
    tokens (and of the human sets'), the Moses word tokenizer and the ladder files."""
    inputs = {"words": f"{R}/tokenizers/{WORDS}"}
    for m, d in EXPLORER_SETTINGS:
        inputs[f"samples_{m}_{d}"] = f"{R}/samples/{m}/{d}.jsonl"
        for name in EXPLORER_FILES[1:]:
            ext = "csv" if name == "supercopies" else "parquet"
            inputs[f"{name}_{m}_{d}"] = f"{R}/analysis/{m}/{d}/{name}.{ext}"
    for m in explorer_models():
        inputs[f"index_{m}"] = f"{R}/index/{explorer_tokenizer(m)}/index.json"
    if LADDER:
        for m in MODELS:
            inputs[f"ladder_{m}"] = f"{R}/memorization/{m}.csv"
    return inputs


def explorer_models():
    """The labels with an index: the models of the explorer's settings, human, the ladder's."""
    labels = [m for m, _ in EXPLORER_SETTINGS] + (MODELS if LADDER else [])
    return list(dict.fromkeys(labels))


def explorer_tokenizer(label):
    return MODEL_TOK if label == "human" else model_tokenizer(label)


def explorer_flags(wildcards, input):
    """--set, --index and --ladder flags of copyscope explore, from the rule's inputs."""
    sets = [
        " ".join(["--set", m, d, *(input[f"{n}_{m}_{d}"] for n in EXPLORER_FILES)])
        for m, d in EXPLORER_SETTINGS
    ]
    indexes = [
        f"--index {m} {os.path.dirname(input[f'index_{m}'])}" for m in explorer_models()
    ]
    ladders = [f"--ladder {m} {input[f'ladder_{m}']}" for m in MODELS if LADDER]
    return " ".join(sets + indexes + ladders)


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
