"""The audit: the suite's provider model held to what a real provider answered.

Every exchange of a real recording is a verdict the provider itself gave: a request it
answered 2xx was accepted that day, for that model, whatever the suite's rules say.  The
audit replays each recorded request, in order, into the strict scripted provider's
judgement (the wire's ``parse`` and ``validate``, with the memory the provider would
have: the recording's saved history and the responses it recorded before that request)
and compares:

- a real 2xx that the suite would refuse is a **false refusal**: the suite's model is
  narrower than the provider, and a correct client would get a red cell;
- a real client error (4xx other than a rate limit) that the suite would serve is a
  **missed rejection**: worth knowing, never a failure (the real error may come from
  something the suite does not model, such as a key or a quota).

An exchange the suite cannot judge is said to be so, with the reason, and never
counted as agreement: a request to another endpoint (token counting, files), one that
continues server-side state the recording does not show (a chain that began before it),
one using a field or beta the suite does not model (``provider.features``), or a
transient answer (429, 5xx), which says nothing of the request.  A field or beta on none
of the catalogue's lists is judged like a rule: answered 2xx, it shows the list wrong.
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from conformance._provider.features import UNMODELLED_RULE, unjudgeable
from conformance._provider.scripted import MALFORMED_REQUEST
from conformance._recording.file_format import RecordedExchange, Recording
from conformance._recording.load import load_recording
from conformance._recording.to_case import options_of, scripted_answer, settled
from conformance.errors import (
    ExclusionError,
    RecordingError,
    RequestParseError,
    ToCaseError,
)
from conformance.verdict import Violation
from conformance.version import __version__
from conformance.vocabulary import Block, Media, Message, Options, ScriptedResponse
from conformance.wires._registry import get_wire, split_column
from conformance.wires.context import RequestView, ValidationContext
from conformance.wires.roles import Wire

AUDIT_REPORT_VERSION = 1

#: What one exchange's comparison came to.
Finding = Literal[
    "agrees",  # the suite and the provider gave the same answer
    "false-refusal",  # answered 2xx, the suite refuses it
    "missed-rejection",  # refused by the provider, the suite serves it
    "not-judged",  # the suite cannot say (another endpoint, unseen state, a transient answer)
]

#: Why an exchange was not judged.
Unjudged = Literal[
    "other-endpoint",  # not a conversation turn of the wire (token counting, files)
    "unseen-state",  # rests on server-side state the recording does not show
    "provider-status",  # a transient or server answer, which says nothing of the request
    "unmodelled-feature",  # uses a field or beta the real API takes and the suite does not model
]

#: Statuses that say nothing about the request itself: the provider was busy.
_TRANSIENT = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


class Fired(BaseModel):
    """A rule the suite's provider would answer the request with."""

    model_config = ConfigDict(frozen=True)

    rule: str
    message: str
    at: str | None = None
    evidence: str
    source: str


class AuditedExchange(BaseModel):
    """One recorded request as the suite judges it beside the provider's real answer."""

    model_config = ConfigDict(frozen=True)

    recording: str
    exchange: int
    method: str
    path: str
    real_status: int
    #: Whether the suite's provider would answer it as the real one did with a 2xx;
    #: ``None`` when the suite did not judge it (``reason`` says why).
    suite_accepts: bool | None
    #: The rule ids the suite would refuse it with, in the order it checks them.
    rules: tuple[str, ...] = ()
    fired: tuple[Fired, ...] = ()
    finding: Finding
    #: Why it was not judged, when ``finding`` is ``not-judged``; ``reason`` says it in full.
    unjudged: Unjudged | None = None
    reason: str | None = None


class AuditedRecording(BaseModel):
    model_config = ConfigDict(frozen=True)

    recording: str
    wire: str | None = None
    synthetic: bool | None = None
    #: Why the whole file was not audited (it does not load, or it is excluded by name).
    error: str | None = None
    excluded: str | None = None
    exchanges: tuple[AuditedExchange, ...] = ()


class AuditReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    report_version: int = AUDIT_REPORT_VERSION
    suite_version: str = __version__
    recordings: tuple[AuditedRecording, ...]

    @property
    def exchanges(self) -> tuple[AuditedExchange, ...]:
        return tuple(e for r in self.recordings for e in r.exchanges)

    @property
    def false_refusals(self) -> tuple[AuditedExchange, ...]:
        return tuple(e for e in self.exchanges if e.finding == "false-refusal")

    @property
    def errors(self) -> tuple[AuditedRecording, ...]:
        return tuple(r for r in self.recordings if r.error is not None)

    @property
    def ok(self) -> bool:
        """No false refusal and every file read: what the command's exit code says."""
        return not self.false_refusals and not self.errors

    def counts(self) -> Counter[str]:
        return Counter(e.finding for e in self.exchanges)


