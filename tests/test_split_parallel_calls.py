"""Parallel tool_use blocks replayed as one assistant message per call, each followed by
its own tool_result (openai-agents through LiteLLM does this).  With thinking off
Anthropic accepts it (rule 13 holds for every call), so the case about the calls'
arguments passes it; the one-message shape is a ``should`` (suite-fixes.md 7)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.anthropic import AnthropicCodec
from conformance._reference.codec import WireCodec
from harness.accepted._rewrite import Rewriting
from tests.support import library_case, run_cell

CASE = "tool-arguments-fragments-parallel-calls"


def _split(assistant: list[Any], user: list[Any]) -> list[dict[str, Any]]:
    """``[…, tool_use A, tool_use B]`` then ``[result A, result B, …]`` as two pairs."""
    calls = [i for i, b in enumerate(assistant) if b.get("type") == "tool_use"]
    results = {b["tool_use_id"]: b for b in user if b.get("type") == "tool_result"}
    rest = [b for b in user if b.get("type") != "tool_result"]
    parts = [assistant[: calls[0] + 1]] + [[assistant[i]] for i in calls[1:]]
    messages: list[dict[str, Any]] = []
    for n, part in enumerate(parts):
        answers = [results[part[-1]["id"]]] + (rest if n == len(parts) - 1 else [])
        messages += [{"role": "assistant", "content": part}, {"role": "user", "content": answers}]
    return messages


class SplitCallsCodec(Rewriting, AnthropicCodec):
    """Every assistant message with several tool_use blocks (no thinking) goes out as one
    message per call, each answered by its own user message."""

    def rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = list(body.get("messages") or ())
        out: list[dict[str, Any]] = []
        answered = -1
        for i, message in enumerate(messages):
            if i == answered:
                continue  # its results were placed by ``_split``
            content = message.get("content")
            after = messages[i + 1] if i + 1 < len(messages) else None
            several = (
                message.get("role") == "assistant"
                and isinstance(content, list)
                and sum(b.get("type") == "tool_use" for b in content) > 1
                and not any(b.get("type") in ("thinking", "redacted_thinking") for b in content)
                and after is not None
                and isinstance(after.get("content"), list)
            )
            if several and after is not None:
                out += _split(content, after["content"])
                answered = i + 1
            else:
                out.append(message)
        body["messages"] = out
        return body


class SplitCallsAdapter(ReferenceAdapter):
    name: ClassVar[str] = "split-parallel-calls"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {"anthropic-messages": SplitCallsCodec}


def test_parallel_calls_split_across_messages_pass_with_byte_exact_arguments() -> None:
    result, transcript = run_cell(SplitCallsAdapter(), library_case(CASE), "anthropic-messages")
    assert result.verdict == "pass", (result.reason, result.violations)
    roles = [m["role"] for m in json.loads(transcript.exchanges[1].request.body)["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]


def test_the_split_is_a_should() -> None:
    result, _ = run_cell(SplitCallsAdapter(), library_case(CASE), "anthropic-messages", strict=True)
    assert result.verdict == "fail"
    assert {v.severity for v in result.violations} == {"should"}
