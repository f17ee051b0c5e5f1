"""Rendering a scripted fault: a transient provider failure in the wire's own error shape.

Each wire names, per fault kind, the status, error type and text its provider really
answers with (``FaultTable``); the body is the wire's ``render_error`` body, so a fault
looks exactly like any other error answer of that wire, plus ``retry-after`` when the
case sets one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from conformance.http import HttpResponse
from conformance.verdict import Rule, Violation
from conformance.vocabulary import Fault, FaultKind


@dataclass(frozen=True)
class FaultAnswer:
    """What one wire's provider answers for one fault kind."""

    status: int
    error_type: str
    message: str
    source: str


FaultTable = Mapping[FaultKind, FaultAnswer]


def render_fault(
    fault: Fault,
    wire: str,
    table: FaultTable,
    render_error: Callable[[Violation], HttpResponse],
) -> HttpResponse:
    """The wire's error answer for ``fault``, with ``retry-after`` when the case sets one."""
    answer = table[fault.kind]
    rule = Rule(
        id=f"{wire}/fault-{fault.kind}",
        ref="",
        statement=f"The provider answers {answer.status} ({fault.kind}).",
        source=answer.source,
        error=answer.message,
        status=answer.status,
        error_type=answer.error_type,
        evidence="documented",
    )
    response = render_error(rule.violation(answer.message))
    if fault.retry_after is None:
        return response
    return replace(response, headers=(*response.headers, ("retry-after", str(fault.retry_after))))


#: What OpenAI answers for each scripted fault (Chat Completions and Responses alike).
OPENAI_FAULTS: FaultTable = {
    "overloaded": FaultAnswer(
        503,
        "server_error",
        "The engine is currently overloaded, please try again later.",
        "OpenAI error codes documentation: 503 slow down / overloaded",
    ),
    "rate-limit": FaultAnswer(
        429,
        "requests",
        "Rate limit reached for requests. Please try again later.",
        "OpenAI error codes documentation: 429 rate limit reached for requests",
    ),
    "server-error": FaultAnswer(
        500,
        "server_error",
        "The server had an error while processing your request. Sorry about that!",
        "OpenAI error codes documentation: 500 server error",
    ),
}
