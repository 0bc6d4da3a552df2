"""The test tiers stay honest: a test that starts Snakemake (a dry run included) or uses a
finished tiny run carries the ``e2e`` marker (or ``slurm``, the cluster tier), a test that runs
a script of ``benchmarks/`` the ``bench`` marker, so that ``make test-fast``
(``-m "not e2e and not slurm and not bench"``) runs unit tests only.

Read from the test sources with :mod:`ast`, without importing them: a function *needs* a tier
when its body starts Snakemake (a list ``[..., "-m", "snakemake", ...]``), asks for the
``tiny_run`` fixture (a parameter, or ``request.getfixturevalue("tiny_run")``), or calls
``main`` of a module loaded from ``benchmarks/`` (or names a ``benchmarks/*.py`` script); and
when it calls, names or takes as a fixture a function that needs one (its own module's, one it
imports from another test module, or a fixture of ``conftest.py``), to a fixed point. A test's
markers are its decorators', its class's and its module's ``pytestmark``."""

from __future__ import annotations

import ast
import itertools
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
BENCH_SCRIPTS = {p.stem for p in (ROOT / "benchmarks").glob("*.py")}
PIPELINE_FIXTURES = {"tiny_run"}
SCRIPT = re.compile(r"benchmarks/(\w+)\.py")
# the marker each tier asks for, and the markers that keep a test out of `make test-fast`
SATISFIED_BY = {"e2e": {"e2e", "slurm"}, "bench": {"bench"}}
BUILTIN_MARKS = {"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings"}


def _marks(nodes) -> set[str]:
    """The names X of ``pytest.mark.X`` / ``pytest.mark.X(...)`` among ``nodes``."""
    names = set()
    for node in nodes:
        if isinstance(node, ast.Call):
            node = node.func
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "mark"
        ):
            names.add(node.attr)
    return names


class Module:
    """One test module's functions (``name`` or ``Class::name``), their markers, its imports
    from other test modules and the names its benchmark scripts are bound to."""

    def __init__(self, name: str, source: str):
        self.name = name
        tree = ast.parse(source)
        self.functions: dict[str, ast.FunctionDef] = {}
        self.marks: dict[str, set[str]] = {}
        self.module_marks: set[str] = set()
        self.imports: dict[str, tuple[str, str]] = {}
        self.bench_names: set[str] = set()
        loads_script = bool(SCRIPT.search(source))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                self.functions[node.name] = node
                self.marks[node.name] = _marks(node.decorator_list)
            elif isinstance(node, ast.ClassDef):
                outer = _marks(node.decorator_list)
                for item in node.body:
                    if isinstance(item, ast.FunctionDef):
                        key = f"{node.name}::{item.name}"
                        self.functions[key] = item
                        self.marks[key] = outer | _marks(item.decorator_list)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (node.module, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in BENCH_SCRIPTS:
                        self.bench_names.add(alias.asname or alias.name)
            elif isinstance(node, ast.Assign):
                targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
                value = node.value
                if "pytestmark" in targets:
                    elts = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
                    self.module_marks |= _marks(elts)
                func = value.func if isinstance(value, ast.Call) else None
                name = getattr(func, "attr", getattr(func, "id", None))
                if loads_script and name == "module_from_spec":
                    self.bench_names.update(targets)

    def seeds(self, key: str) -> set[str]:
        """The tiers a function needs by its own body (before following its calls)."""
        fn = self.functions[key]
        need = set()
        args = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
        if args & PIPELINE_FIXTURES:
            need.add("e2e")
        body = fn.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring may name a script it does not run
        for node in (n for stmt in body for n in ast.walk(stmt)):
            if isinstance(node, (ast.List, ast.Tuple)):
                values = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
                if any(pair == ("-m", "snakemake") for pair in itertools.pairwise(values)):
                    need.add("e2e")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.value in PIPELINE_FIXTURES:
                    need.add("e2e")
                if SCRIPT.search(node.value):
                    need.add("bench")
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "main"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in self.bench_names
            ):
                need.add("bench")
        return need

    def uses(self, key: str) -> set[str]:
        """The names a function takes as parameters (fixtures) or refers to in its body."""
        fn = self.functions[key]
        names = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
        names |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
        return names - {"self"}


