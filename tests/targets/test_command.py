"""The command target: contract v1 environment, timeouts, output tails, clean-up."""

from __future__ import annotations

import json
import shlex
import signal
import socket
import sys
import threading
from pathlib import Path

import pytest

from conformance._targets.command import (
    TAIL_CHARS,
    CommandTarget,
    contract_environment,
    parse_command_spec,
)
from conformance.http import HttpRequest, HttpResponse, json_response
from tests.targets.conversation import SESSION

CONTRACT_VARIABLES = (
    "CONFORMANCE_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "GOOGLE_GEMINI_BASE_URL",
    "GEMINI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "CONFORMANCE_WIRE",
    "CONFORMANCE_CASE",
)


class Recorder:
    def __init__(self) -> None:
        self.requests: list[HttpRequest] = []

    def __call__(self, request: HttpRequest) -> HttpResponse:
        self.requests.append(request)
        return json_response(200, {"seen": request.path})


def python(code: str) -> str:
    """A shell command running ``code`` with this interpreter."""
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


DUMP = """
import json, os, pathlib, sys, urllib.request
case = pathlib.Path(os.environ["CONFORMANCE_CASE"])
env = {k: v for k, v in os.environ.items()}
reply = urllib.request.urlopen(urllib.request.Request(
    os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", data=b"{}", method="POST")).read()
pathlib.Path(sys.argv[1]).write_text(json.dumps(
    {"env": env, "case": case.read_text(), "case_path": str(case), "reply": reply.decode()}))
"""


