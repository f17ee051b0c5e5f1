"""Fault injection: what the suite survives.  Each test is one hostile input or event,
named in one line; together they are the list a reader scans.

Case files
- an alias bomb ("billion laughs") is refused by a node budget, with its line
- a case nested hundreds of levels deep is a located error, not a RecursionError
- an unreadable subfolder, a dangling or looping ``*.yaml`` link, a FIFO and a linked
  family folder are each named (a FIFO is never opened)
Response and request bodies
- deeply nested SSE or JSON in ``decode`` is a located read error
- a deeply nested request body is a recorded rejected request with the reason
- a request body above the cap is refused with a 413, recorded by size and hash only
Loopback provider
- malformed framing (bad chunk size, ``Content-Length: abc``, a negative length) is
  answered with a 400 and recorded
- TCP_NODELAY is on and each SSE event is its own write; the backlog takes 300
  connections at once
- a request whose headers never finish reaches no handler (the cell's timeout shows,
  not "body is not valid JSON"); a frame announcing 2^80 bytes is refused before reading
Processes (command targets)
- a detached grandchild writing into the scratch folder does not crash cleanup
- a grandchild that calls ``setsid`` does not outlive the run
- stdout and stderr are kept as bounded tails; a holder that left the session and
  cleared its environment (`setsid env -i`) does not hold the cell: its pipes are abandoned
Signals
- SIGTERM, SIGHUP and SIGINT end the targets, remove scratch files, write the reports
  and exit 128+signal without a traceback; every report says it is incomplete (JSON
  ``incomplete``, a JUnit error testcase, a Markdown line)
- so does ``replay``; ``record`` exits 128+signal on SIGTERM/SIGHUP; a signal while the
  command line is imported, or after ``probe`` wrote its JSON, is one line and
  128+signal; SIGTERM during a pytest cell removes its scratch folder
In-process targets
- a target that hangs stops burning CPU after its timeout
- a target whose constructor or import calls ``sys.exit`` or raises is an error that
  names it, and the run goes on
- a target (or a thread of its own) calling ``os._exit(0)`` is an error naming it, not
  the silent end of the run; a child it forks still exits
Streams
- a 300 000-event scripted stream leaks no thread
Probe scratch copies
- a FIFO in the target's folder is named and skipped; a `TMPDIR` inside it is not copied
Recordings
- a dangling ``*.json`` link is an error naming it; a name with a newline is escaped
Reports
- a looping target's violations are capped (20 of a check, 100 in all) and counted
Snapshots
- a 0-byte or cut-short snapshot is named as a corrupt file, not shown as a drift
Command line
- ``--timeout`` rejects 0, negatives, nan, inf and more than a day
- ``--wire openai-chat:deepseek`` is accepted by ``run``
- report and snapshot paths are checked before the run
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from typing_extensions import Buffer

from conformance._cases.loader import CaseSet, load_dirs
from conformance._cases.parse_cache import ParseCache
from conformance._cases.schema import Case
from conformance._cases.validate import Vocabulary
from conformance._cases.yamlfile import parse
from conformance._cli import main
from conformance._provider.loopback import LoopbackServer
from conformance._recording.load import load_recording
from conformance._runner import RunOptions, plan, run_job
from conformance._targets.api import Adapter, AdapterSession, CaseBrief
from conformance._targets.command import TAIL_CHARS, CommandTarget
from conformance._targets.resolve import resolve_target, target_from_object
from conformance.errors import CassetteError, RecordingError, TargetError, UnsafePath, YamlError
from conformance.http import HttpRequest, HttpResponse, json_response
from conformance.verdict import MAX_TIMEOUT
from harness.hostile import looping
from tests.targets.conversation import SESSION, provider

#: The documented cap on a request body, and the deepest JSON the suite reads.
MAX_BODY_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 128

VOCABULARY = Vocabulary(frozenset({"tool-pairing"}), {"anthropic-messages": ()})


def load(directory: Path) -> CaseSet:
    return load_dirs([directory], VOCABULARY, ParseCache(None))


def messages(cases: CaseSet) -> dict[str, str]:
    return {Path(error.file).name: error.message for error in cases.errors}


# ------------------------------------------------------------------------- case files

BOMB = "\n".join(
    ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    + [
        f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]"
        for p, n in zip("abcdefgh", "bcdefghi", strict=True)
    ]
)


def test_a_yaml_alias_bomb_is_refused_by_the_node_budget_with_its_line() -> None:
    assert len(BOMB) < 400
    with pytest.raises(YamlError) as raised:
        parse(BOMB)
    assert "more than 100000 values" in raised.value.message
    assert raised.value.line is not None


@pytest.mark.parametrize("style", ["flow", "block"])
def test_a_case_nested_hundreds_of_levels_is_a_located_error(style: str) -> None:
    depth = 900
    if style == "flow":
        text = "id: x\ngiven: " + "[" * depth + "]" * depth + "\n"
    else:
        text = "id: x\ngiven:\n" + "".join(f"{'  ' * (i + 1)}k{i}:\n" for i in range(depth))
    with pytest.raises(YamlError) as raised:
        parse(text)
    assert "nest" in raised.value.message
    assert raised.value.line is not None


def test_a_deep_case_file_does_not_stop_the_other_cases(tmp_path: Path) -> None:
    (tmp_path / "deep.yaml").write_text("id: deep\ngiven: " + "[" * 500 + "]" * 500 + "\n")
    cases = load(tmp_path)
    assert "nest deeper" in messages(cases)["deep.yaml"]


#: A valid case in the vocabulary above.
FINE = """id: fine
title: A case that loads beside a broken one
provenance: [{rule: 13}]
features: [tool-pairing]
wires: {anthropic-messages: "any Anthropic turn ends with text"}
given:
  turns:
    - user: Hello.
      responses:
        - {stop: end, blocks: [{kind: text, text: Hi.}]}
expect:
  - requests: 1
