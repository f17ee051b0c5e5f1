"""Session mode of the command contract, for a Python command: one process, many cells.

A command whose manifest says ``session = true`` is started once per worker instead of
once per cell, so the interpreter and the library are loaded once.  The suite then hands
it one cell at a time: one JSON line on stdin,

    {"cell": 7, "case": {...the CONFORMANCE_CASE document...},
     "environment": {"CONFORMANCE_BASE_URL": "http://127.0.0.1:PORT", ...}}

and waits for one JSON line on the file descriptor ``CONFORMANCE_REPLY_FD`` names,

    {"cell": 7, "status": 0, "output": "<the output file's text>" | null}

where ``status`` is the exit status the command would have exited with as a process.
Everything else is the per-process contract: the variables of ``environment`` are the
ones a process gets, every cell has its own provider at its own base URL, stderr's last
line is a reserved status's message.

This helper makes a per-process command a session by wrapping its per-cell function::

    from conformance.examples.command_session import serve_or_run

    def main() -> None:  # reads CONFORMANCE_CASE, talks to the provider, may sys.exit
        ...

    if __name__ == "__main__":
        serve_or_run(main)

Per cell it sets the cell's variables in ``os.environ``, writes the case document where
``CONFORMANCE_CASE`` points, runs the function (``SystemExit`` and a return value are its
status; any other exception is status 1 with its traceback on stderr), and answers with
the output file ``CONFORMANCE_OUTPUT`` names.  Run as a process (no session), it runs
the function once and exits with its status.  Standard library only: it runs in any
environment the command runs in.  ``python -m conformance.examples command_session.py``
prints its path, to copy it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

#: Set to ``1`` in the environment of a command the suite runs as a session.
SESSION_VARIABLE = "CONFORMANCE_SESSION"
#: The file descriptor a session writes its answers to (one JSON line per cell).
REPLY_FD_VARIABLE = "CONFORMANCE_REPLY_FD"

#: The most bytes of the output file a session sends (the suite reads no more of it).
OUTPUT_LIMIT = 1 << 20

Cell = Callable[[], "int | None"]


def status_of(cell: Cell) -> int:
    """Run one cell's function; its status as a process would exit with it."""
    try:
        returned = cell()
    except SystemExit as done:
        code = done.code
        if code is None or isinstance(code, int):
            return code or 0
        sys.stderr.write(f"{code}\n")  # sys.exit("message"), as the interpreter does
        return 1
    except Exception:  # the cell's crash: status 1 with its traceback, as a process
        traceback.print_exc()
        return 1
    return returned or 0


def serve(cell: Cell) -> int:
    """Hold cells until stdin ends (the suite is done with this session); the status to
    exit with."""
    reply_fd = int(os.environ[REPLY_FD_VARIABLE])
    folder = Path(tempfile.mkdtemp(prefix="conformance-session-"))
    case_path, output_path = folder / "case.json", folder / "output.json"
    try:
        for line in sys.stdin:
            message: dict[str, Any] = json.loads(line)
            os.environ.update(message["environment"])
            os.environ["CONFORMANCE_CASE"] = str(case_path)
            os.environ["CONFORMANCE_OUTPUT"] = str(output_path)
            case_path.write_text(json.dumps(message["case"]), encoding="utf-8")
            output_path.unlink(missing_ok=True)
            status = status_of(cell)
            sys.stdout.flush()  # the cell's output reaches the suite before its answer
            sys.stderr.flush()
            output = _read_output(output_path)
            answer = {"cell": message["cell"], "status": status, "output": output}
            os.write(reply_fd, (json.dumps(answer) + "\n").encode())
    finally:
        for path in (case_path, output_path):
            path.unlink(missing_ok=True)
        folder.rmdir()
    return 0


def _read_output(path: Path) -> str | None:
    """The output file's bytes as JSON can carry them (undecodable bytes survive as
    surrogates, so the suite judges exactly what was written); ``None``: no file."""
    if not path.is_file():
        return None
    with path.open("rb") as file:
        return file.read(OUTPUT_LIMIT + 1).decode("utf-8", "surrogateescape")


def serve_or_run(cell: Cell) -> NoReturn:
    """A session when the suite started this command as one, else one cell; exits."""
    if os.environ.get(SESSION_VARIABLE) == "1":
        sys.exit(serve(cell))
    status = status_of(cell)
    sys.stdout.flush()
    sys.exit(status)
