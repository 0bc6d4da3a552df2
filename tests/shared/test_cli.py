"""The command line: every stage registers its commands, every flag has help, commands stay thin."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

from copyscope.cli import STAGES, TOOLS, _requested_stage, build_parser, main, split_commands

SRC = Path(__file__).resolve().parents[2] / "src" / "copyscope"
MAX_COMMAND_LINES = 15


def _subparsers(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def _all_parsers(parser, prefix=()):
    """(command path, parser) of every command group and command, depth first."""
    for name, sub in _subparsers(parser):
        yield (*prefix, name), sub
        yield from _all_parsers(sub, (*prefix, name))


@pytest.fixture(scope="module")
def parser():
    return build_parser()


def test_top_level_help_lists_tools_first_then_stages(parser, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    names = [name for name, _ in _subparsers(parser)]
    assert names == [*TOOLS, *STAGES, "config"]  # config check: before a run
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("    ")]
    assert [n for n in listed if n in names] == names
    help_lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("    ")}
    assert all(len(help_lines[n].split()) > 1 for n in names), "a stage without one-line help"


@pytest.mark.parametrize("stage", [*TOOLS, *STAGES])
def test_every_stage_help_exits_zero(stage, capsys):
    with pytest.raises(SystemExit) as exc:
        main([stage, "--help"])
    assert exc.value.code == 0
    assert f"usage: copyscope {stage}" in capsys.readouterr().out


def test_every_command_help_exits_zero(parser, capsys):
    commands = [path for path, p in _all_parsers(parser) if not list(_subparsers(p))]
    assert len(commands) >= 18
    for path in commands:
        with pytest.raises(SystemExit) as exc:
            main([*path, "--help"])
        assert exc.value.code == 0, path
    capsys.readouterr()


def test_every_flag_and_positional_has_help(parser):
    missing = []
    for path, p in _all_parsers(parser):
        for action in p._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not (action.help or "").strip():
                missing.append(f"copyscope {' '.join(path)} {action.option_strings or action.dest}")
    assert not missing, missing


def test_flags_follow_the_naming_convention(parser):
    """Retired flag names stay retired (see the table in copyscope.clikit)."""
    retired = {"--name", "--spec-json", "--config-json", "--method-json", "--out-dir",
               "--index-dir", "--tokenizer-dir"}  # fmt: skip
    for path, p in _all_parsers(parser):
        flags = {f for a in p._actions for f in a.option_strings}
        assert not flags & retired, (path, flags & retired)
        # --tokenizer is always a directory
        for a in p._actions:
            if "--tokenizer" in a.option_strings:
                assert a.metavar == "DIR" or "director" in a.help, path


def _command_functions():
    for cli in sorted(SRC.glob("*/cli.py")):
        tree = ast.parse(cli.read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("cmd_"):
                yield cli.relative_to(SRC), node


def test_command_functions_are_thin():
    funcs = list(_command_functions())
    assert len(funcs) >= 18
    long = [
        f"{path}:{f.name} ({f.end_lineno - f.lineno + 1} lines)"
        for path, f in funcs
        if f.end_lineno - f.lineno + 1 > MAX_COMMAND_LINES
    ]
    assert not long, long


def test_every_stage_package_has_a_cli():
    assert {p.parent.name for p in SRC.glob("*/cli.py")} == set(STAGES)


def test_only_the_requested_stage_is_loaded():
    assert _requested_stage(["-v", "lm", "train", "--model-name", "x"]) == "lm"
    assert _requested_stage(["trace", "idx", "--text", "a"]) == "index"
    assert _requested_stage(["--help"]) is None
    assert _requested_stage(["nonsense"]) is None


def test_unknown_command_and_copyscope_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["nonsense"])
    assert exc.value.code == 2
    assert "invalid choice: 'nonsense'" in capsys.readouterr().err
    assert main(["count", str(tmp_path / "missing"), "--ids", "1"]) == 2
    assert "copyscope: error:" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["tokenize", "fit", "--tokenizer-name", "x", "--params-json", "{bad",
              "--train", "t", "--out", "o"])  # fmt: skip
    assert exc.value.code == 2
    assert "expected JSON" in capsys.readouterr().err


def _tree(directory: Path) -> dict[str, bytes]:
    """Every data file under ``directory`` (not the .json records, which name their paths)."""
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in directory.rglob("*")
        if p.is_file() and p.suffix != ".json"
    }


def test_each_runs_commands_in_order_as_run_alone(tmp_path, capsys):
    """``copyscope each A :: B``: every command writes what it writes alone; the first failing
    command's status is returned and the commands after it do not run."""
    import numpy as np

    np.save(tmp_path / "a.npy", np.array([5, 6, 7, 65535, 5, 6, 9, 65535], dtype=np.uint16))
    np.save(tmp_path / "b.npy", np.array([1, 2, 3, 1, 2, 3, 65535], dtype=np.uint16))
    assert main(["index", "build", str(tmp_path / "a.npy"), str(tmp_path / "alone")]) == 0
    status = main(["each", "index", "build", str(tmp_path / "a.npy"), str(tmp_path / "one"),
                   "::", "index", "build", str(tmp_path / "b.npy"), str(tmp_path / "two"),
                   "::", "count", str(tmp_path / "missing"), "--ids", "1",
                   "::", "index", "build", str(tmp_path / "b.npy"), str(tmp_path / "three")])  # fmt: skip
    assert status == 2
    assert _tree(tmp_path / "one") == _tree(tmp_path / "alone") != {}
    assert (tmp_path / "two" / "index.json").exists()
    assert not (tmp_path / "three").exists()
    assert "copyscope: error:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv", [[], ["::", "count", "x"], ["count", "x", "::"], ["a", "::", "::", "b"]]
)
def test_each_rejects_an_empty_command(argv):
    with pytest.raises(SystemExit, match="empty command"):
        main(["each", *argv])


def test_split_commands():
    assert split_commands(["a", "-x", "1", "::", "b"]) == [["a", "-x", "1"], ["b"]]
    assert split_commands(["a"]) == [["a"]]