@dataclass
class _Memory:
    """What the provider knows when it judges a request: the recording's saved history
    (the messages the first conversation request carried before its prompt), the
    answers it served, and the requests it answered, as the scripted provider keeps them
    (``ScriptedProvider._context``)."""

    wire: Wire
    dialect: str | None
    options: Options | None = None
    history: tuple[Message, ...] = ()
    served: tuple[ScriptedResponse, ...] = ()
    answered: tuple[tuple[RequestView, int], ...] = ()
    #: The answer body of each of ``answered`` (where a message thread's ids are read).
    answered_bodies: tuple[bytes, ...] = ()
    bodies: tuple[bytes, ...] = ()
    #: The recording judged: a turn's answer may be settled by a later exchange.
    recording: Recording | None = None

    def context(self, number: int, view: RequestView | None = None) -> ValidationContext:
        """What the provider knows when it judges request ``number``; with ``view``,
        also the assistant messages of that request that the recording never shows
        being served (``foreign``)."""
        history = self.history if view is None else (*self.history, *self.foreign(view))
        return ValidationContext(
            number=number,
            options=self.options or Options(),
            served=self.served,
            served_at=tuple(range(len(self.served))),
            history=history,
            dialect=self.dialect,
            answered=self.answered,
            answered_bodies=self.answered_bodies,
        )

    def foreign(self, view: RequestView) -> tuple[Message, ...]:
        """The request's assistant messages that carry opaque tokens, none of which the
        provider served in this recording or saw in its saved history: turns minted
        before the recording, or in another session (a client that switched models, a
        test that wrote its history).  The provider's memory holds them as a case's
        saved history: a real 2xx says their tokens were its own, so they join it."""
        known = {t for m in self.history for t in _tokens(m.blocks)}
        known |= {t for r in self.served for t in _tokens(r.blocks)}
        return tuple(
            message
            for message in view.messages
            if message.role == "assistant"
            and message not in self.history
            and (tokens := _tokens(message.blocks))
            and not tokens & known
        )


def _tokens(blocks: Sequence[Block]) -> set[str]:
    """The opaque tokens a turn carries: what ties a sent message to the answer it came
    from (signatures, redacted data, encrypted content)."""
    found: set[str] = set()
    for block in blocks:
        for name in ("signature", "data"):
            value = getattr(block, name, None)
            if isinstance(value, str) and value and not isinstance(block, Media):
                found.add(value)
    return found


def _fired(violation: Violation) -> Fired:
    rule = violation.broken
    return Fired(
        rule=rule.id,
        message=violation.message,
        at=violation.at,
        evidence=violation.evidence,
        source=rule.source,
    )


def _finding(real_status: int, accepts: bool) -> dict[str, str | None]:
    """The finding fields of a judged request beside the real status."""
    if 200 <= real_status < 300:
        return {"finding": "agrees" if accepts else "false-refusal"}
    if 400 <= real_status < 500 and real_status not in _TRANSIENT:
        return {"finding": "missed-rejection" if accepts else "agrees"}
    return {
        "finding": "not-judged",
        "unjudged": "provider-status",
        "reason": f"the provider answered {real_status}, which says nothing of the request",
    }


def _judge(exchange: RecordedExchange, memory: _Memory, shown: str, column: str) -> AuditedExchange:
    request = exchange.request.http()
    status = exchange.response.status
    base = {
        "recording": shown,
        "exchange": exchange.number,
        "method": request.method,
        "path": request.path,
        "real_status": status,
    }
    if not memory.wire.serves(request):
        return AuditedExchange(
            **base,
            suite_accepts=None,
            finding="not-judged",
            unjudged="other-endpoint",
            reason=f"{request.method} {request.path} is not a conversation endpoint of "
            f"{memory.wire.name}",
        )
    try:
        view = memory.wire.parse(request, memory.context(exchange.number))
    except RequestParseError as error:
        fired = _fired(MALFORMED_REQUEST.violation(error.message, at=error.at))
        return AuditedExchange(
            **base,
            suite_accepts=False,
            rules=(fired.rule,),
            fired=(fired,),
            **_finding(status, accepts=False),
        )
    if memory.options is None:  # the first conversation request: the case's options
        memory.options = Options.model_validate(options_of(view, column))
        memory.history = view.messages[:-1]
    unjudged = unjudgeable(memory.wire.name, memory.dialect, request, view.raw)
    if unjudged is not None and unjudged.check == UNMODELLED_RULE.id:
        _remember(exchange, view, memory, column)
        return AuditedExchange(
            **base,
            suite_accepts=None,
            finding="not-judged",
            unjudged="unmodelled-feature",
            reason=unjudged.message,
        )
    if unjudged is not None:  # the list says the real API does not take it
        fired = _fired(unjudged)
        return AuditedExchange(
            **base,
            suite_accepts=False,
            rules=(fired.rule,),
            fired=(fired,),
            **_finding(status, accepts=False),
        )
    unseen = memory.wire.unseen_state(view, memory.bodies)
    if unseen is not None:
        _remember(exchange, view, memory, column)
        return AuditedExchange(
            **base,
            suite_accepts=None,
            finding="not-judged",
            unjudged="unseen-state",
            reason=unseen,
        )
    violations = memory.wire.validate(view, memory.context(exchange.number, view))
    rejecting = tuple(_fired(v) for v in violations if v.rejects)
    if 200 <= status < 300:
        _remember(exchange, view, memory, column)
    return AuditedExchange(
        **base,
        suite_accepts=not rejecting,
        rules=tuple(dict.fromkeys(f.rule for f in rejecting)),
        fired=rejecting,
        **_finding(status, accepts=not rejecting),
    )


