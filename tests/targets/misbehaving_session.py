"""A command target for the session tests: the reference adapter held by the package's
agent, misbehaving on its ``MISBEHAVE_AT``-th cell (counted per process) the way
``MISBEHAVE`` says.  Every cell appends this process's id to the file ``PIDS`` names,
so a test sees which process held which cell.

Run as a process (no session), every cell is the process's first: ``MISBEHAVE_AT=1``
gives the per-process behaviour a session's misbehaving cell is compared with.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from urllib.parse import urlsplit

from conformance.agent.runner import held, load_adapter
from conformance.examples.command_session import REPLY_FD_VARIABLE, serve_or_run

SPEC = "conformance._reference.adapter:ReferenceAdapter"
MODE = os.environ.get("MISBEHAVE", "none")
AT = int(os.environ.get("MISBEHAVE_AT", "2"))
ADAPTER = load_adapter(SPEC)
KEPT: list[socket.socket] = []
count = [0]


def request_left_open() -> None:
    """Send a request's headers, see the provider start answering it (``100
    Continue``), and never send its body: the cell's conversation is still running."""
    address = urlsplit(os.environ["CONFORMANCE_BASE_URL"])
    connection = socket.create_connection((address.hostname, address.port))
    connection.sendall(
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
        b"content-length: 100\r\nexpect: 100-continue\r\n\r\n"
    )
    assert connection.recv(100).startswith(b"HTTP/1.1 100")
    KEPT.append(connection)


def cell() -> int:
    count[0] += 1
    with open(os.environ["PIDS"], "a", encoding="utf-8") as pids:
        pids.write(f"{os.getpid()}\n")
    if count[0] == AT:
        if MODE == "crash":
            sys.stderr.write("crashing on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        if MODE == "hang":
            time.sleep(3600)
        if MODE == "garbage":
            os.write(int(os.environ[REPLY_FD_VARIABLE]), b"this is not JSON\n")
        if MODE == "wrong-cell":
            os.write(int(os.environ[REPLY_FD_VARIABLE]), b'{"cell": "other", "status": 0}\n')
        if MODE == "unfinished":
            request_left_open()
            return 0
    return held(SPEC, os.environ, ADAPTER)


if __name__ == "__main__":
    serve_or_run(cell)
