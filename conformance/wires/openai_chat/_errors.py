"""A rule violation as the provider answers it: OpenAI's error envelope, DeepSeek's, or
OpenRouter's pass-through of an upstream's error."""

from __future__ import annotations

import re
from typing import Any

from conformance.http import HttpResponse, json_response
from conformance.wires import values
from conformance.wires.base import RuleViolation
from conformance.wires.openai_chat.rules import (
    DEEPSEEK_REASONING_CONTENT,
    DEEPSEEK_TOOL_CALLS_ANSWERED,
    DEEPSEEK_TOOL_MESSAGE_ANSWERS,
    OPENROUTER_ANTHROPIC_SIGNATURE,
    OPENROUTER_GEMINI_DETAILS,
    OPENROUTER_GEMINI_SIGNATURE,
    RULES,
    TOOL_CALLS_ANSWERED,
    TOOL_MESSAGE_ANSWERS,
)

#: The OpenAI ``param`` of a rule: the field of the message its violation points at.
PARAM_FIELDS: dict[str, str] = {
    TOOL_MESSAGE_ANSWERS.id: "role",
    TOOL_CALLS_ANSWERED.id: "role",
}
DEEPSEEK_RULES = frozenset(
    r.id
    for r in (
        DEEPSEEK_TOOL_MESSAGE_ANSWERS,
        DEEPSEEK_TOOL_CALLS_ANSWERED,
        DEEPSEEK_REASONING_CONTENT,
    )
)
#: Rules whose error OpenRouter passes through from an upstream, with that upstream's name.
UPSTREAM_PROVIDERS: dict[str, str] = {
    OPENROUTER_ANTHROPIC_SIGNATURE.id: "Anthropic",
    OPENROUTER_GEMINI_SIGNATURE.id: "Google AI Studio",
    OPENROUTER_GEMINI_DETAILS.id: "Google AI Studio",
}


def error_answer(violation: RuleViolation) -> HttpResponse:
    """The provider's HTTP answer to a broken rule, with a request id derived from it."""
    request_id = "req_" + values.digest("error", violation.rule.id, violation.message)[:32]
    body = _error_body(violation, request_id)
    return json_response(violation.rule.status, body, {"x-request-id": request_id})


def _openai_error(violation: RuleViolation) -> dict[str, Any]:
    rule = violation.rule
    param: str | None = violation.at
    field_name = PARAM_FIELDS.get(rule.id)
    match = re.match(r"messages\.(\d+)", violation.at or "")
    if field_name is not None and match:
        param = f"messages.[{match[1]}].{field_name}"
    elif rule in RULES:
        param = None
    return {"message": violation.message, "type": rule.error_type, "param": param, "code": None}


def _error_body(violation: RuleViolation, request_id: str) -> dict[str, Any]:
    """The provider's error body: OpenAI's, DeepSeek's (``param`` null, ``code`` the
    type), or OpenRouter's pass-through of an upstream error (``metadata.raw``)."""
    rule = violation.rule
    provider = UPSTREAM_PROVIDERS.get(rule.id)
    if provider == "Anthropic":
        error = {"type": rule.error_type, "message": violation.message}
        raw = values.compact({"type": "error", "error": error, "request_id": request_id})
    elif provider is not None:
        raw = violation.message
    else:
        if rule.id in DEEPSEEK_RULES:
            kind = rule.error_type
            return {
                "error": {"message": violation.message, "type": kind, "param": None, "code": kind}
            }
        return {"error": _openai_error(violation)}
    metadata = {"raw": raw, "provider_name": provider, "is_byok": False}
    return {
        "error": {"message": "Provider returned error", "code": rule.status, "metadata": metadata}
    }
