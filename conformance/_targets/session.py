"""Session mode of the command kind: one process holds many cells.

A command that declares ``session = true`` in its manifest is started once per worker
and handed one cell at a time, as one JSON line on its stdin; it answers on the file
descriptor ``CONFORMANCE_REPLY_FD`` names with one JSON line carrying the status it would
have exited with as a process (the protocol: ``conformance.examples.command_session``,
which is also the Python helper; docs/targets.md, "Session targets").  The interpreter
and the library under test are then loaded once, not once per cell.

Isolation stays what a process gives:

* every cell has its own scripted provider at its own loopback port, closed when the
  cell ends, so a session that kept the previous cell's client or history talks to a
  dead address or replays the wrong conversation, and fails;
* a session that dies, hangs past the cell's timeout, breaks the protocol, answers
  while a request of its cell is still being answered (its conversation runs on), or
  answers twice is ended, with its whole process group and every process carrying its
  marker; the cell gets the verdict a process would get (a broken protocol: an
  ``error`` saying how), and a fresh session takes the next cell.

Nothing here polls: the holding thread blocks in ``poll`` on the session's pipes until
the answer, the end of its streams or the cell's deadline, and an interrupted run ends
every session, which wakes it.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import math
import os
import select
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from conformance._provider.loopback import Handler, LoopbackServer
from conformance._targets.api import CONTRACT_V2, CaseBrief
from conformance._targets.command import (
    CommandKind,
    CommandResult,
    abandon_commands,
    allow_commands,
    command_outcome,
    contract_environment,
    end_process_group,
)
from conformance._targets.command_contract import OUTPUT_LIMIT, OUTPUT_VARIABLE, output_from_bytes
from conformance._targets.descendants import (
    MARKER_VARIABLE,
    PidWindow,
    end_holding,
    end_marked,
    new_marker,
)
from conformance._targets.kind import Outcome, Stage
from conformance._targets.scratch import TAIL_BYTES, TAIL_CHARS
from conformance.examples.command_session import REPLY_FD_VARIABLE, SESSION_VARIABLE
from conformance.verdict import Cause

__all__ = ["SessionKind", "end_every_session", "end_sessions"]

#: Seconds the processes of an ended session get between SIGTERM and SIGKILL.
GRACE = 2.0
#: Seconds an ended session's streams may stay open before whoever holds them is ended.
HOLDER_WAIT = 0.3
#: Seconds an answered cell's last request may take to finish on the provider's side
#: (its answer fully read by the session, the server's thread not yet done with it).
SETTLE_WAIT = 0.5
#: The most bytes of one answer line: an output file's worth, JSON-escaped, and the rest.
ANSWER_LIMIT = 8 * OUTPUT_LIMIT

_ABANDONED = threading.Event()


class _Tail:
    """The last ``TAIL_BYTES`` bytes a stream wrote during one cell."""

    def __init__(self) -> None:
        self.kept = bytearray()

    def add(self, data: bytes) -> None:
        self.kept += data
        if len(self.kept) > 2 * TAIL_BYTES:
            del self.kept[:-TAIL_BYTES]

    def take(self) -> str:
        text = bytes(self.kept[-TAIL_BYTES:]).decode("utf-8", errors="replace")[-TAIL_CHARS:]
        self.kept.clear()
        return text


@dataclass(frozen=True)
class CellEnd:
    """How one cell held by a session ended: the process result it stands for, or
    ``broken``, why the session's answer is not one; ``reusable`` whether the session
    may take another cell."""

    ran: CommandResult
    reusable: bool
    broken: str | None = None


class SessionProcess:
    """One started session: its process (a group leader), its pipes and marker."""

    def __init__(self, kind: CommandKind) -> None:
        self.marker = new_marker()
        self.since = PidWindow.open()
        reply_read, reply_write = os.pipe()
        environment = {
            **os.environ,
            **kind.environment,
            SESSION_VARIABLE: "1",
            REPLY_FD_VARIABLE: str(reply_write),
            MARKER_VARIABLE: self.marker,
        }
        try:
            self.process = subprocess.Popen(
                kind.command,
                shell=True,
                start_new_session=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=environment,
                cwd=kind.cwd,
                pass_fds=(reply_write,),
            )
        except BaseException:  # an interruption in Popen may leave the shell started
            os.close(reply_read)
            end_marked(self.marker, GRACE, self.since)
            raise
        finally:
            os.close(reply_write)
        assert self.process.stdin
        assert self.process.stdout
        assert self.process.stderr
        self.stdin = self.process.stdin.fileno()
        self.reply = reply_read
        self.stdout, self.stderr = self.process.stdout.fileno(), self.process.stderr.fileno()
        self.tails = {self.stdout: _Tail(), self.stderr: _Tail()}
        self.open_streams = set(self.tails)
        for fd in (self.stdin, self.reply, *self.tails):
            os.set_blocking(fd, False)
        self.answer = bytearray()
        self.cells = 0
        self.ended = False

    # -- one cell -------------------------------------------------------------------

    def hold(self, session: CaseBrief, handler: Handler, contract: int, deadline: float) -> CellEnd:
        """Hand the cell to the session and wait for its answer until ``deadline``."""
        self.cells += 1
        column = f"{session.wire}:{session.dialect}" if session.dialect else session.wire
        cell = f"{session.case}[{column}]#{self.cells}"
        with LoopbackServer(handler) as server:
            environment = contract_environment(server.base_url, session.wire, "")
            del environment["CONFORMANCE_CASE"]  # the session writes its own
            message = {"cell": cell, "case": session.contract(contract), "environment": environment}
            line = (json.dumps(message, ensure_ascii=False) + "\n").encode()
            answer, timed_out = self._exchange(line, deadline)
            running_on = answer is not None and not server.settled(SETTLE_WAIT)
            if running_on:  # end it while the provider still answers: as a process exit
                self.end()
        if answer is None:
            return self._died(timed_out, deadline)
        status, output, broken = _read_answer(answer, cell)
        if broken is None and self.answer:
            broken = "it wrote more than one answer for the cell"
        if broken is not None:
            self.end()
            ran = CommandResult(-1, False, *self._take_tails())
            return CellEnd(ran, reusable=False, broken=broken)
        ran = CommandResult(status, False, *self._take_tails())
        if contract >= CONTRACT_V2:
            raw = None if output is None else output.encode("utf-8", "surrogateescape")
            ran = replace(ran, output=output_from_bytes(raw, Path(OUTPUT_VARIABLE)))
        return CellEnd(ran, reusable=not running_on and not self.ended)

    def _exchange(self, line: bytes, deadline: float) -> tuple[bytes | None, bool]:
        """Write ``line`` to stdin and read the streams until the answer's line
        (returned), the end of the reply channel (``None``, not timed out) or the
        deadline or an interruption (``None``, timed out)."""
        poller = select.poll()
        for fd in self.open_streams:
            poller.register(fd, select.POLLIN)
        poller.register(self.reply, select.POLLIN)
        pending = line
        poller.register(self.stdin, select.POLLOUT)
        while not _ABANDONED.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None, True
            for fd, _event in poller.poll(math.ceil(remaining * 1000)):
                if fd == self.stdin:
                    pending = self._write(pending)
                    if not pending:
                        poller.unregister(fd)
                elif fd == self.reply:
                    data = _read(fd)
                    if data is None:
                        continue
                    if not data:
                        return None, False
                    self.answer += data
                    if b"\n" in self.answer or len(self.answer) > ANSWER_LIMIT:
                        first, _, rest = bytes(self.answer).partition(b"\n")
                        self.answer = bytearray(rest)
                        self._drain()  # what it wrote before answering is the cell's
                        return first, False
                elif self._read_stream(fd) is None:
                    poller.unregister(fd)
        return None, True

    def _write(self, pending: bytes) -> bytes:
        try:
            written = os.write(self.stdin, pending)
        except BlockingIOError:
            return pending
        except OSError:  # the session closed its stdin or died: its reply channel says
            return b""
        return pending[written:]

    def _read_stream(self, fd: int) -> bool | None:
        """Read what ``fd`` has into its tail: ``True`` if it had bytes, ``False`` if
        none yet, ``None`` at its end."""
        data = _read(fd)
        if data is None:
            return False
        if not data:
            self.open_streams.discard(fd)
            return None
        self.tails[fd].add(data)
        return True

    def _drain(self) -> None:
        """Read what the streams hold now, without waiting."""
        for fd in list(self.open_streams):
            while self._read_stream(fd):
                pass

    def _take_tails(self) -> tuple[str, str]:
        return self.tails[self.stdout].take(), self.tails[self.stderr].take()

    def _died(self, timed_out: bool, deadline: float) -> CellEnd:
        """The session gave no answer: it hung (``timed_out``) or its reply channel
        ended.  Either way it is ended; a channel that ended because the process exited
        reports the process's status, as a process run would."""
        if not timed_out:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(max(0.0, deadline - time.monotonic()))
            timed_out = self.process.returncode is None or _ABANDONED.is_set()
        self.end()
        exit_code = self.process.returncode
        return CellEnd(CommandResult(exit_code, timed_out, *self._take_tails()), reusable=False)

    # -- the whole session ----------------------------------------------------------

    def usable(self) -> bool:
        """Whether the session may take a cell: alive, and silent on its reply channel
        since its last answer (a late second answer is a broken session)."""
        if self.ended or self.process.poll() is not None:
            return False
        return _read(self.reply) is None

    def end(self) -> None:
        """End the session's process group and its marked descendants, and read its
        streams to their end (ending what still holds them).  Idempotent."""
        if self.ended:
            return
        self.ended = True
        _LIVE.discard(self)
        with contextlib.suppress(OSError):
            os.close(self.stdin)  # a session at rest ends on the end of its input
        end_process_group(self.process, GRACE)
        end_marked(self.marker, GRACE, self.since)
        deadline = time.monotonic() + HOLDER_WAIT
        poller = select.poll()
        for fd in self.open_streams:
            poller.register(fd, select.POLLIN)
        while self.open_streams and (remaining := deadline - time.monotonic()) > 0:
            for fd, _event in poller.poll(math.ceil(remaining * 1000)):
                if self._read_stream(fd) is None:
                    poller.unregister(fd)
        if self.open_streams:  # a descendant that escaped group and marker holds them
            end_holding({os.fstat(fd).st_ino for fd in self.open_streams}, GRACE)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            with contextlib.suppress(OSError):
                assert stream is not None
                stream.close()
        os.close(self.reply)

    def kill(self) -> None:
        """End the group at once, from another thread (an interrupted run): the
        holding thread wakes on the end of the streams and ends the rest."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)


def _read(fd: int) -> bytes | None:
    """What ``fd`` holds now: ``b""`` at its end, ``None`` when nothing is there yet."""
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def _read_answer(line: bytes, cell: str) -> tuple[int, str | None, str | None]:
    """The status and output text of an answer line, or why it is not one."""
    if len(line) > ANSWER_LIMIT:
        return 0, None, f"its answer is longer than {ANSWER_LIMIT} bytes"
    try:
        answer: Any = json.loads(line)
    except ValueError as error:
        shown = line[:200].decode("utf-8", errors="replace")
        return 0, None, f"its answer is not JSON ({error}): {shown!r}"
    if not isinstance(answer, dict):
        return 0, None, "its answer is not a JSON object"
    if answer.get("cell") != cell:
        return 0, None, f"it answered for cell {answer.get('cell')!r}, not {cell!r}"
    status, output = answer.get("status"), answer.get("output")
    if isinstance(status, bool) or not isinstance(status, int) or not 0 <= status <= 255:
        return 0, None, f"its answer's status {status!r} is not an exit status (0 to 255)"
    if output is not None and not isinstance(output, str):
        return 0, None, "its answer's output is neither the output file's text nor null"
    return status, output, None


#: Every session started and not ended, for an interrupted run and the suite's exit.
_LIVE: set[SessionProcess] = set()
_LOCK = threading.Lock()
#: Idle sessions by what starts them (command, directory, environment).
_IDLE: dict[tuple[Any, ...], list[SessionProcess]] = {}


def _key(kind: CommandKind) -> tuple[Any, ...]:
    return (kind.command, kind.cwd, tuple(sorted(kind.environment.items())))


def _take(kind: CommandKind) -> SessionProcess:
    """An idle session of ``kind`` that may take a cell, or a new one."""
    while True:
        with _LOCK:
            idle = _IDLE.get(_key(kind))
            found = idle.pop() if idle else None
        if found is None:
            break
        if found.usable():
            return found
        found.end()
    started = SessionProcess(kind)
    with _LOCK:
        _LIVE.add(started)
    return started


def _give(kind: CommandKind, session: SessionProcess) -> None:
    with _LOCK:
        _IDLE.setdefault(_key(kind), []).append(session)


def end_every_session() -> None:
    """End every session, idle or holding a cell (the suite exits, or a test is done)."""
    with _LOCK:
        live = list(_LIVE)
        _IDLE.clear()
    for session in live:
        session.kill()
        session.end()


def end_sessions(kind: CommandKind) -> None:
    """End the idle sessions ``kind`` started (a probed mutant's, whose folder goes)."""
    with _LOCK:
        idle = _IDLE.pop(_key(kind), [])
    for session in idle:
        session.end()


atexit.register(end_every_session)


@dataclass(frozen=True)
class SessionKind(CommandKind):
    """The command kind in session mode: the same contract, one process for many cells
    (a manifest's ``session = true``)."""

    def hold(self, stage: Stage) -> Outcome:
        deadline = time.monotonic() + stage.timeout
        session = stage.session if self.model is None else replace(stage.session, model=self.model)
        if _ABANDONED.is_set():
            ran = CommandResult(-1, True, "", "")
            return command_outcome(ran, stage.timeout)
        held = _take(self)
        end = held.hold(session, stage.provider.handle, self.contract, deadline)
        if end.reusable and not _ABANDONED.is_set():
            _give(self, held)
        else:
            held.end()
        if end.broken is not None:
            return Outcome(
                error=f"the session broke the session protocol: {end.broken}",
                error_cause=Cause.CRASH,
                output_error="the session broke the session protocol",
                stdout_tail=end.ran.stdout_tail,
                stderr_tail=end.ran.stderr_tail,
            )
        return command_outcome(end.ran, stage.timeout)

    def abandon(self) -> None:
        abandon_commands()
        _ABANDONED.set()
        with _LOCK:
            live = list(_LIVE)
        for session in live:
            session.kill()

    def reopen(self) -> None:
        allow_commands()
        _ABANDONED.clear()
