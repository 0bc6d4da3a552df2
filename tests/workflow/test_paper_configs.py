"""The papers' configurations (config/papers/*.yaml) plan and run a whole run as they are: each
is dry-run (``snakemake -n``) and run end to end on stand-ins in the same layout, made here — a
tiny infini-gram index built by infini-gram's own indexer, tokenizer files, tiny random GPT-2
folders for every model and checkpoint (``save_pretrained``), a small corpus and book — with the
paths overridden by ``--config`` as a user would point them at their own copies. The end-to-end
run keeps one model and one decoding of each kind (:func:`one_of_a_kind`: the stand-ins of a
file's sizes are one and the same folder) and scales the counts down (:data:`STAND_IN_COUNTS`:
prompts, tokens per continuation, bootstrap and calibration draws); the indexes, tokenizers,
checkpoints and evaluators run as the paper's file sets them."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from support.configs import write_book
from support.models import write_pretrained
from support.tokenizers import tokenizer_file
from support.workflow import ROOT, snakemake

PAPERS = sorted((ROOT / "config" / "papers").glob("*.yaml"))

TEXTS = [
    "The cat sat on the mat while the dog slept by the fire, and nobody said a word.",
    "In the morning the old house stood quiet by the river, and the garden was wet.",
] * 30


class StandIns:
    """Files in the layout a paper config names, under ``root`` (a path ``/data/x`` becomes
    ``root/data/x``), and the ``--config`` overrides that point the config at them."""

    def __init__(self, root: Path):
        self.root = root
        self.model = None  # the first model folder, copied for the others (same layout)

    def at(self, path: str) -> Path:
        return self.root / str(path).lstrip("/")

    def model_folder(self, path: str) -> str:
        where = self.at(path)
        if not where.exists():
            if self.model is None:
                self.model = write_pretrained(where, TEXTS, n_ctx=2048)
            else:
                shutil.copytree(self.model, where)
        return str(where)

    def tokenizer(self, kind: str) -> str:
        path = kind.removeprefix("hf:")
        if path.endswith(".json"):  # a released index's tokenizer file
            where = self.at(path)
            if not where.exists():
                tokenizer_file(where, TEXTS, 300)
            return f"hf:{where}"
        return f"hf:{self.model_folder(path)}"  # a model folder's own tokenizer

    def infinigram(self, path: str, kind: str) -> str:
        from copyscope.tokenize import load_hf_tokenizer
        from support.infinigram import build_infinigram

        tok = load_hf_tokenizer(kind.removeprefix("hf:"))
        docs = [tok.encode(t, add_special_tokens=False) for t in TEXTS[:4]]
        where = self.at(path)
        return str(build_infinigram(where.parent, {where.name: (docs, "u16", 1, False)})[where.name])

    def corpus(self, spec: dict) -> str:
        where = self.at(spec["path"])
        if spec["source"] == "txt":
            where.mkdir(parents=True, exist_ok=True)
            for i in range(6):
                (where / f"doc{i}.txt").write_text("\n\n".join(TEXTS[i : i + 8]) + "\n")
        else:
            where.parent.mkdir(parents=True, exist_ok=True)
            field, ident = spec.get("text_field", "text"), spec.get("id_field", "id")
            rows = [{field: " ".join(TEXTS[i : i + 16]), **({ident: f"d{i}"} if ident else {})}
                    for i in range(50)]  # fmt: skip
            where.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return str(where)

    def overrides(self, cfg: dict) -> dict:
        """The config's keys that name files, pointed at their stand-ins."""
        out: dict = {"results": str(self.root / "results")}
        out["corpus"] = {"path": self.corpus(cfg["corpus"])}
        zoo = {}
        for m, spec in cfg["models"]["zoo"].items():
            zoo[m] = {"path": self.model_folder(spec["path"])}
            if spec.get("checkpoints"):
                zoo[m]["checkpoints"] = [
                    {"step": c["step"], "path": self.model_folder(c["path"])}
                    for c in spec["checkpoints"]
                ]
        toks = {}
        for t, spec in cfg["tokenizers"].items():
            if str(spec["kind"]).startswith("hf:"):
                toks[t] = {"kind": self.tokenizer(spec["kind"])}
                index = spec.get("index")
                if isinstance(index, dict) and index.get("format") == "infini-gram":
                    toks[t]["index"] = {"path": self.infinigram(index["path"], toks[t]["kind"])}
        out["tokenizers"], out["models"] = toks, {"zoo": zoo}
        books = cfg.get("analysis", {}).get("membership", {}).get("books", {})
        if books:
            made = {}
            for b, spec in books.items():
                where = self.at(spec["text"])
                where.parent.mkdir(parents=True, exist_ok=True)
                made[b] = {"text": str(write_book(where.parent, where.stem))}
            out["analysis"] = {"membership": {"books": made}}
        return out