def _remember(exchange: RecordedExchange, view: RequestView, memory: _Memory, column: str) -> None:
    """An answered request and its recorded answer join the provider's memory; an
    answer the suite cannot read back leaves no scripted response (the audit of later
    requests that rest on it may then be too strict: its reason says so)."""
    body = exchange.response.body
    memory.bodies = (*memory.bodies, body)
    index = exchange.number - 1
    try:
        if memory.recording is not None:
            exchange = settled(memory.recording, index)
        answer = scripted_answer(exchange, column, f"exchanges.{index}")
    except ToCaseError:
        return
    if answer is None:
        return
    memory.answered = (*memory.answered, (view, len(memory.served)))
    memory.answered_bodies = (*memory.answered_bodies, body)
    memory.served = (*memory.served, answer)


def audit_recording(recording: Recording, shown: str) -> AuditedRecording:
    """Every exchange of one recording, judged in order."""
    meta = recording.metadata
    wire_name, dialect = split_column(meta.column)
    memory = _Memory(get_wire(wire_name), dialect, recording=recording)
    exchanges = tuple(_judge(e, memory, shown, meta.column) for e in recording.exchanges)
    return AuditedRecording(
        recording=shown, wire=meta.column, synthetic=meta.synthetic, exchanges=exchanges
    )


def audit_file(path: Path, shown: str, excluded: Mapping[str, str]) -> AuditedRecording:
    """One file's audit; a file that does not load is an error entry (the others still
    run), and a file excluded by name is listed with the reason, never dropped."""
    reason = excluded.get(path.name)
    if reason is not None:
        return AuditedRecording(recording=shown, excluded=reason)
    try:
        recording = load_recording(path)
    except RecordingError as error:
        return AuditedRecording(recording=shown, error=f"{error.at}: {error.message}")
    return audit_recording(recording, shown)


def audit_paths(
    files: Sequence[tuple[Path, str]], excluded: Mapping[str, str] | None = None
) -> AuditReport:
    return AuditReport(
        recordings=tuple(audit_file(path, shown, excluded or {}) for path, shown in files)
    )


def exclusions(path: Path) -> dict[str, str]:
    """The recordings an exclusion file names, each with the reason it is not evidence:
    a TOML file whose ``[excluded]`` table maps a recording's file name to a reason."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ExclusionError(f"{path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ExclusionError(f"{path}: not TOML: {error}") from None
    table = data.get("excluded")
    if not isinstance(table, dict):
        raise ExclusionError(f"{path}: [excluded]: missing (a table of file name = reason)")
    for name, reason in table.items():
        if not isinstance(reason, str) or not reason.strip():
            raise ExclusionError(f"{path}: excluded.{name}: give the reason as text")
    return dict(table)


def audit_json(report: AuditReport) -> str:
    """The report as JSON: the summary, each recording (with why it was not audited, if
    so) and each exchange, flat, in file and exchange order."""
    data = {
        "report_version": report.report_version,
        "suite_version": report.suite_version,
        "ok": report.ok,
        "summary": dict(sorted(report.counts().items())),
        "recordings": [r.model_dump(mode="json", exclude={"exchanges"}) for r in report.recordings],
        "exchanges": [e.model_dump(mode="json") for e in report.exchanges],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


__all__ = [
    "AuditReport",
    "AuditedExchange",
    "AuditedRecording",
    "ExclusionError",
    "Fired",
    "audit_json",
    "audit_paths",
    "audit_recording",
    "exclusions",
]
