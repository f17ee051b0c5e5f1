"""The ``wire-conformance`` command.

    wire-conformance run    [--target reference|reference-command|MANIFEST|module:attr|
                             cmd:<command>] [-j N] [--wire W]
                            [--case GLOB] [--cases DIR] [--json PATH] [--junit PATH]
                            [--markdown PATH] [--html PATH] [--timeout S] [--strict]
                            [--evidence documented|observed|any] [--save-exchanges DIR]
                            [--snapshots DIR [--update-snapshots]]
                            [--format auto|matrix|list] [-q]
                            [--baseline TARGET [--ab-json PATH]] [--rounds N]
                            [--shard K/N [--durations REPORT.json]]
    wire-conformance cases  [--schema | --lint | --list] [--cases DIR]
    wire-conformance checks [--json]
    wire-conformance target FILE | --schema
    wire-conformance probe  [--target reference|module:attr|MANIFEST|cmd:<command>]
                            [--probes FILE]... [-j N] [--json PATH] [--markdown PATH]
                            [--all-killers] [--isolate none|fork]
                            [--case GLOB] [--wire W] [--strict] | --schema
    wire-conformance decode --wire WIRE[:DIALECT] [--json] [--stream | --no-stream] FILE
    wire-conformance record --upstream URL [--listen 127.0.0.1:PORT] --out DIR [--redact-text]
    wire-conformance replay DIR... [--target T] [--json PATH] [--strict] [--evidence E]
    wire-conformance recording [--schema | to-case FILE [--out PATH]]
    wire-conformance recording audit DIR... [--json PATH] [--exclude FILE]
    wire-conformance report diff OLD.json NEW.json
    wire-conformance report merge SHARD.json... -o OUT.json
    wire-conformance report html REPORT.json [-o PATH] [--exchanges DIR] [--ab AB.json]
    wire-conformance generate [--target T] [--wire W] [--examples N] [--seed S]
                            [--profile dev|ci|nightly] [--save DIR] [--database DIR]

``run`` exits 0 when every cell passed (or is pinned, xfail or n/a), 1 on any fail,
error or case-file error, and 2 on a usage error.  ``decode`` prints a recorded provider
response as the scripted response it reads back to (exit 0), or ``FILE: <where>:
<problem>`` when it cannot be read (exit 1).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from conformance._commands.cases import CasesCommand
from conformance._commands.checks import ChecksCommand
from conformance._commands.command import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    Command,
    add_commands,
    command_named,
)
from conformance._commands.decode import DecodeCommand
from conformance._commands.generate import GenerateCommand
from conformance._commands.probe import ProbeCommand
from conformance._commands.record import RecordCommand
from conformance._commands.recording import RecordingCommand
from conformance._commands.replay import ReplayCommand
from conformance._commands.report import ReportCommand
from conformance._commands.run import RunCommand
from conformance._commands.target import TargetCommand
from conformance._interrupt import exit_on_interrupt
from conformance.version import __version__

__all__ = ["COMMANDS", "EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "main"]

#: What ``--help`` says first: plain text (the module docstring's first line is reST,
#: and argparse printed its markup as written).
DESCRIPTION = (
    "A conformance suite for the code between an LLM agent and a provider's wire: it "
    "scripts the provider, lets your adapter, client or command hold the conversation, "
    "and judges every request it sends back."
)

#: Every subcommand, in the order ``--help`` lists them.  A new subcommand is one
#: module in ``conformance._commands`` and one row here.
COMMANDS: tuple[Command, ...] = (
    RunCommand(),
    CasesCommand(),
    TargetCommand(),
    ChecksCommand(),
    DecodeCommand(),
    ProbeCommand(),
    RecordCommand(),
    ReplayCommand(),
    RecordingCommand(),
    ReportCommand(),
    GenerateCommand(),
)


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; given ``argv``, only the subcommand it names gets its
    arguments (``add_commands``: a start-up imports one command's engine, not all)."""
    parser = argparse.ArgumentParser(prog="wire-conformance", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    add_commands(parser, COMMANDS, "command", argv=argv)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Every command; an interruption it does not catch itself is one line and
    ``128 + N`` (``conformance._interrupt``; ``conformance.__main__`` arms the signals
    before this module is even imported)."""

    arguments = sys.argv[1:] if argv is None else argv

    def command() -> int:
        args = _parser(arguments).parse_args(arguments)
        return command_named(COMMANDS, args.command).execute(args)

    return exit_on_interrupt(command)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
