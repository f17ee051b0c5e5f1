"""Replay: a recording as one more provider source.

The recording is read back into a case (``to_case``) for what the target is told and
what the checks judge; the provider that answers is the strict scripted provider with
one change: a valid request is answered with the recorded response, byte for byte and
chunk for chunk, in the recorded order.  A request that breaks a wire rule is still
rejected the way the real provider would.  The run is judged by the same checks as any
cell, and the drift from the recorded requests is reported beside the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from conformance._cases.schema import Case
from conformance._provider.scripted import ScriptedProvider
from conformance._recording.drift import Drift, compare
from conformance._recording.file_format import Recording
from conformance._recording.load import load_recording
from conformance._recording.to_case import (
    Played,
    conversation_exchanges,
    played,
    recording_case,
    settled_at,
)
from conformance._runner import RunOptions, plan, run_job
from conformance._targets.resolve import ResolvedTarget
from conformance.errors import RecordingError, ToCaseError, Unscriptable
from conformance.http import HttpRequest, HttpResponse
from conformance.verdict import Verdict, Violation
from conformance.version import __version__
from conformance.wires._registry import get_wire, split_column
from conformance.wires.context import RenderContext
from conformance.wires.roles import Wire

REPLAY_REPORT_VERSION = 1

Status = Literal["pass", "drift", "fail", "error", "n/a"]


@dataclass(frozen=True)
class RecordedAnswer:
    """What the recording answered one turn: the answer that holds its outcome, and,
    for a turn answered later (a Responses background response), the pending answer
    the provider sent first and the polls' answers, in order."""

    outcome: HttpResponse
    pending: HttpResponse | None = None
    polls: tuple[HttpResponse, ...] = ()
    polled_id: str | None = None


class ReplayProvider(ScriptedProvider):
    """The scripted provider answering with recorded responses.

    A turn the recording answered later is answered the way the target asks: with its
    outcome at once, as the provider answers a request that does not ask to wait; or,
    to a request that does (``Wire.defers``), with the recorded pending answer, and each
    poll of it (``Wire.poll_of``) with the next recorded poll (the last one again once
    they run out).  Polls are transport, not turns: they are served, not judged."""

    def __init__(
        self, answers: Sequence[RecordedAnswer], case: Case, wire: Wire, dialect: str | None
    ) -> None:
        super().__init__(case, wire, dialect)
        self.recorded_wire = wire
        self.answers = tuple(answers)
        self._polls: dict[str, list[HttpResponse]] = {}

    def respond(self, index: int, context: RenderContext) -> HttpResponse:
        answer = self.answers[index]
        if answer.pending is None or answer.polled_id is None or context.request is None:
            return answer.outcome
        if not self.recorded_wire.defers(context.request):
            return answer.outcome
        self._polls[answer.polled_id] = list(answer.polls)
        return answer.pending

    def handle(self, request: HttpRequest) -> HttpResponse:
        polled = self.recorded_wire.poll_of(request)
        with self.lock:
            left = self._polls.get(polled) if polled is not None else None
            if left:
                return left.pop(0) if len(left) > 1 else left[0]
        return super().handle(request)


def recorded_answers(recording: Recording, plays: Sequence[Played]) -> list[RecordedAnswer]:
    """Each answered turn's recorded answers (``RecordedAnswer``)."""
    wire = get_wire(split_column(recording.metadata.column)[0])
    out: list[RecordedAnswer] = []
    for play in plays:
        if play.response is None:
            continue
        outcome = play.exchange.response.http()
        index = play.exchange.number - 1
        at = settled_at(recording, index)
        if at == index:
            out.append(RecordedAnswer(outcome))
            continue
        polled_id = wire.poll_of(recording.exchanges[at].request.http())
        polls = tuple(
            e.response.http()
            for e in recording.exchanges[index + 1 : at + 1]
            if polled_id is not None and wire.poll_of(e.request.http()) == polled_id
        )
        pending = recording.exchanges[index].response.http()
        out.append(RecordedAnswer(outcome, pending, polls, polled_id))
    return out


