"""``copyscope analyze``: every per-setting analysis of one sample file."""

from __future__ import annotations

from ..clikit import add_device


def cmd_analyze(a):
    from ..io import read_json
    from . import analyze_setting

    analyze_setting(
        a.samples, a.out_dir, index_dir=a.index, words_dir=a.words, word_index_dir=a.word_index,
        model_tokenizer_dir=a.model_tokenizer, evaluator_dir=a.evaluator,
        evaluator_same_tokenizer=a.same_tokenizer, planted=read_json(a.manifest)["injected"],
        supercopy_min=a.supercopy_min, planted_min_copy=a.planted_min, device=a.device,
    )  # fmt: skip


def register(sub) -> None:
    text = "all per-setting analyses of one sample file"
    f = sub.add_parser("analyze", help=text, description=text)
    f.set_defaults(func=cmd_analyze)
    for flag, help_text in (
        ("--samples", "samples of one setting (.jsonl)"),
        ("--index", "index directory in the model's tokenizer"),
        ("--words", "Moses word tokenizer directory"),
        ("--word-index", "index directory of the word tokens"),
        ("--model-tokenizer", "tokenizer directory of the model"),
        ("--evaluator", "model directory of the evaluator"),
        ("--manifest", "corpus manifest (.json, planted duplicates)"),
        ("--out-dir", "folder for the analysis tables"),
    ):
        f.add_argument(flag, required=True, help=help_text)
    f.add_argument(
        "--same-tokenizer", action="store_true", help="the evaluator shares the model's tokenizer"
    )
    f.add_argument("--supercopy-min", type=int, default=100, help="shortest supercopy, in words")
    f.add_argument("--planted-min", type=int, default=20, help="shortest planted-passage copy")
    add_device(f)