@pytest.mark.slow
def test_the_environment_and_the_case_file_follow_contract_v1(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CONFORMANCE_TEST_INHERITED", "kept")
    recorder = Recorder()
    out = tmp_path / "dump.json"
    result = CommandTarget(f"{python(DUMP)} {out}").run(SESSION, recorder)
    assert (result.exit_code, result.timed_out, result.ok) == (0, False, True), result
    dump = json.loads(out.read_text())
    env = dump["env"]
    base = env["CONFORMANCE_BASE_URL"]
    assert base.startswith("http://127.0.0.1:")
    assert env["ANTHROPIC_BASE_URL"] == base
    assert env["OPENAI_BASE_URL"] == base + "/v1"
    assert env["GOOGLE_GEMINI_BASE_URL"] == env["GEMINI_BASE_URL"] == base
    assert all(env[k] for k in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"))
    assert env["CONFORMANCE_WIRE"] == "anthropic-messages"
    assert env["CONFORMANCE_CASE"] == dump["case_path"]
    assert env["CONFORMANCE_TEST_INHERITED"] == "kept"
    assert dump["case"] == SESSION.contract_json()
    assert json.loads(dump["case"])["version"] == 1
    assert dump["reply"] == '{"seen":"/v1/messages"}'
    assert [r.path for r in recorder.requests] == ["/v1/messages"]
    # Afterwards: the case file is gone and nothing listens on the provider's port.
    assert not Path(dump["case_path"]).exists()
    port = int(base.rsplit(":", 1)[1])
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


def test_contract_environment_names_exactly_the_contract_variables() -> None:
    env = contract_environment("http://127.0.0.1:1", "gemini", "/tmp/case.json")
    assert sorted(env) == sorted(CONTRACT_VARIABLES)  # each wire's, in no promised order
    assert env["OPENAI_BASE_URL"] == "http://127.0.0.1:1/v1"
    assert env["GOOGLE_GEMINI_BASE_URL"] == env["GEMINI_BASE_URL"] == "http://127.0.0.1:1"
    assert env["ANTHROPIC_API_KEY"] == "conformance-anthropic-key"


@pytest.mark.slow
def test_exit_code_and_output_tails_are_reported() -> None:
    command = "printf out; printf err >&2; exit 3"
    result = CommandTarget(command).run(SESSION, Recorder())
    assert (result.exit_code, result.timed_out, result.ok) == (3, False, False)
    assert (result.stdout_tail, result.stderr_tail) == ("out", "err")


@pytest.mark.slow
def test_tails_keep_the_last_characters_and_survive_bad_bytes() -> None:
    code = (
        "import sys; sys.stdout.write('a' * 5000 + 'é' * 10 + 'END');"
        "sys.stderr.buffer.write(b'bad \\xff bytes')"
    )
    result = CommandTarget(python(code)).run(SESSION, Recorder())
    assert result.stdout_tail == ("a" * 5000 + "é" * 10 + "END")[-TAIL_CHARS:]
    assert result.stderr_tail == "bad \ufffd bytes"


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, reaped by nobody in a container, is dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] not in "ZX"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to see the children")
@pytest.mark.slow
def test_a_timeout_ends_the_command_and_all_its_children(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = f"sleep 60 & echo $! > {pids}; sleep 60 & echo $! >> {pids}; echo $$ >> {pids}; wait"
    result = CommandTarget(command, timeout=3.0, grace=5.0).run(SESSION, Recorder())
    assert result.timed_out
    assert not result.ok
    started = [int(line) for line in pids.read_text().split()]
    assert len(started) == 3
    assert [pid for pid in started if alive(pid)] == []


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to see the children")
@pytest.mark.slow
def test_a_child_that_ignores_sigterm_is_killed(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = f"sh -c 'trap \"\" TERM; echo $$ > {pids}; while :; do sleep 1; done' & wait"
    # A timeout long enough for the child to start and record itself on a loaded machine.
    result = CommandTarget(command, timeout=3.0, grace=0.5).run(SESSION, Recorder())
    assert result.timed_out
    (pid,) = [int(line) for line in pids.read_text().split()]
    assert not alive(pid)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to see the children")
@pytest.mark.slow
def test_children_left_behind_by_a_finished_command_are_ended(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    result = CommandTarget(f"sleep 60 & echo $! > {pids}; exit 0").run(SESSION, Recorder())
    assert (result.exit_code, result.timed_out) == (0, False)
    (pid,) = [int(line) for line in pids.read_text().split()]
    assert not alive(pid)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to see the children")
@pytest.mark.slow
def test_an_interrupted_run_leaves_nothing_behind(tmp_path: Path) -> None:
    """Ctrl-C in the suite while the command runs: the command ends, the server closes."""
    pids = tmp_path / "pids"
    code = (
        "import os, time, urllib.request;"
        f"open({str(pids)!r}, 'w').write(str(os.getpid()));"
        "urllib.request.urlopen(urllib.request.Request("
        "os.environ['CONFORMANCE_BASE_URL'] + '/x', data=b'', method='POST'));"
        "time.sleep(60)"
    )
    ports: list[int] = []

    def interrupting(request: HttpRequest) -> HttpResponse:
        ports.append(int((request.header("host") or "").rsplit(":", 1)[1]))
        # What Ctrl-C does to the suite: a SIGINT to its main thread, which is blocked
        # waiting for the command (``_thread.interrupt_main`` only sets a flag, seen
        # when that wait returns: after the whole 30 s timeout).
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        return json_response(200, {})

    # Python's own Ctrl-C handler, whatever the test runner installed (xdist workers).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            CommandTarget(python(code), timeout=30.0, grace=5.0).run(SESSION, interrupting)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert not alive(int(pids.read_text()))
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", ports[0]), timeout=5).close()


def test_parse_command_spec() -> None:
    assert parse_command_spec("cmd:node agent.mjs --x 'a b'") == "node agent.mjs --x 'a b'"
    assert parse_command_spec("cmd:  ./agent  ") == "./agent"
    assert parse_command_spec("reference") is None
    assert parse_command_spec("pkg.module:Adapter") is None
    with pytest.raises(ValueError, match="give the shell command"):
        parse_command_spec("cmd:   ")
