"""Rule 12b: Claude 4.7 and later refuse ``thinking.type: enabled``; older models and
names the suite does not recognise are not judged by it (no false positive)."""

from __future__ import annotations

import json

import pytest

from conformance.http import HttpRequest
from conformance.vocabulary import Options
from conformance.wires._anthropic_messages import WIRE
from conformance.wires._anthropic_messages._models import adaptive_only
from conformance.wires._anthropic_messages.rules import ADAPTIVE_ONLY_MODEL
from conformance.wires.context import ValidationContext

MANUAL = {"type": "enabled", "budget_tokens": 1024}


def errors(model: str, thinking: dict[str, object]) -> list[str]:
    body = {
        "model": model,
        "max_tokens": 4096,
        "thinking": thinking,
        "messages": [{"role": "user", "content": "go"}],
    }
    context = ValidationContext(number=1, options=Options(), served=())
    view = WIRE.parse(HttpRequest("POST", "/v1/messages", json.dumps(body).encode()), context)
    return [v.check for v in WIRE.validate(view, context)]


@pytest.mark.parametrize(
    "model", ["claude-opus-4-7", "claude-opus-4-8-20260101", "claude-sonnet-5"]
)
def test_manual_thinking_on_an_adaptive_only_model_is_refused(model: str) -> None:
    assert adaptive_only(model)
    assert errors(model, MANUAL) == [ADAPTIVE_ONLY_MODEL.id]
    assert errors(model, {"type": "adaptive"}) == []


@pytest.mark.parametrize(
    "model", ["claude-sonnet-4-5", "claude-opus-4-6", "claude-3-7-sonnet-20250219", "my-proxy"]
)
def test_older_or_unknown_models_take_manual_thinking(model: str) -> None:
    assert not adaptive_only(model)
    assert errors(model, MANUAL) == []
