"""Drive an in-process ``Adapter`` through one scripted conversation.

The loop is the command contract's, held in-process: each prompt in order; for each,
ask for a request, send it to the provider, hand back the response, run the calls the
adapter asks for, until it asks for none.  An error answer from the provider ends the
conversation, as it would end a real client's turn, unless the adapter retries it
(``AdapterSession.retries``: a transient fault).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import urlsplit

from conformance._targets.api import (
    Adapter,
    CaseBrief,
    WireRequest,
    WireResponse,
)
from conformance._targets.kind import Outcome, Stage, TargetKind, hold_in_process
from conformance.http import HttpRequest
from conformance.vocabulary import FinalOutput

if TYPE_CHECKING:
    # Only a parameter's type: the scripted provider (and the case schema under it) is
    # the suite's side; ``python -m conformance.agent`` drives an adapter without it.
    from conformance._provider.scripted import ScriptedProvider

#: Requests one user turn may send before the driver stops it (a runaway tool loop).
MAX_REQUESTS_PER_TURN = 64


@dataclass
class AdapterRun:
    """What the driver observed besides the exchanges the provider recorded."""

    stopped: str | None = None
    output: FinalOutput | None = None
    output_error: str | None = None


def _http(request: WireRequest, default_endpoint: str) -> HttpRequest:
    parts = urlsplit(request.path or default_endpoint)
    headers = {"content-type": "application/json", **dict(request.headers)}
    return HttpRequest("POST", parts.path, request.body_bytes(), parts.query, headers)


def drive_adapter(
    adapter: Adapter,
    session: CaseBrief,
    provider: ScriptedProvider,
    default_endpoint: str,
    wants_output: bool,
) -> AdapterRun:
    """Hold the conversation; exceptions from the adapter propagate to the caller."""
    run = AdapterRun()
    conversation = adapter.open(session)
    for prompt in session.prompts:
        conversation.add_user(prompt)
        for _ in range(MAX_REQUESTS_PER_TURN):
            response = provider.handle(
                _http(WireRequest.coerce(conversation.next_request()), default_endpoint)
            )
            answer = WireResponse(response.status, dict(response.headers), response.body)
            if response.status >= 400:
                if conversation.retries(answer):
                    continue  # a transient fault: the adapter resends its request
                run.stopped = f"the provider answered {response.status}"
                return run
            calls = conversation.receive(answer)
            if not calls and not conversation.continues():
                break
            conversation.add_tool_results([session.result_of(c.id, c.name) for c in calls])
        else:
            run.stopped = f"more than {MAX_REQUESTS_PER_TURN} requests in one user turn"
            return run
    if wants_output:
        try:
            run.output = conversation.final_output()
        except NotImplementedError:
            run.output_error = "the adapter does not select an output"
    return run


@dataclass(frozen=True)
class AdapterKind(TargetKind):
    """The ``Adapter`` kind: the driver's loop on a thread of its own, within the
    stage's timeout."""

    name: ClassVar[str] = "adapter"
    adapter: Adapter

    def hold(self, stage: Stage) -> Outcome:
        def drive() -> Outcome:
            run = drive_adapter(
                self.adapter, stage.session, stage.provider, stage.endpoint, stage.wants_output
            )
            return Outcome(output=run.output, output_error=run.output_error, stopped=run.stopped)

        return hold_in_process(drive, stage.timeout)
