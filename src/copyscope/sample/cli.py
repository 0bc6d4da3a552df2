"""``copyscope sample …``: prompt windows from held-out text, and generations."""

from __future__ import annotations

import logging
import time

from ..clikit import add_command, add_device, add_group, add_params

log = logging.getLogger("copyscope")


def cmd_prompts(a):
    from . import write_prompts

    excerpts = None if a.excerpts_npy is None else (a.excerpts_npy, a.excerpts_json)
    lengths = write_prompts(
        a.valid_npy, a.valid_json, a.tokenizer, a.params_json, a.out, a.out_human,
        excerpts, a.out_contaminated,
    )  # fmt: skip
    log.info("prompt windows written to %s, prompt lengths %s", a.out, lengths)


def cmd_training_prompts(a):
    from . import write_training_prompts

    n = write_training_prompts(a.natural_npy, a.natural_json, a.index, a.params_json, a.out)
    log.info("%d training-prompt windows written to %s", n, a.out)


def cmd_generate(a):
    from . import generate_file

    t0 = time.perf_counter()
    n, stopped = generate_file(
        a.model, a.model_name, a.decoding, a.params_json, a.prompts, a.prompt_tokenizer, a.out,
        prompt_lengths=a.prompt_lengths, new_tokens=a.new_tokens, seed=a.seed,
        batch_size=a.batch_size, device=a.device,
    )  # fmt: skip
    rate = n / max(time.perf_counter() - t0, 1e-9)
    log.info(
        "%s/%s: %d samples (%.2f/s), %d stopped at eos", a.model_name, a.decoding, n, rate, stopped
    )


def cmd_model(a):
    from . import generate_files

    t0 = time.perf_counter()
    done = generate_files(
        a.model, a.model_name, a.params_json, a.prompts, a.prompt_tokenizer, a.out, a.device
    )
    for decoding, (n, stopped) in done.items():
        log.info("%s/%s: %d samples, %d stopped at eos", a.model_name, decoding, n, stopped)
    log.info("%s: %d sets in %.1f s", a.model_name, len(done), time.perf_counter() - t0)


def cmd_import(a):
    from .external import import_generations

    n, refs = import_generations(
        a.generations, a.tokenizer, a.setting, a.prompt_length, a.out, a.out_reference
    )
    log.info("%s: %d generations from %s%s", a.setting, n, a.generations,
             ", and their references" if refs else "")  # fmt: skip


def _add_prompts(f) -> None:
    """The prompt flags of ``generate`` and ``model``."""
    f.add_argument("--prompts", required=True, help="prompt windows (.jsonl, from sample prompts)")
    f.add_argument(
        "--prompt-tokenizer",
        required=True,
        metavar="DIR",
        help="tokenizer directory the prompts are in (re-encoded if the model's differs)",
    )


def register(sub) -> None:
    g = add_group(sub, "sample", "sampling stage: prompts and generations")
    f = add_command(g, "prompts", cmd_prompts, "cut prompt windows and the human baseline")
    f.add_argument("--valid-npy", required=True, help="token stream of the validation split")
    f.add_argument("--valid-json", required=True, help="its metadata (.json)")
    f.add_argument(
        "--tokenizer", required=True, metavar="DIR", help="tokenizer directory of the split"
    )
    add_params(f, "the config block sampling")
    f.add_argument("--out", required=True, help="prompt windows to write (.jsonl)")
    f.add_argument("--out-human", required=True, help="human baseline samples to write (.jsonl)")
    f.add_argument("--excerpts-npy", help="token stream of the excerpt plays (optional)")
    f.add_argument("--excerpts-json", help="its metadata (.json)")
    f.add_argument(
        "--out-contaminated", help="human samples cut from the excerpt plays to write (.jsonl)"
    )
    f = add_command(
        g,
        "training-prompts",
        cmd_training_prompts,
        "cut prompt windows from the natural training text (Merrill et al. Fig. 3)",
    )
    f.add_argument(
        "--natural-npy", required=True, help="token stream of the natural training text"
    )
    f.add_argument("--natural-json", required=True, help="its metadata (.json)")
    f.add_argument(
        "--index",
        required=True,
        metavar="DIR",
        help="index of the training split in the same tokens (a window is kept when it holds it)",
    )
    add_params(
        f, "the block sampling.training_prompts (lengths, prompts, seed) with new_tokens"
    )
    f.add_argument("--out", required=True, help="prompt windows to write (.jsonl)")
    f = add_command(
        g, "import", cmd_import, "a generations file as a sample set (and its human baseline)"
    )
    f.add_argument(
        "--generations", required=True, help="generations (.jsonl: id, prompt, text[, reference])"
    )
    f.add_argument("--setting", required=True, help="the setting's name, <model>/<decoding>")
    f.add_argument(
        "--tokenizer", required=True, metavar="DIR", help="the index's tokenizer directory"
    )
    f.add_argument(
        "--prompt-length", type=int, required=True, help="prompt length label of the rows"
    )
    f.add_argument("--out", help="sample rows to write (.jsonl)")
    f.add_argument(
        "--out-reference",
        help="the references' human baseline to write (.jsonl); exactly when lines have them",
    )
    f = add_command(g, "generate", cmd_generate, "generate continuations of every prompt")
    f.add_argument("--model", required=True, metavar="DIR", help="model directory")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    f.add_argument("--decoding", required=True, help="the decoding's name under sampling.decodings")
    add_params(f, "the decoding's config block (sampling.decodings.<name>)")
    _add_prompts(f)
    f.add_argument(
        "--prompt-lengths", type=int, nargs="+", required=True, help="prompt lengths to sample"
    )
    f.add_argument("--new-tokens", type=int, required=True, help="tokens generated per prompt")
    f.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    f.add_argument("--batch-size", type=int, default=50, help="prompts per batch (default 50)")
    f.add_argument("--out", required=True, help="samples to write (.jsonl)")
    add_device(f)
    f = add_command(
        g, "model", cmd_model, "every sample set of one model (one model load: the sample job)"
    )
    f.add_argument("--model", required=True, metavar="DIR", help="model directory")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    add_params(
        f,
        "the job's settings: new_tokens, seed, batch_size and decodings (name -> {method: "
        "sampling.decodings.<name>, prompt_lengths: [...]})",
    )
    _add_prompts(f)
    f.add_argument(
        "--out",
        nargs=2,
        action="append",
        default=[],
        metavar=("DECODING", "PATH"),
        help="samples of one decoding to write (.jsonl); once per decoding of --params-json, "
        "in the order they are written",
    )
    add_device(f)
