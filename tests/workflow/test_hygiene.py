"""Workflow hygiene: every rule logs and benchmarks, rules stay thin, captions exist."""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import io
import itertools
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _rules():
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        text = smk.read_text()
        for m in re.finditer(r"^(rule|checkpoint) (\w+):\n(.*?)(?=^\S|\Z)", text, re.M | re.S):
            yield smk.name, m.group(2), m.group(3)


def test_every_rule_has_log_and_benchmark():
    rules = list(_rules())
    assert len(rules) >= 15
    for smk, name, body in rules:
        assert "\n    log:\n" in body, f"{smk}: rule {name} has no log:"
        assert "\n    benchmark:\n" in body, f"{smk}: rule {name} has no benchmark:"


# one copyscope command per rule: [ENV=value ...] python -m copyscope <argv> > {log} 2>&1
SHELL_FORM = re.compile(
    r"^(?P<env>(?:[A-Z][A-Z0-9_]*=\S+ )*)python -m copyscope (?P<argv>.+?) > \{log\} 2>&1$"
)
# placeholders a thin rule may use: its own files, params, wildcards, threads; ":q" quotes
PLACEHOLDER = re.compile(r"^(?:(?:input|output|params|wildcards)(?:\.\w+)?|threads|log)(?::q)?$")


def _directive(body: str, name: str) -> str | None:
    """The source text of a rule directive (``shell:`` …): its line and the deeper-indented
    continuation lines; None when the rule has no such directive."""
    lines = body.splitlines()
    for i, line in enumerate(lines):
        m = re.match(rf"^    {name}:(.*)$", line)
        if m:
            parts = [m.group(1)]
            for nxt in lines[i + 1 :]:
                if nxt.strip() and not nxt.startswith(" " * 8):
                    break
                parts.append(nxt)
            return "\n".join(parts)
    return None


def _shell_commands():
    """(file, rule, command) for every rule with ``shell:``; the command is the Python string
    the directive evaluates to (implicitly concatenated literals)."""
    for smk, name, body in _rules():
        src = _directive(body, "shell")
        if src is not None:
            yield smk, name, ast.literal_eval("(" + src.strip() + "\n)")


def _argv_variants(argv_template: str) -> list[list[str]]:
    """Command lines with every placeholder replaced by a dummy value.

    A placeholder after a ``--flag`` is its value: ``1`` (a valid int, float, path and name).
    ``{x:q}`` (a quoted JSON config block) becomes ``{}``.  A bare placeholder elsewhere is a
    positional argument or an optional flag computed in ``params`` (``--same-tokenizer`` or
    nothing): both ``1`` and the empty string are tried.
    """
    tokens = shlex.split(argv_template)
    choices = []
    for i, tok in enumerate(tokens):
        bare = re.fullmatch(r"\{([^{}]+)\}", tok)
        if bare and bare.group(1).endswith(":q"):
            choices.append(["{}"])
        elif bare and not (i > 0 and tokens[i - 1].startswith("--")):
            choices.append(["1", ""])
        else:
            choices.append([re.sub(r"\{[^{}]+\}", "1", tok)])
    return [[t for t in combo if t != ""] for combo in itertools.product(*choices)]


def _strict(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` and all its sub-parsers without prefix matching (``--out`` must not pass
    for ``--out-dir``)."""
    parser.allow_abbrev = False
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _strict(sub)
    return parser


@functools.lru_cache(maxsize=1)
def _strict_parser(build) -> argparse.ArgumentParser:
    """The CLI's parser, strict (:func:`_strict`), built once (a parse does not change it)."""
    return _strict(build())


def _parses(argv: list[str]) -> str | None:
    """None if the copyscope CLI accepts ``argv`` (flags spelt in full), else argparse's
    message. ``each A… :: B…``: every command is checked. The per-set files the run plan
    assembles for the model jobs (``{params.files}``, ``{params.sets}``) are checked on the
    command lines of a dry run (test_model_job_commands_of_a_dry_run_parse)."""
    from copyscope.cli import EACH, build_parser, split_commands

    if argv[:1] == [EACH]:
        try:
            commands = split_commands(argv[1:])
        except SystemExit as exc:
            return str(exc)
        problems = [_parses(c) for c in commands if c != ["1"]]
        return next((p for p in problems if p), None)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            _strict_parser(build_parser).parse_args(argv)
    except SystemExit:
        return err.getvalue().strip().splitlines()[-1] if err.getvalue() else "SystemExit"
    return None


def test_rules_are_thin_and_run_one_copyscope_command():
    commands = list(_shell_commands())
    assert len(commands) >= 15
    with_output = {(smk, name) for smk, name, body in _rules() if "\n    output:" in body}
    assert with_output <= {(smk, name) for smk, name, _ in commands}, "output without shell:"
    for smk, name, body in _rules():
        for directive in ("run", "script", "notebook", "wrapper"):
            assert _directive(body, directive) is None, f"{smk}: rule {name} uses {directive}:"
    for smk, name, cmd in commands:
        where = f"{smk}: rule {name}: {cmd!r}"
        m = SHELL_FORM.match(cmd)
        assert m, f"{where} is not '[ENV=…] python -m copyscope … > {{log}} 2>&1'"
        for field in re.findall(r"\{([^{}]*)\}", cmd):
            assert PLACEHOLDER.match(field), f"{where}: placeholder {{{field}}}"
        assert not re.search(r"[;|&<>`$]", m.group("argv")), f"{where}: shell logic"
        problems = []
        for argv in _argv_variants(m.group("argv")):  # stop at the first accepted variant
            problems.append(_parses(argv))
            if problems[-1] is None:
                break
        assert None in problems, f"{where}: the CLI rejects it: {problems[0]}"


