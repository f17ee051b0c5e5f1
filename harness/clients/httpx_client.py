"""A minimal Anthropic Messages client on ``httpx.Client``: non-streaming, replaying
every assistant turn exactly as received.  Its twin on httpx2 shares the loop, so the
two differ only in the HTTP library the suite has to intercept."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import httpx

from conformance._targets.api import CaseBrief, Client, Conversation, ToolResultIn

#: Sends one request: (url, body, headers) -> (status, body).
Post = Callable[[str, bytes, Mapping[str, str]], tuple[int, bytes]]


def request_body(brief: CaseBrief, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A non-streaming Messages request for ``session`` with this history."""
    body: dict[str, Any] = {"model": brief.model, "max_tokens": brief.max_tokens}
    if brief.system is not None:
        body["system"] = brief.system
    if brief.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
            for t in brief.tools
        ]
    if brief.thinking.mode == "manual":
        body["thinking"] = {"type": "enabled", "budget_tokens": brief.thinking.budget_tokens}
    elif brief.thinking.mode == "adaptive":
        body["thinking"] = {"type": "adaptive"}
    body["messages"] = messages
    return body


def hold_anthropic(conversation: Conversation, post: Post) -> None:
    """Send each prompt, run every tool loop to its end, replay content as received."""
    brief = conversation.brief
    url = f"{conversation.base_url}/v1/messages"
    headers = {
        "content-type": "application/json",
        "x-api-key": conversation.api_key,
        "anthropic-version": "2023-06-01",
    }
    messages: list[dict[str, Any]] = []
    for prompt in brief.prompts:
        messages.append({"role": "user", "content": prompt})
        while True:
            status, raw = post(url, json.dumps(request_body(brief, messages)).encode(), headers)
            if status >= 400:
                raise RuntimeError(f"HTTP {status} from POST {url}: {raw.decode(errors='replace')}")
            reply = json.loads(raw)
            if reply["content"]:
                messages.append({"role": "assistant", "content": reply["content"]})
            calls = [block for block in reply["content"] if block.get("type") == "tool_use"]
            if not calls or reply.get("stop_reason") == "max_tokens":
                break
            messages.append(
                {
                    "role": "user",
                    "content": [
                        _tool_result(brief.result_of(call["id"], call["name"])) for call in calls
                    ],
                }
            )


def _tool_result(result: ToolResultIn) -> dict[str, Any]:
    """A ``tool_result`` block: the call's result, flagged when the tool failed."""
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": result.call_id,
        "content": result.content,
    }
    if result.is_error:
        block["is_error"] = True
    return block


class HttpxAnthropicClient(Client):
    name: ClassVar[str] = "httpx-anthropic-min"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})

    def run(self, conversation: Conversation) -> None:
        with httpx.Client(timeout=60.0) as http:

            def post(url: str, body: bytes, headers: Mapping[str, str]) -> tuple[int, bytes]:
                answer = http.post(url, content=body, headers=dict(headers))
                return answer.status_code, answer.content

            hold_anthropic(conversation, post)
