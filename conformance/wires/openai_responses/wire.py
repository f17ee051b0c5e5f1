"""The Responses wire class: thin methods that hand each job to its module."""

from __future__ import annotations

from typing import Any, ClassVar

from conformance.cases.schema import Case
from conformance.http import HttpRequest, HttpResponse
from conformance.model import Block, Reasoning, ScriptedResponse
from conformance.wires.base import (
    RenderContext,
    RequestView,
    Rule,
    RuleViolation,
    ValidationContext,
    Wire,
)
from conformance.wires.openai_responses.checks import violations
from conformance.wires.openai_responses.parse import parse_request
from conformance.wires.openai_responses.read import read_answer
from conformance.wires.openai_responses.realism import realism_problems
from conformance.wires.openai_responses.render import render_response
from conformance.wires.openai_responses.rules import RULES, error_answer
from conformance.wires.openai_responses.view import ResponsesRequestView

ENDPOINT = "/v1/responses"


class OpenAIResponses(Wire):
    """OpenAI's Responses API: ``POST /v1/responses``, streamed or not."""

    name: ClassVar[str] = "openai-responses"
    rules: ClassVar[tuple[Rule, ...]] = RULES

    # ------------------------------------------------------------ serving

    def serves(self, request: HttpRequest) -> bool:
        return request.method.upper() == "POST" and request.path == ENDPOINT

    def endpoint(self, model: str, stream: bool) -> str:
        """One path for every model; streaming is asked for in the body (``stream``)."""
        return ENDPOINT

    def wants_stream(self, request: HttpRequest, view: RequestView) -> bool:
        return view.stream

    def render(self, response: ScriptedResponse, context: RenderContext) -> HttpResponse:
        return render_response(response, context)

    def error_response(self, violation: RuleViolation) -> HttpResponse:
        return error_answer(violation)

    # ------------------------------------------------------------ reading responses

    def read_response(
        self, body: bytes, streaming: bool, *, dialect: str | None = None
    ) -> ScriptedResponse:
        return read_answer(body, streaming)

    # ------------------------------------------------------------ parsing

    def parse(self, request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
        return parse_request(request, context, self.name)

    def history_items(self, view: RequestView) -> list[Any]:
        """The expanded conversation: a client continuing by ``previous_response_id``
        still appends to what the provider holds, so the invariant compares that."""
        if isinstance(view, ResponsesRequestView):
            return list(view.items)
        raw_input = view.raw.get("input")
        return list(raw_input) if isinstance(raw_input, list) else []

    # ------------------------------------------------------------ rules

    def validate(self, view: RequestView, context: ValidationContext) -> list[RuleViolation]:
        return violations(view, context)

    # ------------------------------------------------------------ ledger hints

    def companion(self, block: Block) -> str | None:
        """A reasoning item's encrypted content comes back under its own ``rs_`` id.  A
        script that leaves the id to the provider (derived at render) names none, and
        neither does a client that drops it (OpenAI tolerates that): any reasoning
        item then pairs."""
        if isinstance(block, Reasoning):
            return block.id
        return super().companion(block)

    # ------------------------------------------------------------ realism (lint)

    def realism(self, case: Case, dialect: str | None = None) -> list[str]:
        return realism_problems(case)
