"""Signals that end a run: SIGTERM, SIGHUP (a CI timeout, a closed terminal) and SIGINT.

Each becomes an ``Interrupted`` exception in the main thread, so every ``finally`` on
the way out runs: targets' processes are ended, scratch folders removed, the loopback
closed.  The face that catches it writes what reports it can and exits with the
conventional status, 128 + the signal number, without a traceback.  A second signal
while that cleanup runs is ignored, so the cleanup is not cut short.

One mechanism serves every command: ``python -m conformance`` and the
``wire-conformance`` entry point (``conformance._cli.main``) open ``ending_signals_raise``
before anything else is imported or loaded, so a signal during the imports, the case
loading or after a command's own work (a probe whose JSON is written) is the same
one line and ``128 + N``.  A command that has partial results to keep (``run``,
``probe``, ``generate``) catches ``Interrupted`` itself; the others let it reach the
entry point, their ``finally`` blocks having ended their processes on the way.  Only
the interpreter's own start-up, before the first line of the entry point runs, is
outside any handler.

The pytest plugin cannot raise ``Interrupted`` inside a test (pytest would call it that
test's failure and go on), so around a cell it turns SIGTERM and SIGHUP into
``KeyboardInterrupt``, the exception pytest ends a session on, running every
``finally`` and fixture teardown (``cell_signals_interrupt``).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

#: The signals a run ends on.
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class Interrupted(BaseException):
    """The run was ended by ``signal``.  A ``BaseException``, so a target's or the
    suite's ``except Exception`` does not swallow it."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


def _ignore_further(signum: int, frame: FrameType | None) -> None:
    """A second signal during cleanup: cleanup goes on."""


def _raise(signum: int, frame: FrameType | None) -> None:
    for ending in ENDING_SIGNALS:
        signal.signal(ending, _ignore_further)
    raise Interrupted(signum)


#: Whether an ``ending_signals_raise`` is open: an inner one leaves the outer one's
#: handlers in place (so a signal already taken keeps the next ones ignored).
_ARMED = False


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def ending_signals_raise() -> Iterator[None]:
    """While open, the ending signals raise ``Interrupted`` (main thread only: in other
    threads, and inside another open one, it changes nothing)."""
    global _ARMED
    if _ARMED or not _in_main_thread():
        yield
        return
    previous = {ending: signal.signal(ending, _raise) for ending in ENDING_SIGNALS}
    _ARMED = True
    try:
        yield
    finally:
        _ARMED = False
        for ending, handler in previous.items():
            signal.signal(ending, handler)


def exit_on_interrupt(command: Callable[[], int]) -> int:
    """Run ``command`` (an entry point's whole body, imports included) with the ending
    signals raising; an interruption nobody inside caught is one line on stderr and
    ``128 + N``."""
    try:
        with ending_signals_raise():
            return command()
    except Interrupted as interruption:
        print(f"wire-conformance: {interruption}", file=sys.stderr)
        return interruption.exit_status


#: The signal that ended a pytest session, for the plugin's exit status.
taken: list[int] = []


def _keyboard_interrupt(signum: int, frame: FrameType | None) -> None:
    for ending in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(ending, _ignore_further)
    taken.append(signum)
    raise KeyboardInterrupt(f"interrupted by {signal.Signals(signum).name}")


@contextmanager
def cell_signals_interrupt() -> Iterator[None]:
    """While open, SIGTERM and SIGHUP raise ``KeyboardInterrupt`` (as SIGINT does): the
    cell's processes and scratch folder are ended on the way out, and pytest ends the
    session.  Handlers someone else installed are left alone."""
    if not _in_main_thread():
        yield
        return
    previous = {ending: signal.getsignal(ending) for ending in (signal.SIGTERM, signal.SIGHUP)}
    ours = [e for e, handler in previous.items() if handler in (signal.SIG_DFL, None)]
    for ending in ours:
        signal.signal(ending, _keyboard_interrupt)
    try:
        yield
    finally:
        for ending in ours:
            signal.signal(ending, previous[ending])