"""


def test_a_yaml_merge_key_is_a_located_error_of_its_file_only(tmp_path: Path) -> None:
    """A merge key crashed loading with a ConstructorError, and no case ran."""
    (tmp_path / "fine.yaml").write_text(FINE)
    (tmp_path / "merged.yaml").write_text("base: &m\n  id: x\ncopy:\n  <<: *m\n")
    cases = load(tmp_path)
    assert messages(cases) == {
        "merged.yaml": "a YAML merge key (`<<`) is not supported: write the keys out"
    }
    assert [c.case.id for c in cases.cases] == ["fine"]
    with pytest.raises(YamlError) as raised:
        parse("copy:\n  <<: {a: 1}\n")
    assert (raised.value.line, raised.value.field) == (2, "copy")


def test_an_unreadable_subfolder_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    real_scandir = os.scandir

    def scandir(path: Path) -> Iterator[os.DirEntry[str]]:
        if Path(path) == locked:  # root reads through chmod 000: refuse like the kernel
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert messages(load(tmp_path)) == {"locked": "cannot list this folder: Permission denied"}


def test_a_dangling_yaml_link_is_named(tmp_path: Path) -> None:
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    assert "dangling link" in messages(load(tmp_path))["gone.yaml"]


def test_a_looping_yaml_link_is_named(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    found = messages(load(tmp_path))
    assert "cannot be followed" in found["a.yaml"]
    assert "cannot be followed" in found["b.yaml"]


def test_a_fifo_is_named_and_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")  # opening it for reading would block forever
    assert messages(load(tmp_path)) == {"pipe.yaml": "a FIFO, not a case file"}


def test_a_linked_family_folder_is_named(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    library = tmp_path / "library"
    library.mkdir()
    (library / "family").symlink_to(elsewhere, target_is_directory=True)
    assert "linked folder" in messages(load(library))["family"]


# ------------------------------------------------------------ response and request bodies


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 3000])
def test_deeply_nested_sse_in_decode_is_a_located_read_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int
) -> None:
    body = tmp_path / "deep.sse"
    body.write_text(f"event: message_start\ndata: {nested(depth)}\n\n")
    assert main(["decode", "--wire", "anthropic-messages", str(body)]) == 1
    out = capsys.readouterr().out
    assert "nests" in out
    assert "Traceback" not in out


def test_deeply_nested_json_in_decode_is_a_located_read_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = tmp_path / "deep.json"
    body.write_text(nested(3000))
    assert main(["decode", "--wire", "openai-chat:deepseek", "--no-stream", str(body)]) == 1
    assert "nests 3000 levels deep" in capsys.readouterr().out


def test_a_deeply_nested_request_body_is_a_recorded_rejected_request() -> None:
    scripted = provider()
    body = b'{"model":"m","messages":[{"role":"user","content":' + b"[" * 5000 + b"]" * 5000
    response = scripted.handle(HttpRequest("POST", "/v1/messages", body + b"}]}"))
    assert response.status == 400
    (exchange,) = scripted.exchanges
    assert exchange.served is None
    assert exchange.violations[0].check == "provider/request-too-deep"
    assert "5003 levels deep" in (exchange.problem or "")


def test_a_request_body_above_the_cap_is_a_413_recorded_by_size_and_hash() -> None:
    scripted = provider()
    body = b" " * (MAX_BODY_BYTES + 1)
    response = scripted.handle(HttpRequest("POST", "/v1/messages", body))
    assert response.status == 413
    (exchange,) = scripted.exchanges
    assert exchange.request.body == b""
    assert exchange.violations[0].check == "provider/request-too-large"
    assert f"{MAX_BODY_BYTES + 1} bytes" in (exchange.problem or "")
    assert "sha256 " in (exchange.problem or "")


# --------------------------------------------------------------------- loopback provider


def raw_exchange(server: LoopbackServer, head: bytes) -> bytes:
    """Send raw bytes and read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as connection:
        connection.sendall(head)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    return received


@pytest.mark.parametrize(
    ("framing", "problem"),
    [
        (b"Transfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n", "not hexadecimal"),
        (b"Content-Length: abc\r\n\r\n{}", "'abc' is not a non-negative integer"),
        (b"Content-Length: -5\r\n\r\n{}", "'-5' is not a non-negative integer"),
    ],
)
def test_malformed_framing_is_a_400_recorded_as_a_rejected_request(
    framing: bytes, problem: str
) -> None:
    scripted = provider()
    with LoopbackServer(scripted.handle) as server:
        answer = raw_exchange(server, b"POST /v1/messages HTTP/1.1\r\nHost: x\r\n" + framing)
    assert answer.startswith(b"HTTP/1.1 400 ")
    (exchange,) = scripted.exchanges
    assert exchange.served is None
    assert exchange.violations[0].check == "provider/malformed-framing"
    assert problem in (exchange.problem or "")


@pytest.mark.parametrize(
    "head",
    [
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n",
        b"POST / HTTP/1.1\r\n",
    ],
)
def test_a_request_whose_headers_never_finish_is_no_request(head: bytes) -> None:
    """The client stops before the blank line ending the headers (here it closes its
    side; a hanging one is cut when the cell times out): nothing reaches the provider,
    which would judge an empty body "not valid JSON" (a ``fail`` hiding the timeout)."""
    scripted = provider()
    with (
        LoopbackServer(scripted.handle) as server,
        socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection,
    ):
        connection.sendall(head)
        connection.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    assert received == b""
    assert scripted.exchanges == []


@pytest.mark.parametrize(
    "framing",
    [
        b"Transfer-Encoding: chunked\r\n\r\n" + format(2**80, "x").encode() + b"\r\nab",
        b"Content-Length: " + str(2**80).encode() + b"\r\n\r\nab",
        b"Content-Length: " + b"9" * 5000 + b"\r\n\r\nab",
    ],
    ids=["chunk-2^80", "length-2^80", "length-5000-digits"],
)
def test_an_absurd_announced_length_is_refused_before_reading(framing: bytes) -> None:
    """The client announces 2^80 bytes, sends two and waits: the answer is a 400 at
    once, not a connection thread hashing until the client gives up."""
    scripted = provider()
    with (
        LoopbackServer(scripted.handle) as server,
        socket.create_connection(("127.0.0.1", server.port), timeout=60) as connection,
    ):
        connection.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\n" + framing)
        answer = connection.recv(65536)  # the connection stays open on our side
    assert answer.startswith(b"HTTP/1.1 400 ")
    (exchange,) = scripted.exchanges
    assert exchange.violations[0].check == "provider/malformed-framing"
    assert "refused before reading it" in (exchange.problem or "")