def needed_tiers(sources: dict[str, str]) -> dict[tuple[str, str], set[str]]:
    """(module, function) -> the tiers it needs, for the modules ``sources`` (name -> text);
    ``conftest`` among them provides the fixtures every module can ask for."""
    modules = {name: Module(name, text) for name, text in sources.items()}

    def resolve(mod: Module, name: str) -> tuple[str, str] | None:
        if name in mod.functions:
            return mod.name, name
        if name in mod.imports:
            other, attr = mod.imports[name]
            if other in modules and attr in modules[other].functions:
                return other, attr
            return None
        if "conftest" in modules and name in modules["conftest"].functions:
            return "conftest", name  # a conftest fixture asked for by parameter name
        return None

    need = {(m.name, k): m.seeds(k) for m in modules.values() for k in m.functions}
    edges = {
        (m.name, k): {r for n in m.uses(k) if (r := resolve(m, n)) and r != (m.name, k)}
        for m in modules.values()
        for k in m.functions
    }
    changed = True
    while changed:
        changed = False
        for key, targets in edges.items():
            for target in targets:
                if not need[target] <= need[key]:
                    need[key] |= need[target]
                    changed = True
    return need


def violations(sources: dict[str, str]) -> list[str]:
    """``module::test: needs <tier>`` for every test that needs a tier it is not marked for."""
    modules = {name: Module(name, text) for name, text in sources.items()}
    need = needed_tiers(sources)
    bad = []
    for name, mod in sorted(modules.items()):
        if not name.startswith("test_"):
            continue
        for key in mod.functions:
            if not key.split("::")[-1].startswith("test"):
                continue
            marks = mod.marks[key] | mod.module_marks
            for tier in sorted(need[name, key]):
                if not marks & SATISFIED_BY[tier]:
                    bad.append(f"{name}::{key}: needs {tier}")
    return bad


def _suite() -> dict[str, str]:
    """Every module of the suite by the name its importers use: a test module (``tests/<package>/
    test_*.py``) and ``conftest`` by file name, a helper of ``tests/support/`` as
    ``support.<name>``."""
    suite = {}
    for path in sorted(TESTS.rglob("*.py")):
        parts = path.relative_to(TESTS).with_suffix("").parts
        suite[".".join(parts) if parts[0] == "support" else path.stem] = path.read_text()
    return suite


def test_every_pipeline_and_benchmark_test_is_marked():
    assert violations(_suite()) == []


def test_the_analysis_finds_the_suites_pipeline_and_benchmark_tests():
    """Not vacuous: the known heavy tests are found, a plain unit test is not."""
    need = needed_tiers(_suite())
    assert need["test_workflow", "test_tiny_run_tables"] == {"e2e"}  # the tiny_run fixture
    assert need["test_workflow", "test_bad_config_is_reported"] == {"e2e"}  # snakemake -n
    assert need[
        "test_guarantees",
        "test_interrupts_during_training_then_the_same_command_resumes_deterministically",
    ]
    assert need["test_slurm", "local_run"] == {"e2e"}  # getfixturevalue("tiny_run")
    assert need["test_index_bench", "test_every_peer_and_mix_is_measured_and_agrees"] == {
        "bench"
    }  # through the module's `run` fixture
    assert need["test_shard_scale", "test_run_then_reuse"] == {"bench"}
    assert need["test_index_bench", "test_creativity_lengths_turn_forward_spans_into_l_t"] == set()
    assert need["test_tiers", "test_every_pipeline_and_benchmark_test_is_marked"] == set()
    heavy = [(m, k) for (m, k), v in need.items() if v and k.split("::")[-1].startswith("test")]
    assert len(heavy) >= 35


