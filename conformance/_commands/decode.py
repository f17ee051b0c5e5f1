"""``wire-conformance decode``: a recorded provider response as the scripted response
it reads back to (exit 0), or ``FILE: <where>: <problem>`` when it cannot be read
(exit 1)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from conformance._commands.command import EXIT_FAILED, EXIT_OK, EXIT_USAGE, console

if TYPE_CHECKING:
    from conformance.vocabulary import ScriptedResponse


class DecodeCommand:
    name = "decode"
    help = "read a recorded provider response back as a scripted response"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--wire", required=True, metavar="WIRE[:DIALECT]", help="its column")
        parser.add_argument("--json", action="store_true", help="print the response's JSON")
        parser.add_argument(
            "--stream",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="whether the body is a stream (default: told from its content)",
        )
        parser.add_argument("file", type=Path, metavar="FILE", help="the recorded response body")

    def execute(self, args: argparse.Namespace) -> int:
        return _decode(args, console())


def _decode(args: argparse.Namespace, console: Console) -> int:
    from conformance.errors import ResponseReadError
    from conformance.wires._registry import columns, get_wire, split_column
    from conformance.wires._sse import looks_streamed

    if args.wire not in columns():
        console.print(
            f"wire-conformance: unknown wire {args.wire}; known: {', '.join(columns())}",
            markup=False,
        )
        return EXIT_USAGE
    try:
        body = args.file.read_bytes()
    except OSError as error:
        console.print(f"wire-conformance: {args.file}: {error.strerror}", markup=False)
        return EXIT_USAGE
    name, dialect = split_column(args.wire)
    streaming = looks_streamed(body) if args.stream is None else args.stream
    try:
        response = get_wire(name).read(body, streaming, dialect)
    except ResponseReadError as error:
        console.print(f"{args.file}: {error.at}: {error.message}", markup=False, highlight=False)
        return EXIT_FAILED
    from conformance._recording.fragments import with_chunks
    from conformance._recording.noise import with_noise
    from conformance._recording.wrong_wire import wrong_wire

    problem = wrong_wire(args.wire, body, streaming)
    if problem is not None:
        console.print(f"{args.file}: {problem}", markup=False, highlight=False)
        return EXIT_FAILED
    if streaming:
        response = with_noise(with_chunks(response, body), name, body)
        _say_cut(args.file, body)
    sys.stdout.write(response.model_dump_json(indent=2) + "\n" if args.json else _listing(response))
    return EXIT_OK


def _say_cut(path: Path, body: bytes) -> None:
    """A stream cut inside an event: name where (on stderr: stdout stays the listing to
    paste), since the partial event is not read, as a client would not read it."""
    from conformance.wires._sse import cut_event

    cut = cut_event(body)
    if cut is None:
        return
    start, tail = cut
    shown = tail.decode("utf-8", "replace").strip().replace("\n", "\\n")
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    sys.stderr.write(
        f"{path}: byte {start}: the stream is cut inside an event ({shown}); a client "
        "does not read a partial event, so it is left out (a dropped stream)\n"
    )


def _listing(response: ScriptedResponse) -> str:
    """The response in the case language, one flow mapping per block: ready to paste under
    a turn's ``responses:``."""
    import yaml

    lines = [f"stop: {response.stop}"]
    if response.blocks:
        lines.append("blocks:")
    for block in response.blocks:
        fields = {"kind": block.kind, **block.model_dump(mode="json", exclude_defaults=True)}
        flow = yaml.safe_dump(
            fields, default_flow_style=True, sort_keys=False, allow_unicode=True, width=1 << 30
        )
        lines.append(f"  - {flow.strip()}")
    return "\n".join(lines) + "\n"