STAND_IN_COUNTS = {
    "sampling": {"prompts": 4, "new_tokens": 16, "batch_size": 4},
    "novelty": {"continuation_tokens": 16, "max_windows": 20, "bootstrap": 50},
    "findings": {
        "calibration": {"draws": 10},
        "power": {"draws": 5, "sizes": [2, 4], "copier_span": 8},
    },
}
"""The counts an end-to-end run on stand-ins scales down (a paper's 100 prompts x 1,000 tokens
would need a stand-in corpus of its size)."""


def one_of_a_kind(cfg: dict) -> dict:
    """``cfg`` with the sizes and decodings that stand for each other cut to one each, for an
    end-to-end run on stand-ins (every stand-in model has the same layout): the zoo keeps
    the models another key names (the evaluators, ``sampling.grid_models``,
    ``prompt_length_models``, ``training_prompts.models``), a checkpoint series its first
    checkpoint; the decodings keep the first of
    each kind (sample, greedy, beam) and every decoding another key names; the tokenizers
    keep those the kept models, the prompts, the novelty and the words use."""
    cfg = copy.deepcopy(cfg)
    models, sampling = cfg["models"], cfg["sampling"]
    training = sampling.get("training_prompts") or {}
    named = {models["evaluator"], *models.get("evaluators", {}).values(),
             *sampling.get("grid_models", []), *sampling.get("prompt_length_models", []),
             *training.get("models", [])}  # fmt: skip
    models["zoo"] = {m: spec for m, spec in models["zoo"].items() if m in named}
    for spec in models["zoo"].values():
        if spec.get("checkpoints"):
            spec["checkpoints"] = spec["checkpoints"][:1]
    decodings = {*sampling.get("shared_decodings", []),
                 *sampling.get("prompt_length_decodings", []),
                 *cfg.get("explorer", {}).get("decodings", []), *training.get("decodings", []),
                 cfg["findings"].get("raven_decoding"), cfg["findings"].get("pure_decoding")}  # fmt: skip
    first = {}
    for d, spec in sampling["decodings"].items():
        first.setdefault(spec["kind"], d)
    sampling["decodings"] = {
        d: spec
        for d, spec in sampling["decodings"].items()
        if d in decodings or first[spec["kind"]] == d
    }
    tokenizers = {models["tokenizer"], cfg["analysis"]["words"], *cfg["novelty"]["tokenizers"]}
    for spec in models["zoo"].values():
        tokenizers |= {spec["tokenizer"], spec.get("index_tokenizer", spec["tokenizer"])}
    cfg["tokenizers"] = {t: spec for t, spec in cfg["tokenizers"].items() if t in tokenizers}
    return cfg


def config_flags(overrides: dict) -> list[str]:
    return ["--config", *(f"{k}={json.dumps(v)}" for k, v in overrides.items())]


def test_there_is_one_config_per_paper_setting():
    assert [p.name for p in PAPERS] == [
        "merrill-pythia-pile.yaml", "olmo-dolma-books.yaml", "raven-gpt2-webtext.yaml"
    ]  # fmt: skip
    for path in PAPERS:  # each names what to download, the resources and a run-time estimate
        head = path.read_text().split("\nresults:")[0]
        for word in ("download", "GPU", "disk", "Run time", "docs/real-models.md"):
            assert word.lower() in head.lower(), (path.name, word)


