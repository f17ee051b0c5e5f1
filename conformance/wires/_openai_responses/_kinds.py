"""The item types of a Responses conversation, by the side of it each belongs to: one
table, read by the parse (which neutral message an item joins) and by the rules (what
may follow a reasoning item).

The types are the ones the Responses API documents for ``input`` and ``output`` (the
``ResponseInputItem`` and ``ResponseOutputItem`` unions of openai/openai-python,
``src/openai/types/responses/``).  An item the model or its hosted tools produce is on
the model's side: a response's ``output`` holds it, and a reasoning item may be followed
by it (real gpt-5 and o4-mini responses put ``web_search_call``,
``code_interpreter_call``, ``image_generation_call``, ``mcp_list_tools`` and ``mcp_call``
right after a reasoning item, and the provider took them back in that order:
pydantic/pydantic-ai tests/models/cassettes/test_openai_responses/
test_openai_responses_model_web_search_tool.yaml and its siblings).  An item that answers
a call is on the tool's side.  A message is on its role's side.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from conformance.vocabulary import Role

#: Every item type a response's ``output`` holds, made by the model or by a tool the
#: provider runs itself; ``message`` is here for its assistant role only.
MODEL_ITEMS: frozenset[str] = frozenset(
    {
        "reasoning",
        "function_call",
        "custom_tool_call",
        "file_search_call",
        "web_search_call",
        "computer_call",
        "image_generation_call",
        "code_interpreter_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "mcp_list_tools",
        "mcp_call",
        "mcp_approval_request",
        "tool_search_call",
        "program",
        "compaction",  # the provider's own summary of earlier turns (`/v1/responses/compact`)
    }
)

#: Every item type that answers a call (the client's, or a hosted tool's run of it).
TOOL_ITEMS: frozenset[str] = frozenset(
    {
        "function_call_output",
        "custom_tool_call_output",
        "computer_call_output",
        "local_shell_call_output",
        "shell_call_output",
        "apply_patch_call_output",
        "mcp_approval_response",
        "tool_search_output",
        "program_output",
    }
)

#: A message item's side, by its role.
_MESSAGE_SIDES: Mapping[str, Role] = MappingProxyType(
    {"assistant": "assistant", "user": "user", "system": "system", "developer": "system"}
)


def item_type(item: dict[str, Any]) -> str | None:
    """An input item's type; a bare ``{"role", "content"}`` is a message."""
    kind = item.get("type")
    if isinstance(kind, str):
        return kind
    return "message" if "role" in item else None


def side(kind: str | None, role: object) -> Role | None:
    """Which neutral message an item of type ``kind`` belongs to (None: none, such as an
    unresolved ``item_reference``, an ``additional_tools`` item or an unknown type)."""
    if kind == "message":
        return _MESSAGE_SIDES.get(role) if isinstance(role, str) else None
    if kind in MODEL_ITEMS:
        return "assistant"
    if kind in TOOL_ITEMS:
        return "tool"
    return None
