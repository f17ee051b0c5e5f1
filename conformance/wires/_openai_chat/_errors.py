"""A rule violation as the provider answers it: OpenAI's error envelope, DeepSeek's,
Kimi's, Gemini's compatibility layer's (Google's error object in a one-element JSON
array), or OpenRouter's pass-through of an upstream's error."""

from __future__ import annotations

import json
import re
from typing import Any

from conformance.http import HttpResponse, json_response
from conformance.verdict import Violation
from conformance.wires import _values as values
from conformance.wires._openai_chat.rules import (
    DEEPSEEK_REASONING_CONTENT,
    DEEPSEEK_TOOL_CALLS_ANSWERED,
    DEEPSEEK_TOOL_MESSAGE_ANSWERS,
    GEMINI_COMPAT_SIGNATURE,
    GEMINI_COMPAT_SIGNATURE_MINTED,
    KIMI_REASONING_CONTENT,
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
#: Rules Gemini's OpenAI-compatible endpoint answers in Google's own error object.
GEMINI_RULES = frozenset(r.id for r in (GEMINI_COMPAT_SIGNATURE, GEMINI_COMPAT_SIGNATURE_MINTED))
#: Rules whose error OpenRouter passes through from an upstream, with that upstream's name.
UPSTREAM_PROVIDERS: dict[str, str] = {
    OPENROUTER_ANTHROPIC_SIGNATURE.id: "Anthropic",
    OPENROUTER_GEMINI_SIGNATURE.id: "Google AI Studio",
    OPENROUTER_GEMINI_DETAILS.id: "Google AI Studio",
}


def error_answer(violation: Violation) -> HttpResponse:
    """The provider's HTTP answer to a broken rule, with a request id derived from it."""
    request_id = "req_" + values.digest("error", violation.check, violation.message)[:32]
    if violation.check in GEMINI_RULES:
        return _google_answer(violation)
    body = _error_body(violation, request_id)
    return json_response(violation.broken.status, body, {"x-request-id": request_id})


def _openai_error(violation: Violation) -> dict[str, Any]:
    rule = violation.broken
    param: str | None = violation.at
    field_name = PARAM_FIELDS.get(rule.id)
    match = re.match(r"messages\.(\d+)", violation.at or "")
    if field_name is not None and match:
        param = f"messages.[{match[1]}].{field_name}"
    elif rule in RULES:
        param = None
    return {"message": violation.message, "type": rule.error_type, "param": param, "code": None}


def _error_body(violation: Violation, request_id: str) -> dict[str, Any]:
    """The provider's error body: OpenAI's, DeepSeek's (``param`` null, ``code`` the
    type), or OpenRouter's pass-through of an upstream error (``metadata.raw``)."""
    rule = violation.broken
    provider = UPSTREAM_PROVIDERS.get(rule.id)
    if provider == "Anthropic":
        error = {"type": rule.error_type, "message": violation.message}
        raw = values.compact({"type": "error", "error": error, "request_id": request_id})
    elif provider is not None:
        raw = violation.message
    else:
        if rule.id == KIMI_REASONING_CONTENT.id:
            return {"error": {"message": violation.message, "type": rule.error_type}}
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


def _google_answer(violation: Violation) -> HttpResponse:
    """Google's error object, two-space indented, as the only element of a JSON array:
    the body the compatibility endpoint sends (manthanabc/paws#103)."""
    error = {
        "code": violation.broken.status,
        "message": violation.message,
        "status": violation.broken.error_type,
    }
    text = "[" + json.dumps({"error": error}, indent=2, ensure_ascii=False) + "\n]\n"
    headers = (("content-type", "application/json; charset=UTF-8"),)
    return HttpResponse(violation.broken.status, text.encode(), headers)