def test_an_over_cap_body_over_loopback_is_hashed_not_kept() -> None:
    scripted = provider()
    with LoopbackServer(scripted.handle) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        connection.request("POST", "/v1/messages", body=b"x" * (MAX_BODY_BYTES + 10))
        assert connection.getresponse().status == 413
        connection.close()
    (exchange,) = scripted.exchanges
    assert exchange.request.body == b""
    assert f"{MAX_BODY_BYTES + 10} bytes" in (exchange.problem or "")


EVENTS = tuple(f'event: e\ndata: {{"n":{n}}}\n\n'.encode() for n in range(5))


def streamed(request: HttpRequest) -> HttpResponse:
    body = b"".join(EVENTS)
    return HttpResponse(200, body, (("content-type", "text/event-stream"),), EVENTS)


def test_the_loopback_sets_tcp_nodelay_and_writes_each_event_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from conformance._provider import loopback

    writes: list[bytes] = []
    options: list[int] = []
    real_handle = loopback._RequestHandler.handle

    def spy(handler: loopback._RequestHandler) -> None:
        options.append(handler.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        real_write = handler.wfile.write

        def write(data: Buffer) -> int:
            writes.append(bytes(data))
            return real_write(data)

        monkeypatch.setattr(handler.wfile, "write", write)
        real_handle(handler)

    monkeypatch.setattr(loopback._RequestHandler, "handle", spy)
    with LoopbackServer(streamed) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        connection.request("POST", "/v1/messages", body=b"{}")
        assert connection.getresponse().read() == b"".join(EVENTS)
        connection.close()
    assert options == [1]
    assert [w for w in writes if w in EVENTS] == list(EVENTS)


@pytest.mark.slow
def test_the_listen_backlog_takes_300_parallel_connections() -> None:
    gate = threading.Event()
    statuses: list[int | str] = []

    def slow(request: HttpRequest) -> HttpResponse:
        gate.wait(5)
        return json_response(200, {})

    def client() -> None:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
            connection.request("POST", "/v1/messages", body=b"{}")
            statuses.append(connection.getresponse().status)
            connection.close()
        except OSError as error:
            statuses.append(type(error).__name__)

    with LoopbackServer(slow) as server:
        clients = [threading.Thread(target=client) for _ in range(300)]
        for thread in clients:
            thread.start()
        gate.set()
        for thread in clients:
            thread.join()
    assert statuses == [200] * 300


def test_the_documented_limits_are_the_ones_enforced() -> None:
    from conformance._provider.limits import MAX_BODY_BYTES as cap
    from conformance.wires._nesting import MAX_DEPTH as depth

    assert (cap, depth) == (MAX_BODY_BYTES, MAX_DEPTH)


# ------------------------------------------------------------ processes (command targets)


def shell_python(code: str) -> str:
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def processes_with(token: str) -> list[int]:
    """Live processes whose command line holds ``token``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
        except (OSError, IndexError):
            continue
        if token.encode() in cmdline and state not in "ZX":
            found.append(int(entry.name))
    return found


@pytest.fixture
def scratch_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the command targets' scratch folders go (``TMPDIR``), to look for leftovers."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setenv("TMPDIR", str(root))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return root


def ok(request: HttpRequest) -> HttpResponse:
    return json_response(200, {})


@pytest.mark.slow
def test_a_detached_grandchild_writing_into_scratch_does_not_crash_cleanup(
    scratch_root: Path,
) -> None:
    token = f"scribbler-{os.getpid()}-{time.monotonic_ns()}"
    writer = (
        'import os, sys, time\nfolder = os.path.dirname(os.environ["CONFORMANCE_CASE"])\n'
        "n = 0\nwhile True:\n"
        "    n += 1\n    os.makedirs(f'{folder}/d{n}', exist_ok=True)\n"
        "    open(f'{folder}/d{n}/f', 'w').write('x')\n"
        "    time.sleep(0.001)\n"
    )
    command = f"setsid {shell_python(writer)} {token} & sleep 0.3"
    ran = CommandTarget(command, timeout=5, grace=0.5).run(SESSION, ok)
    assert ran.exit_code == 0
    assert processes_with(token) == []
    assert list(scratch_root.iterdir()) == []


@pytest.mark.slow
def test_a_grandchild_that_calls_setsid_does_not_outlive_the_run(scratch_root: Path) -> None:
    token = f"escapee-{os.getpid()}-{time.monotonic_ns()}"
    command = f"setsid sh -c 'sleep 300; : {token}' > /dev/null 2>&1 < /dev/null &"
    CommandTarget(command, timeout=5, grace=0.5).run(SESSION, ok)
    deadline = time.monotonic() + 3
    while processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_with(token) == []


@pytest.mark.slow
def test_a_detached_grandchild_with_no_environment_holding_the_pipes_does_not_hold_the_cell(
    scratch_root: Path,
) -> None:
    """``setsid env -i``: out of the group and without the marker, it keeps stdout and
    stderr open.  The cell ends once the shell exits (plus a grace), not at its EOF, and
    the holder is ended: ``/proc/<pid>/fd`` shows it holds the pipe."""
    token = f"pipe-holder-{os.getpid()}-{time.monotonic_ns()}"
    command = f"setsid env -i sh -c 'sleep 300; : {token}'"
    target = CommandTarget(command, timeout=3, grace=0.5)
    results: list[object] = []
    cell = threading.Thread(target=lambda: results.append(target.run(SESSION, ok)), daemon=True)
    try:
        cell.start()
        cell.join(60)  # a hang guard, not a timing assertion
        assert not cell.is_alive(), "the cell waited for the detached holder's EOF"
        # found by the pipe it holds, though it has neither the group nor the marker
        deadline = time.monotonic() + 3
        while processes_with(token) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert processes_with(token) == []
    finally:
        for pid in processes_with(token):
            os.kill(pid, signal.SIGKILL)
        cell.join(10)
    assert len(results) == 1
    assert list(scratch_root.iterdir()) == []


@pytest.mark.slow
def test_command_output_is_read_into_a_bounded_tail_not_a_file(scratch_root: Path) -> None:
    command = "readlink /proc/$$/fd/1; head -c 20000000 /dev/zero | tr '\\0' x; echo; echo END"
    ran = CommandTarget(command, timeout=20).run(SESSION, ok)
    assert ran.stdout_tail.endswith("x\nEND\n")
    assert len(ran.stdout_tail) <= TAIL_CHARS
    probe = CommandTarget("readlink /proc/$$/fd/1", timeout=5).run(SESSION, ok)
    assert probe.stdout_tail.startswith("pipe:")  # not a temp file that grows with output


# ---------------------------------------------------------------------------- signals


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_ends_the_targets_cleans_up_writes_reports_and_exits_128_plus(
    tmp_path: Path, scratch_root: Path, sig: signal.Signals
) -> None:
    token = f"slow-{sig.name}-{os.getpid()}-{time.monotonic_ns()}"
    report = tmp_path / "reports" / "r.json"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "conformance",
            "run",
            "-q",
            "--target",
            f"cmd:sleep 60; : {token}",
            "--wire",
            "anthropic-messages",
            "--json",
            str(report),
            "--junit",
            str(report.with_suffix(".xml")),
            "--markdown",
            str(report.with_suffix(".md")),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(scratch_root)},
    )
    wait_for_scratch(scratch_root, process)  # a scratch folder: the slow command runs
    time.sleep(0.3)
    process.send_signal(sig)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 128 + sig, err.decode()
    assert b"Traceback" not in out + err
    assert f"interrupted by {sig.name}".encode() in out
    written = json.loads(report.read_text())
    assert written["target"].startswith("cmd-")
    # every report says it is incomplete: none reads as a whole, green run
    assert written["incomplete"].startswith(f"interrupted by {sig.name}")
    junit = report.with_suffix(".xml").read_text()
    assert 'name="incomplete"' in junit
    assert 'errors="0"' not in junit
    assert "Incomplete run" in report.with_suffix(".md").read_text()
    assert processes_with(token) == []
    assert list(scratch_root.iterdir()) == []


#: This checkout, first on the path of a child run from another folder (the installed
#: package may be another checkout).
CHECKOUT = str(Path(__file__).resolve().parents[1])


def child_environment(**extra: str) -> dict[str, str]:
    """The environment of a child Python run from another folder: this checkout's package,
    and none of the xdist worker's variables (a pytest child is a session of its own)."""
    kept = {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))
    }
    path = os.pathsep.join(p for p in (CHECKOUT, os.environ.get("PYTHONPATH")) if p)
    return {**kept, "PYTHONPATH": path, **extra}


