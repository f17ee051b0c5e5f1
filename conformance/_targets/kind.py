"""The target protocol: one object per kind of target, one method, one outcome.

The runner knows targets only through ``TargetKind.hold``: it builds a ``Stage`` (the
session, the scripted provider that answers and records, the time allowed) and judges
the ``Outcome``.  It never asks which kind it holds.

How to add a kind (a mutated target for the probe runner, a recorded replay, ...):

1. Subclass ``TargetKind`` in a module of ``conformance._targets``; set ``name`` (the kind
   the reports show) and, if the kind cannot declare capabilities, ``capability_gap``.
2. Implement ``hold``: send the target's requests to ``stage.provider.handle`` (the
   provider records every exchange; the runner reads that record after ``hold``
   returns) and describe the rest in an ``Outcome``.  ``hold`` never raises for the
   target's faults: a crash is ``Outcome.crashed(error)``, a hang an ``Outcome`` with
   ``error``.  An in-process kind gets both for free from ``hold_in_process``.
3. Build a ``ResolvedTarget`` with the kind object and the target's declarations (see
   ``conformance._targets.resolve``); ``plan`` and ``run_job`` take it as it is.
"""

from __future__ import annotations

import ctypes
import os
import threading
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, NoReturn

from conformance._targets.api import CaseBrief, ConversationStopped
from conformance.verdict import ERROR_CAUSES, Cause
from conformance.vocabulary import FinalOutput

if TYPE_CHECKING:
    # Only the stage's field type: the scripted provider (and the case schema under
    # it) is built by the runner; a command-target helper imports this module without it.
    from conformance._provider.scripted import ScriptedProvider

#: The most traceback lines (and characters), and message characters, an error keeps:
#: enough to find the fault, never enough to drown a report.
TRACEBACK_LINES = 12
TRACEBACK_CHARS = 4000
MESSAGE_CHARS = 1000


#: The package's own directory: frames under it are the suite's.
_SUITE = Path(__file__).resolve().parents[1]


def _suite_frame(filename: str) -> bool:
    """Whether a traceback frame is the suite's own code (not the target's)."""
    try:
        return Path(filename).resolve().is_relative_to(_SUITE)
    except (OSError, ValueError):
        return False


def _bounded(message: str) -> str:
    if len(message) <= MESSAGE_CHARS:
        return message
    return f"{message[:MESSAGE_CHARS]}… ({len(message) - MESSAGE_CHARS} more characters)"


@dataclass(frozen=True)
class Crash:
    """An exception a target raised, bounded: its type, its message (at most
    ``MESSAGE_CHARS`` characters) and the last ``TRACEBACK_LINES`` lines (at most
    ``TRACEBACK_CHARS`` characters) of its traceback.  Every kind reports crashes
    with it."""

    type: str
    message: str
    traceback: str

    @classmethod
    def of(cls, error: BaseException) -> Crash:
        """The crash of ``error``, its traceback starting at the target's own first
        frame: the suite's frames that called the target (``kind.py``, ``adapter.py``)
        say nothing to a reader and pushed the user's out of the bounded tail."""
        shown = traceback.TracebackException.from_exception(error)
        frames = list(shown.stack)
        first = next((i for i, f in enumerate(frames) if not _suite_frame(f.filename)), 0)
        shown.stack = traceback.StackSummary.from_list(frames[first:])
        lines = "".join(shown.format()).rstrip().splitlines()
        return cls(
            type=type(error).__qualname__,
            message=_bounded(str(error)),
            traceback="\n".join(lines[-TRACEBACK_LINES:])[-TRACEBACK_CHARS:],
        )

    def __str__(self) -> str:
        return f"{self.type}: {self.message}"


@dataclass(frozen=True)
class Stage:
    """Where one conversation is held: what the target is told (``session``), who
    answers and records (``provider``), the path a request goes to when the target
    names none (``endpoint``), whether the case judges a selected output
    (``wants_output``) and the seconds allowed (``timeout``)."""

    session: CaseBrief
    provider: ScriptedProvider
    endpoint: str
    wants_output: bool
    timeout: float


