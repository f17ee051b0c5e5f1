"""A two-prompt Anthropic conversation with one tool loop, served by a ScriptedProvider
on the suite's anthropic-messages wire: the transports and targets are tested end to
end with it, against the wire's real rules."""

from __future__ import annotations

import json
from typing import Any

from conformance._cases.schema import Case
from conformance._provider.scripted import ScriptedProvider
from conformance._targets.api import CaseBrief, ToolDef
from conformance.wires._registry import get_wire

SIGNATURE = "c2lnbmF0dXJlKy8vYWJj+/=="
ALPHA = "alpha: the first file"

CASE = Case.model_validate(
    {
        "id": "transport-smoke",
        "title": "Two prompts, one tool loop, one signed reasoning episode",
        "provenance": [{"rule": 13}],
        "features": ["tool-pairing"],
        "wires": {"anthropic-messages": "Messages responses carry thinking and tool_use."},
        "given": {
            "system": "You are terse.",
            "tools": [
                {
                    "name": "read_file",
                    "description": "Read a file",
                    "parameters": {
                        "type": "object",
                        "properties": {"path": {"type": "string"}},
                    },
                    "result": ALPHA,
                }
            ],
            "options": {"thinking": {"mode": "manual", "budget_tokens": 1024}},
            "turns": [
                {
                    "user": "Read alpha.txt",
                    "responses": [
                        {
                            "stop": "tool_calls",
                            "blocks": [
                                {"kind": "reasoning", "text": "Read it.", "signature": SIGNATURE},
                                {
                                    "kind": "tool_call",
                                    "id": "toolu_01",
                                    "name": "read_file",
                                    "arguments": {"path": "alpha.txt"},
                                },
                            ],
                        },
                        {"stop": "end", "blocks": [{"kind": "text", "text": "It is the first."}]},
                    ],
                },
                {
                    "user": "Now summarize",
                    "responses": [{"stop": "end", "blocks": [{"kind": "text", "text": "Done."}]}],
                },
            ],
        },
        "expect": [{"requests": 3}],
    }
)

SESSION = CaseBrief(
    case=CASE.id,
    wire="anthropic-messages",
    dialect=None,
    model=CASE.given.options.model,
    system=CASE.given.system,
    prompts=tuple(turn.user for turn in CASE.given.turns),
    tools=tuple(ToolDef(t.name, t.description, t.parameters, t.result) for t in CASE.given.tools),
    thinking=CASE.given.options.thinking,
    max_tokens=CASE.given.options.max_tokens,
)


def provider() -> ScriptedProvider:
    return ScriptedProvider(CASE, get_wire("anthropic-messages"))


def bodies(scripted: ScriptedProvider) -> list[dict[str, Any]]:
    """The JSON bodies the provider received, in order."""
    return [json.loads(exchange.request.body) for exchange in scripted.exchanges]


def assert_conversation_held(scripted: ScriptedProvider) -> None:
    """Three requests, all served; the first reply replayed exactly; the call answered."""
    assert [e.served for e in scripted.exchanges] == [0, 1, 2], [
        e.problem or [v.message for v in e.violations] for e in scripted.exchanges
    ]
    first_reply = json.loads(scripted.exchanges[0].response.body)
    second = bodies(scripted)[1]["messages"]
    assert second[0]["content"] in ("Read alpha.txt", [{"type": "text", "text": "Read alpha.txt"}])
    assert second[1] == {"role": "assistant", "content": first_reply["content"]}
    assert second[2]["role"] == "user"
    (result,) = second[2]["content"]
    assert result["type"] == "tool_result"
    assert result["tool_use_id"] == "toolu_01"
    assert result["content"] in (ALPHA, [{"type": "text", "text": ALPHA}])
    assert bodies(scripted)[2]["messages"][-1]["content"] in (
        "Now summarize",
        [{"type": "text", "text": "Now summarize"}],
    )
