"""Signals that end a run: SIGTERM, SIGHUP (a CI timeout, a closed terminal) and SIGINT.

Each becomes an ``Interrupted`` exception in the main thread, so every ``finally`` on
the way out runs: targets' processes are ended, scratch folders removed, the loopback
closed.  The face that catches it writes what reports it can and exits with the
conventional status, 128 + the signal number, without a traceback.  A second signal
while that cleanup runs is ignored, so the cleanup is not cut short.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
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


@contextmanager
def ending_signals_raise() -> Iterator[None]:
    """While open, the ending signals raise ``Interrupted`` (main thread only)."""
    previous = {ending: signal.signal(ending, _raise) for ending in ENDING_SIGNALS}
    try:
        yield
    finally:
        for ending, handler in previous.items():
            signal.signal(ending, handler)
