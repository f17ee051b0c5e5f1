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
from pathlib import Path

#: The variable the suite sets in each command's environment, to find its descendants.
MARKER_VARIABLE = "CONFORMANCE_RUN_MARKER"


def new_marker() -> str:
    """A marker no other run shares."""
    return f"{os.getpid()}-{secrets.token_hex(8)}"


def marked(marker: str) -> list[int]:
    """The live processes whose environment carries ``marker`` (not the suite)."""
    needle = f"{MARKER_VARIABLE}={marker}".encode()
    found: list[int] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environment = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
        except (OSError, IndexError):
            continue
        if state not in "ZX" and needle in environment.split(b"\0"):
            found.append(int(entry.name))
    return found


def _signal(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


#: Empty scans in a row (``SETTLE_PAUSE`` s apart) that say no marked process is left.  One
#: is not enough: a process in the middle of ``exec`` (a ``setsid`` that is becoming its
#: program) may not show its environment for that instant.
SETTLE_SCANS = 3
SETTLE_PAUSE = 0.02


def _settled_scan(marker: str) -> list[int]:
    """The marked processes, or ``[]`` once ``SETTLE_SCANS`` scans in a row found none."""
    for attempt in range(SETTLE_SCANS):
        pids = marked(marker)
        if pids:
            return pids
        if attempt + 1 < SETTLE_SCANS:
            time.sleep(SETTLE_PAUSE)
    return []


def end_marked(marker: str, grace: float) -> None:
    """SIGTERM every marked process, then SIGKILL what is left after ``grace`` s."""
    pids = _settled_scan(marker)
    if not pids:
        return
    _signal(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and (pids := marked(marker)):
        time.sleep(0.02)
    _signal(marked(marker), signal.SIGKILL)


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
