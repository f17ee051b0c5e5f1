"""Issue 15: a case that names no model runs with a realistic one for its column, told
to the target and echoed by the provider; a case's own model wins."""

from __future__ import annotations

import pytest

from conformance._cases.library import load_library
from conformance._cases.schema import Case
from conformance._runner import session_for
from conformance.wires._openai_chat._dialects import upstream
from conformance.wires._registry import get_wire


def case(case_id: str) -> Case:
    (found,) = [c.case for c in load_library().cases if c.case.id == case_id]
    return found


@pytest.mark.parametrize(
    ("wire", "dialect", "model"),
    [
        ("anthropic-messages", None, "claude-sonnet-4-5"),
        ("openai-responses", None, "gpt-5"),
        ("openai-chat", None, "gpt-4.1"),
        ("openai-chat", "deepseek", "deepseek-chat"),
        ("openai-chat", "openrouter", "anthropic/claude-sonnet-4.5"),
        ("gemini", None, "gemini-2.5-flash"),
    ],
)
def test_a_case_without_a_model_gets_the_columns_default(
    wire: str, dialect: str | None, model: str
) -> None:
    unset = case("chat-length-cut-call-not-run")
    assert "model" not in unset.given.options.model_fields_set
    assert session_for(unset, wire, dialect).model == model  # was "model-under-test"


def test_the_defaults_keep_the_model_keyed_verdicts() -> None:
    chat = get_wire("openai-chat")
    assert "reasoner" not in chat.default_model("deepseek")
    assert upstream(chat.default_model("openrouter")) == upstream("model-under-test")


def test_a_cases_own_model_wins() -> None:
    own = case("openrouter-gemini-reasoning-details-replayed-with-each-call")
    assert "model" in own.given.options.model_fields_set
    assert session_for(own, "openai-chat", "openrouter").model == "google/gemini-3-pro-preview"
