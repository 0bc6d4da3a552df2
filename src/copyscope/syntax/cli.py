"""``copyscope syntax …``: parse a text set into its parse file; tag documents of a split."""

from __future__ import annotations

import logging

from ..clikit import add_command, add_device, add_group, add_params

log = logging.getLogger("copyscope")


def cmd_parse(a):
    from .stage import parse_text_set

    counts = parse_text_set(
        a.params_json, a.set_name, a.out, a.corpus, a.samples, a.tokenizer, a.prompt_length
    )
    log.info("%s: %s", a.set_name, counts.line())


def cmd_parse_samples(a):
    from .stage import parse_sample_sets

    counts = parse_sample_sets(a.params_json, a.set, a.prompt_length)
    log.info("%d sample sets: %s", len(a.set), counts.line())


def cmd_tags(a):
    from .stage import write_tag_documents

    n = write_tag_documents(a.parses, a.out)
    log.info("%s: %d sentence tag documents", a.out, n)


def cmd_repeats(a):
    from .style import repeats_file

    frame = repeats_file(a.model, a.model_name, a.index, a.manifest, a.params_json, a.out, a.device)
    strata = frame.groupby("stratum", sort=False).size().to_dict()
    log.info(
        "%s: %d repeated training spans decoded, per stratum %s", a.model_name, len(frame), strata
    )


def cmd_style(a):
    from .style import style_files

    written = style_files(a.params_json, a.ladder, a.repeats, a.out)
    for model, frame in written.items():
        log.info(
            "%s: %d passages, exact %d, POS %d", model, len(frame),
            frame["word_exact"].sum(), frame["pos_exact"].sum(),
        )  # fmt: skip


def register(sub) -> None:
    g = add_group(sub, "syntax", "syntax stage: parse text sets; POS-tag documents")
    f = add_command(g, "parse", cmd_parse, "parse one text set (a corpus split or a sample set)")
    add_params(f, "the syntax: config block")
    f.add_argument("--set-name", required=True, help="text set name, e.g. train, gpt2/pure")
    one = f.add_mutually_exclusive_group(required=True)
    one.add_argument("--corpus", help="corpus split documents (.jsonl, training text)")
    one.add_argument("--samples", help="sample set (.jsonl): prompts + continuations")
    f.add_argument(
        "--tokenizer", metavar="DIR", help="the model's tokenizer (decodes --samples prompts)"
    )
    f.add_argument(
        "--prompt-length", type=int, help="the prompt length of the --samples rows parsed"
    )
    f.add_argument("--out", required=True, help="parse file to write (.parquet)")
    f = add_command(
        g, "parse-samples", cmd_parse_samples, "parse several sample sets in one parser start-up"
    )
    add_params(f, "the syntax: config block")
    f.add_argument(
        "--set", nargs=4, action="append", default=[],
        metavar=("NAME", "SAMPLES", "TOKENIZER", "OUT"),
        help="a sample set: its name (e.g. gpt2/pure), samples (.jsonl), the model's tokenizer "
        "directory and the parse file to write (.parquet); once per set",
    )  # fmt: skip
    f.add_argument(
        "--prompt-length", type=int, required=True, help="the prompt length of the rows parsed"
    )
    f = add_command(g, "tags", cmd_tags, "one POS-tag document per sentence of a parse file")
    f.add_argument("--parses", required=True, help="parse file (.parquet, from syntax parse)")
    f.add_argument("--out", required=True, help="tag documents to write (.jsonl)")
    f = add_command(
        g, "repeats", cmd_repeats, "greedy continuations of repeated training n-grams (one model)"
    )
    add_params(f, "the analysis.style config block")
    f.add_argument("--model", required=True, help="model directory")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    f.add_argument("--index", required=True, metavar="DIR", help="index of the model's tokenizer")
    f.add_argument(
        "--manifest", required=True, help="corpus manifest.json (the planted texts to flag)"
    )
    add_device(f)
    f.add_argument("--out", required=True, help="per-span extraction (.csv)")
    f = add_command(
        g, "style", cmd_style, "POS-tag targets and generations: exact vs POS memorization"
    )
    add_params(f, "the syntax: config block (the tagger)")
    f.add_argument(
        "--ladder", nargs=2, action="append", default=[], metavar=("MODEL", "PATH"),
        help="a model's ladder extraction (.csv, memorize extract); once per model",
    )  # fmt: skip
    f.add_argument(
        "--repeats", nargs=2, action="append", default=[], metavar=("MODEL", "PATH"),
        help="a model's repeated-n-gram extraction (.csv, syntax repeats); once per model",
    )  # fmt: skip
    f.add_argument(
        "--out", nargs=2, action="append", default=[], metavar=("MODEL", "PATH"),
        help="per-passage style measures (.csv) to write; once per model",
    )  # fmt: skip
