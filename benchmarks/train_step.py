"""Cost of one fp32 training step of the default models, per variant, interleaved in one run.

Every model is built as the pipeline builds it (``copyscope.lm.build_model`` on the spec of
``models.zoo.<name>`` in the config, its ``train`` merged over ``models.train``, seed
``models.seed``) and trained on seeded random token ids of the tokenizer's vocabulary size
(the cost of a step does not depend on which ids). A variant changes one thing of the step
(or several: ``best``); the step is otherwise the one of ``copyscope.lm.train``: loss as
``_loss`` computes it, ``zero_grad``, ``backward``, gradient-norm clip, AdamW on
``_param_groups``, the scheduler step, under deterministic algorithms, fp32 (``--bf16`` runs
every variant under bf16 autocast instead).

Timing: each variant first gets ``--warmup`` untimed steps; then ``--repeats`` rounds visit
every variant in turn (A B C … A B C …), each round timing ``--steps`` steps of every variant,
so that a change of the machine's load hits every variant alike. Printed per (model, variant):
the median seconds per step over every timed step, its ratio to ``baseline`` (the pipeline
before this benchmark's changes), and for ``compile*`` the compile time (the first call) and
the number of steps after which compiling pays for itself. ``eval`` is one validation pass
(``eval_batches`` forward batches, as ``_evaluate``); its line gives the share of the run's
time that the evaluations take (``ceil(steps / eval_every)`` of them).

Variants (``--variants``, default every one but ``compile*``):

* ``baseline``  — the step as the pipeline ran it before (threads as the training rule sets
  them: ``OMP_NUM_THREADS=2``, i.e. 2 intra-op threads; ``sdpa`` attention, transformers'
  default; AdamW without ``foreach``/``fused``, i.e. the per-tensor loop on the CPU);
* ``pipeline``  — the step exactly as ``copyscope.lm.train`` runs it now (its helpers);
* ``threads-1`` — one intra-op thread; ``interop-1`` (run it alone: it must be set before any
  parallel work) — one inter-op thread;
* ``eager``     — transformers' eager attention instead of ``sdpa``;
* ``foreach`` / ``fused`` — ``torch.optim.AdamW(foreach=True)`` / ``(fused=True)``;
* ``no-clip``   — no gradient-norm clip (its cost);
* ``no-det``    — without ``torch.use_deterministic_algorithms`` (its cost);
* ``no-fill``   — deterministic algorithms without ``fill_uninitialized_memory`` (torch fills
  every new tensor with NaN under deterministic mode unless this is off);
* ``malloc``    — glibc malloc keeps freed memory (``mallopt``: no ``mmap`` for large blocks,
  no trimming), so the step's large tensors do not page-fault afresh every step;
* ``no-mkldnn`` — ``torch.backends.mkldnn`` disabled;
* ``matmul-high`` / ``matmul-medium`` — ``torch.set_float32_matmul_precision``;
* ``gelu-tanh`` — the MLP activation as one fused ``gelu(approximate="tanh")`` kernel instead of
  transformers' composite ``gelu_new`` (same function, other rounding);
* ``loss-full`` — cross entropy over all positions with the last one ignored, instead of slicing
  (and copying) the logits;
* ``bs16x128`` / ``bs4x512`` — same tokens per step in more shorter / fewer longer windows
  (changes the training itself);
* ``compile``   — ``torch.compile`` of the model (default mode; needs a working inductor);
* ``best``      — the combination of the variants that gain and change nothing learned beyond
  rounding (``no-fill`` + ``gelu-tanh`` + ``fused`` + ``malloc``); ``compile-best`` compiles
  the model of ``no-fill`` + ``fused`` + ``malloc`` (the compiler fuses the GELU itself).

Usage::

    python benchmarks/train_step.py                                  # every variant, both models
    python benchmarks/train_step.py --variants baseline pipeline best --repeats 5
    python benchmarks/train_step.py --variants baseline compile --models t4x256
    python benchmarks/train_step.py --csv train_step.csv
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import math
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import torch
import yaml

warnings.filterwarnings("ignore", message="TF32 acceleration")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from copyscope.config import validate  # noqa: E402
from copyscope.lm import train as T  # noqa: E402
from copyscope.lm.models import build_model  # noqa: E402

VARIANTS = {
    "baseline": {},
    "pipeline": {"pipeline": True, "fill": False, "malloc": True},
    "threads-1": {"threads": 1},
    "interop-1": {"interop": 1},
    "eager": {"attn": "eager"},
    "foreach": {"optim": "foreach"},
    "fused": {"optim": "fused"},
    "no-clip": {"clip": False},
    "no-det": {"deterministic": False},
    "no-fill": {"fill": False},
    "malloc": {"malloc": True},
    "no-mkldnn": {"mkldnn": False},
    "matmul-high": {"matmul": "high"},
    "matmul-medium": {"matmul": "medium"},
    "gelu-tanh": {"gelu": True},
    "loss-full": {"loss_full": True},
    "bs16x128": {"shape": (16, 128)},
    "bs4x512": {"shape": (4, 512)},
    "best": {"fill": False, "gelu": True, "optim": "fused", "malloc": True},
    "compile": {"compile": True},
    "compile-best": {"fill": False, "optim": "fused", "malloc": True, "compile": True},
}
DEFAULT_VARIANTS = [v for v in VARIANTS if not v.startswith("compile") and v != "interop-1"]


def model_specs(config_path: Path, names: list[str]) -> tuple[dict, int, int]:
    """``{name: spec}`` as the pipeline builds them (``copyscope.plan.Plan.model_spec``), the
    tokenizer's vocabulary size and the models' seed."""
    cfg = validate(yaml.safe_load(config_path.read_text()))
    models = cfg["models"]
    specs = {}
    for name in names:
        spec = copy.deepcopy(models["zoo"][name])
        spec["train"] = {**models["train"], **spec.get("train", {})}
        specs[name] = spec
    vocab = int(cfg["tokenizers"][models["tokenizer"]]["vocab_size"])
    return specs, vocab, int(models["seed"])


def zoo_names(config_path: Path) -> list[str]:
    """The trained models of the config's zoo (a pretrained model has no training step)."""
    zoo = validate(yaml.safe_load(config_path.read_text()))["models"]["zoo"]
    return [name for name, spec in zoo.items() if spec["kind"] != "pretrained"]


