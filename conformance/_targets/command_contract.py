"""Command contract v2: what a command writes back, and the exit codes it may use.

v1 is the case document and the provider's address.  v2 adds, for targets that declare
the capabilities: the saved ``history`` in the case document, an output file (named by
``CONFORMANCE_OUTPUT``) where the command writes what its parent agent would receive,
and reserved exit codes that say why a command did not hold the conversation.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from conformance.vocabulary import FinalOutput, Stop

#: The command does not speak the case's wire (or dialect): the cell is ``n/a``.
EXIT_WIRE_UNSUPPORTED = 90
#: The command's library refused a response the provider sent: never a ``pass``.
EXIT_RESPONSE_REFUSED = 91
#: The command could not load the saved history the case document carries.
EXIT_HISTORY_UNLOADABLE = 92
#: The command's library stopped the conversation on purpose (it raised instead of going
#: on), with its message: judged on what was sent, accepted only where the turn may end.
EXIT_CONVERSATION_STOPPED = 93

#: The most bytes of an output file the suite reads.
OUTPUT_LIMIT = 1 << 20

OUTPUT_VARIABLE = "CONFORMANCE_OUTPUT"


@dataclass(frozen=True)
class ReadOutput:
    """The output file, read: the selected output or why there is none."""

    output: FinalOutput | None = None
    error: str | None = None


def _invalid(path: Path, why: str) -> ReadOutput:
    return ReadOutput(error=f"the output file {OUTPUT_VARIABLE} is malformed: {why}")


def parse_output(document: Any, path: Path) -> ReadOutput:
    """``{"text": str | null, "complete": bool, "stop": str | null}`` as a ``FinalOutput``."""
    if not isinstance(document, dict):
        return _invalid(path, "expected a JSON object")
    unknown = sorted(set(document) - {"text", "complete", "stop"})
    if unknown:
        return _invalid(path, f"unknown keys {', '.join(unknown)}")
    text, complete, stop = document.get("text"), document.get("complete"), document.get("stop")
    if text is not None and not isinstance(text, str):
        return _invalid(path, "`text` must be a string or null")
    if not isinstance(complete, bool):
        return _invalid(path, "`complete` must be true or false")
    if stop is not None and stop not in get_args(Stop):
        return _invalid(path, f"`stop` {stop!r} is not one of {', '.join(get_args(Stop))}")
    return ReadOutput(output=FinalOutput(text=text, complete=complete, stop=stop))


def read_output(path: Path) -> ReadOutput:
    """The output file the command wrote; a missing, oversized or malformed one says why."""
    if not path.is_file():
        return ReadOutput(error=f"the command wrote no output file ({OUTPUT_VARIABLE})")
    return output_from_bytes(path.read_bytes()[: OUTPUT_LIMIT + 1], path)


def output_from_bytes(raw: bytes | None, path: Path) -> ReadOutput:
    """The output file's content read (``None``: no file), whether the suite read the file
    itself or a session sent its content (``conformance._targets.session``)."""
    if raw is None:
        return ReadOutput(error=f"the command wrote no output file ({OUTPUT_VARIABLE})")
    if len(raw) > OUTPUT_LIMIT:
        return _invalid(path, f"larger than {OUTPUT_LIMIT} bytes")
    try:
        document = json.loads(raw)
    except ValueError as error:
        return _invalid(path, f"not JSON ({error})")
    return parse_output(document, path)


#: A line a runtime's warning machinery prints: Python's ``file:N: SomeWarning: …``,
#: Node's ``(node:123) Warning: …`` and its ``(Use `node --trace-warnings …`` hint.
_WARNING = re.compile(r"\w*Warning: |^\(node:\d+\) |^\(Use `node --trace-")


def last_line(text: str | None) -> str:
    """The message a reserved exit carries: the last non-empty line of a stream tail
    that is not a runtime's warning (a library that warns at exit, over several lines,
    after printing why it stopped, still has its decisive line read); the last line
    when every line is one."""
    lines = [line.rstrip() for line in (text or "").splitlines() if line.strip()]
    decisive: list[str] = []
    warning = False
    for line in lines:
        if _WARNING.search(line.strip()):
            warning = True
        elif not (warning and line[:1].isspace()):  # a warning's indented source line
            warning = False
            decisive.append(line.strip())
    chosen = decisive or [line.strip() for line in lines]
    return chosen[-1] if chosen else "(no message on stderr)"
