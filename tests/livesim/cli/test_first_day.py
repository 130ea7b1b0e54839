"""What a new user meets first: every --help example parses, bad numbers and a missing training stack are one
line (exit 2), `hat reproduce` keeps the committed results/ unless told to update them."""

from __future__ import annotations

import argparse
import contextlib
import io
import shlex
import sys
from pathlib import Path

import pytest

from livesim.cli import hat_eval
from livesim.cli.main import build_parser, main

TRAIN = ("torch", "transformers", "trl", "datasets", "accelerate", "peft")


def _parsers(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, (*prefix, name))


def test_every_help_example_parses_as_printed():
    for prefix, parser in _parsers(build_parser()):
        assert parser.epilog and "example: livesim" in parser.epilog, prefix
        argv = shlex.split(parser.epilog.split("example: ", 1)[1])[1:]
        with contextlib.redirect_stderr(io.StringIO()) as err:
            try:
                build_parser().parse_args(argv)
            except SystemExit as e:
                pytest.fail(f"{' '.join(prefix)}: `{parser.epilog}` does not parse: {err.getvalue()} ({e})")


@pytest.mark.parametrize("argv, message", [
    (["eval", "--seed", "-5"], "error: --seed must be between 0 and"),
    (["eval", "--batch-size", "0"], "error: --batch-size must be >= 1, got 0"),
    (["eval", "--episodes", "0"], "error: --episodes must be >= 1, got 0"),
    (["eval", "--agent-arg", "error_rate=abc", "--episodes", "1"], "error: error_rate must be a number in [0, 1]"),
])
def test_bad_numbers_are_one_line_with_exit_2(argv, message, capsys):
    try:
        code = main([*argv, "--quiet"])
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(message) and err.count("\n") == 1, err


@pytest.mark.parametrize("argv", [
    ["hat", "train", "--preset", "tiny"],
    ["hat", "reproduce", "--preset", "tiny", "--ci"],
    ["hat", "eval", "--model", "tiny", "--suite", "T1", "--limit", "1", "--quiet", "--no-cache"],
    ["eval", "--agent", "transformers", "--model", "tiny", "--episodes", "1", "--quiet"],
    ["hat", "collect", "--episodes", "2"],
])
def test_without_the_training_stack_commands_say_which_install_they_need(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in TRAIN:
        monkeypatch.setitem(sys.modules, name, None)  # `import torch` now fails as on a core install
    if argv[:2] == ["hat", "collect"]:
        argv = [*argv, "--out", str(tmp_path / "c")]
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[-1].startswith("error: needs the training extras: pip install -e '.[train]' (or make test)"), err


def test_reproduce_writes_a_run_directory_unless_asked_to_update_results(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    committed = Path("results/tiny")
    committed.mkdir(parents=True)
    (committed / "results.json").write_text("{}")
    ns = argparse.Namespace(preset="tiny", ci=False, untrained=False, out=None, update_results=False)
    root = hat_eval.reproduce_root(ns)
    assert root == Path("runs/reproduce") and (root / "tiny" / "results.json").is_file()
    assert hat_eval.reproduce_root(argparse.Namespace(**{**vars(ns), "update_results": True})) == Path("results")
    with pytest.raises(SystemExit, match="--ci never writes into results/"):
        hat_eval.reproduce_root(argparse.Namespace(**{**vars(ns), "ci": True, "update_results": True}))
    with pytest.raises(SystemExit, match="pass --update-results"):
        hat_eval.reproduce_root(argparse.Namespace(**{**vars(ns), "out": "results"}))
    ci = hat_eval.reproduce_root(argparse.Namespace(**{**vars(ns), "ci": True}))
    assert ci == Path("runs/reproduce") and not Path("results/tiny-ci").exists()
    # elsewhere, a new folder named results is just an output folder (nothing committed there to protect)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert hat_eval.reproduce_root(argparse.Namespace(**{**vars(ns), "out": str(elsewhere / "results")})) == \
        elsewhere / "results"
