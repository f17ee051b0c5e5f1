"""What one run of a case on a wire captured: every exchange, byte for byte."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from conformance._cases.continuation import continuation_loops
from conformance.http import HttpRequest, HttpResponse
from conformance.verdict import Cause, Violation
from conformance.vocabulary import REPAIRED_FAULTS, FinalOutput
from conformance.wires.context import RequestView

if TYPE_CHECKING:
    # Only a field's type: a command target's helper reads transcripts' types without
    # building the case schema's models.
    from conformance._cases.schema import Case


@dataclass(frozen=True)
class Exchange:
    """One request and the provider's answer.

    ``served`` is the 0-based index of the scripted response the provider answered
    with, or ``None`` when it answered with an error (a rule violation, a malformed or
    misaddressed request, or a request beyond the script, named in ``problem``).
    """

    number: int
    request: HttpRequest
    view: RequestView | None
    response: HttpResponse
    served: int | None
    violations: tuple[Violation, ...] = ()
    problem: str | None = None


@dataclass
class Transcript:
    """The captured run of one case on one wire, for the checks to judge.

    ``error`` is why the run could not be judged (a crash, a hang), ``error_cause`` the
    same as data (the target kind's ``Outcome.error_cause``; a transcript given an
    ``error`` without one is taken for a crash); ``stopped`` is why the target ended
    early, which a rule violation may explain.
    """

    case: Case
    wire: str
    dialect: str | None
    exchanges: list[Exchange] = field(default_factory=list)
    output: FinalOutput | None = None
    output_error: str | None = None
    error: str | None = None
    error_cause: Cause | None = None
    stopped: str | None = None
    #: The target's library refused a response (a command's reserved exit, with its message).
    refused: str | None = None
    #: The target's library stopped the conversation on purpose, with its message.
    halted: str | None = None
    stdout_tail: str | None = None
    stderr_tail: str | None = None

    @property
    def views(self) -> list[tuple[int, RequestView]]:
        """``(request number, view)`` of every request whose body parsed."""
        return [(e.number, e.view) for e in self.exchanges if e.view is not None]

    def served_count(self) -> int:
        """Scripted responses used: those served, and each ``if_continued`` or
        ``if_retried`` response (with a continuation's own tool loop) the target passed
        over by ending its cut turn or not retrying (it was never asked for)."""
        served = {e.served for e in self.exchanges if e.served is not None}
        responses = self.case.given.responses
        loops = continuation_loops(self.case)
        passed = 0
        for i, response in enumerate(responses):
            optional = response.if_continued or response.if_retried or i in loops
            if not optional or i in served:
                continue
            before = i - 1
            while before >= 0 and (
                responses[before].if_continued or responses[before].if_retried or before in loops
            ):
                before -= 1  # the optional answers of one cut or dropped stream follow it together
            passed += before in served
        return len([e for e in self.exchanges if e.served is not None]) + passed

    def ended_on_dropped_stream(self) -> bool:
        """Whether the target stopped early right after a dropped stream (a scripted
        response that ends with no finish, ``no_finish``).  A dropped stream is a
        truncated response: the target may go on, retry, or end with a non-zero exit, and
        only what it sent is judged (rule 33).  After a scripted fault the target may also
        end without stopping early (its prompts done, the retry's answer never asked for),
        except after a fault that asks for a repaired retry (rule 30's invalid encrypted
        content, ``REPAIRED_FAULTS``): stopping there leaves the session wedged."""
        if self.error is not None or not self.exchanges:
            return False
        served = self.exchanges[-1].served
        responses = self.case.given.responses
        if served is None or served >= len(responses):
            return False
        fault = responses[served].fault
        if fault is not None and fault.kind in REPAIRED_FAULTS:
            return False  # a 400 naming history asks for a repaired retry (rule 30, 52)
        if fault is not None:
            return True  # a scripted fault: ending there, however, is accepted
        return self.stopped is not None and responses[served].stop == "no_finish"
