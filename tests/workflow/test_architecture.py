"""The stage packages import only stages below them (docs/architecture.md, "Import order")."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "copyscope"
# the stage packages in pipeline order, then the run plan (the package copyscope/plan): it
# reads the config and asks stages for names; no stage imports it
ORDER = ["corpus", "tokenize", "index", "lm", "sample", "novelty", "raven", "analyze",
         "memorize", "syntax", "membership", "probe", "dynamics", "explore", "report", "plan"]  # fmt: skip
SHARED = {"errors", "io", "clikit", "config", "fetch", "language", "lazy", "nlp", "plotting",
          "stats", "streams", "runlock", "runlog"}  # fmt: skip


def stage_imports(path: Path, stage: str) -> set[str]:
    """The top-level copyscope modules a file of ``stage`` imports (absolute or relative, at
    module level or inside a function, or deferred: ``lazy_module("copyscope.…")``)."""
    package = list(path.relative_to(PACKAGE).parts[:-1])  # e.g. ["syntax"]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "lazy_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).startswith("copyscope.")
        ):
            out.add(node.args[0].value.split(".")[1])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names
                       if a.name.startswith("copyscope."))  # fmt: skip
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                parts = (node.module or "").split(".")
                if parts[0] == "copyscope":
                    out.update(parts[1:2] or [a.name for a in node.names])
                continue
            base = package[: len(package) - (node.level - 1)]
            full = base + (node.module.split(".") if node.module else [])
            out.update(full[:1] or [a.name for a in node.names])
    return {m for m in out if not m.startswith("__")} - {stage}  # not __version__


def stage_files(stage: str) -> list[Path]:
    """The files of a stage: its package's modules, or its one module ``<stage>.py``."""
    if (PACKAGE / stage).is_dir():
        return sorted((PACKAGE / stage).rglob("*.py"))
    return [PACKAGE / f"{stage}.py"]


def violations() -> list[str]:
    rank = {s: i for i, s in enumerate(ORDER)}
    bad = []
    for stage in ORDER:
        for path in stage_files(stage):
            for other in sorted(stage_imports(path, stage)):
                if other in rank and rank[other] > rank[stage]:
                    bad.append(f"{path.relative_to(PACKAGE)} imports {other} ({stage} < {other})")
                elif other not in rank and other not in SHARED:
                    bad.append(f"{path.relative_to(PACKAGE)} imports {other}: not a stage or a "
                               "shared module (add it to ORDER or SHARED, and to the docs)")  # fmt: skip
    return bad


def test_every_stage_is_listed():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__", "cli"}
    assert (packages - SHARED) | (modules - SHARED) == set(ORDER)
    assert modules | packages <= SHARED | set(ORDER), (modules | packages) - SHARED - set(ORDER)


# the stages a shared module asks, and why: the config checks tokenizer kinds against the
# registry the tokenize stage fills as it loads (a kind a researcher registers is accepted
# without more), and reads the researcher's own generations, prompts, benchmarks and books
# with the sample and membership stages' own readers before any job (the same errors a job
# would give, at the start), and asks the index stage whether a configured folder is laid out
# as an infini-gram index (tokenizers.<name>.index with format infini-gram), and checks
# corpus.inject.format_benchmarks with the corpus stage's own check
SHARED_ASKS = {"config": {"corpus", "tokenize", "sample", "membership", "index"}}


def test_shared_modules_import_no_stage():
    """A shared module (config, io, stats, …) is below every stage: it imports no stage but the
    exceptions named in SHARED_ASKS."""
    bad = []
    for module in sorted(SHARED):
        for path in stage_files(module):
            stages = stage_imports(path, module) & set(ORDER)
            if stages - SHARED_ASKS.get(module, set()):
                bad.append(f"{path.relative_to(PACKAGE)} imports {sorted(stages)}")
    assert bad == []


def test_the_plan_is_above_every_stage_and_imports_no_snakemake():
    """copyscope.plan imports the config and lower modules only (it is last in ORDER), and
    not Snakemake: the rule files ask it, it does not know them."""
    files = stage_files("plan")
    assert len(files) > 1  # the package, not a module named plan.py
    for path in files:
        tree = ast.parse(path.read_text())
        outside = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                   for a in n.names} | {n.module.split(".")[0] for n in ast.walk(tree)
                                        if isinstance(n, ast.ImportFrom) and n.level == 0}  # fmt: skip
        assert outside <= {"__future__", "collections", "json", "os", "shlex"}, (path, outside)
        assert stage_imports(path, "plan") <= {"clikit", "config", "corpus", "sample"}, path
    assert ORDER[-1] == "plan"
    users = [p for s in ORDER[:-1] for p in stage_files(s) if "plan" in stage_imports(p, s)]
    assert users == []


