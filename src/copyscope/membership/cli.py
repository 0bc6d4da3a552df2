"""``copyscope membership``: the name cloze's candidate passages of a corpus (once per run), one
model's membership scores, Li's NLLs, name cloze and continuation overlap on the planted
contamination set (:mod:`copyscope.membership.stage`)."""

from __future__ import annotations

import logging

from ..clikit import add_command, add_device, add_group, add_params

log = logging.getLogger(__name__)


def cmd_score(a) -> None:
    from .stage import score_model_files

    paths = {"manifest": a.manifest, "cloze_passages": a.cloze_passages, "index": a.index}
    texts, cloze = score_model_files(
        a.model, a.model_name, paths, a.params_json, a.out_texts, a.out_cloze, a.device
    )
    log.info("%s: %d texts scored, %d cloze items", a.model_name, len(texts), len(cloze))


def cmd_passages(a) -> None:
    from .stage import cloze_passages_file

    paths = {"names": a.names, "train": a.train, "valid": a.valid, "excerpts": a.excerpts}
    plays = cloze_passages_file(paths, a.params_json, a.out)
    n = sum(len(p["passages"]) for p in plays)
    log.info("name cloze: %d accepted passages of %d plays -> %s", n, len(plays), a.out)


def cmd_overlap(a) -> None:
    from .stage import overlap_file

    frame = overlap_file(a.manifest, a.index, a.out)
    log.info("training n-gram overlap of %d contamination-set texts -> %s", len(frame), a.out)


def cmd_benchmark(a) -> None:
    from .own_benchmarks import score_benchmark_files

    benchmarks = [(name, {"path": path, "format": fmt}, out) for name, fmt, path, out in a.benchmark]
    paths = {"manifest": a.manifest, "natural": a.natural, "valid": a.valid, "index": a.index}
    frames = score_benchmark_files(
        a.model, a.model_name, benchmarks, paths, a.params_json, a.device
    )
    for name, frame in frames.items():
        n = int((frame["set"] == "benchmark").sum())  # the own benchmark's items
        log.info("%s on %s: %d items and %d baseline passages scored", a.model_name, name, n,
                 len(frame) - n)  # fmt: skip


def cmd_books(a) -> None:
    from .books import score_books_file

    books = {name: {"text": path} for name, path in a.book_text}
    for name, path in a.book_characters:
        books.setdefault(name, {})["characters"] = path
    for name, tokens, entities in a.booknlp:
        books[name] = {"booknlp": {"tokens": tokens, "entities": entities}}
    frame = score_books_file(
        a.model, a.model_name, books, a.params_json, a.out, a.status_out, a.device
    )
    log.info("%s: %d name cloze items of %d books", a.model_name, len(frame), len(books))


def register(sub) -> None:
    """Add the ``membership`` group: ``passages``, ``score``, ``overlap``, ``benchmark``,
    ``books``."""
    group = add_group(sub, "membership", "membership detectors on the planted contamination set")
    f = add_command(
        group,
        "passages",
        cmd_passages,
        "the name cloze's candidate passages of every play (spaCy NER; once per run)",
    )
    f.add_argument("--names", required=True, help="corpus names.json (speakers per play)")
    f.add_argument("--train", required=True, help="corpus train.jsonl")
    f.add_argument("--valid", required=True, help="corpus valid.jsonl")
    f.add_argument("--excerpts", help="corpus excerpts.jsonl (the excerpt plays, optional)")
    add_params(
        f, "ner_model, cloze_distractors, seed (and language) of analysis.membership"
    )
    f.add_argument(
        "--out", required=True, help="accepted passages, rejections, candidates per play (.json)"
    )

    f = add_command(
        group, "score", cmd_score, "score the contamination set, its baselines and name cloze (one model)"
    )
    f.add_argument("--model", required=True, help="model directory")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    f.add_argument("--manifest", required=True, help="corpus manifest.json (with 'contamination')")
    f.add_argument(
        "--cloze-passages",
        required=True,
        help="the name cloze's candidate passages (.json; membership passages)",
    )
    f.add_argument(
        "--index",
        metavar="PATH",
        help="training index in the model's tokens, its folder or index.json (DC-PDD's token "
        "frequencies; without it "
        "dc_pdd is absent, the reason in the table's 'absent' column)",
    )
    add_params(f, "the config block analysis.membership")
    add_device(f)
    f.add_argument("--out-texts", required=True, help="per-text scores (.csv)")
    f.add_argument("--out-cloze", required=True, help="per-item name cloze and overlap (.csv)")

    f = add_command(
        group,
        "overlap",
        cmd_overlap,
        "each contamination-set text's 7- and 13-gram overlap with training",
    )
    f.add_argument("--manifest", required=True, help="corpus manifest.json (with 'contamination')")
    f.add_argument("--index", required=True, help="index directory of the training split")
    f.add_argument("--out", required=True, help="per-text overlap (.csv)")

    f = add_command(
        group, "benchmark", cmd_benchmark, "score researchers' own benchmark files (one model)"
    )
    f.add_argument("--model", required=True, help="model directory")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    f.add_argument(
        "--benchmark",
        required=True,
        nargs=4,
        action="append",
        metavar=("NAME", "FORMAT", "PATH", "OUT"),
        help="a benchmark (once per benchmark): its name (analysis.membership.benchmarks), its "
        "items' format (copyscope.membership.own_benchmarks.FORMATS), its JSONL file and the "
        "per-item and per-baseline scores to write (.csv)",
    )
    f.add_argument("--manifest", required=True, help="corpus manifest.json")
    f.add_argument("--natural", required=True, help="corpus natural.jsonl (memorised baseline)")
    f.add_argument("--valid", required=True, help="corpus valid.jsonl (clean baseline)")
    f.add_argument(
        "--index",
        metavar="PATH",
        help="training index in the model's tokens, its folder or index.json (DC-PDD's token "
        "frequencies; optional)",
    )
    add_params(f, "the config block analysis.membership")
    add_device(f)

    f = add_command(
        group, "books", cmd_books, "name cloze on a researcher's own prose books (one model)"
    )
    f.add_argument("--model", required=True, help="model directory")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    f.add_argument("--book-text", nargs=2, action="append", default=[], metavar=("BOOK", "PATH"),
                   help="a plain-text book (.txt, UTF-8); once per text book")  # fmt: skip
    f.add_argument("--book-characters", nargs=2, action="append", default=[],
                   metavar=("BOOK", "PATH"),
                   help="the character list of a text book (.txt, one per line)")  # fmt: skip
    f.add_argument("--booknlp", nargs=3, action="append", default=[],
                   metavar=("BOOK", "TOKENS", "ENTITIES"),
                   help="a book's BookNLP .tokens and .entities files")  # fmt: skip
    add_params(f, "the config block analysis.membership (with in_training per book)")
    add_device(f)
    f.add_argument("--out", required=True, help="per-item name cloze and overlap (.csv)")
    f.add_argument(
        "--status-out",
        required=True,
        help="one row per book: names, passages, items, scored, why none (.csv)",
    )
