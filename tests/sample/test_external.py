"""Text from outside copyscope: generations files (config ``generations``) and prompt files
(``sampling.prompts: PATH``), their line checks, the sample rows they become, and how the
reports treat sets without model scores."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from copyscope.config import ConfigErrors, check_paths, validate
from copyscope.errors import InputError
from copyscope.io import read_jsonl
from copyscope.sample import write_prompts
from copyscope.sample.external import (
    check_setting_name,
    has_references,
    import_generations,
    prompt_file_windows,
    read_generations,
    read_prompt_file,
    reference_decoding,
)
from copyscope.tokenize import from_spec
from support.configs import DAGGER, MORROW, external_config, write_lines
from support.index import stream_of
from support.workflow import ROOT

TEXTS = ["to be or not to be, that is the question", "out, damned spot! out, I say!"] * 30
GOOD = [
    {"id": "a", "prompt": "to be or", "text": " not to be", "reference": " not to be, that"},
    {"id": 7, "prompt": "", "text": "out, damned spot!", "reference": "out, I say!", "t": 0.9},
]




@pytest.fixture(scope="module")
def tok(tmp_path_factory):
    """(directory, tokenizer) of a small BPE fitted on TEXTS."""
    tmp = tmp_path_factory.mktemp("tok")
    fitted = from_spec({"kind": "bpe", "vocab_size": 270}, "a").fit(TEXTS, tmp / "bpe")
    return tmp / "bpe", fitted.hf


# ------------------------------------------------------------------------ setting names
def test_setting_names():
    assert check_setting_name("api-model/top_p_0.9") == ("api-model", "top_p_0.9")
    assert reference_decoding("api-model", "top_p_0.9") == "api-model+top_p_0.9"
    for bad in ("api model/x", "a/b/c", "nodecoding", "a/", "/b", "a/.x", "a+b/x", "ü/x"):
        with pytest.raises(ValueError, match="expected <model>/<decoding>"):
            check_setting_name(bad)


# ------------------------------------------------------------------------ generations
def test_read_generations_keeps_fields_and_metadata(tmp_path):
    rows, refs = read_generations(write_lines(tmp_path / "g.jsonl", [GOOD[0], "", GOOD[1]]))
    assert refs is True and [r["line"] for r in rows] == [1, 3]
    assert rows[1] == {
        "line": 3,
        "id": 7,
        "prompt": "",
        "text": "out, damned spot!",
        "reference": "out, I say!",
        "meta": {"t": 0.9},
    }
    plain = [{k: v for k, v in g.items() if k != "reference"} for g in GOOD]
    rows, refs = read_generations(write_lines(tmp_path / "p.jsonl", plain))
    assert refs is False and "reference" not in rows[0]
    assert has_references(tmp_path / "g.jsonl") and not has_references(tmp_path / "p.jsonl")
    assert not has_references(tmp_path / "absent.jsonl")


BAD_LINES = [
    ({"id": "b", "prompt": "x"}, "field 'text': missing"),
    ({"prompt": "x", "text": "y"}, "field 'id': missing"),
    ('{"id": "b", "prompt": "x", "text": ', "expected one JSON object per line"),
    ('["b", "x", "y"]', "expected one JSON object per line, found a list"),
    ({"id": "b", "prompt": "x", "text": "  "}, "field 'text': expected a non-empty string"),
    ({"id": "b", "prompt": "x", "text": 3}, "field 'text': expected a string, found 3"),
    ({"id": "b", "prompt": None, "text": "y"}, "field 'prompt': expected a string, found null"),
    ({"id": "a", "prompt": "x", "text": "y"}, "field 'id': 'a' again \\(first on line 1\\)"),
    ({"id": True, "prompt": "x", "text": "y"}, "field 'id': expected a non-empty string or"),
    ({"id": "b", "prompt": "x", "text": "y", "reference": ""}, "field 'reference': expected a"),
]


@pytest.mark.parametrize("line,expected", BAD_LINES)
def test_a_bad_line_is_named_and_nothing_is_written(tok, tmp_path, line, expected):
    plain = {k: v for k, v in GOOD[0].items() if k != "reference"}
    path = write_lines(tmp_path / "g.jsonl", [plain, line])
    with pytest.raises(InputError, match=f"g.jsonl:2: {expected}"):
        read_generations(path)
    out = tmp_path / "out" / "samples.jsonl"
    with pytest.raises(InputError, match="g.jsonl:2: "):
        import_generations(path, tok[0], "m/d", 8, out)
    assert not out.parent.exists()


def test_references_are_on_every_line_or_none(tmp_path):
    plain = {k: v for k, v in GOOD[1].items() if k != "reference"}
    with pytest.raises(InputError, match="g.jsonl:2: field 'reference': every line has one or"):
        read_generations(write_lines(tmp_path / "g.jsonl", [GOOD[0], plain]))
    with pytest.raises(InputError, match="an.jsonl:2: field 'reference'.*absent on line 1"):
        read_generations(write_lines(tmp_path / "an.jsonl", [plain, GOOD[0]]))
    with pytest.raises(InputError, match="e.jsonl: expected at least one line"):
        read_generations(write_lines(tmp_path / "e.jsonl", ["", "  "]))


def test_import_generations_rows_in_the_index_tokenizer(tok, tmp_path):
    tok_dir, hf = tok
    path = write_lines(tmp_path / "g.jsonl", GOOD)
    out, ref = tmp_path / "s.jsonl", tmp_path / "h.jsonl"
    assert import_generations(path, tok_dir, "api/x", 8, out, ref) == (2, True)
    rows, human = list(read_jsonl(out)), list(read_jsonl(ref))
    enc = [hf.encode(g["text"], add_special_tokens=False) for g in GOOD]
    assert [r["ids"] for r in rows] == enc
    assert rows[0]["prompt"] == hf.encode("to be or", add_special_tokens=False)
    assert rows[1]["prompt"] == [] and rows[1]["prompt_tokens"] == 0
    assert rows[0]["prompt_tokens"] == len(rows[0]["prompt"])
    assert {(r["model"], r["decoding"], r["prompt_length"]) for r in rows} == {("api", "x", 8)}
    assert [r["window"] for r in rows] == [0, 1] and [r["gen_id"] for r in rows] == ["a", 7]
    assert rows[1]["meta"] == {"t": 0.9} and "meta" not in rows[0]
    assert [h["ids"] for h in human] == [
        hf.encode(g["reference"], add_special_tokens=False) for g in GOOD
    ]
    assert {(h["model"], h["decoding"]) for h in human} == {("human", "api+x")}
    assert [h["prompt"] for h in human] == [r["prompt"] for r in rows]
    # a human baseline needs references; a bad setting name is named
    plain = write_lines(tmp_path / "p.jsonl", [{"id": 1, "prompt": "", "text": "to be"}])
    with pytest.raises(InputError, match="field 'reference' on every line"):
        import_generations(plain, tok_dir, "api/x", 8, None, tmp_path / "r.jsonl")
    with pytest.raises(InputError, match="--setting: expected <model>/<decoding>"):
        import_generations(plain, tok_dir, "api x", 8, tmp_path / "q.jsonl")
    assert not (tmp_path / "r.jsonl").exists() and not (tmp_path / "q.jsonl").exists()


# ------------------------------------------------------------------------ prompt files
def test_prompt_files_txt_and_jsonl(tmp_path):
    txt = tmp_path / "p.txt"
    txt.write_text("to be or not\n\n out, damned spot\n", encoding="utf-8")
    rows, refs = read_prompt_file(txt)
    assert not refs and rows == [
        {"line": 1, "prompt": "to be or not"},
        {"line": 3, "prompt": " out, damned spot"},
    ]
    lines = [{"prompt": "to be or not", "reference": " to be", "x": 1}, {"prompt": "out"}]
    with pytest.raises(InputError, match="p.jsonl:2: field 'reference': every line"):
        read_prompt_file(write_lines(tmp_path / "p.jsonl", lines))
    with pytest.raises(InputError, match="q.jsonl:1: field 'prompt': missing"):
        read_prompt_file(write_lines(tmp_path / "q.jsonl", [{"reference": "x"}]))
    with pytest.raises(InputError, match="e.txt: expected at least one prompt"):
        (tmp_path / "e.txt").write_text("\n \n")
        read_prompt_file(tmp_path / "e.txt")


def test_prompt_windows_keep_the_last_tokens(tmp_path):
    def encode(text):  # one token per word: the word's length
        return [len(w) for w in text.split()]

    lines = [
        {"prompt": "a bb ccc dddd", "reference": "e ff ggg hhhh iiiii"},
        {"prompt": "zz yyy xxxx", "reference": "w"},
    ]
    path = write_lines(tmp_path / "p.jsonl", lines)
    windows, refs = prompt_file_windows(path, encode, [0, 2, 3], 3)
    assert refs and [w["window"] for w in windows] == [0, 1]
    assert windows[0]["prompts"] == {"0": [], "2": [3, 4], "3": [2, 3, 4]}
    assert windows[0]["continuation"] == [1, 2, 3]  # the first new_tokens of the reference
    assert windows[1]["prompts"]["3"] == [2, 3, 4] and windows[1]["continuation"] == [1]
    with pytest.raises(InputError, match="p.jsonl:2: field 'prompt': expected at least 4 tok"):
        prompt_file_windows(path, encode, [4], 3)


def test_write_prompts_from_a_file(tok, tmp_path):
    tok_dir, hf = tok
    doc = np.arange(3, 23)
    np.save(tmp_path / "v.npy", stream_of([doc, [1, 2]]))
    (tmp_path / "v.json").write_text(json.dumps({"doc_ids": ["a", "b"], "doc_lengths": [20, 2]}))
    params = {"prompt_length": 2, "prompt_lengths": [0], "new_tokens": 5, "prompts": 100,
              "seed": 0}  # fmt: skip
    args = (tmp_path / "v.npy", tmp_path / "v.json", tok_dir, params)
    lines = [{"prompt": "to be or not", "reference": " to be, that is"}, {"prompt": "out, I"}]
    lines[1]["reference"] = " say!"
    path = write_lines(tmp_path / "p.jsonl", lines)
    write_prompts(
        *args[:3], {**params, "prompts": path}, tmp_path / "w.jsonl", tmp_path / "h.jsonl"
    )
    windows, human = list(read_jsonl(tmp_path / "w.jsonl")), list(read_jsonl(tmp_path / "h.jsonl"))
    ids = hf.encode("to be or not", add_special_tokens=False)
    assert windows[0]["prompts"] == {"0": [], "2": ids[-2:]} and len(windows) == 2
    assert len(human) == 4 and {h["prompt_length"] for h in human} == {0, 2}
    ref = hf.encode(" to be, that is", add_special_tokens=False)[:5]
    assert human[0]["ids"] == ref and human[0]["text"] == hf.decode(ref)
    # no references: the held-out windows stay the human baseline, as many as the prompts
    txt = tmp_path / "p.txt"
    txt.write_text("to be or not\nout, I say\n")
    write_prompts(
        *args[:3], {**params, "prompts": str(txt)}, tmp_path / "w2.jsonl", tmp_path / "h2.jsonl"
    )
    assert [w["prompts"]["2"] for w in read_jsonl(tmp_path / "w2.jsonl")][0] == ids[-2:]
    human = list(read_jsonl(tmp_path / "h2.jsonl"))
    assert human[0]["ids"] == [5, 6, 7, 8, 9] and len(human) == 2 * 2  # 2 windows of doc a
    # a prompt too short: named, and nothing written
    short = write_lines(tmp_path / "s.jsonl", [{"prompt": "to be or not"}, {"prompt": "out"}])
    out = tmp_path / "new"
    with pytest.raises(InputError, match="s.jsonl:2: field 'prompt': expected at least 2"):
        write_prompts(*args[:3], {**params, "prompts": short}, out / "w.jsonl", out / "h.jsonl")
    assert not out.exists()


# ------------------------------------------------------------------------ config
def tiny(**changes) -> dict:
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg.update(changes)
    return cfg


def problems(cfg) -> list[str]:
    try:
        check_paths(validate(cfg))
    except ConfigErrors as exc:
        return str(exc).splitlines()
    return []


def test_config_generations_and_prompt_file(tmp_path):
    good = write_lines(tmp_path / "g.jsonl", GOOD)
    assert problems(tiny(generations={"api-model/top_p_0.9": good})) == []
    cfg = tiny()
    cfg["sampling"]["prompts"] = good  # its line 2 has an empty prompt: read now, not later
    assert problems(cfg) == [
        f"config key 'sampling.prompts': {good}:2: field 'prompt': expected a non-empty string"
    ]
    cfg["sampling"]["prompts"] = write_lines(tmp_path / "p.jsonl", [{"prompt": "to be or"}])
    assert problems(cfg) == []
    assert problems(tiny(generations={"api model/x": good})) == [
        "config key 'generations.api model/x': expected a name matching "
        "^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$, found a name with other "
        "characters"
    ]
    found = problems(tiny(generations={"gpt2-a/x": good, "m/pure": good, "m/y": str(tmp_path)}))
    assert found == [
        "config key 'generations.gpt2-a/x': expected a model name not in models.zoo (gpt2-a, "
        "gpt2-b, lstm) nor 'human', found 'gpt2-a'",
        "config key 'generations.m/pure': expected a decoding name not in sampling.decodings "
        "(pure, top_k_10, top_p_90, greedy, beam_2) nor reference / contaminated, found 'pure'",
    ]
    found = problems(tiny(generations={"m/y": str(tmp_path), "m/z": str(tmp_path / "no")}))
    assert found == [
        f"config key 'generations.m/y': expected an existing file, found a folder: "
        f"{str(tmp_path)!r}",
        f"config key 'generations.m/z': expected an existing file, found nothing there: "
        f"{str(tmp_path / 'no')!r}",
    ]
    cfg["sampling"]["prompts"] = str(tmp_path / "none.txt")
    assert problems(cfg) == [
        "config key 'sampling.prompts': expected an existing file, found nothing there: "
        f"{str(tmp_path / 'none.txt')!r}"
    ]


# ------------------------------------------------------------------------ reports
def test_reports_treat_unscored_sets_apart(tmp_path):
    from copyscope.report import family
    from copyscope.report.findings import without_unscored
    from copyscope.report.raven import _paired
    from copyscope.report.template_coverage import coverage_delta

    decodings = {"pure": {"kind": "sample", "temperature": 1.0}}
    assert family("pure", decodings) == "pure" and family("reference", decodings) == "human"
    assert family("top_p_0.9", decodings) == "external"
    assert family("api+top_p_0.9", decodings) == "human"

    t = pd.DataFrame(
        {"model": ["human", "human", "m", "api"], "decoding": ["reference", "api+x", "pure", "x"]}
    )
    kept = without_unscored({"a": t, "b": pd.DataFrame({"n": [1]})}, ["api/x", "human/api+x"])
    assert kept["a"].values.tolist() == [["human", "reference"], ["m", "pure"]]
    assert len(kept["b"]) == 1
    assert without_unscored({"a": t}, [])["a"] is t

    w = pd.DataFrame({"text": [0], "window": [0], "prompt_length": [8], "s_union": [1]})
    w.to_parquet(tmp_path / "w.parquet")
    pd.DataFrame(
        {"prompt_length": [8], "tokens": [2], "nll_sum": [1.0], "evaluator": ["e"]}
    ).to_csv(tmp_path / "q.csv", index=False)
    words = [("m", "pure", tmp_path / "w.parquet"), ("api", "x", tmp_path / "w.parquet")]
    quality = [("m", "pure", tmp_path / "q.csv")]
    got = list(_paired(words, quality, ["api/x"]))
    assert got[0][3] is not None and got[1][3] is None
    with pytest.raises(InputError, match="a quality file for api x"):
        list(_paired(words, quality))

    # template coverage: a set with references is compared with them, the others with the first
    cov = pd.DataFrame(
        {
            "model": ["human", "human", "m", "api"],
            "decoding": ["reference", "api+x", "pure", "x"],
            "decoding_family": ["human", "human", "pure", "external"],
            "n": [4] * 4,
            "cut": [10] * 4,
        }
    )
    flags = {
        ("human", "reference"): [False, False],
        ("human", "api+x"): [True, True],
        ("m", "pure"): [True, False],
        ("api", "x"): [True, True],
    }
    delta = coverage_delta(cov, flags, n_boot=20, seed=0)
    assert delta["coverage_human"].tolist() == [0.0, 1.0]
    assert delta["delta"].tolist() == [0.5, 0.0]


def test_analyze_setting_without_an_evaluator(tok, tmp_path):
    from copyscope.analyze import analyze_setting
    from copyscope.index import Index, build_index
    from copyscope.io import write_json

    tok_dir, hf = tok
    docs = [hf.encode(t, add_special_tokens=False) for t in TEXTS[:2]]
    build_index(stream_of(docs), tmp_path / "index")
    words = from_spec({"kind": "moses"}, "w").fit(TEXTS, tmp_path / "words")
    build_index(stream_of([words.encode(t) for t in TEXTS[:2]], np.uint32), tmp_path / "wi")
    write_json(tmp_path / "manifest.json", {"injected": []})
    import_generations(write_lines(tmp_path / "g.jsonl", GOOD), tok_dir, "api/x", 8,
                       tmp_path / "s.jsonl")  # fmt: skip
    inputs = {
        "samples": tmp_path / "s.jsonl",
        "tokenizer": tok_dir,
        "index": tmp_path / "index",
        "word_tokenizer": tmp_path / "words",
        "word_index": tmp_path / "wi",
        "manifest": tmp_path / "manifest.json",
    }
    names = {"tokens": "parquet", "words": "parquet", "supercopies": "csv", "planted": "csv"}
    out = {k: tmp_path / "a" / f"{k}.{e}" for k, e in names.items()}
    analyze_setting(inputs, out, evaluator_same_tokenizer=True, supercopy_min=3,
                    planted_min_copy=4)  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(
        p.name for p in out.values()
    )
    tokens = pd.read_parquet(out["tokens"])
    gens = [hf.encode(g["text"], add_special_tokens=False) for g in GOOD]
    m = Index(tmp_path / "index").longest_matches([np.asarray(g, np.int64) for g in gens])
    assert tokens["L"].tolist() == np.concatenate(m.split_lengths()).tolist()
    assert (tokens["prompt_length"] == 8).all()
    with pytest.raises(InputError, match="an evaluator and a quality file, both or neither"):
        analyze_setting(inputs, {**out, "quality": tmp_path / "q.csv"},
                        evaluator_same_tokenizer=True, supercopy_min=3, planted_min_copy=4)  # fmt: skip






@pytest.mark.e2e
def test_generations_and_prompt_files_run_end_to_end(tmp_path):
    from copyscope.index import Index
    from copyscope.tokenize import load, load_hf_tokenizer
    from support.workflow import snakemake

    cfg = external_config(tmp_path)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake("--cores", "2", "--configfile", str(tmp_path / "config.yaml"))
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = tmp_path / "results"
    hf = load_hf_tokenizer(out / "tokenizers/bpe")

    def enc(text):
        return np.asarray(hf.encode(text, add_special_tokens=False), np.int64)

    # the prompt file: one window per prompt (its last 8 tokens), its references the baseline
    windows = list(read_jsonl(out / "prompts/prompts.jsonl"))
    assert len(windows) == 3
    first = cfg["sampling"]["prompts"]
    prompt = json.loads(open(first).readline())["prompt"]
    assert windows[0]["prompts"]["8"] == enc(prompt)[-8:].tolist()
    human = [
        r for r in read_jsonl(out / "samples/human/reference.jsonl") if r["prompt_length"] == 8
    ]
    assert human[1]["ids"] == enc(" mock the meat it feeds on.").tolist()
    rows = list(read_jsonl(out / "samples/gpt2-a/pure.jsonl"))
    assert {tuple(r["prompt"]) for r in rows if r["prompt_length"] == 8} == {
        tuple(w["prompts"]["8"]) for w in windows
    }

    # the generations: analysed against the index in its tokens, without model scores
    setting = out / "analysis/api-model/top_p_0.9"
    assert sorted(p.name for p in setting.iterdir()) == [
        "planted.csv", "supercopies.csv", "tokens.parquet", "words.parquet"
    ]  # fmt: skip
    assert sorted(p.name for p in (out / "analysis/human/api-model+top_p_0.9").iterdir()) == [
        "planted.csv", "supercopies.csv", "tokens.parquet", "words.parquet"
    ]  # fmt: skip
    gens = [enc(" " + DAGGER), enc(MORROW)]
    tokens = pd.read_parquet(setting / "tokens.parquet")
    m = Index(out / "index/bpe").longest_matches(gens)
    assert tokens["L"].tolist() == np.concatenate(m.split_lengths()).tolist()
    assert tokens["C"].tolist() == m.count.tolist()
    assert tokens[tokens["text"] == 0]["L"].max() >= 6  # Macbeth is in training
    words = load("moses", out / "tokenizers/words")
    wq = [
        words.encode(" " + DAGGER),
        words.encode(MORROW),
    ]
    wm = Index(out / "index/words-joined").longest_matches(wq)
    wframe = pd.read_parquet(setting / "words.parquet")
    assert wframe["L_train"].tolist() == np.concatenate(wm.split_lengths()).tolist()
    ref = pd.read_parquet(out / "analysis/human/api-model+top_p_0.9/tokens.parquet")
    assert ref["text"].nunique() == 2 and len(ref) == sum(len(g) for g in [enc(" " + DAGGER),
        enc("Fair is foul, and foul is fair: hover through the fog.")])  # fmt: skip

    # in every per-setting table; perplexity n/a; never among the scorecard's models
    key = {("api-model", "top_p_0.9"), ("human", "api-model+top_p_0.9")}
    for table in ("nnsl_samples", "raven_summary", "syntax_novelty", "templates",
                  "template_coverage", "supercopies_by_source"):  # fmt: skip
        t = pd.read_csv(out / f"tables/{table}.csv")
        assert key <= set(t[["model", "decoding"]].itertuples(index=False, name=None)), table
    nnsl = pd.read_csv(out / "tables/nnsl_samples.csv")
    assert set(nnsl[nnsl["model"] == "api-model"]["family"]) == {"external"}
    raven = pd.read_csv(out / "tables/raven_summary.csv")
    assert raven[raven["model"] == "api-model"]["perplexity"].isna().all()
    assert raven[raven["model"] == "gpt2-a"]["perplexity"].notna().all()
    planted = pd.read_csv(out / "tables/planted.csv")  # pooled: copyscope's own sets only
    assert "api-model" not in set(planted["model"])
    assert "api-model+top_p_0.9" not in set(planted["decoding"])
    card = (out / "findings.csv").read_text()
    assert "api-model" not in card and "top_p_0.9" not in card
    assert (out / "summary.md").is_file()

    # the own benchmarks: every item and 8 + 8 corpus baseline passages scored by the model
    scores = pd.read_csv(out / "tables/own_benchmark_scores.csv")
    assert scores.groupby("benchmark")["set"].value_counts().to_dict() == {
        ("mine-mc", "benchmark"): 3, ("mine-mc", "clean"): 8, ("mine-mc", "memorised"): 8,
        ("mine-qa", "benchmark"): 6, ("mine-qa", "clean"): 8, ("mine-qa", "memorised"): 8,
    }  # fmt: skip
    assert scores[(scores["benchmark"] == "mine-mc") & (scores["set"] == "benchmark")][
        "label"].isna().all()  # fmt: skip
    place = pd.read_csv(out / "tables/own_benchmark_placement.csv")
    assert {"benchmark_label_1", "benchmark_label_0"} <= set(place[place["benchmark"] == "mine-qa"]["set"])
    det = pd.read_csv(out / "tables/own_benchmark_detectors.csv")
    assert set(det["benchmark"]) == {"mine-qa"} and (det["n_members"] == 3).all()
    summary = (out / "summary.md").read_text()
    assert "mine-mc (multiple_choice), gpt2-a:" in summary and "no ground truth" in summary
