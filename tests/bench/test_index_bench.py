"""benchmarks/index_bench.py at a tiny size: every peer runs, every query mix and both query
kinds are measured, the answers agree, and the cross-checks catch a planted difference."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import statistics
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from support.index import brute_count
from support.workflow import ROOT

SPEC = importlib.util.spec_from_file_location("index_bench", ROOT / "benchmarks/index_bench.py")
bench = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(bench)

pytestmark = pytest.mark.bench  # runs benchmarks/index_bench.py

TINY = [
    "--sizes", "20000",
    "--mix-tokens", "2000",
    "--query-len", "100",
    "--pipeline-texts", "4",
    "--pipeline-len", "32",
    "--ngrams-per-n", "12",
    "--count-batch", "50",
    "--single-ngrams", "40",
    "--brute-ngrams", "3",
    "--doc-mean", "200",
    "--vocab", "300",
    "--repeats", "1",
    "--infini-lc-tokens", "300",
]  # fmt: skip


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("index_bench")
    out = tmp / "out.json"
    rc = bench.main([*TINY, "--workdir", str(tmp), "--keep-workdir", "--out", str(out)])
    report = json.loads(out.read_text())
    folder = next(Path(report["workdir"]).iterdir())
    return {"rc": rc, "report": report, "folder": folder}


def test_every_peer_and_mix_is_measured_and_agrees(run):
    assert run["rc"] == 0
    (res,) = run["report"]["results"]
    assert res["match"] and res["mismatches"] == []
    # peak RSS in MiB (not KiB or bytes): more than an interpreter with numpy, less than the
    # machine; pydivsufsort's child held its arrays
    total_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / bench.MB
    for tool in ("build", "query", "sais", "rdawg", "tokengrams", "infinigram"):
        assert 10 < res[tool]["peak_rss_mb"] < total_mb, tool
    assert res["sais"]["peak_rss_mb"] * bench.MB >= res["sais"]["array_bytes"]
    # the peers' indexes on disk: what they report, at least the tokens and one suffix
    # position per token
    n = res["n_tokens"]
    for tool, sub in (("tokengrams", "tg"), ("infinigram", "ig")):
        assert res[tool]["seconds"] == statistics.median(res[tool]["all_seconds"])
        assert res[tool]["bytes_on_disk"] == bench.dir_bytes(run["folder"] / sub), tool
        assert res[tool]["bytes_per_token"] == pytest.approx(res[tool]["bytes_on_disk"] / n)
        assert res[tool]["bytes_on_disk"] >= n * (2 + math.ceil(math.log2(n) / 8)), tool
    # every rate is the tokens of the stored mix (what was queried) over the median time
    cs_counts = np.load(run["folder"] / "cs_counts.npy")
    assert res["tokengrams"]["query"]["positions_total"] == cs_counts.sum()
    for mix in bench.MIXES:
        calls = bench.load_mix(run["folder"] / f"mix-{mix}.npz")
        tokens = sum(len(t) for call in calls for t in call)
        q, rd = res["query"]["mixes"][mix], res["rdawg"]["mixes"][mix]
        assert q["n_query_tokens"] == tokens == res["queries"][mix]["tokens"]
        assert q["tokens_per_s"] == pytest.approx(tokens / statistics.median(q["seconds"]))
        assert rd["tokens_per_s"] == pytest.approx(tokens / statistics.median(rd["seconds"]))
        ig = res["infinigram"]["query"]["mixes"][mix]
        assert ig["n_query_tokens"] == sum(len(t) for t in bench.first_texts(calls, 300)) <= 300
        assert ig["tokens_per_s"] == pytest.approx(
            ig["n_query_tokens"] / statistics.median(ig["seconds"])
        )
    assert res["queries"]["pipeline"]["calls"] == 2000 // (4 * 32)
    assert res["queries"]["ngrams"]["n"] == 32 * 12
    assert res["query"]["count_calls"] == -(-32 * 12 // 50)  # calls of --count-batch n-grams
    assert res["query"]["single_ngrams_per_s"] > 0
    cli = res["count_cli"]  # one count in a fresh process, checked against brute force
    assert cli["count"] == cli["expected"] >= 1 and len(cli["ids"].split(",")) == 4
    assert 0 < cli["cpu_seconds"] and 0 < cli["wall_seconds"] < 30
    assert res["infinigram"]["query"]["approximate_counts"] == 0
    # copied text has long matches, fresh text short ones
    mixes = res["query"]["mixes"]
    assert mixes["copied"]["mean_L"] > 3 * mixes["fresh"]["mean_L"]


def test_tables_and_targets_name_every_peer_and_mix(run):
    tables = run["report"]["tables"]
    for name in ("copyscope", "pydivsufsort", "rusty-dawg", "tokengrams", "infini-gram"):
        assert name in tables["tools"]
    for mix in bench.MIXES:
        assert f"| {mix} |" in tables["mixes"]
    targets = {t["target"]: t for t in run["report"]["targets"]}
    (res,) = run["report"]["results"]
    for mix in bench.MIXES:  # the status the run's own rates imply
        speedup = (
            res["query"]["mixes"][mix]["tokens_per_s"] / res["rdawg"]["mixes"][mix]["tokens_per_s"]
        )
        target = targets[f"query speedup vs rusty-dawg, mix {mix}"]
        assert target["per_size"][bench.size_label(20000)]["value"] == pytest.approx(speedup)
        assert target["status"] == ("PASS" if speedup >= bench.MIN_SPEEDUP else "FAIL")
    ratio = res["build"]["seconds"] / res["sais"]["median_seconds"]
    build = targets["build ratio vs pydivsufsort"]
    assert build["status"] == ("PASS" if ratio <= bench.MAX_BUILD_RATIO else "FAIL")
    assert targets["build ratio vs pydivsufsort"]["limit"] == "≤ 1.3×"
    peers = bench.peer_count_rates(res)  # the status the run's own count rates imply
    count_speedup = res["query"]["ngrams_per_s"] / max(peers.values())
    counts = targets["batched n-gram counts vs the fastest peer"]
    assert counts["per_size"][bench.size_label(20000)]["value"] == pytest.approx(count_speedup)
    assert counts["status"] == ("PASS" if count_speedup >= bench.MIN_COUNT_SPEEDUP else "FAIL")
    assert targets["copyscope count in a fresh process (wall s)"]["limit"] == "≤ 0.5 s"
    for name in ("rusty-dawg", "tokengrams", "infini-gram"):
        assert f"| {name} |" in tables["counts"]
    assert targets[next(t for t in targets if t.startswith("answers"))]["status"] == "PASS"


def test_copyscope_on_infinigrams_own_index(run):
    """copyscope queries infini-gram's index folder (every position of every mix, the batched
    counts, a fresh-process query), its answers cross-checked; the ratios to infini-gram's
    fastest route are the targets of issue 38."""
    (res,) = run["report"]["results"]
    ig = res["infinigram"]
    cs = ig["copyscope"]
    assert cs["pointer_bytes"] == [math.ceil(math.log2(2 * res["n_tokens"]) / 8)]
    targets = {t["target"]: t for t in run["report"]["targets"]}
    for mix in bench.MIXES:
        assert cs["mixes"][mix]["tokens_per_s"] > 0
        m = ig["query"]["mixes"][mix]
        ratio = cs["mixes"][mix]["tokens_per_s"] / max(
            m["tokens_per_s"], m["creativity_tokens_per_s"]
        )
        t = targets[f"L_t/C_t on infini-gram's index vs infini-gram's fastest, mix {mix}"]
        assert t["per_size"][bench.size_label(20000)]["value"] == pytest.approx(ratio)
        assert t["status"] == ("PASS" if ratio >= bench.MIN_IG_SPEEDUP else "FAIL")
        assert f"mix {mix} (tok/s)" in run["report"]["tables"]["infinigram"]
    ratio = cs["ngrams_per_s"] / ig["query"]["ngrams_per_s"]
    t = targets["batched n-gram counts on infini-gram's index vs infini-gram's count"]
    assert t["status"] == ("PASS" if ratio >= bench.MIN_IG_COUNT_SPEEDUP else "FAIL")
    np.testing.assert_array_equal(
        np.load(run["folder"] / "csig_counts.npy"), np.load(run["folder"] / "cs_counts.npy")
    )
    cold = ig["cold"]
    assert len(cold["L"]) == len(cold["C"]) == 32 and cold["L"][-1] >= 1
    assert cold["infinigram_count"] == cold["expected_count"] >= 1
    assert 0 < cold["wall_seconds"] < 30


def test_counts_equal_an_independent_brute_force(run):
    folder = run["folder"]
    corpus = np.load(folder / "corpus.npy")
    seps = np.flatnonzero(corpus == bench.SEP)
    docs = np.split(corpus[: seps[-1]], seps[:-1] + 1)
    docs = [d[d != bench.SEP] for d in docs]
    ngrams = bench.load_ngrams(folder / "ngrams.npz")
    counts = np.load(folder / "cs_counts.npy")
    for i in range(0, len(ngrams), 7):
        assert counts[i] == brute_count(docs, ngrams[i]), i
    assert np.count_nonzero(counts == 0) > 0 and np.count_nonzero(counts > 1) > 0
    lengths = [len(g) for g in ngrams]
    assert lengths == sorted(lengths) and lengths[-1] == 32  # stored by n = 1..32
    # half corpus windows (every one present), half fresh text
    assert all(counts[i] >= 1 for i in range(0, len(ngrams), 2))


@pytest.mark.parametrize(
    ("path", "check"),
    [
        ("rd_copied_C.npy", "L_t/C_t rusty-dawg vs copyscope, mix copied"),
        ("ig_pipeline_L.npy", "L_t/C_t infini-gram vs copyscope, mix pipeline"),
        ("igc_fresh_L.npy", "L_t infini-gram creativity vs copyscope, mix fresh"),
        ("tg_counts.npy", "n-gram counts tokengrams vs copyscope"),
        ("ig_counts.npy", "n-gram counts infini-gram vs copyscope"),
        ("rd_counts.npy", "n-gram counts rusty-dawg vs copyscope"),
        ("bf_counts.npy", "n-gram counts brute force vs copyscope"),
        ("csig_large_C.npy", "L_t/C_t copyscope on infini-gram's index vs copyscope, mix large"),
        ("csig_counts.npy", "n-gram counts copyscope on infini-gram's index vs copyscope"),
    ],
)
def test_cross_checks_report_a_planted_difference(run, tmp_path, path, check):
    folder = tmp_path / "size"
    shutil.copytree(run["folder"], folder)
    answers = np.load(folder / path)
    answers[3] += 1
    np.save(folder / path, answers)
    mm, *more = bench.cross_checks(folder, list(bench.PEERS))
    assert mm["check"] == check
    # tokengrams' positions are checked against its counts too
    assert [m["check"] for m in more] == ["n-gram positions tokengrams vs brute force"] * (
        path == "tg_counts.npy"
    )
    if "position" in mm:
        assert (mm["text"], mm["position"]) == (0, 3)
    line = bench.describe_mismatch(20000, mm)
    assert line.startswith("ERROR at 20,000 tokens: " + check)


def test_planted_positions_difference_and_exit_status(run, tmp_path, capsys):
    folder = tmp_path / "size"
    shutil.copytree(run["folder"], folder)
    z = dict(np.load(folder / "tg_positions.npz"))
    z["flat"][-1] += 1
    np.savez(folder / "tg_positions.npz", **z)
    (mm,) = bench.cross_checks(folder, list(bench.PEERS))
    assert mm["check"] == "n-gram positions tokengrams vs brute force"
    assert bench.exit_status([{"n_tokens": 20000, "mismatches": [mm]}], tmp_path) == 1
    assert "positions tokengrams vs brute force differ" in capsys.readouterr().err
    assert bench.exit_status([{"n_tokens": 20000, "mismatches": []}], tmp_path) == 0


def test_count_target_compares_with_the_fastest_peer(run):
    res = json.loads(json.dumps(run["report"]["results"][0]))
    rate = res["query"]["ngrams_per_s"]
    res["rdawg"]["ngrams_per_s"] = rate / 10
    res["infinigram"]["query"]["ngrams_per_s"] = rate / 10
    res["tokengrams"]["query"]["ngrams_per_s"] = rate / 1.9  # the fastest peer decides
    target = "batched n-gram counts vs the fastest peer"
    assert {t["target"]: t["status"] for t in bench.evaluate_targets([res])}[target] == "FAIL"
    res["tokengrams"]["query"]["ngrams_per_s"] = rate / 2.1
    assert {t["target"]: t["status"] for t in bench.evaluate_targets([res])}[target] == "PASS"


def test_speedup_target_fails_below_ten(run):
    res = json.loads(json.dumps(run["report"]["results"][0]))
    res["rdawg"]["mixes"]["fresh"]["tokens_per_s"] = (
        res["query"]["mixes"]["fresh"]["tokens_per_s"] / 9.9
    )
    targets = {t["target"]: t["status"] for t in bench.evaluate_targets([res])}
    assert targets["query speedup vs rusty-dawg, mix fresh"] == "FAIL"
    res["rdawg"]["mixes"]["fresh"]["tokens_per_s"] /= 2
    targets = {t["target"]: t["status"] for t in bench.evaluate_targets([res])}
    assert targets["query speedup vs rusty-dawg, mix fresh"] == "PASS"


def test_peers_are_pinned_installed_and_listed_in_the_bench_extra():
    pins = dict(
        line.split("==")
        for line in (ROOT / "requirements-bench.txt").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert pins == {"tokengrams": "0.3.3", "infini-gram": "2.6.0"}
    pyproject = (ROOT / "pyproject.toml").read_text()
    for name, version in pins.items():
        assert metadata.version(name) == version
        assert f'"{name}=={version}"' in pyproject
    assert "requirements-bench.txt" in (ROOT / "Makefile").read_text()


def test_creativity_lengths_turn_forward_spans_into_l_t():
    # spans starting at 0..4 end at 2, 2, 3, 5, 5; position 5 has no match (rs = 5)
    assert bench.creativity_lengths([2, 2, 3, 5, 5, 5]).tolist() == [1, 2, 1, 1, 2, 0]
