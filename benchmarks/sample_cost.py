"""Per-token cost of sampling from a pretrained model's architecture with copyscope's sampler.

A model of the shape of a released checkpoint (``--arch``: Pythia's GPT-NeoX sizes, GPT-2's,
read from the shapes below, random weights: the cost of a token does not depend on the
weights) continues ``--prompts`` random prompts of ``--prompt-length`` ids by ``--new-tokens``
tokens under pure sampling (``copyscope.lm.decode.generate``, as the sample jobs call it, fp32,
batches of ``--batch-size``), ``--repeats`` times; printed per architecture: its parameters,
the median wall seconds, generated tokens/s and seconds per generated token per billion
parameters (what the paper configurations' run-time estimates scale by parameter count).

    nice -n 10 python benchmarks/sample_cost.py --arch pythia-70m pythia-160m gpt2
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

# (family, hidden size, layers, heads, vocabulary, context) of released checkpoints
ARCHS = {
    "pythia-70m": ("gpt_neox", 512, 6, 8, 50304, 2048),
    "pythia-160m": ("gpt_neox", 768, 12, 12, 50304, 2048),
    "pythia-410m": ("gpt_neox", 1024, 24, 16, 50304, 2048),
    "gpt2": ("gpt2", 768, 12, 12, 50257, 1024),
}


def build(arch: str, seed: int = 0):
    """A random model of ``arch``'s shape (transformers' own classes)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, GPTNeoXConfig, GPTNeoXForCausalLM

    family, hidden, layers, heads, vocab, ctx = ARCHS[arch]
    torch.manual_seed(seed)
    if family == "gpt2":
        cfg = GPT2Config(n_embd=hidden, n_layer=layers, n_head=heads, vocab_size=vocab,
                         n_positions=ctx)  # fmt: skip
        return GPT2LMHeadModel(cfg).eval()
    cfg = GPTNeoXConfig(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                        intermediate_size=4 * hidden, vocab_size=vocab,
                        max_position_embeddings=ctx, rotary_pct=0.25)  # fmt: skip
    return GPTNeoXForCausalLM(cfg).eval()


def main(argv=None) -> None:
    from copyscope.lm.decode import generate

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", nargs="+", default=["pythia-70m"], choices=sorted(ARCHS))
    ap.add_argument("--prompts", type=int, default=20)
    ap.add_argument("--prompt-length", type=int, default=32)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print("arch\tparameters\tmedian_s\ttokens_per_s\ts_per_token_per_1e9_params")
    for arch in a.arch:
        model = build(arch)
        vocab = ARCHS[arch][4]
        prompts = [rng.integers(1, vocab, a.prompt_length) for _ in range(a.prompts)]
        params = sum(p.numel() for p in model.parameters())
        times = []
        for r in range(a.repeats):
            t0 = time.perf_counter()
            generate(model, prompts, {"kind": "sample", "temperature": 1.0},
                     max_new_tokens=a.new_tokens, eos_id=0, seed=r, batch_size=a.batch_size,
                     stop_at_eos=False)  # fmt: skip
            times.append(time.perf_counter() - t0)
        wall = statistics.median(times)
        tokens = a.prompts * a.new_tokens
        per = wall / tokens / (params / 1e9)
        print(f"{arch}\t{params}\t{wall:.2f}\t{tokens / wall:.1f}\t{per:.3f}")


if __name__ == "__main__":
    main()
