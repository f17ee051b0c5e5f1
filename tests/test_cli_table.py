"""``conformance._cli`` is a table of ``Command`` objects: every subcommand module adds
one row, the names are unique, and ``--help`` lists them in the table's order."""

from __future__ import annotations

import argparse
import importlib
import pkgutil

import pytest

import conformance._commands
from conformance._cli import COMMANDS, _parser
from conformance._commands.command import CommandGroup
from conformance._commands.report import REPORT_COMMANDS


def test_every_command_module_is_a_row_of_the_table() -> None:
    rows = {type(command).__module__ for command in (*COMMANDS, *REPORT_COMMANDS)}
    modules = {
        f"conformance._commands.{info.name}"
        for info in pkgutil.iter_modules(conformance._commands.__path__)
        if info.name != "command"
    }
    assert modules <= rows


def test_the_names_are_unique_and_help_lists_them_in_order() -> None:
    names = [command.name for command in COMMANDS]
    assert len(set(names)) == len(names)
    subparsers = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert list(subparsers.choices) == names
    for command in COMMANDS:
        assert command.help


def test_a_group_dispatches_to_its_row(monkeypatch: pytest.MonkeyPatch) -> None:
    class Echo:
        name, help = "echo", "say the exit status"

        def add_arguments(self, parser: argparse.ArgumentParser) -> None:
            parser.add_argument("status", type=int)

        def execute(self, args: argparse.Namespace) -> int:
            return int(args.status)

    group = CommandGroup("tool", "a group", [Echo()])
    parser = argparse.ArgumentParser()
    group.add_arguments(parser)
    assert group.execute(parser.parse_args(["echo", "3"])) == 3
    with pytest.raises(SystemExit):  # negative: an action the table lacks
        parser.parse_args(["nope"])


def test_each_module_imports_alone() -> None:
    for info in pkgutil.iter_modules(conformance._commands.__path__):
        importlib.import_module(f"conformance._commands.{info.name}")