@pytest.mark.e2e
@pytest.mark.parametrize("path", PAPERS, ids=[p.stem for p in PAPERS])
def test_a_paper_config_plans_its_run_on_stand_ins(path, tmp_path):
    pytest.importorskip("infini_gram")
    cfg = yaml.safe_load(path.read_text())
    overrides = StandIns(tmp_path).overrides(cfg)
    proc = snakemake("-n", "-p", "--configfile", str(path), *config_flags(overrides), timeout=900)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
    out = proc.stdout
    results = overrides["results"]
    for model in cfg["models"]["zoo"]:
        assert f"{results}/samples/{model}/" in out, model
        assert f"{results}/analysis/{model}/" in out, model
    for tok, spec in cfg["tokenizers"].items():
        if isinstance(spec.get("index"), dict):  # linked in place, never built
            assert f"--index {overrides['tokenizers'][tok]['index']['path']}" in out
            assert f"logs/index_plan/{tok}" not in out
    for model, spec in cfg["models"]["zoo"].items():
        if spec.get("index_tokenizer", spec["tokenizer"]) != spec["tokenizer"]:
            assert f"--index-tokenizer {results}/tokenizers/{spec['index_tokenizer']}" in out
        for c in spec.get("checkpoints") or []:
            assert f"{results}/samples/{model}@step{c['step']}/" in out
    assert f"{results}/summary.md" in out or f"{results}/tables/" in out


@pytest.mark.e2e
@pytest.mark.parametrize("path", PAPERS, ids=[p.stem for p in PAPERS])
def test_a_paper_config_runs_end_to_end_on_stand_ins(path, tmp_path):
    """The whole run of a paper's file on its stand-ins, to the scorecard, the report and the
    explorer — one size and one decoding of each kind (:func:`one_of_a_kind`; the dry run
    above plans every one), the counts scaled down (:data:`STAND_IN_COUNTS`): every model and
    checkpoint sampled and analysed in the index's tokens."""
    pytest.importorskip("infini_gram")
    cfg = one_of_a_kind(yaml.safe_load(path.read_text()))
    (tmp_path / path.name).write_text(yaml.safe_dump(cfg, sort_keys=False))
    overrides = StandIns(tmp_path).overrides(cfg) | STAND_IN_COUNTS
    proc = snakemake("--cores", "2", "--configfile", str(tmp_path / path.name),
                     *config_flags(overrides), timeout=1500)  # fmt: skip
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
    results = Path(overrides["results"])
    for f in ("summary.md", "findings.md", "findings.csv", "tables/runtime.csv",
              "explorer/index.html"):  # fmt: skip
        assert (results / f).stat().st_size > 0, f
    models = []
    for m, spec in cfg["models"]["zoo"].items():
        models += [m, *(f"{m}@step{c['step']}" for c in spec.get("checkpoints") or [])]
    for m in models:
        samples = sorted((results / "samples" / m).glob("*.jsonl"))
        assert samples and all(p.stat().st_size > 0 for p in samples), m
    novelty = pd.read_csv(results / "tables/novelty_samples.csv")
    assert set(models) <= set(novelty["model"]), set(models) - set(novelty["model"])
    for m, spec in cfg["models"]["zoo"].items():  # in the index's tokens where they differ
        rows = novelty[novelty["model"].str.split("@").str[0] == m]
        assert set(rows["tokenizer"]) == {spec.get("index_tokenizer", spec["tokenizer"])}, m
    index_tok = cfg["models"]["tokenizer"]
    summary = (results / "summary.md").read_text()
    if all(s["tokenizer"] != index_tok for s in cfg["models"]["zoo"].values()):
        from copyscope.report.completion_loss import NO_MODEL

        assert f"not measured: {NO_MODEL}." in summary  # Pythia against the Llama-2 index


def test_one_of_a_kind_keeps_every_model_and_decoding_another_key_names():
    merrill = one_of_a_kind(yaml.safe_load(PAPERS[0].read_text()))
    assert list(merrill["models"]["zoo"]) == ["pythia-6.9b", "pythia-12b"]  # grid + shared
    assert list(merrill["sampling"]["decodings"]) == [
        "pure", "top_k_100", "greedy", "beam_4", "beam_8"
    ]  # fmt: skip
    assert list(merrill["tokenizers"]) == [
        "llama2", "pythia-6.9b", "pythia-12b", "words"
    ]  # fmt: skip
    raven = one_of_a_kind(yaml.safe_load(PAPERS[2].read_text()))
    assert list(raven["models"]["zoo"]) == ["gpt2-large", "gpt2-xl"]
    assert list(raven["sampling"]["decodings"]) == ["pure", "top_k_40"]
    olmo = one_of_a_kind(yaml.safe_load(PAPERS[1].read_text()))
    assert [c["step"] for c in olmo["models"]["zoo"]["olmo-1b"]["checkpoints"]] == [20000]