def wait_for_scratch(root: Path, process: subprocess.Popen[bytes]) -> None:
    """Until a command's scratch folder exists (its slow command runs), or a hang guard."""
    deadline = time.monotonic() + 60
    while not list(root.iterdir()) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    if not list(root.iterdir()):
        ended = process.poll()
        why = "" if ended is None else f": it exited {ended}"
        if ended is not None and process.stderr is not None:
            why += f", stderr: {process.stderr.read().decode(errors='replace')[-2000:]}"
        raise AssertionError(f"the slow command never started{why}")


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_during_replay_ends_the_command_removes_scratch_and_exits_128_plus(
    scratch_root: Path, sig: signal.Signals, tmp_path: Path
) -> None:
    token = f"replay-{sig.name}-{os.getpid()}-{time.monotonic_ns()}"
    report = tmp_path / "replay.json"
    command = ["replay", "--target", f"cmd:sleep 60; : {token}", "--json", str(report)]
    process = subprocess.Popen(
        [sys.executable, "-m", "conformance", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(scratch_root)},
    )
    wait_for_scratch(scratch_root, process)
    process.send_signal(sig)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + sig, err.decode()
    assert b"Traceback" not in out + err
    assert f"interrupted by {sig.name}".encode() in err
    assert processes_with(token) == []
    assert list(scratch_root.iterdir()) == []
    # As `run` does: the report is written, and says it is incomplete.
    written = json.loads(report.read_text(encoding="utf-8"))
    assert f"interrupted by {sig.name}" in written["incomplete"]
    assert "recordings that finished" in written["incomplete"]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_record_ended_by_sigterm_or_sighup_exits_128_plus(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """Ctrl-C is how a recording session is meant to end (exit 0); SIGTERM or SIGHUP is
    an interruption a script must be able to tell apart."""
    upstream = ["--upstream", "http://127.0.0.1:9", "--listen", "127.0.0.1:0"]
    process = subprocess.Popen(
        [sys.executable, "-m", "conformance", "record", *upstream, "--out", str(tmp_path / "r")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stdout.readline().startswith(b"recording ")  # listening: the wait is on
    process.send_signal(sig)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + sig, err.decode()
    assert b"Traceback" not in out + err
    assert f"interrupted by {sig.name}".encode() in out + err


#: Runs the command line with a signal sent to itself at one chosen moment: when
#: ``conformance._cli`` starts being imported (the start of every command), or right after
#: ``probe`` wrote its JSON report.
SELF_SIGNAL = """
import importlib.abc, os, signal, sys
sig, moment, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]

class Signal(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "conformance._cli":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), sig)
        return None

if moment == "import":
    sys.meta_path.insert(0, Signal())
from conformance.__main__ import main
if moment == "probe-written":
    import conformance._probe.command as probe
    written = probe._write
    def write_then_signal(*args):
        done = written(*args)
        os.kill(os.getpid(), sig)
        return done
    probe._write = write_then_signal
sys.exit(main(argv))
"""


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize(
    "argv",
    [
        ["run", "-q", "--case", "xml-*", "--wire", "anthropic-messages"],
        ["replay"],
        ["generate", "--examples", "1"],
        ["probe", "--schema"],
        ["record", "--upstream", "http://127.0.0.1:9", "--out", "nowhere"],
    ],
    ids=lambda argv: argv[0] if isinstance(argv, list) else None,
)
def test_a_signal_while_the_command_line_is_imported_is_one_line_and_128_plus(
    tmp_path: Path, sig: signal.Signals, argv: list[str]
) -> None:
    ran = subprocess.run(
        [sys.executable, "-c", SELF_SIGNAL, str(int(sig)), "import", *argv],
        capture_output=True,
        timeout=120,
        cwd=tmp_path,
        env=child_environment(),
        check=False,
    )
    assert ran.returncode == 128 + sig, ran.stderr.decode()
    assert b"Traceback" not in ran.stdout + ran.stderr
    assert f"interrupted by {sig.name}".encode() in ran.stderr
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.slow
def test_a_signal_after_probe_wrote_its_json_is_one_line_and_128_plus(tmp_path: Path) -> None:
    report = tmp_path / "probe.json"
    argv = ["probe", "--case", "xml-*", "--wire", "anthropic-messages", "--json", str(report)]
    ran = subprocess.run(
        [sys.executable, "-c", SELF_SIGNAL, str(int(signal.SIGTERM)), "probe-written", *argv],
        capture_output=True,
        timeout=600,
        cwd=tmp_path,
        env=child_environment(),
        check=False,
    )
    assert ran.returncode == 128 + signal.SIGTERM, ran.stderr.decode()
    assert b"Traceback" not in ran.stdout + ran.stderr
    assert json.loads(report.read_text())["mutants"]


PYTEST_SUITE = """
from conformance.pytest._suite import ConformanceSuite

class TestSlow(ConformanceSuite):
    target = "cmd:sleep 60; : TOKEN"
    case_patterns = ("xml-*",)
    wires = ("anthropic-messages",)
"""


@pytest.mark.slow
def test_sigterm_during_a_pytest_cell_ends_its_command_and_removes_its_scratch(
    tmp_path: Path, scratch_root: Path
) -> None:
    token = f"pytest-{os.getpid()}-{time.monotonic_ns()}"
    (tmp_path / "test_slow.py").write_text(PYTEST_SUITE.replace("TOKEN", token))
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", "test_slow.py"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=child_environment(TMPDIR=str(scratch_root)),
    )
    wait_for_scratch(scratch_root, process)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, (out + err).decode()
    assert processes_with(token) == []
    assert [p for p in scratch_root.iterdir() if p.name.startswith("conformance-cmd-")] == []


# -------------------------------------------------------------------- in-process targets


class Spinning(Adapter):
    """Never returns from ``open``: a pure-Python loop that burns CPU."""

    name = "spinning"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})

    def open(self, session: CaseBrief) -> AdapterSession:
        while True:
            pass


