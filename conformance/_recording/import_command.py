"""The command line of ``wire-conformance recording import`` (the work is in
``conformance._recording.importing``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

_DESCRIPTION = """\
Read vcrpy / pytest-recording cassettes (.yaml, .yml, .yaml.gz, vcrpy's .json) and HAR
files (.har) and write each conversation in them as a recording (format version 1,
synthetic: false), one file per conversation under DIR/<wire>/. An exchange with a host
the suite knows no provider at, or with an endpoint that is not a conversation
(count_tokens, files, model lists, ...) is skipped and counted. Response bodies are cut
into one chunk per SSE event, request headers other than content-type, anthropic-version,
anthropic-beta and openai-beta are dropped, the sanitizer removes credentials; each file's
metadata.edits says what was changed.

exit status: 0 every cassette imported; 1 a file failed (the others are still imported);
2 no cassette found, nothing to import, or a usage error."""


def dialect_choices() -> tuple[str, ...]:
    """The dialects a recorded conversation may be told to be in (``--dialect`` of
    ``record`` and ``recording import``): every dialect of every wire that has them, from
    the wires themselves, so a new dialect is offered where it is declared."""
    from conformance.wires._registry import dialects_by_wire

    return tuple(sorted({d for dialects in dialects_by_wire().values() for d in dialects}))


def add_import_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    command = actions.add_parser(
        "import",
        help="write recordings made from vcrpy cassettes and HAR files",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument(
        "sources", nargs="+", type=Path, metavar="SRC", help="cassette files or directories"
    )
    command.add_argument("--out", required=True, type=Path, metavar="DIR")
    command.add_argument(
        "--origin",
        metavar="TEXT",
        help="where the cassettes come from, e.g. owner/repo@commit: metadata.origin is this "
        "text and the cassette's path",
    )
    command.add_argument("--license", metavar="TEXT", help="metadata.license, e.g. MIT")
    command.add_argument(
        "--dialect",
        choices=dialect_choices(),
        help="the dialect of Chat conversations (default: told from the host)",
    )


def run_import(args: argparse.Namespace) -> int:
    from conformance._recording.importing import import_cassettes

    missing = [str(s) for s in args.sources if not s.exists()]
    if missing:
        sys.stdout.write(f"wire-conformance: no such file or directory: {', '.join(missing)}\n")
        return EXIT_USAGE
    summary = import_cassettes(args.sources, args.out, args.origin, args.license, args.dialect)
    for line in summary.lines():
        sys.stdout.write(line + "\n")
    if summary.failed:
        return EXIT_FAILED
    if not summary.written:
        return EXIT_USAGE
    return EXIT_OK
