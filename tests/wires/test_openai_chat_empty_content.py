"""Chat Completions and an empty assistant message: OpenAI takes ``content: ""``
(vercel/ai#14950, verified live; vllm-project/vllm#21089) and refuses ``content: null``
without tool_calls (rule 54, its text from songquanpeng/one-api#784).  The universal
``invariant/no-empty-message`` is a design ``should`` on this wire, a ``must`` where the
provider refuses empty messages."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from conformance._checks.invariants import no_empty_message
from conformance.wires._openai_chat.rules import ASSISTANT_CONTENT_PRESENT
from conformance.wires._registry import get_wire
from tests.wires.test_openai_chat import assistant, body, call, errors, parse, tool, user

NULL_TEXT = "Invalid value for 'content': expected a string, got null."


def _messages(final: dict[str, Any]) -> dict[str, Any]:
    return body(
        user("Restart it"), assistant(None, call("call_1")), tool("call_1"), final, user("Up?")
    )


def test_an_empty_string_content_is_taken() -> None:
    assert errors(_messages({"role": "assistant", "content": ""})) == []


@pytest.mark.parametrize("final", [{"role": "assistant", "content": None}, {"role": "assistant"}])
def test_a_null_or_missing_content_without_calls_is_refused(final: dict[str, Any]) -> None:
    assert errors(_messages(final)) == [NULL_TEXT]


def test_null_content_beside_tool_calls_is_taken_and_other_endpoints_are_not_asked() -> None:
    assert errors(body(user("Go"), assistant(None, call("call_1")), tool("call_1"))) == []
    assert errors(_messages({"role": "assistant", "content": None}), "deepseek") == []
    assert ASSISTANT_CONTENT_PRESENT.ref == "rule C54"


def test_the_invariant_is_a_design_should_where_the_provider_takes_the_message() -> None:
    # The smallest transcript the check reads: its request views.
    views = [(1, parse(_messages({"role": "assistant", "content": ""})))]
    transcript: Any = SimpleNamespace(views=views, dialect=None)
    (found,) = no_empty_message(transcript, get_wire("openai-chat"))
    assert (found.severity, found.evidence) == ("should", "design")
    assert "the provider accepts it" in found.message
    # Negatives: on a wire or an endpoint whose answer is a refusal, or is not known, it
    # stays a must.
    (strict,) = no_empty_message(transcript, get_wire("anthropic-messages"))
    assert (strict.severity, strict.evidence) == ("must", "observed")
    routed: Any = SimpleNamespace(views=views, dialect="openrouter")
    (relayed,) = no_empty_message(routed, get_wire("openai-chat"))
    assert (relayed.severity, relayed.evidence) == ("must", "observed")
    # An endpoint not known to refuse one: the design alone.
    deepseek: Any = SimpleNamespace(views=views, dialect="deepseek")
    (taken,) = no_empty_message(deepseek, get_wire("openai-chat"))
    assert (taken.severity, taken.evidence) == ("should", "design")