THREAD_ENV = ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS")


def _thread_env(env: str) -> dict[str, str]:
    """The thread variables an ``ENV=… `` prefix of a command line sets."""
    pairs = dict(word.split("=", 1) for word in env.split())
    return {k: pairs[k] for k in THREAD_ENV if k in pairs}


def test_every_job_sizes_its_thread_pools():
    """Every command a rule runs sets OpenMP's and Numba's thread counts: the job's
    ``{threads}``, or 1 where its threads are worker processes (spaCy's ``n_process``, the
    report jobs' forked workers). Numba's parallel index kernels otherwise start a thread per
    core whose spinning between kernels took the second core from the job beside it
    (docs/performance.md#thread-pools)."""
    commands = [(f"{smk}: rule {name}", cmd) for smk, name, cmd in _shell_commands()]
    commands = [(w, c) for w, c in commands if "{params.command}" not in c]
    commands += [(f"rules/report.smk: rule {r}", c) for r, c in _report_commands()]
    for where, cmd in commands:
        env = _thread_env(SHELL_FORM.match(cmd).group("env"))
        assert set(env) == set(THREAD_ENV), f"{where}: sets {sorted(env)}, not {THREAD_ENV}"
        assert len(set(env.values())) == 1 and env[THREAD_ENV[0]] in ("{threads}", "1"), where
    assert _thread_env("A=1 OMP_NUM_THREADS=2") == {"OMP_NUM_THREADS": "2"}  # the check bites


def test_rule_check_catches_a_flag_the_cli_does_not_accept():
    """The parse check is not vacuous: in every rule's command, a misspelt or shortened flag
    and an unknown command are rejected."""
    for smk, name, cmd in _shell_commands():
        argv = SHELL_FORM.match(cmd).group("argv")
        flag = re.search(r"(?<= )--[\w-]+", argv)
        if flag:
            for wrong in (flag.group() + "x", flag.group()[:-1]):
                bad = argv.replace(flag.group(), wrong, 1)
                assert all(_parses(a) for a in _argv_variants(bad)), f"{smk}: {name}: {bad}"
        words = argv.split()
        bad = " ".join([words[0], words[1] + "x", *words[2:]])
        assert all(_parses(a) for a in _argv_variants(bad)), f"{smk}: {name}: {bad}"


def _written(argv: list[str]) -> set[str]:
    """The files a model job's command line writes: ``--out DECODING PATH``, ``--out-* PATH``,
    the five files after a ``--set``'s samples, the OUT of ``--completion MODEL OUT``."""
    outs = set()
    for i, w in enumerate(argv):
        if w in ("--out", "--completion"):
            outs.add(argv[i + 2])
        elif w.startswith("--out-"):
            outs.add(argv[i + 1])
        elif w == "--set":
            outs.update(argv[i + 2 : i + 7])
    return outs


