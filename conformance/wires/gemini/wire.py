"""The Gemini ``Wire``: thin methods over the job modules of this package, plus the
ledger hints that say how strongly each signature must come back."""

from __future__ import annotations

from typing import Any, ClassVar

from conformance.cases.schema import Case
from conformance.http import HttpRequest, HttpResponse
from conformance.model import Block, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires.base import (
    RenderContext,
    RequestView,
    Rule,
    RuleViolation,
    Strength,
    ValidationContext,
    Wire,
)
from conformance.wires.gemini.errors import error_response
from conformance.wires.gemini.fields import get
from conformance.wires.gemini.parse import parse_body
from conformance.wires.gemini.read import read_recorded
from conformance.wires.gemini.realism import case_problems
from conformance.wires.gemini.render import render_turn
from conformance.wires.gemini.route import STREAM_METHOD, route
from conformance.wires.gemini.rules import RULES, check_request
from conformance.wires.gemini.signatures import SENTINEL


class Gemini(Wire):
    """The Gemini API's generateContent and streamGenerateContent."""

    name: ClassVar[str] = "gemini"
    rules: ClassVar[tuple[Rule, ...]] = RULES
    sentinels: ClassVar[frozenset[str]] = frozenset({SENTINEL})

    # ------------------------------------------------------------ serving

    def serves(self, request: HttpRequest) -> bool:
        return route(request) is not None

    def endpoint(self, model: str, stream: bool) -> str:
        """The model is in the path; so is whether the answer streams."""
        if stream:
            return f"/v1beta/models/{model}:{STREAM_METHOD}?alt=sse"
        return f"/v1beta/models/{model}:generateContent"

    def wants_stream(self, request: HttpRequest, view: RequestView) -> bool:
        path = route(request)
        return path is not None and path["method"] == STREAM_METHOD

    def render(self, response: ScriptedResponse, context: RenderContext) -> HttpResponse:
        return render_turn(response, context)

    def error_response(self, violation: RuleViolation) -> HttpResponse:
        return error_response(violation.rule.status, violation.message)

    # ------------------------------------------------------------ reading responses

    def read_response(
        self, body: bytes, streaming: bool, *, dialect: str | None = None
    ) -> ScriptedResponse:
        return read_recorded(body, streaming)

    # ------------------------------------------------------------ parsing

    def parse(self, request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
        return parse_body(request, context, self.name)

    def history_items(self, view: RequestView) -> list[Any]:
        contents = get(view.raw, "contents")
        return list(contents) if isinstance(contents, list) else []

    # ------------------------------------------------------------ rules

    def validate(self, view: RequestView, context: ValidationContext) -> list[RuleViolation]:
        return check_request(view, context)

    # ------------------------------------------------------------ ledger hints

    def token_strength(self, block: Block, field_name: str) -> Strength:
        """Signatures on functionCall parts are enforced (rules 40, 41); on text and
        thought parts they only keep reasoning continuity (rule 44, F7)."""
        return "must" if isinstance(block, ToolCall) else "should"

    def companion(self, block: Block) -> str | None:
        """A call's signature stays with its call id; a text or thought signature may come
        back on the text it concluded, merged or not (rule 43), so it has no companion."""
        if isinstance(block, Reasoning | Text):
            return None
        return super().companion(block)

    # ------------------------------------------------------------ realism (lint)

    def realism(self, case: Case, dialect: str | None = None) -> list[str]:
        return case_problems(case)
