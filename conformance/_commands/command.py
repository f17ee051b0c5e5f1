"""What every subcommand of ``wire-conformance`` is: a ``Command`` (its name, its help,
its arguments, and its body returning the exit status), listed once in the table of
``conformance._cli``.

Adding a subcommand is one module here with one ``Command`` and one row in that table;
a subcommand with subcommands of its own (``report``) is a ``CommandGroup`` whose rows
are ``Command`` objects too.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Protocol

from rich.console import Console

#: The exit statuses every command shares (the README): 0 all good, 1 a failing run
#: or an input that could not be read, 2 a usage error; 128 + N for signal N
#: (``conformance._interrupt``).
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class Command(Protocol):
    """One subcommand: ``name`` and ``help`` as ``wire-conformance --help`` lists it."""

    @property
    def name(self) -> str: ...

    @property
    def help(self) -> str: ...

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Declare the subcommand's arguments on its own parser."""

    def execute(self, args: argparse.Namespace) -> int:
        """Run it with the parsed arguments; the exit status."""


def add_commands(
    parser: argparse.ArgumentParser,
    table: Sequence[Command],
    dest: str,
    required: bool = True,
    argv: Sequence[str] | None = None,
) -> None:
    """One subparser per row of ``table``, in its order (``--help`` lists them so).

    Given the command line ``argv``, only the row it names gets its arguments: a
    row's arguments may import its whole engine (``probe`` imports the probes, the
    runner and every target kind), and a command line runs one row, so the others
    would be paid for at every start.  A row's help line needs none of its arguments
    (``--help`` alone, or a misspelt row, builds none); without ``argv`` every row
    gets them."""
    subparsers = parser.add_subparsers(dest=dest, required=required)
    chosen = chosen_command(table, argv)
    for command in table:
        subparser = subparsers.add_parser(command.name, help=command.help)
        if argv is None or command.name == chosen:
            command.add_arguments(subparser)


def chosen_command(table: Sequence[Command], argv: Sequence[str] | None) -> str | None:
    """The row ``argv`` names: its first word that is not an option, when that word is
    a row's name (a parser of this module takes no option with a value before the
    command).  ``None`` when there is no ``argv`` or no such word."""
    if argv is None:
        return None
    words = [word for word in argv if not word.startswith("-")]
    names = {command.name for command in table}
    return words[0] if words and words[0] in names else None


def command_named(table: Sequence[Command], name: str) -> Command:
    """The row of ``table`` the parser chose (argparse allows no other name)."""
    return next(command for command in table if command.name == name)


class CommandGroup:
    """A subcommand whose work is done by subcommands of its own (``report diff``)."""

    def __init__(self, name: str, help: str, table: Sequence[Command]) -> None:
        self.name, self.help, self.table = name, help, tuple(table)

    @property
    def dest(self) -> str:
        """Where argparse keeps the chosen sub-subcommand (``report_command``)."""
        return f"{self.name}_command"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_commands(parser, self.table, self.dest)

    def execute(self, args: argparse.Namespace) -> int:
        return command_named(self.table, getattr(args, self.dest)).execute(args)


def console() -> Console:
    """The console every command prints through: soft-wrapped, and with emoji codes
    off (a column name such as ``openai-chat:gemini:`` is data, not an emoji code)."""
    return Console(soft_wrap=True, emoji=False)


def print_lines(lines: Sequence[str] | None, console: Console) -> int:
    """Print ``lines``; ``None`` means nothing was found (an error already said why)."""
    if lines is None:
        return EXIT_FAILED
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    return EXIT_OK
