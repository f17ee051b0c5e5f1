"""Find and end every process a command started, including those that left its group.

A command runs in its own session, so ending its process group ends most of what it
started.  A grandchild that calls ``setsid`` or double-forks leaves the group, but it
keeps the environment it inherited: the suite sets a marker variable, unique per run,
in every command's environment, and scans ``/proc/<pid>/environ`` for it.  A process
that also clears its environment (``setsid env -i``) is still found while it holds the
command's stdout or stderr: ``/proc/<pid>/fd`` names the pipe (``holding``).  One that
clears its environment, leaves the group and closes those pipes is out of reach without
a cgroup.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: The variable the suite sets in each command's environment, to find its descendants.
MARKER_VARIABLE = "CONFORMANCE_RUN_MARKER"


def new_marker() -> str:
    """A marker no other run shares."""
    return f"{os.getpid()}-{secrets.token_hex(8)}"


#: ``/proc/<pid>/stat``'s flag of a kernel thread, whose environment is always empty.
_KERNEL_THREAD = 0x00200000
#: The pids below which the kernel never wraps around (``RESERVED_PIDS``).
_RESERVED_PIDS = 300
_LAST_PID = Path("/proc/sys/kernel/ns_last_pid")


def _forks() -> int:
    """Every fork of the machine since boot (``/proc/stat``'s ``processes``)."""
    with open("/proc/stat", "rb") as stat:
        for line in stat:
            if line.startswith(b"processes "):
                return int(line.split()[1])
    raise ValueError("/proc/stat has no `processes` line")


@dataclass(frozen=True)
class PidWindow:
    """Where the pid of every process started from now on lies: after ``last_pid`` (this
    pid namespace's last pid when the window opened), wrapping around at ``pid_max``.  A
    scan for a command's descendants then reads only the processes started since the
    command, not every process of the machine.  When more processes were forked since
    than there are pids (``forks``: the machine's fork count then), any pid may be new."""

    last_pid: int
    forks: int
    pid_max: int

    @classmethod
    def open(cls) -> PidWindow | None:
        """The window from now on; ``None`` where ``/proc`` does not tell (any pid may
        be new)."""
        try:
            last_pid = int(_LAST_PID.read_text())
            pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
            return cls(last_pid, _forks(), pid_max)
        except (OSError, ValueError):
            return None

    def test(self) -> Callable[[int], bool] | None:
        """Whether a pid may belong to a process started since the window opened;
        ``None``: any may."""
        try:
            now, forks = int(_LAST_PID.read_text()), _forks()
        except (OSError, ValueError):
            return None
        if forks - self.forks >= self.pid_max - _RESERVED_PIDS:
            return None
        start = self.last_pid
        if start <= now:
            return lambda pid: start < pid <= now
        return lambda pid: pid > start or pid <= now  # wrapped around once


def _scan(marker: str, since: PidWindow | None = None) -> tuple[list[int], bool]:
    """The live processes whose environment carries ``marker`` (not the suite), and
    whether some live process showed an empty environment: one in the middle of
    ``exec`` does for an instant, so an empty scan is only sure when none did.  With
    ``since``, only the processes started since that window opened are read."""
    needle = f"{MARKER_VARIABLE}={marker}".encode()
    recent = since.test() if since is not None else None
    found: list[int] = []
    uncertain = False
    proc = Path("/proc")
    if not proc.is_dir():
        return found, uncertain
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        if recent is not None and not recent(int(entry.name)):
            continue
        try:
            environment = (entry / "environ").read_bytes()
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
            state, flags = fields[0], int(fields[6])
        except (OSError, IndexError, ValueError):
            continue
        if state in "ZX":
            continue
        if needle in environment.split(b"\0"):
            found.append(int(entry.name))
        elif not environment and not flags & _KERNEL_THREAD:
            uncertain = True
    return found, uncertain


def marked(marker: str) -> list[int]:
    """The live processes whose environment carries ``marker`` (not the suite)."""
    return _scan(marker)[0]


def _signal(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


#: Empty scans in a row (``SETTLE_PAUSE`` s apart) that say no marked process is left while
#: some process shows an empty environment.  One is not enough then: a process in the
#: middle of ``exec`` (a ``setsid`` that is becoming its program) may not show its
#: environment for that instant.
SETTLE_SCANS = 3
SETTLE_PAUSE = 0.02


def _settled_scan(marker: str, since: PidWindow | None) -> list[int]:
    """The marked processes, or ``[]`` once a scan found none and no process that might be
    one (an empty environment), or ``SETTLE_SCANS`` scans in a row found none."""
    for attempt in range(SETTLE_SCANS):
        pids, uncertain = _scan(marker, since)
        if pids or not uncertain:
            return pids
        if attempt + 1 < SETTLE_SCANS:
            time.sleep(SETTLE_PAUSE)
    return []


def end_marked(marker: str, grace: float, since: PidWindow | None = None) -> None:
    """SIGTERM every marked process, then SIGKILL what is left after ``grace`` s; with
    ``since`` (opened before the marked command started), only processes started since
    are read."""
    pids = _settled_scan(marker, since)
    if not pids:
        return
    _signal(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and (pids := _scan(marker, since)[0]):
        time.sleep(0.02)
    _signal(_scan(marker, since)[0], signal.SIGKILL)


def holding(inodes: set[int]) -> list[int]:
    """The live processes (not the suite) with one of the pipes ``inodes`` open."""
    wanted = {f"pipe:[{inode}]" for inode in inodes}
    found: list[int] = []
    proc = Path("/proc")
    if not proc.is_dir() or not wanted:
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            links = {os.readlink(fd) for fd in (entry / "fd").iterdir()}
        except OSError:
            continue
        if links & wanted:
            found.append(int(entry.name))
    return found


def end_holding(inodes: set[int], grace: float) -> None:
    """SIGTERM every process holding one of the pipes, then SIGKILL what is left after
    ``grace`` s."""
    pids = holding(inodes)
    if not pids:
        return
    _signal(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and (pids := holding(inodes)):
        time.sleep(0.02)
    _signal(holding(inodes), signal.SIGKILL)
