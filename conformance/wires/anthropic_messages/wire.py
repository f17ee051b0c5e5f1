"""The Anthropic Messages wire as the suite uses it: thin methods over the modules that
render, parse, validate, read and lint."""

from __future__ import annotations

from typing import ClassVar

from conformance.cases.schema import Case
from conformance.http import HttpRequest, HttpResponse
from conformance.model import ScriptedResponse
from conformance.wires.anthropic_messages.parse import parse_request
from conformance.wires.anthropic_messages.read import read_recorded
from conformance.wires.anthropic_messages.realism import case_problems
from conformance.wires.anthropic_messages.render import render_error, render_response
from conformance.wires.anthropic_messages.rules import RULES
from conformance.wires.anthropic_messages.validate import violations
from conformance.wires.base import (
    RenderContext,
    RequestView,
    Rule,
    RuleViolation,
    ValidationContext,
    Wire,
)

ENDPOINT = "/v1/messages"


class AnthropicMessages(Wire):
    """Anthropic's Messages API: ``POST /v1/messages``, streamed or not."""

    name: ClassVar[str] = "anthropic-messages"
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
        return render_error(violation)

    # ------------------------------------------------------------ reading responses

    def read_response(
        self, body: bytes, streaming: bool, *, dialect: str | None = None
    ) -> ScriptedResponse:
        return read_recorded(body, streaming)

    # ------------------------------------------------------------ parsing

    def parse(self, request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
        return parse_request(request, self.name)

    # ------------------------------------------------------------ rules

    def validate(self, view: RequestView, context: ValidationContext) -> list[RuleViolation]:
        return violations(view, context)

    # ------------------------------------------------------------ realism (lint)

    def realism(self, case: Case, dialect: str | None = None) -> list[str]:
        return case_problems(case)