class RecordingResult(BaseModel):
    """The replay of one recording: its verdict, why, and the drift."""

    model_config = ConfigDict(frozen=True)

    file: str
    wire: str | None = None
    status: Status
    verdict: Verdict | None = None
    synthetic: bool | None = None
    reason: str | None = None
    violations: tuple[Violation, ...] = ()
    warnings: tuple[Violation, ...] = ()
    drift: tuple[Drift, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status not in ("fail", "error")


class ReplayReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    report_version: int = REPLAY_REPORT_VERSION
    suite_version: str = __version__
    target: str
    recordings: tuple[RecordingResult, ...]
    #: Why the replay ended before every recording was replayed (a signal); the report
    #: then holds the recordings that finished.  Absent from a complete report.
    incomplete: str | None = None

    @property
    def ok(self) -> bool:
        return self.incomplete is None and all(r.ok for r in self.recordings)


def _status(verdict: Verdict, drift: Sequence[Drift]) -> Status:
    if verdict in ("fail", "error"):
        return verdict
    if verdict == "n/a":
        return "n/a"
    return "drift" if drift else "pass"


def replay_file(
    path: Path, shown: str, target: ResolvedTarget, options: RunOptions
) -> RecordingResult:
    """Replay one recording on the target; a file that cannot be used is an ``error``
    result naming why (the others still run)."""
    try:
        recording = load_recording(path)
    except RecordingError as error:
        return RecordingResult(file=shown, status="error", reason=f"{error.at}: {error.message}")
    if not conversation_exchanges(recording):
        others = sorted({f"{e.request.method} {e.request.path}" for e in recording.exchanges})
        return RecordingResult(
            file=shown,
            wire=recording.metadata.column,
            synthetic=recording.metadata.synthetic,
            status="n/a",
            reason="holds no conversation turn of the wire, only other calls: "
            + ", ".join(others[:3])
            + (f" and {len(others) - 3} more" if len(others) > 3 else ""),
        )
    try:
        case = recording_case(recording, path)
        plays = played(recording)
    except RecordingError as error:
        return RecordingResult(file=shown, status="error", reason=f"{error.at}: {error.message}")
    except Unscriptable as error:
        meta = recording.metadata
        return RecordingResult(
            file=shown, wire=meta.column, synthetic=meta.synthetic, status="n/a", reason=str(error)
        )
    except ToCaseError as error:
        return RecordingResult(file=shown, status="error", reason=str(error))
    meta = recording.metadata
    answers = recorded_answers(recording, plays)
    job = plan([case], target)[0]
    factory = partial(ReplayProvider, answers)
    result, transcript = run_job(target, job, replace(options, provider=factory))
    base = {"file": shown, "wire": meta.column, "synthetic": meta.synthetic}
    if transcript is None:  # n/a: the target does not speak the recording's wire
        return RecordingResult(**base, status="n/a", verdict=result.verdict, reason=result.reason)
    drift = compare([p.view for p in plays], [e.view for e in transcript.exchanges])
    return RecordingResult(
        **base,
        status=_status(result.verdict, drift),
        verdict=result.verdict,
        reason=result.reason,
        violations=result.violations,
        warnings=result.warnings,
        drift=tuple(drift),
    )


def replay_paths(
    files: Sequence[tuple[Path, str]],
    target: ResolvedTarget,
    options: RunOptions,
    done: list[RecordingResult] | None = None,
) -> ReplayReport:
    """Replay every file in order; ``done`` receives each result as it finishes, so an
    interrupted replay can still report what finished."""
    finished = [] if done is None else done
    for path, shown in files:
        finished.append(replay_file(path, shown, target, options))
    return ReplayReport(target=target.name, recordings=tuple(finished))