class Exiting(Adapter):
    """Its constructor calls ``sys.exit``."""

    name = "exiting"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})

    def __init__(self) -> None:
        sys.exit(3)

    def open(self, session: CaseBrief) -> AdapterSession:
        raise NotImplementedError


def test_a_hung_in_process_target_stops_burning_cpu_after_its_timeout() -> None:
    others = set(threading.enumerate())
    target = target_from_object(Spinning())
    job = next(j for j in plan([conversation_case()], target) if j.skip is None)
    result, _ = run_job(target, job, RunOptions(timeout=0.3))
    assert result.verdict == "error"
    deadline = time.monotonic() + 5
    while spinning_threads(others) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert spinning_threads(others) == []


def spinning_threads(others: set[threading.Thread]) -> list[threading.Thread]:
    """The target threads this test started that still run."""
    return [
        t
        for t in threading.enumerate()
        if t.name == "conformance-target" and t.is_alive() and t not in others
    ]


def conversation_case() -> Case:
    from tests.targets.conversation import CASE

    return CASE


def test_a_constructor_that_calls_sys_exit_is_an_error_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(TargetError, match=r"constructing tests\.test_fault_injection:Exiting"):
        resolve_target("tests.test_fault_injection:Exiting")
    code = main(["run", "--target", "tests.test_fault_injection:Exiting"])
    out = capsys.readouterr().out
    assert code == 2
    assert "SystemExit: 3" in out