@pytest.mark.e2e
def test_model_job_commands_of_a_dry_run_parse(tmp_path):
    """The command lines of the model jobs (``sample model``, ``analyze model``, ``probe
    model``, whose per-set files copyscope.plan assembles) in a dry run of the tiny
    configuration: every one is accepted by the CLI, and every sample set, analysis and probe
    file is some command's output."""
    from support.workflow import snakemake

    results = tmp_path / "results"
    proc = snakemake(
        "-n", "-p", "--configfile", "config/tiny.yaml", "--config", f"results={results}"
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [
        line.split("python -m copyscope ", 1)[1].rsplit(" > ", 1)[0]
        for line in proc.stdout.splitlines()
        if re.search(r"python -m copyscope (sample|analyze|probe) model ", line)
    ]
    # 3 models x (sample, analyze, probe), the human sets and the training-prompt samples
    assert len(lines) == 11
    commands = [shlex.split(line) for line in lines]
    assert [_parses(argv) for argv in commands] == [None] * len(commands)
    outs = {f for argv in commands for f in _written(argv)}
    for part in ("samples/gpt2-b/beam_2.jsonl", "analysis/lstm/greedy/planted.csv",
                 "analysis/gpt2-a/completion_loss.parquet", "membership/lstm/cloze.csv",
                 "memorization/gpt2-b.csv", "style/repeats/gpt2-a.csv",
                 "analysis/human/reference/tokens.parquet"):  # fmt: skip
        assert str(results / part) in outs, part
    assert _parses(["each", "sample", "generate", "::", "index", "build"]) is not None


def test_report_captions_exist():
    from copyscope.report import analyses

    for smk in (ROOT / "rules").glob("*.smk"):
        for caption in re.findall(r'caption="\.\./(report/[\w.]+)"', smk.read_text()):
            assert (ROOT / caption).exists(), caption
    captions = {o.caption for m in analyses() for o in m.OUTPUTS.values() if o.caption}
    assert len(captions) > 30
    assert [c for c in sorted(captions) if not (ROOT / "report" / f"{c}.rst").exists()] == []


# ---------------------------------------------------------------- generated report rules
def _report_commands(config: str = "tiny"):
    """(rule, command) of every report rule generated in rules/report.smk (one per report job
    of the run, copyscope.report.jobs.report_jobs) for ``config/<config>.yaml``: the command
    line its ``{params.command}`` holds (copyscope.report.cli.command_line, given the job's
    files as the rule's input and output hold them), with the rule's `` > {log} 2>&1``."""
    import yaml

    from copyscope.config import validate
    from copyscope.plan import Plan, as_json
    from copyscope.report import analyses
    from copyscope.report.cli import command_line
    from copyscope.report.jobs import report_args, report_jobs

    cfg = yaml.safe_load((ROOT / "config" / f"{config}.yaml").read_text())
    plan = Plan.from_config(validate({**cfg, "results": "/r"}))
    modules = {m.NAME: m for m in analyses()}
    for job in report_jobs(plan, modules.values()):
        module = modules[job.name]
        flags = {k: report_args(module.INPUTS[k], *v) for k, v in job.inputs.items()}
        outputs = {k: path for k, (path, _, _) in job.outputs.items()}
        params = None if job.params is None else as_json(job.params)
        command = command_line(modules[job.name], flags, outputs, params, job.threads)
        yield job.rule, command + " > {log} 2>&1"


def test_the_generated_report_rules_log_benchmark_and_run_one_copyscope_command():
    """The loop of rules/report.smk declares log: and benchmark: and runs the command line of
    its params; each generated rule's command line (a shipped config's files) has the thin
    form and is accepted by the CLI."""
    text = (ROOT / "rules" / "report.smk").read_text()
    loop = re.search(r"^for job in REPORT_JOBS:\n\n    rule:\n(.*?)(?=^\S)", text, re.M | re.S)
    assert loop, "rules/report.smk: no loop over the plan's report jobs"
    body = "\n".join(line[4:] for line in loop.group(1).splitlines())
    for directive in ("log", "benchmark", "input", "output", "params", "shell"):
        assert f"\n    {directive}:" in "\n" + body, f"generated report rules: no {directive}:"
    assert _directive("\n" + body, "shell").strip() == '"{params.command} > {log} 2>&1"'
    params = [line.strip() for line in _directive("\n" + body, "params").splitlines()]
    params = [line for line in params if line and not line.startswith("#")]
    # the command line, and its --params-json block as a plain param (re-runs on a change)
    assert params == [
        "command=report_command(job),",
        'config=as_json(job.params) if job.params is not None else "",',
    ]
    for config in ("tiny", "pretrained"):
        rules = list(_report_commands(config))
        assert len(rules) >= 15
        for rule, command in rules:
            where = f"rules/report.smk: rule {rule} ({config}): {command[:300]!r}"
            m = SHELL_FORM.match(command)
            assert m and not re.search(r"[;|&<>`$]", m.group("argv")), where
            assert _parses(shlex.split(m.group("argv"))) is None, where


def test_the_generated_report_rule_check_catches_a_flag_the_cli_does_not_accept():
    """The parse check of the generated commands is not vacuous: a misspelt flag fails."""
    for rule, command in _report_commands():
        argv = shlex.split(SHELL_FORM.match(command).group("argv"))
        for i, word in enumerate(argv):
            if word.startswith("--"):
                assert _parses([*argv[:i], word + "x", *argv[i + 1 :]]), (rule, word)