PLANTED = {
    "conftest": """
import subprocess, sys
import pytest

def snakemake(*args):
    return subprocess.run([sys.executable, "-m", "snakemake", *args])

@pytest.fixture(scope="session")
def tiny_run():
    return snakemake("--cores", "2")
""",
    "test_a": """
import pytest
from conftest import snakemake
from test_b import helper

def _dry():
    return snakemake("-n")

def test_unit():
    assert helper() is None

def test_dry_run():
    assert _dry().returncode == 0

def test_callback():
    run_later(_dry)

@pytest.mark.e2e
def test_marked(tiny_run):
    assert tiny_run

@pytest.mark.slurm
def test_cluster(tiny_run):
    assert tiny_run

def test_fixture(tiny_run):
    assert tiny_run

@pytest.fixture
def built(tiny_run):
    return tiny_run

def test_through_a_fixture(built):
    assert built

@pytest.mark.e2e
class TestMarked:
    def test_m(self, tiny_run):
        assert tiny_run

class TestPlain:
    def test_m(self, request):
        request.getfixturevalue("tiny_run")
""",
    "test_b": """
import pytest
from conftest import snakemake
pytestmark = [pytest.mark.e2e]

def helper():
    return None

def test_in_a_marked_module():
    snakemake("-n")
""",
    "test_c": """
import importlib.util, subprocess, sys
import index_bench

SPEC = importlib.util.spec_from_file_location("other", "benchmarks/shard_scale.py")
other = importlib.util.module_from_spec(SPEC)

def test_runs_a_benchmark():
    assert index_bench.main([]) == 0

def test_loaded_by_spec():
    assert other.main([]) == 0

def test_as_a_subprocess():
    subprocess.run([sys.executable, "benchmarks/train_step.py"])

def test_a_helper_of_a_benchmark():
    assert index_bench.creativity_lengths([1]) is not None

@pytest.mark.bench
def test_marked():
    index_bench.main([])
""",
}


def test_planted_unmarked_tests_are_reported():
    assert violations(PLANTED) == [
        "test_a::test_dry_run: needs e2e",
        "test_a::test_callback: needs e2e",
        "test_a::test_fixture: needs e2e",
        "test_a::test_through_a_fixture: needs e2e",
        "test_a::TestPlain::test_m: needs e2e",
        "test_c::test_runs_a_benchmark: needs bench",
        "test_c::test_loaded_by_spec: needs bench",
        "test_c::test_as_a_subprocess: needs bench",
    ]


def test_markers_are_declared_and_make_test_fast_leaves_the_heavy_tiers_out():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    declared = {m.split(":")[0] for m in declared["ini_options"]["markers"]}
    assert {"e2e", "slurm", "bench"} <= declared
    used = set()
    for name, text in _suite().items():
        mod = Module(name, text)
        used |= mod.module_marks.union(*mod.marks.values())
    assert used - BUILTIN_MARKS <= declared, used - BUILTIN_MARKS - declared
    make = (ROOT / "Makefile").read_text()
    (fast,) = re.findall(r"^test-fast:.*\n((?:\t.*\n)+)", make, re.M)
    assert '-m "not e2e and not slurm and not bench"' in fast


def test_make_test_runs_the_whole_suite_in_two_streams():
    """``make test``'s two streams are the whole suite: the unit tier over every file and the
    heavy tiers of BESIDE in one, the heavy tiers of every other file in the other; the files
    of BESIDE share no run with other tests (no :data:`PIPELINE_FIXTURES`, no ``local_run``),
    so that no run of the session is made twice."""
    make = (ROOT / "Makefile").read_text()
    (full,) = re.findall(r"^test:.*\n((?:\t.*\n)+)", make, re.M)
    assert re.search(r"^HEAVY = (.+)$", make, re.M).group(1) == "e2e or slurm or bench"
    beside = re.search(r"^BESIDE = (.+)$", make, re.M).group(1).split()
    calls = re.findall(r"pytest -q[^;]*", full)
    assert len(calls) == 3, calls
    assert any(c.endswith('-m "not ($(HEAVY))"') for c in calls), calls
    assert any(c.endswith('-m "$(HEAVY)" $(BESIDE)') for c in calls), calls
    assert any(c.endswith('-m "$(HEAVY)" $(addprefix --ignore=,$(BESIDE))') for c in calls), calls
    assert beside and len(set(beside)) == len(beside)
    for path in beside:
        tree = ast.parse((ROOT / path).read_text())
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
        names |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
        assert not names & (PIPELINE_FIXTURES | {"local_run"}), path