@pytest.mark.parametrize("raised", ["RuntimeError('boom')", "SystemExit(4)", "KeyError('k')"])
def test_a_module_that_raises_on_import_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raised: str
) -> None:
    name = f"hostile_import_{abs(hash(raised))}"
    (tmp_path / f"{name}.py").write_text(f"raise {raised}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(TargetError) as error:
        resolve_target(f"{name}:Adapter")
    assert f"importing {name!r} raised" in str(error.value)
    assert f"{name}.py" in str(error.value)  # the short traceback names the file


# ------------------------------------------------------------------------------ streams


def huge_stream_case(events: int) -> Case:
    """The conversation case, its last answer one text streamed as ``events`` deltas."""
    data = conversation_case().model_dump(mode="json", by_alias=True)
    data["id"] = "huge-stream"
    data["given"]["turns"][-1]["responses"] = [
        {"stop": "end", "blocks": [{"kind": "text", "text": "x" * events, "chunks": [1] * events}]}
    ]
    return Case.model_validate(data)


@pytest.mark.slow
def test_a_300k_event_scripted_stream_neither_times_out_the_reference_nor_leaks_a_thread() -> None:
    from conformance._reference.adapter import ReferenceAdapter

    before = set(threading.enumerate())
    target = target_from_object(ReferenceAdapter())
    # The budget is relative to this machine, now: a tenth of the events, timed, then
    # ten times the events in 50 times that (linear, with room): a quadratic reading
    # still times out; a loaded machine does not (it took 63 min and went red on a
    # fixed 60 s, issue 25 item 17).
    started = time.perf_counter()
    small = huge_stream_case(30_000)
    job = next(j for j in plan([small], target, ["anthropic-messages"]) if j.skip is None)
    assert run_job(target, job, RunOptions(timeout=MAX_TIMEOUT))[0].verdict == "pass"
    budget = max(60.0, 50 * (time.perf_counter() - started))
    case = huge_stream_case(300_000)
    job = next(j for j in plan([case], target, ["anthropic-messages"]) if j.skip is None)
    result, transcript = run_job(target, job, RunOptions(timeout=budget))
    assert result.verdict == "pass", result
    assert transcript is not None
    assert transcript.exchanges[-1].response.body.count(b"text_delta") == 300_000
    assert set(threading.enumerate()) - before == set()


# -------------------------------------------------------------------------- command line


@pytest.mark.parametrize("command", [["run"], ["probe"], ["generate"], ["replay", "."]])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "-inf", "86401", "1e9", "soon"])
def test_timeout_rejects_values_that_are_not_a_sane_number_of_seconds(
    command: list[str], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every command reads ``--timeout`` the same way: a usage error, never a traceback
    (probe and generate crashed on nan with a ValueError)."""
    with pytest.raises(SystemExit) as exited:
        main([*command, "--timeout", value])
    assert exited.value.code == 2
    assert "--timeout" in capsys.readouterr().err


def test_the_pytest_plugin_reads_its_timeout_the_same_way() -> None:
    """``--conformance-timeout`` and ``run --timeout`` are one setting, one converter."""
    from conformance._settings import setting

    timeout = setting("timeout")
    assert timeout.pytest == "--conformance-timeout"
    assert timeout.flags == ("--timeout",)
    assert timeout.type is not None
    assert timeout.type("2.5") == 2.5
    with pytest.raises(argparse.ArgumentTypeError):
        timeout.type("nan")


def test_run_accepts_a_wire_dialect_column() -> None:
    assert main(["run", "-q", "--wire", "openai-chat:deepseek", "--case", "xml-*"]) == 0


def test_a_missing_report_folder_is_created_before_the_run(tmp_path: Path) -> None:
    report = tmp_path / "new" / "folder" / "r.json"
    assert (
        main(
            ["run", "-q", "--wire", "anthropic-messages", "--case", "xml-*", "--json", str(report)]
        )
        == 0
    )
    assert report.is_file()


@pytest.mark.parametrize("flag", ["--json", "--junit", "--markdown", "--snapshots"])
def test_an_unwritable_report_or_snapshot_path_is_refused_before_the_run(
    tmp_path: Path, flag: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import conformance._runner

    def never(*args: object, **kwargs: object) -> object:
        raise AssertionError("the run started")

    monkeypatch.setattr(conformance._runner, "run_jobs", never)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = main(["run", "-q", flag, str(blocker / "sub" / "out")])
    assert code == 2
    assert str(blocker) in capsys.readouterr().out


# ------------------------------------------- names that become paths (reliability, item 1)

_ESCAPING_NAMES = ["/tmp/x/victim", "..", "../x", "a/b", ".", "..\\x"]


@pytest.mark.parametrize("name", _ESCAPING_NAMES)
def test_a_target_name_that_would_leave_the_snapshot_root_is_refused_and_deletes_nothing(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: ``--target-name /tmp/x/victim --update-snapshots`` treated the victim's
    files as stale snapshots and deleted them, then crashed."""
    victim = tmp_path / "x" / "victim" / "openai-chat"
    victim.mkdir(parents=True)
    (victim / "keep.json").write_text("{}", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "x")
    shown = str(tmp_path / "x" / "victim") if name == "/tmp/x/victim" else name
    argv = ["run", "--target-name", shown, "--snapshots", "snaps", "--update-snapshots", "-q"]
    assert main([*argv, "--save-exchanges", "saved", "--case", "interleaved-two-*"]) == 2
    printed = capsys.readouterr()
    assert "is not a name the suite can use as a directory" in printed.out + printed.err
    assert (victim / "keep.json").read_text(encoding="utf-8") == "{}"
    written = [p for p in (tmp_path / "x").rglob("*") if p.is_file()]
    assert written == [victim / "keep.json"]


def test_every_target_kind_and_the_manifest_check_their_name() -> None:
    from conformance._reference.adapter import ReferenceAdapter

    class Escaping(ReferenceAdapter):
        name: ClassVar[str] = "../outside"

    with pytest.raises(TargetError, match="not a name the suite can use"):
        target_from_object(Escaping())
    with pytest.raises(TargetError, match="not a name the suite can use"):
        resolve_target("reference", "..")
    # A plain name still resolves (the negative example).
    assert resolve_target("reference", "my-adapter_2.1").name == "my-adapter_2.1"


def test_a_delete_or_write_outside_its_root_is_refused(tmp_path: Path) -> None:
    """Even with a good name, a path that resolves outside (a link placed under the
    root) is refused before anything is deleted or written."""
    from conformance._exchanges import exchanges_path
    from conformance._snapshots import remove_snapshots

    outside = tmp_path / "outside.json"
    outside.write_text("{}", encoding="utf-8")
    root = tmp_path / "snaps"
    (root / "t" / "openai-chat").mkdir(parents=True)
    link = root / "t" / "openai-chat" / "case.json"
    link.symlink_to(outside)
    inner = root / "t" / "openai-chat" / "own.json"
    inner.write_text("{}", encoding="utf-8")
    with pytest.raises(UnsafePath, match="outside"):
        remove_snapshots(root, "t", [inner, link.parent / ".." / ".." / ".." / "outside.json"])
    # Nothing is deleted when one path escapes.
    assert inner.exists()
    assert outside.exists()
    remove_snapshots(root, "t", [inner])
    assert not inner.exists()
    with pytest.raises(UnsafePath):
        exchanges_path(root, "t", "openai-chat", "../../../outside")
    assert exchanges_path(root, "t", "openai-chat:deepseek", "a-case").name == "a-case.json"


# -------------------------------------------------------------------------- deep JSON files

DEEP = '{"metadata": ' + "[" * 3000 + "]" * 3000 + "}"


def test_a_deep_recording_report_or_cassette_is_a_located_error_not_a_recursion(
    tmp_path: Path,
) -> None:
    """JSON nested thousands deep crashed replay, to-case and report diff with a
    RecursionError, and the other recordings were never replayed."""
    from conformance._recording.cassette import read_cassette
    from conformance._recording.load import bundled_recordings_dir, load_recording
    from conformance._recording.replay import replay_paths
    from conformance._report.reading import cell_verdicts as verdicts
    from conformance.errors import ReportFileError

    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    for read, error in (
        (load_recording, RecordingError),
        (verdicts, ReportFileError),
        (read_cassette, CassetteError),
    ):
        with pytest.raises(error) as raised:
            read(deep)
        assert "nests 3001 levels deep" in str(raised.value)
    shipped = next(iter(sorted(bundled_recordings_dir().rglob("*.json"))))
    report = replay_paths(
        [(deep, deep.name), (shipped, shipped.name)], resolve_target("reference"), RunOptions()
    )
    assert [r.status for r in report.recordings] == ["error", "pass"]


def test_an_unreadable_features_file_is_a_load_error_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Permission denied on an added folder's FEATURES.txt gave a traceback and lost every
    cell; now it is one load error, and the bundled cases and the folder's own still load."""
    from conformance._cases.library import load_library

    (tmp_path / "FEATURES.txt").write_text("tool-pairing  a feature\n")
    (tmp_path / "fine.yaml").write_text(FINE)
    real = Path.read_text

    def read_text(self: Path, *args: object, **kwargs: object) -> str:
        if self == tmp_path / "FEATURES.txt":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", read_text)
    cases = load_library([tmp_path], ParseCache(None))
    assert [e.message for e in cases.errors] == ["cannot read: Permission denied"]
    assert "fine" in cases.by_id()
    assert len(cases.cases) > 200


def test_a_report_that_cannot_be_written_is_one_line_and_the_others_are_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--markdown /dev/full gave a traceback and lost the other reports; a full disk left
    a truncated report where a complete one had been."""
    from conformance._paths import write_report

    report = tmp_path / "r.json"
    code = main(["run", "-q", "--case", "refusal-context-reset", "--markdown", "/dev/full",
                 "--json", str(report)])  # fmt: skip
    assert code == 1
    assert "cannot write report /dev/full: No space left on device" in capsys.readouterr().out
    assert json.loads(report.read_text())["results"]
    kept = tmp_path / "kept.json"
    kept.write_text("complete")

    def full(source: str, target: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    assert write_report(kept, "new") == f"cannot write report {kept}: No space left on device"
    assert kept.read_text() == "complete"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# ------------------------------------------------------------ sizes (issue 24, memory)


def test_a_case_file_above_the_size_cap_is_refused_before_it_is_read_or_cached(
    tmp_path: Path,
) -> None:
    """A 100 MB case file was read, parsed whole and its parse cached before it was
    refused; now its size is checked first and it is one located error naming the cap."""
    from conformance._cases.yamlfile import MAX_CASE_BYTES

    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "fine.yaml").write_text(FINE)
    huge = cases / "huge.yaml"
    with huge.open("w") as handle:  # valid YAML: one long string
        handle.write("id: huge\ntitle: ")
        handle.write("x" * (MAX_CASE_BYTES + 1))
        handle.write("\n")
    cache = ParseCache(tmp_path / "cache")
    loaded = load_dirs([cases], VOCABULARY, cache)
    assert "fine" in loaded.by_id()
    message = messages(loaded)["huge.yaml"]
    assert message.startswith(f"{huge.stat().st_size} bytes, above the {MAX_CASE_BYTES}-byte")
    assert "16 MiB" in message
    stored = cache.read(cases, cache.directory(cases, VOCABULARY.key()).key)
    assert "huge.yaml" not in stored  # never parsed, never cached
    assert "fine.yaml" in stored


def _streaming_upstream(mib: int) -> tuple[ThreadingHTTPServer, str]:
    """A loopback upstream answering every POST with ``mib`` MiB of SSE, 64 KiB a write."""
    from harness.hostile_recording import sse_upstream

    event = b"event: ping\ndata: " + b"x" * (64 * 1024 - 25) + b"\n\n"
    count = mib * 1024 * 1024 // len(event) + 1
    return sse_upstream(lambda: (event for _ in range(count)), [])


def test_an_answer_above_the_recording_cap_is_streamed_on_and_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recording one 312 MB streamed answer took 2.2 GB: the proxy held it all.  Above
    the cap the proxy lets the chunks go, the client still gets every byte, and the
    refusal is one line naming the cap and how to raise it."""
    import httpx

    from conformance._recording.proxy import start_proxy

    upstream, url = _streaming_upstream(3)
    proxy, _ = start_proxy(url, tmp_path / "out", max_answer_mib=1)
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    try:
        with (
            httpx.Client(timeout=60) as client,
            client.stream("POST", f"{proxy.base_url}/v1/messages", content=body) as answer,
        ):
            received = sum(len(chunk) for chunk in answer.iter_raw())
        with httpx.Client(timeout=60) as client:  # under the cap: recorded as ever
            proxy.max_answer_mib = 4
            client.post(f"{proxy.base_url}/v1/messages", content=body)
    finally:
        proxy.shutdown()
        proxy.server_close()
        upstream.shutdown()
    assert received > 3 * 1024 * 1024
    (line,) = proxy.recorder.refused
    assert line.startswith("wire-conformance record: POST /v1/messages: the answer passed ")
    assert "above the 1 MiB cap on a recorded answer" in line
    assert "set WIRE_CONFORMANCE_MAX_ANSWER_MIB=<MiB> to raise it" in line
    assert line in capsys.readouterr().err
    (path,) = proxy.recorder.files
    assert len(load_recording(path).exchanges) == 1  # only the answer under the cap


def test_a_recording_file_above_the_cap_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replaying a 312 MB recording took 1.65 GB; a file above the cap is now refused by
    its size, never read, with the cap and the setting that raises it; the other
    recordings still replay."""
    from conformance._recording.load import bundled_recordings_dir
    from conformance._recording.replay import replay_paths

    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(2 * 1024 * 1024)  # sparse: not JSON, and never read to find out
    monkeypatch.setenv("WIRE_CONFORMANCE_MAX_RECORDING_MIB", "1")
    with pytest.raises(RecordingError) as raised:
        load_recording(big)
    assert str(raised.value) == (
        f"{big}: file: 2097152 bytes, above the 1 MiB cap on a recording file "
        "(set WIRE_CONFORMANCE_MAX_RECORDING_MIB=<MiB> to raise it)"
    )
    shipped = next(iter(sorted(bundled_recordings_dir().rglob("*.json"))))
    report = replay_paths(
        [(big, big.name), (shipped, shipped.name)], resolve_target("reference"), RunOptions()
    )
    assert [r.status for r in report.recordings] == ["error", "pass"]
    monkeypatch.setenv("WIRE_CONFORMANCE_MAX_RECORDING_MIB", "lots")
    with pytest.raises(RecordingError, match="MAX_RECORDING_MIB='lots': give a whole number"):
        load_recording(shipped)


def test_record_refuses_a_cap_setting_that_is_not_a_size(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WIRE_CONFORMANCE_MAX_ANSWER_MIB", "0")
    code = main(["record", "--upstream", "http://127.0.0.1:9", "--out", "x", "--listen",
                 "127.0.0.1:0"])  # fmt: skip
    assert code == 2
    assert "WIRE_CONFORMANCE_MAX_ANSWER_MIB='0': give a whole number of MiB" in (
        capsys.readouterr().out
    )


# ------------------------------------------------------------------ probe scratch copy


def test_a_probe_scratch_copy_skips_special_files_and_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO in the target's folder is named and skipped (``copytree`` would raise
    ``shutil.Error``); a ``TMPDIR`` inside the folder does not copy the copy into itself."""
    from conformance._probe.scratch_root import scratch_copy

    root = tmp_path / "target"
    (root / "src").mkdir(parents=True)
    (root / "src" / "agent.py").write_text("print('hi')\n")
    (root / "link.py").symlink_to("src/agent.py")
    os.mkfifo(root / "src" / "pipe")
    inner_tmp = root / "tmp"
    inner_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(inner_tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)
    with scratch_copy(root) as copy:
        assert (copy / "src" / "agent.py").read_text() == "print('hi')\n"
        assert (copy / "link.py").is_symlink()
        assert not (copy / "src" / "pipe").exists()
        assert list((copy / "tmp").iterdir()) == []  # not the copy inside itself
    assert list(inner_tmp.iterdir()) == []
    err = capsys.readouterr().err
    assert "src/pipe" in err
    assert "not a regular file" in err


# ------------------------------------------------------------------ process exits


class HardExit(Adapter):
    """Its session calls ``os._exit(0)``: in the suite's process that would end the run
    with status 0, no output and no report."""

    name = "hard-exit"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})

    def open(self, session: CaseBrief) -> AdapterSession:
        os._exit(0)