@dataclass(frozen=True)
class Outcome:
    """How a held conversation ended, besides the requests the provider recorded.

    ``output`` is the selected output, or ``output_error`` why there is none;
    ``stopped`` is why the target ended early (a rule violation may explain it);
    ``error`` is why the run cannot be judged (a crash, a hang), ``error_cause`` that
    as data (one of ``verdict.ERROR_CAUSES``, required with ``error``: the verdict's
    cause is set here, where the text is written, never read back from it), with
    ``crash`` the bounded summary of the exception behind it; ``declined`` and ``refused`` are what
    a command's reserved exit codes said; the tails are the last characters of
    an out-of-process target's streams.
    """

    output: FinalOutput | None = None
    output_error: str | None = None
    stopped: str | None = None
    error: str | None = None
    error_cause: Cause | None = None
    crash: Crash | None = None
    #: The target said it cannot run this cell (the cell is ``n/a``, with this reason).
    declined: str | None = None
    #: The target's library refused a response the provider sent (never a ``pass``).
    refused: str | None = None
    #: The target's library stopped the conversation on purpose, with its message
    #: (``ConversationStopped``, a command's exit 93); ``decide`` judges where.
    halted: str | None = None
    stdout_tail: str | None = None
    stderr_tail: str | None = None

    def __post_init__(self) -> None:
        if (self.error is None) != (self.error_cause is None):
            raise ValueError("an Outcome's error and error_cause come together")
        if self.error_cause is not None and self.error_cause not in ERROR_CAUSES:
            raise ValueError(f"{self.error_cause} is not the cause of a target's error")

    @classmethod
    def crashed(cls, error: BaseException | Crash) -> Outcome:
        crash = error if isinstance(error, Crash) else Crash.of(error)
        return cls(error=f"the target raised {crash}", error_cause=Cause.CRASH, crash=crash)

    @classmethod
    def timed_out(cls, who: str, timeout: float) -> Outcome:
        """``who`` (the target, the command) did not finish within ``timeout`` seconds."""
        return cls(error=f"{who} did not finish within {timeout:g} s", error_cause=Cause.TIMEOUT)

    @property
    def error_report(self) -> str | None:
        """``error`` followed by the crash's traceback: what a report shows."""
        if self.error is None or self.crash is None:
            return self.error
        return f"{self.error}\n{self.crash.traceback}".rstrip()


class TargetKind(ABC):
    """One kind of target: holds a session against a provider (see the module
    docstring for how to add one)."""

    #: The kind the reports name.
    name: ClassVar[str]
    #: Why a case needing capabilities the target lacks is ``n/a`` (after "needs
    #: capability X, ").
    capability_gap: ClassVar[str] = "which the target does not declare"
    #: Whether several cells may be held at once (``-j``): each has its own process
    #: group and port.  In-process kinds share the interpreter (and respx's router).
    parallel: ClassVar[bool] = False

    def abandon(self) -> None:
        """End every conversation this kind holds now (an interrupted parallel run);
        a kind that holds cells one at a time has nothing to end."""
        return

    def reopen(self) -> None:
        """Let conversations start again after ``abandon``."""
        return

    @abstractmethod
    def hold(self, stage: Stage) -> Outcome:
        """Hold ``stage.session`` against ``stage.provider`` within ``stage.timeout``;
        the target's faults are in the outcome, never raised."""


class Abandoned(BaseException):
    """Raised inside a target's thread after its timeout, to stop it burning CPU."""


def _stop(thread: threading.Thread) -> None:
    """Ask ``thread`` to stop by raising ``Abandoned`` in it at its next bytecode.

    This stops a Python loop; a thread blocked in C (a socket read, ``time.sleep``)
    only sees it when the call returns, and one that catches ``BaseException`` can
    ignore it: such a thread stays behind as a daemon, idle or not.  It lands in
    whatever the thread runs next, cleanup included (a ``finally``, a ``__del__``, a gc
    callback of another library): docs/targets.md, "Timeouts of in-process targets",
    says so and points hang-prone targets to the command kind.
    """
    if thread.ident is None or not thread.is_alive():
        return
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread.ident), ctypes.py_object(Abandoned)
    )


