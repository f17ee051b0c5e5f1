"""The command target: any program, in any language, run against a loopback provider.

Contract v1 (docs/architecture.md, "Targets"): for each case × wire the suite serves the scripted
provider on 127.0.0.1, writes the ``CONFORMANCE_CASE`` document to a file, and runs the
shell command once with the provider's address in the environment variables the
providers' own SDKs read.  The command holds the conversation and exits 0.

The command runs in its own session, so that the whole process tree can be ended at
once: on timeout, on interruption of the suite, and after a normal exit (background
children it left behind).  POSIX only.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

from conformance._provider.loopback import Handler, LoopbackServer
from conformance._targets.api import CONTRACT_VERSION, CaseBrief
from conformance._targets.command_contract import (
    EXIT_CONVERSATION_STOPPED,
    EXIT_HISTORY_UNLOADABLE,
    EXIT_RESPONSE_REFUSED,
    EXIT_WIRE_UNSUPPORTED,
    OUTPUT_VARIABLE,
    ReadOutput,
    last_line,
    read_output,
)
from conformance._targets.descendants import (
    MARKER_VARIABLE,
    PidWindow,
    end_holding,
    end_marked,
    new_marker,
)
from conformance._targets.kind import Outcome, Stage, TargetKind
from conformance.verdict import Cause

__all__ = ["TAIL_CHARS", "CommandKind", "CommandTarget", "contract_environment"]
from conformance._targets.scratch import TAIL_CHARS, Scratch, TailReader
from conformance.wires._registry import client_variables

SPEC_PREFIX = "cmd:"


def contract_environment(base_url: str, wire: str, case_path: str) -> dict[str, str]:
    """The variables contract v1 sets for one run (the rest is inherited): each wire's
    client variables (``Wire.client``) point its provider's SDKs at ``base_url``."""
    return {
        "CONFORMANCE_BASE_URL": base_url,
        **client_variables(base_url),
        "CONFORMANCE_WIRE": wire,
        "CONFORMANCE_CASE": case_path,
    }


@dataclass(frozen=True)
class CommandResult:
    """How one run of the command ended.

    ``exit_code`` is the shell's return code (negative: killed by that signal); the
    tails are the last characters of each stream, for the report.
    """

    exit_code: int
    timed_out: bool
    stdout_tail: str
    stderr_tail: str
    output: ReadOutput | None = None

    @property
    def ok(self) -> bool:
        return not self.timed_out and self.exit_code == 0


#: Set to end every command running on any thread now (a parallel run that is being
#: interrupted: the signal reaches the main thread only).  Cleared by ``allow_commands``.
_ABANDON = threading.Event()
#: Readable while ``_ABANDON`` is set: a waiting command blocked in ``poll`` wakes on it.
_WAKE_READ, _WAKE_WRITE = os.pipe()
os.set_blocking(_WAKE_READ, False)
#: How often a waiting command checks ``_ABANDON`` where it cannot block on a pidfd.
POLL_SECONDS = 0.05
#: Seconds the output pipes may stay open once the command's processes are ended,
#: before whoever still holds them is looked for.
HOLDER_WAIT = 0.3


def abandon_commands() -> None:
    """End every running command as if it had timed out; start no new one."""
    _ABANDON.set()
    with contextlib.suppress(OSError):
        os.write(_WAKE_WRITE, b"!")


def allow_commands() -> None:
    _ABANDON.clear()
    with contextlib.suppress(OSError):
        while os.read(_WAKE_READ, 4096):
            pass


def _wait(process: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait for the shell; ``True`` if it exited, ``False`` on timeout or abandon.  It
    blocks on the process's pidfd and the abandon pipe, so an exit is seen at once (a
    timed ``Popen.wait`` polls, up to 50 ms late)."""
    deadline = time.monotonic() + timeout
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):  # not Linux 5.3+: poll the process
        return _wait_polling(process, deadline)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        poller.register(_WAKE_READ, select.POLLIN)
        while not _ABANDON.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if any(fd == pidfd for fd, _ in poller.poll(math.ceil(remaining * 1000))):
                process.wait()
                return True
        return False
    finally:
        os.close(pidfd)


def _wait_polling(process: subprocess.Popen[bytes], deadline: float) -> bool:
    while not _ABANDON.is_set():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        try:
            process.wait(timeout=min(POLL_SECONDS, remaining))
        except subprocess.TimeoutExpired:
            continue
        return True
    return False


def _group_alive(pgid: int) -> bool:
    """Whether a process of the group still runs.  Zombies do not count: orphans are
    reparented to PID 1, which in a container may never reap them."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()  # state, ppid, pgrp, ...
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in "ZX":
            return True
    return False


