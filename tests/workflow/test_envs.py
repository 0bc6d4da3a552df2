"""One source of pins: every conda environment (envs/*.yaml) pins what requirements.txt pins
(torch: the Makefile's pin), and nothing else."""

from __future__ import annotations

import re

import pytest
import yaml

from support.workflow import ROOT

ENVS = sorted((ROOT / "envs").glob("*.yaml"))
PIN = re.compile(r"^([A-Za-z0-9_.-]+)==(\S+)$")


def canonical(name: str) -> str:
    """A package name as pip compares them (PEP 503: case, '-', '_' and '.' alike)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_pins() -> dict[str, str]:
    """``name → version`` of every ``name==version`` line of requirements.txt."""
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            match = PIN.match(line)
            assert match, f"requirements.txt: {line!r} is not pinned as name==version"
            pins[canonical(match[1])] = match[2]
    return pins


def makefile_torch() -> str:
    """The torch version the Makefile installs (every mention must agree)."""
    versions = set(re.findall(r"torch==(\S+)", (ROOT / "Makefile").read_text()))
    assert len(versions) == 1, versions
    return versions.pop()


def env_pins(path) -> dict[str, str]:
    """``name → version`` of an environment's pip section (each entry must be name==version)."""
    deps = yaml.safe_load(path.read_text())["dependencies"]
    pip = [d["pip"] for d in deps if isinstance(d, dict) and "pip" in d]
    assert len(pip) == 1, f"{path.name}: expected one pip section"
    pins = {}
    for entry in pip[0]:
        match = PIN.match(entry)
        assert match, f"{path.name}: {entry!r} is not pinned as name==version"
        pins[canonical(match[1])] = match[2]
    return pins


def test_torch_pin():
    assert makefile_torch() == "2.13.0"
    assert "torch==2.13.0" in (ROOT / "requirements.txt").read_text()  # its header comment


def test_there_are_environments():
    assert {p.stem for p in ENVS} >= {"corpus", "index", "models", "novelty", "tokenize"}


@pytest.mark.parametrize("path", ENVS, ids=lambda p: p.name)
def test_env_pins_equal_requirements(path):
    allowed = {**requirement_pins(), "torch": makefile_torch()}
    pins = env_pins(path)
    assert pins, f"{path.name}: no pinned packages"
    unknown = sorted(set(pins) - set(allowed))
    assert unknown == [], f"{path.name}: packages that requirements.txt does not pin"
    differ = {n: (v, allowed[n]) for n, v in pins.items() if v != allowed[n]}
    assert differ == {}, f"{path.name}: (env pin, requirements pin) disagree"


@pytest.mark.parametrize("path", ENVS, ids=lambda p: p.name)
def test_env_conda_part_is_python_and_pip(path):
    deps = yaml.safe_load(path.read_text())["dependencies"]
    conda = sorted(d for d in deps if isinstance(d, str))
    assert conda == ["pip", "python=3.11"]