def test_the_plan_knows_no_analysis():
    """Every analysis declares its own files and parameters (copyscope.report.jobs): the plan
    names no output of an analysis, no figure and no caption, and no analysis module."""
    from copyscope.report import ANALYSES, analyses

    text = "\n".join(p.read_text() for p in stage_files("plan"))
    assert ".png" not in text and ".rst" not in text and "caption" not in text
    outputs = [o.path for m in analyses() for o in m.OUTPUTS.values() if o.path]
    assert len(outputs) > 50 and [p for p in outputs if p in text] == []
    assert [a for a in ANALYSES if f"report.{a}" in text] == []


def test_no_import_runs_up_the_stage_order():
    assert violations() == []


def test_the_check_sees_relative_lazy_and_absolute_imports(tmp_path, monkeypatch):
    """A planted backward import, in each spelling, is caught."""
    src = tmp_path / "copyscope"
    for stage in ORDER:
        (src / stage).mkdir(parents=True)
        (src / stage / "__init__.py").write_text("")
    (src / "tokenize" / "a.py").write_text("from ..index.stream import x\n")
    (src / "tokenize" / "b.py").write_text("def f():\n    from ..report import y\n")
    (src / "corpus" / "c.py").write_text("import copyscope.lm.train\n")
    (src / "lm" / "d.py").write_text("from copyscope.sample import z\nfrom .train import w\n")
    (src / "index" / "e.py").write_text("from ..tokenize import t\nfrom .. import io\n")
    (src / "report" / "f.py").write_text("from ..plan import Plan\n")
    (src / "syntax" / "g.py").write_text('m = lazy_module("copyscope.explore.page")\n')
    monkeypatch.setitem(globals(), "PACKAGE", src)
    bad = violations()
    assert len(bad) == 6, bad
    assert any("syntax/g.py imports explore" in b for b in bad)
    assert any("report/f.py imports plan" in b for b in bad)
    assert any("tokenize/a.py imports index" in b for b in bad)
    assert any("tokenize/b.py imports report" in b for b in bad)
    assert any("corpus/c.py imports lm" in b for b in bad)
    assert any("lm/d.py imports sample" in b for b in bad)


def test_reading_the_workflow_declarations_imports_no_plotting_or_statistics_library():
    """What the Snakefile imports (the plan and every report module's declaration) leaves
    matplotlib, seaborn, scikit-learn and scipy.stats unimported: Snakemake reads it on every
    start, and on a cluster once per job (copyscope.lazy)."""
    code = (
        "import sys\n"
        "from copyscope.plan import Plan\n"
        "from copyscope.report import analyses\n"
        "from copyscope.report.cli import command_line\n"
        "from copyscope.report.signature import config_digest\n"
        "assert len(analyses()) > 10\n"
        "heavy = ('matplotlib', 'seaborn', 'sklearn', 'scipy.stats', 'torch', 'transformers')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True,
        env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)},
    )  # fmt: skip
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


def test_a_lazy_module_is_imported_at_its_first_attribute_read():
    from copyscope.lazy import lazy_module

    name = "colorsys"  # a small standard-library module
    was = sys.modules.pop(name, None)
    try:
        mod = lazy_module(name)
        assert name not in sys.modules and "not imported yet" in repr(mod)
        assert mod.rgb_to_hsv(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0)
        assert name in sys.modules and "imported" in repr(mod)
        assert mod.hsv_to_rgb is sys.modules[name].hsv_to_rgb
    finally:
        if was is not None:
            sys.modules[name] = was


TESTS = PACKAGE.parents[1] / "tests"
TEST_FOLDERS = {"shared", "workflow", "bench", "support", "browser", "slurm"}


def test_the_tests_mirror_the_packages():
    """One test folder per stage (tests/<stage>/test_*.py), plus shared/, workflow/, bench/ and
    the helpers of support/; no test module at the top of tests/ (conftest.py only)."""
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert folders - TEST_FOLDERS == set(ORDER)
    assert sorted(p.name for p in TESTS.glob("*.py")) == ["conftest.py"]
    for stage in ORDER:
        assert list((TESTS / stage).glob("test_*.py")), f"tests/{stage}/ has no test module"
    assert not list((TESTS / "support").glob("test_*.py"))