def _group_exists(pgid: int) -> bool:
    """Whether any process (a zombie too) is in the group: one system call, where
    ``_group_alive`` reads ``/proc``."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def end_process_group(process: subprocess.Popen[bytes], grace: float) -> None:
    """End every process of the command's group: SIGTERM, then SIGKILL to whatever is
    still running after ``grace`` seconds (at once if interrupted meanwhile); reap the
    shell."""
    pgid = process.pid  # start_new_session: the shell leads its own group
    process.poll()  # reap an exited shell, so that an empty group reads as empty
    if process.returncode is not None and not _group_exists(pgid):
        return  # the shell exited and nothing it started is left in the group
    try:
        _signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            process.poll()  # reap the shell, or its zombie keeps the group alive
            if not _group_alive(pgid):
                break
            time.sleep(0.02)
    finally:
        if _group_alive(pgid):
            _signal_group(pgid, signal.SIGKILL)
        process.wait()


@dataclass(frozen=True)
class CommandTarget:
    """A shell command honouring contract v1 (or v2), run once per case × wire, in
    ``cwd`` with ``environment`` added to the suite's own."""

    command: str
    timeout: float = 10.0
    grace: float = 2.0
    contract: int = CONTRACT_VERSION
    cwd: str | None = None
    environment: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{SPEC_PREFIX}{self.command}"

    def run(self, session: CaseBrief, handler: Handler) -> CommandResult:
        """Serve ``handler`` on loopback and run the command against it for ``session``.
        Server, every process the command started and its files are gone when this
        returns or raises."""
        marker = new_marker()
        with LoopbackServer(handler) as server, Scratch() as folder:
            case_path = folder / "case.json"
            case_path.write_text(session.contract_json(self.contract), encoding="utf-8")
            output_path = folder / "output.json"
            environment = {
                **os.environ,
                **self.environment,
                **contract_environment(server.base_url, session.wire, str(case_path)),
                MARKER_VARIABLE: marker,
            }
            if self.contract >= 2:
                environment[OUTPUT_VARIABLE] = str(output_path)
            since = PidWindow.open()
            ended = False
            try:
                ran = self._execute(environment, since)
                ended = True
            finally:
                # Before the scratch folder goes: a descendant that left the group
                # (setsid, a double fork) would keep writing into it.  ``_execute`` ends
                # them itself once it holds the process; an interruption in ``Popen`` (the
                # shell started, the call did not return) leaves them to this scan.
                if not ended:
                    end_marked(marker, self.grace, since)
            if self.contract >= 2:
                ran = replace(ran, output=read_output(output_path))
            return ran

    def _execute(self, environment: Mapping[str, str], since: PidWindow | None) -> CommandResult:
        # Output goes to pipes read into bounded tails: no temp file grows with the
        # output, and a background child holding a pipe open is ended with the rest.
        process = subprocess.Popen(
            self.command,
            shell=True,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(environment),
            cwd=self.cwd,
        )
        assert process.stdout is not None
        assert process.stderr is not None
        stdout, stderr = TailReader(process.stdout), TailReader(process.stderr)
        timed_out = False
        try:
            timed_out = not _wait(process, self.timeout)
        finally:
            end_process_group(process, self.grace)
            end_marked(environment[MARKER_VARIABLE], self.grace, since)
            # Whatever still holds the output pipes escaped both (``setsid env -i``).
            held = {r.inode for r in (stdout, stderr) if not r.ended(HOLDER_WAIT)}
            end_holding(held, self.grace)
        return CommandResult(
            exit_code=process.returncode,
            timed_out=timed_out,
            stdout_tail=stdout.finish(),
            stderr_tail=stderr.finish(),
        )


@dataclass(frozen=True)
class CommandKind(TargetKind):
    """The command kind: one ``CommandTarget`` run per stage, its timeout the stage's.
    A ``cmd:`` command declares no capabilities, so a case needing one is ``n/a``; a
    manifest declares them and speaks contract v2 (``conformance._targets.manifest``)."""

    name: ClassVar[str] = "command"
    parallel: ClassVar[bool] = True
    command: str
    contract: int = CONTRACT_VERSION
    cwd: str | None = None
    environment: Mapping[str, str] = field(default_factory=dict)
    #: The model name the command is told, instead of the column's realistic default.
    model: str | None = None

    def abandon(self) -> None:
        abandon_commands()

    def reopen(self) -> None:
        allow_commands()

    def hold(self, stage: Stage) -> Outcome:
        command = CommandTarget(
            self.command,
            timeout=stage.timeout,
            contract=self.contract,
            cwd=self.cwd,
            environment=self.environment,
        )
        session = stage.session if self.model is None else replace(stage.session, model=self.model)
        return command_outcome(command.run(session, stage.provider.handle), command.timeout)


def command_outcome(ran: CommandResult, timeout: float) -> Outcome:
    """What a command's exit means: a hang is an ``error``; the reserved exit codes of
    contract v2 (``conformance._targets.command_contract``) say ``n/a``, a refusal, or an
    unloadable history, or a stop of the library's own; any other non-zero exit is an
    early stop."""
    error = stopped = declined = refused = halted = None
    error_cause: Cause | None = None
    message = last_line(ran.stderr_tail)
    if ran.timed_out:
        error = f"the command did not finish within {timeout:g} s"
        error_cause = Cause.TIMEOUT
    elif ran.exit_code == EXIT_WIRE_UNSUPPORTED:
        declined = f"the command does not speak this wire: {message}"
    elif ran.exit_code == EXIT_RESPONSE_REFUSED:
        refused = message
    elif ran.exit_code == EXIT_HISTORY_UNLOADABLE:
        error = f"the command could not load the saved history: {message}"
        error_cause = Cause.HISTORY_UNLOADABLE
    elif ran.exit_code == EXIT_CONVERSATION_STOPPED:
        halted = message
    elif ran.exit_code != 0:
        stopped = f"the command exited with status {ran.exit_code}"
    output = ran.output
    return Outcome(
        output=output.output if output else None,
        output_error=output.error if output else "the command speaks contract v1 (no output)",
        stopped=stopped,
        error=error,
        error_cause=error_cause,
        declined=declined,
        refused=refused,
        halted=halted,
        stdout_tail=ran.stdout_tail,
        stderr_tail=ran.stderr_tail,
    )


def parse_command_spec(spec: str) -> str | None:
    """The shell command of a ``cmd:<shell command>`` spec; ``None`` for any other
    spec.  An empty command is an error, not a silent no-op."""
    if not spec.startswith(SPEC_PREFIX):
        return None
    command = spec[len(SPEC_PREFIX) :].strip()
    if not command:
        raise ValueError(f"{spec!r}: give the shell command after {SPEC_PREFIX!r}")
    return command
