"""The descendant scan reads only processes started since the command: a process older
than the window is never read (nor ended), one started inside it is, and a window the
machine forked through entirely (or that wrapped) still finds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance._targets import descendants
from conformance._targets.descendants import MARKER_VARIABLE, PidWindow, end_marked, new_marker

pytestmark = pytest.mark.skipif(PidWindow.open() is None, reason="/proc tells no pid window")


def sleeper(marker: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)"],
        env={**os.environ, MARKER_VARIABLE: marker},
    )


def test_a_process_older_than_the_window_is_left_alone_and_a_newer_one_ended() -> None:
    marker = new_marker()
    older = sleeper(marker)
    try:
        window = PidWindow.open()
        newer = sleeper(marker)
        try:
            end_marked(marker, 2.0, window)
            assert newer.wait(30) is not None
            assert older.poll() is None  # outside the window: not read, not ended
        finally:
            newer.kill()
            newer.wait()
        end_marked(marker, 2.0)  # no window: every process is read
        assert older.wait(30) is not None
    finally:
        older.kill()
        older.wait()


def test_the_window_wraps_around_and_gives_up_after_a_full_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    last = tmp_path / "ns_last_pid"
    monkeypatch.setattr(descendants, "_LAST_PID", last)
    forks = [1000]
    monkeypatch.setattr(descendants, "_forks", lambda: forks[0])
    window = PidWindow(last_pid=32000, forks=1000, pid_max=32768)
    last.write_text("500")  # wrapped: 32001..32768 and 300..500 are new
    test = window.test()
    assert test is not None
    assert [test(pid) for pid in (31999, 32000, 32001, 32768, 301, 500, 501)] == [
        False, False, True, True, True, True, False,
    ]  # fmt: skip
    last.write_text("32100")
    test = window.test()
    assert test is not None
    assert [test(pid) for pid in (32100, 32101, 32000)] == [True, False, False]
    forks[0] = 1000 + 32768  # as many forks as pids: any pid may be new
    assert window.test() is None
