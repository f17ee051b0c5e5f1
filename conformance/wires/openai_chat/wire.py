"""The ``OpenAIChat`` wire: where a Chat request is served, and thin methods that hand
each job to its module (see the package docstring)."""

from __future__ import annotations

from typing import ClassVar

from conformance.cases.schema import Case
from conformance.http import HttpRequest, HttpResponse
from conformance.model import ScriptedResponse
from conformance.wires.base import (
    RenderContext,
    RequestView,
    Rule,
    RuleViolation,
    ValidationContext,
    Wire,
)
from conformance.wires.openai_chat.dialects import DEEPSEEK, OPENROUTER
from conformance.wires.openai_chat.errors import error_answer
from conformance.wires.openai_chat.parse import parse_request
from conformance.wires.openai_chat.read import read_recorded
from conformance.wires.openai_chat.realism import realism_problems
from conformance.wires.openai_chat.render import render_response
from conformance.wires.openai_chat.rules import RULES
from conformance.wires.openai_chat.validate import validate_request

ENDPOINT = "/v1/chat/completions"
#: The paths real clients post to: an OpenAI base URL ending in ``/v1``, DeepSeek's base
#: URL without it (pydantic-ai) and DeepSeek's beta base (litellm ``deepseek/``).
ENDPOINTS = frozenset({ENDPOINT, "/chat/completions", "/beta/chat/completions"})


class OpenAIChat(Wire):
    """OpenAI Chat Completions and its DeepSeek and OpenRouter dialects."""

    name: ClassVar[str] = "openai-chat"
    dialects: ClassVar[tuple[str, ...]] = (DEEPSEEK, OPENROUTER)
    reasoning_between_calls: ClassVar[bool] = False
    rules: ClassVar[tuple[Rule, ...]] = RULES

    # ------------------------------------------------------------ serving

    def serves(self, request: HttpRequest) -> bool:
        return request.method.upper() == "POST" and request.path in ENDPOINTS

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
        return read_recorded(body, streaming, dialect)

    # ------------------------------------------------------------ parsing

    def parse(self, request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
        """The body in neutral form, read as the context's dialect reads it."""
        dialect = context.dialect if context is not None else None
        return parse_request(request, dialect, self.name)

    # ------------------------------------------------------------ rules

    def validate(self, view: RequestView, context: ValidationContext) -> list[RuleViolation]:
        return validate_request(view, context)

    # ------------------------------------------------------------ realism (lint)

    def realism(self, case: Case, dialect: str | None = None) -> list[str]:
        return realism_problems(case, dialect)