class HardExitInAThread(Adapter):
    """A thread of its own calls ``os._exit(0)``, then the session waits."""

    name = "hard-exit-thread"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})

    def open(self, session: CaseBrief) -> AdapterSession:
        worker = threading.Thread(target=os._exit, args=(0,))
        worker.start()
        worker.join()
        raise NotImplementedError("still here")


@pytest.mark.slow
@pytest.mark.parametrize("target", ["HardExit", "HardExitInAThread"])
def test_an_in_process_target_calling_os_exit_is_an_error_not_the_end_of_the_run(
    tmp_path: Path, target: str
) -> None:
    report = tmp_path / "r.json"
    spec = f"tests.test_fault_injection:{target}"
    argv = ["run", "-q", "--wire", "anthropic-messages", "--target", spec, "--json", str(report)]
    ran = subprocess.run(
        [sys.executable, "-m", "conformance", *argv],
        capture_output=True,
        timeout=600,
        cwd=CHECKOUT,
        env=child_environment(),
        check=False,
    )
    assert ran.returncode == 1, ran.stderr.decode()
    cells = json.loads(report.read_text())["results"]
    judged = [c for c in cells if c["verdict"] != "n/a"]
    assert judged
    assert all(c["verdict"] == "error" for c in judged)
    assert all("os._exit(0)" in c["reason"] for c in judged)