class ProcessExit(BaseException):
    """Raised in place of ``os._exit`` called while an in-process target's cell runs: a
    process exit would end the suite itself, without a verdict, a report or a status."""

    def __init__(self, status: int) -> None:
        self.status = status
        super().__init__(f"os._exit({status}) (a process exit, stopped by the suite)")


#: ``os._exit`` as the interpreter gave it.
_REAL_EXIT = os._exit
_guard_lock = threading.Lock()
#: In-process cells running now, the process that runs them, and the ``os._exit``
#: statuses their code asked for.
_guarded = {"cells": 0, "pid": 0}
_exit_calls: list[int] = []
#: Off in a process whose own exit is already an outcome (a probe's forked child).
_guarding = [True]


def let_process_exits_through() -> None:
    """In this process, ``os._exit`` during a cell ends the process again: for a forked
    child whose parent reports its death (``conformance._probe.run.probe_forked``)."""
    _guarding[0] = False


def _guarded_exit(status: int) -> NoReturn:
    """``os._exit`` while in-process cells run: in the suite's own process it raises
    ``ProcessExit`` in the calling thread; in a forked child it exits as asked."""
    if _guarded["cells"] and os.getpid() == _guarded["pid"]:
        _exit_calls.append(status)
        raise ProcessExit(status)
    _REAL_EXIT(status)


@contextmanager
def _process_exit_guard() -> Iterator[list[int]]:
    """While open, ``os._exit`` in this process raises ``ProcessExit``; yields the list
    the statuses of such calls go to.  Code that bound ``_exit`` before the cell (``from
    os import _exit``), C code calling ``_exit()``, ``os.abort`` and a signal still end
    the process: an in-process target shares the suite's process."""
    if not _guarding[0]:
        yield _exit_calls
        return
    with _guard_lock:
        if not _guarded["cells"]:
            _guarded["pid"] = os.getpid()
            os._exit = _guarded_exit
        _guarded["cells"] += 1
    try:
        yield _exit_calls
    finally:
        with _guard_lock:
            _guarded["cells"] -= 1
            if not _guarded["cells"]:
                os._exit = _REAL_EXIT


def hold_in_process(task: Callable[[], Outcome], timeout: float) -> Outcome:
    """Run ``task`` on a fresh daemon thread and wait at most ``timeout`` seconds.

    A task that hangs gets ``Abandoned`` raised in its thread (see ``_stop``) and the
    outcome says it timed out; the next call starts a new thread, so nothing it blocks
    is shared.
    """
    finished: list[Outcome] = []

    def run() -> None:
        try:
            finished.append(task())
        except ConversationStopped as stop:  # the library's own deliberate stop
            finished.append(Outcome(halted=_bounded(str(stop)) or type(stop).__name__))
        except BaseException as error:  # the target's failure is an outcome, not ours
            finished.append(Outcome.crashed(error))

    with _process_exit_guard() as exits:
        before = len(exits)
        thread = threading.Thread(target=run, daemon=True, name="conformance-target")
        thread.start()
        thread.join(timeout)
        called = exits[before:]
    if called and not (finished and _exited(finished[0])):
        # a thread of the target's own called it: the cell's thread did not see it
        return Outcome(
            error=f"the target called os._exit({called[0]}), a process exit",
            error_cause=Cause.CRASH,
        )
    if not finished:
        _stop(thread)
        return Outcome.timed_out("the target", timeout)
    return finished[0]


def _exited(outcome: Outcome) -> bool:
    """Whether the cell's own thread ended on ``ProcessExit`` (it called ``os._exit``)."""
    return outcome.crash is not None and outcome.crash.type == ProcessExit.__qualname__
