"""A reference adapter that re-serializes the arguments of earlier tool calls in reversed
key order on every other request, as a client does that rebuilds them from a map with
no stable order: the prompt's bytes change from one request to the next (rule 53)."""

from __future__ import annotations

import json
from typing import Any

from conformance._reference import ReferenceAdapter
from tests.targets.rewriting import RewritingSession


def _reversed(value: dict[str, Any]) -> dict[str, Any]:
    return {key: value[key] for key in reversed(list(value))}


def _reorder(node: Any) -> None:
    """Reverse every call's arguments in place: Anthropic ``tool_use.input``, Gemini
    ``functionCall.args``, and the JSON strings of Chat and Responses ``arguments``."""
    if isinstance(node, list):
        for item in node:
            _reorder(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "tool_use" and isinstance(node.get("input"), dict):
        node["input"] = _reversed(node["input"])
    call = node.get("functionCall")
    if isinstance(call, dict) and isinstance(call.get("args"), dict):
        call["args"] = _reversed(call["args"])
    arguments = node.get("arguments")
    if isinstance(arguments, str) and arguments.startswith("{"):
        node["arguments"] = json.dumps(_reversed(json.loads(arguments)))
    for value in node.values():
        _reorder(value)


class _ReorderingSession(RewritingSession):
    def rewrite(self, body: dict[str, Any], number: int) -> None:
        if number % 2 == 0:
            _reorder(body)


class ReordersEarlierArguments(ReferenceAdapter):
    """The reference adapter, flipping earlier calls' key order every other request."""

    name = "reorders-earlier-arguments"
    session_class = _ReorderingSession