def full_loss(model, batch: torch.Tensor) -> torch.Tensor:
    """Cross entropy of every next token, without slicing the logits: the last position's
    target is ignored (the same mean as ``train._loss``, other summation order)."""
    mask = torch.ones_like(batch)
    logits = model(input_ids=batch, attention_mask=mask, use_cache=False).logits
    labels = torch.nn.functional.pad(batch[:, 1:], (0, 1), value=-100)
    return torch.nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]).float(), labels.reshape(-1), ignore_index=-100
    )


@contextlib.contextmanager
def knobs(v: dict):
    """The process-wide settings of variant ``v`` for the block."""
    threads, matmul = torch.get_num_threads(), torch.get_float32_matmul_precision()
    det = torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(v.get("threads", threads))
    torch.set_float32_matmul_precision(v.get("matmul", matmul))
    torch.use_deterministic_algorithms(v.get("deterministic", True))
    fill = torch.utils.deterministic.fill_uninitialized_memory
    torch.utils.deterministic.fill_uninitialized_memory = v.get("fill", True)
    if v.get("malloc"):
        T.keep_freed_memory(True)
    try:
        with torch.backends.mkldnn.flags(enabled=v.get("mkldnn", True)):
            yield
    finally:
        torch.set_num_threads(threads)
        torch.set_float32_matmul_precision(matmul)
        torch.use_deterministic_algorithms(det)
        torch.utils.deterministic.fill_uninitialized_memory = fill
        if v.get("malloc"):
            T.keep_freed_memory(False)