def test_os_exit_in_a_forked_child_of_an_in_process_cell_still_exits() -> None:
    """The guard is for the suite's own process: a child forked during a cell (a
    multiprocessing worker) exits as asked instead of running the suite's stack."""
    from conformance._targets.kind import Outcome, hold_in_process

    def task() -> Outcome:
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        _, status = os.waitpid(pid, 0)
        return Outcome(stopped=f"child {os.waitstatus_to_exitcode(status)}")

    assert hold_in_process(task, 30).stopped == "child 7"


# ----------------------------------------------------------------------- snapshots


@pytest.mark.parametrize(
    ("content", "problem"),
    [(b"", "is empty (0 bytes)"), (b'[\n  {\n    "model": "cla', "is not JSON")],
    ids=["empty", "cut-short"],
)
def test_a_zero_byte_or_cut_snapshot_is_a_corrupt_file_not_a_drift(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    """A full disk or an interrupted write leaves such a file: the report names the file
    as corrupt instead of a diff that blames the target; updating rewrites it."""
    from conformance._reference.adapter import ReferenceAdapter
    from conformance._snapshots import SnapshotSlot, SnapshotStore

    target = target_from_object(ReferenceAdapter())
    job = next(j for j in plan([conversation_case()], target) if j.skip is None)
    _, transcript = run_job(target, job, RunOptions())
    assert transcript is not None
    slot = SnapshotSlot(tmp_path, "reference", job.column, job.case.id)
    slot.directory.mkdir(parents=True)
    slot.path.write_bytes(content)
    state, why = SnapshotStore(tmp_path, "reference").compare(job.column, job.case.id, transcript)
    assert state == "changed"
    assert why is not None
    assert why.startswith(f"the snapshot {slot.path} {problem}")
    assert "a corrupt file, not a drift" in why
    assert "--- snapshot" not in why  # no diff
    updating = SnapshotStore(tmp_path, "reference", update=True)
    updating.compare(job.column, job.case.id, transcript)
    assert (
        SnapshotStore(tmp_path, "reference").check(job.column, job.case.id, transcript) == "match"
    )


# ---------------------------------------------------------------------- recordings


@pytest.mark.parametrize("command", ["replay", "audit"])
def test_a_dangling_link_and_a_newline_in_a_recording_name_are_shown_not_hidden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """A dangling ``*.json`` link was skipped silently (the recording went missing from
    the replay); a name with a newline was printed raw, a line of its own."""
    from conformance._recording.load import bundled_recordings_dir

    source = sorted(bundled_recordings_dir().rglob("*.json"))[0]
    folder = tmp_path / "recs"
    folder.mkdir()
    (folder / "evil\nname.json").write_bytes(source.read_bytes())
    (folder / "gone.json").symlink_to(tmp_path / "nowhere.json")
    argv = ["replay", str(folder)] if command == "replay" else ["recording", "audit", str(folder)]
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 1
    assert "gone.json" in out
    assert "which does not exist or loops" in out
    assert "evil\\nname.json" in out
    assert not any(line.startswith("name.json") for line in out.splitlines())


# ------------------------------------------------------------------ report size


@pytest.mark.slow
def test_a_looping_targets_violations_are_capped_and_counted(
    tmp_path: Path, scratch_root: Path
) -> None:
    """400 malformed requests were 400+ violations kept in the report (10 000 gave 3 MB):
    a cell keeps at most 20 of a check and 100 in all, the expectations stay, and the
    last entry counts the rest.  The verdict is judged on all of them."""
    report = tmp_path / "r.json"
    argv = ["run", "-q", "--wire", "anthropic-messages", "--case", "xml-structured-call-preferred"]
    code = main([*argv, "--target", f"cmd:{shell_python(looping(400))}", "--json", str(report)])
    (cell,) = json.loads(report.read_text())["results"]
    assert code == 1
    assert cell["verdict"] == "fail"
    assert cell["requests"] == 400
    checks = [v["check"] for v in cell["violations"]]
    assert len(checks) <= 100
    assert checks.count("provider/malformed-request") == 20
    assert "expect" in checks
    assert checks[-1] == "report/more-violations"
    assert cell["violations"][-1]["message"].startswith("380 more not kept in the report")
