"""Run cases on a target: plan the case × wire matrix, hold each conversation against a
fresh scripted provider, judge the transcript, and collect one result per cell.

A crashing or hanging target is an ``error`` result with the reason; the run goes on.
"""

from __future__ import annotations

import fnmatch
import queue
import threading
import traceback
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from conformance.cases.schema import Case, ExpectOutput
from conformance.checks.registry import run_checks
from conformance.decide import decide
from conformance.provider.scripted import ScriptedProvider
from conformance.snapshots import SnapshotStore
from conformance.targets.adapter import drive_adapter
from conformance.targets.base import Adapter, Client, Session, ToolDef
from conformance.targets.resolve import ResolvedTarget
from conformance.transcript import Transcript
from conformance.verdict import Result
from conformance.wires.registry import get_wire, split_column

T = TypeVar("T")
DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class Job:
    """One cell of the matrix: a case on a column (``wire`` or ``wire:dialect``);
    ``skip`` is the reason it is ``n/a``."""

    case: Case
    column: str
    skip: str | None = None

    @property
    def wire(self) -> str:
        return split_column(self.column)[0]

    @property
    def dialect(self) -> str | None:
        return split_column(self.column)[1]


@dataclass(frozen=True)
class RunOptions:
    timeout: float = DEFAULT_TIMEOUT
    strict: bool = False
    snapshots: SnapshotStore | None = None


def plan(
    cases: Iterable[Case],
    target: ResolvedTarget,
    wires: Collection[str] = (),
    patterns: Collection[str] = (),
) -> list[Job]:
    """Every case × wire to run, sorted; cells the target cannot run carry the reason."""
    jobs: list[Job] = []
    for case in sorted(cases, key=lambda c: c.id):
        if patterns and not any(fnmatch.fnmatchcase(case.id, p) for p in patterns):
            continue
        for column in sorted(case.wires):
            if wires and column not in wires and split_column(column)[0] not in wires:
                continue
            skip = None
            if not target.speaks(column):
                skip = f"the target does not speak {column}"
            missing = sorted(case.needs - target.capabilities)
            if skip is None and missing and target.kind != "command":
                skip = f"needs capability {', '.join(missing)}, which the target does not declare"
            elif skip is None and missing:
                skip = f"needs capability {', '.join(missing)}, which command targets lack"
            jobs.append(Job(case, column, skip))
    return jobs


def session_for(case: Case, wire: str, dialect: str | None) -> Session:
    """What the target is told about the conversation (the contract document, in-process)."""
    given = case.given
    return Session(
        case=case.id,
        wire=wire,
        dialect=dialect,
        model=given.options.model,
        system=given.system,
        prompts=tuple(turn.user for turn in given.turns),
        tools=tuple(ToolDef(t.name, t.description, t.parameters, t.result) for t in given.tools),
        thinking=given.options.thinking,
        max_tokens=given.options.max_tokens,
        store=given.options.store,
        include=given.options.include,
        history=given.history,
    )


class _Worker:
    """A daemon thread that runs one task at a time, abandoned when a task hangs."""

    def __init__(self) -> None:
        self._tasks: queue.Queue[tuple[Callable[[], Any], list[Any], threading.Event]] = (
            queue.Queue()
        )
        threading.Thread(target=self._loop, daemon=True, name="conformance-target").start()

    def _loop(self) -> None:
        while True:
            task, slot, done = self._tasks.get()
            try:
                slot.append((True, task()))
            except BaseException as error:  # the target's failure is a result, not ours
                slot.append((False, error))
            done.set()

    def run(self, task: Callable[[], T], timeout: float) -> tuple[bool, Any] | None:
        slot: list[Any] = []
        done = threading.Event()
        self._tasks.put((task, slot, done))
        return slot[0] if done.wait(timeout) else None


_worker: _Worker | None = None


def _call_with_timeout(task: Callable[[], T], timeout: float) -> tuple[bool, Any] | None:
    """``(ok, value)`` of the task, or ``None`` when it did not finish in time."""
    global _worker
    if _worker is None:
        _worker = _Worker()
    outcome = _worker.run(task, timeout)
    if outcome is None:
        _worker = None  # leave the hung thread behind; the next task gets a new one
    return outcome


def _describe(error: BaseException) -> str:
    lines = traceback.format_exception(error)
    tail = "".join(lines[-3:]).strip()
    return f"the target raised {type(error).__name__}: {error}\n{tail}"


def _execute(
    target: ResolvedTarget,
    job: Job,
    provider: ScriptedProvider,
    transcript: Transcript,
    timeout: float,
) -> None:
    session = session_for(job.case, job.wire, job.dialect)
    wire = get_wire(job.wire)
    wants_output = any(isinstance(e, ExpectOutput) for e in job.case.expect)
    if target.kind == "command":
        from conformance.targets.command import CommandTarget

        assert isinstance(target.impl, str)
        command = CommandTarget(target.impl, timeout=target.timeout or timeout)
        ran = command.run(session, provider.handle)
        transcript.stdout_tail, transcript.stderr_tail = ran.stdout_tail, ran.stderr_tail
        if ran.timed_out:
            transcript.error = f"the command did not finish within {command.timeout:g} s"
        elif ran.exit_code != 0:
            transcript.stopped = f"the command exited with status {ran.exit_code}"
        return

    def hold() -> Any:
        if isinstance(target.impl, Adapter):
            return drive_adapter(
                target.impl, session, provider, wire.endpoint(session.model, True), wants_output
            )
        from conformance.targets.client import run_client

        assert isinstance(target.impl, Client)
        return run_client(target.impl, session, provider.handle)

    outcome = _call_with_timeout(hold, target.timeout or timeout)
    if outcome is None:
        transcript.error = f"the target did not finish within {target.timeout or timeout:g} s"
        return
    ok, value = outcome
    if not ok:
        transcript.error = _describe(value)
        return
    if target.kind == "adapter":
        transcript.output, transcript.output_error = value.output, value.output_error
        transcript.stopped = value.stopped
    elif value.error is not None:
        transcript.error = f"the client raised {value.error}\n{value.error.traceback}".rstrip()


def run_job(
    target: ResolvedTarget, job: Job, options: RunOptions
) -> tuple[Result, Transcript | None]:
    """Run one cell and judge it."""
    if job.skip:
        result = Result(
            case=job.case.id,
            wire=job.column,
            dialect=job.dialect,
            verdict="n/a",
            features=job.case.features,
            reason=job.skip,
        )
        return result, None
    wire = get_wire(job.wire)
    provider = ScriptedProvider(job.case, wire, job.dialect)
    transcript = Transcript(job.case, job.column, job.dialect)
    _execute(target, job, provider, transcript, options.timeout)
    with provider.lock:
        transcript.exchanges = list(provider.exchanges)
    violations = run_checks(transcript, wire)
    result = decide(job.case, job.column, target, transcript, violations, options.strict)
    if options.snapshots is not None:
        state = options.snapshots.check(job.column, job.case.id, transcript)
        result = result.model_copy(update={"snapshot": state})
    return result, transcript


def run_jobs(
    target: ResolvedTarget,
    jobs: Sequence[Job],
    options: RunOptions,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Run every job in order; ``on_result`` sees each result as it is decided."""
    results: list[Result] = []
    for job in jobs:
        result, _ = run_job(target, job, options)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results