class Runner:
    """One model + optimizer + data of one variant; ``step()`` is one training step."""

    def __init__(self, spec: dict, vocab: int, seed: int, v: dict, bf16: bool):
        spec = copy.deepcopy(spec)
        bs, n_ctx = v.get("shape", (int(spec["train"]["batch_size"]), int(spec["n_ctx"])))
        spec["n_ctx"] = n_ctx
        self.v, self.bf16, self.bs = v, bf16, bs
        self.settings = T._train_settings(spec)
        torch.manual_seed(seed)
        self.model = build_model(spec, vocab, 0)
        if v.get("attn"):
            self.model.set_attn_implementation(v["attn"])
        fast = v.get("pipeline") and self.settings["fast_fp32"] and not bf16
        if v.get("gelu") or fast:
            T._fuse_gelu(self.model)
        self.model.train()
        rng = np.random.default_rng(seed)
        self.data = rng.integers(0, vocab, size=(64, bs, n_ctx), dtype=np.int64)
        self.valid = rng.integers(0, vocab, size=(self.settings["eval_batches"] * bs, n_ctx))
        self.i, self.cpu = 0, []
        if v.get("pipeline"):
            self.opt = T._optimizer(self.model, self.settings, fused=fast)
        else:
            kw = {"foreach": True} if v.get("optim") == "foreach" else {}
            kw.update({"fused": True} if v.get("optim") == "fused" else {})
            groups = T._param_groups(self.model, self.settings["weight_decay"])
            self.opt = torch.optim.AdamW(groups, lr=self.settings["lr"], betas=(0.9, 0.95), **kw)
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lambda s: 1.0)
        self.loss = T._loss if v.get("pipeline") else (full_loss if v.get("loss_full") else None)
        self.loss = self.loss or T._loss
        self.forward = self.model
        self.compile_s = None
        if v.get("compile"):
            self.forward = torch.compile(self.model)

    def autocast(self):
        if self.bf16:
            return torch.autocast(device_type="cpu", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def step(self) -> float:
        batch = torch.from_numpy(self.data[self.i % len(self.data)])
        self.i += 1
        cpu, start = time.process_time(), time.perf_counter()
        if self.v.get("pipeline"):
            T._train_step(self.model, batch, self.opt, self.settings, self.autocast)
        else:
            with self.autocast():
                loss = self.loss(self.forward, batch)
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            if self.v.get("clip", True) and self.settings["grad_clip"] > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.settings["grad_clip"])
            self.opt.step()
            float(loss.detach())
        self.sched.step()
        self.cpu.append(time.process_time() - cpu)
        return time.perf_counter() - start

    def evaluate(self) -> float:
        start = time.perf_counter()
        T._evaluate(self.model, self.valid, self.bs, torch.device("cpu"), self.autocast)
        return time.perf_counter() - start


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml")
    p.add_argument("--models", nargs="+", default=None, help="default: the config's zoo")
    p.add_argument("--variants", nargs="+", default=DEFAULT_VARIANTS, choices=list(VARIANTS))
    p.add_argument("--steps", type=int, default=3, help="timed steps per variant and round")
    p.add_argument("--repeats", type=int, default=3, help="interleaved rounds")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps per variant first")
    p.add_argument("--threads", type=int, default=2, help="intra-op threads (the rule's 2)")
    p.add_argument("--bf16", action="store_true", help="every variant under bf16 autocast")
    p.add_argument("--csv", type=Path, help="write the table here too")
    a = p.parse_args(argv)

    interop = {VARIANTS[v].get("interop") for v in a.variants} - {None}
    if interop:
        if len(a.variants) > 1:
            p.error("interop-1 must run alone (interop threads are fixed before any parallel work)")
        torch.set_num_interop_threads(interop.pop())
    torch.set_num_threads(a.threads)
    specs, vocab, seed = model_specs(a.config, a.models or zoo_names(a.config))
    rows = []
    for name, spec in specs.items():
        runners, times = {}, {}
        for vname in a.variants:
            v = VARIANTS[vname]
            with knobs(v):
                r = Runner(spec, vocab, seed, v, a.bf16)
                first = r.step()
                if v.get("compile"):
                    r.compile_s = first
                for _ in range(a.warmup - 1):
                    r.step()
            runners[vname], times[vname] = r, []
        evals = []
        for rep in range(a.repeats):
            for vname, r in runners.items():
                with knobs(r.v):
                    times[vname] += [r.step() for _ in range(a.steps)]
            with knobs({}):
                evals.append(runners[a.variants[0]].evaluate())
            print(f"{name}: round {rep + 1}/{a.repeats} done", file=sys.stderr, flush=True)
        base = statistics.median(times.get("baseline") or times[a.variants[0]])
        steps = math.ceil(spec["train"]["tokens"] / (runners[a.variants[0]].bs * spec["n_ctx"]))
        for vname, r in runners.items():
            med = statistics.median(times[vname])
            row = {
                "model": name,
                "variant": vname,
                "median_s_per_step": med,
                "ratio": med / base,
                "min_s_per_step": min(times[vname]),
                "median_cpu_s_per_step": statistics.median(r.cpu[max(1, a.warmup) :]),
                "timed_steps": len(times[vname]),
                "run_steps": steps,
                "compile_s": r.compile_s,
                "pays_off_after_steps": None,
            }
            if r.compile_s is not None and med < base:
                row["pays_off_after_steps"] = math.ceil((r.compile_s - med) / (base - med))
            rows.append(row)
        n_evals = math.ceil(steps / spec["train"]["eval_every"])
        ev = statistics.median(evals)
        rows.append(
            {
                "model": name,
                "variant": f"eval (x{n_evals} per run)",
                "median_s_per_step": ev,
                "ratio": n_evals * ev / (steps * base),
                "min_s_per_step": min(evals),
                "median_cpu_s_per_step": None,
                "timed_steps": len(evals),
                "run_steps": steps,
                "compile_s": None,
                "pays_off_after_steps": None,
            }
        )
    print_table(rows)
    if a.csv:
        import pandas as pd

        pd.DataFrame(rows).to_csv(a.csv, index=False)
    return 0


def print_table(rows: list[dict]) -> None:
    print(
        "| model | variant | median s/step | ratio vs baseline | CPU s/step | compile s "
        "| pays off after |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        comp = "" if r["compile_s"] is None else f"{r['compile_s']:.1f}"
        pays = "" if r["pays_off_after_steps"] is None else f"{r['pays_off_after_steps']} steps"
        cpu = "" if r["median_cpu_s_per_step"] is None else f"{r['median_cpu_s_per_step']:.3f}"
        print(
            f"| {r['model']} | {r['variant']} | {r['median_s_per_step']:.3f} | "
            f"{r['ratio']:.3f} | {cpu} | {comp} | {pays} |"
        )
    print("(eval rows: seconds per evaluation; ratio = the evaluations' share of the step time)")


if __name__ == "__main__":
    raise SystemExit(main())
