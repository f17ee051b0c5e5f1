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
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from conformance.cases.schema import Case
from conformance.http import HttpResponse
from conformance.provider.scripted import ScriptedProvider
from conformance.recording.drift import Drift, compare
from conformance.recording.load import RecordingError, load_recording
from conformance.recording.to_case import ToCaseError, played, recording_case
from conformance.runner import RunOptions, plan, run_job
from conformance.targets.resolve import ResolvedTarget
from conformance.verdict import Verdict, Violation
from conformance.version import __version__
from conformance.wires.base import RenderContext
from conformance.wires.roles import Wire

REPLAY_REPORT_VERSION = 1

Status = Literal["pass", "drift", "fail", "error", "n/a"]


class ReplayProvider(ScriptedProvider):
    """The scripted provider answering with recorded responses."""

    def __init__(
        self, answers: Sequence[HttpResponse], case: Case, wire: Wire, dialect: str | None
    ) -> None:
        super().__init__(case, wire, dialect)
        self.answers = tuple(answers)

    def respond(self, index: int, context: RenderContext) -> HttpResponse:
        return self.answers[index]


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

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.recordings)


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
        plays = played(recording)
        if not plays:  # only exchanges beside a conversation (counting tokens, say)
            reason = "the recording holds no turn of a conversation to replay"
            return RecordingResult(file=shown, status="n/a", reason=reason)
        case = recording_case(recording, path)
    except RecordingError as error:
        return RecordingResult(file=shown, status="error", reason=f"{error.at}: {error.message}")
    except ToCaseError as error:
        return RecordingResult(file=shown, status="error", reason=str(error))
    meta = recording.metadata
    answers = [p.exchange.response.http() for p in plays if p.response is not None]
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
    files: Sequence[tuple[Path, str]], target: ResolvedTarget, options: RunOptions
) -> ReplayReport:
    results = tuple(replay_file(path, shown, target, options) for path, shown in files)
    return ReplayReport(target=target.name, recordings=results)
