"""The content block types of the Messages API, shared by the checks and the reader, and
a raw block in neutral form, shared by the parse and the checks."""

from __future__ import annotations

from conformance.vocabulary import (
    ContentBlock,
    Media,
    Reasoning,
    ServerToolResult,
    ServerToolUse,
    Text,
    ToolCall,
)
from conformance.wires import _values as values

#: The block types that carry reasoning (signed thinking, or redacted data).
REASONING_TYPES = frozenset({"thinking", "redacted_thinking"})
#: Content block types the Messages API documents for a message's content: the SDK's
#: request content-block union (``BetaContentBlockParam``, anthropics/anthropic-sdk-python
#: ``src/anthropic/types/beta/beta_content_block_param.py`` at commit 009b035), which also
#: takes back every response block.  Some are served only with a beta or on some models;
#: the suite does not model that gating, so none of them is refused.  Server-tool result
#: blocks (``web_search_tool_result`` and their growing family) are accepted by their
#: suffix as well, so a client passing them through verbatim (rule 14) is never rejected.
KNOWN_BLOCK_TYPES = frozenset(
    {
        "text",
        "image",
        "document",
        "search_result",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "tool_result",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "advisor_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "container_upload",
        "compaction",
        "mid_conv_system",
        "tool_addition",
        "tool_removal",
        "fallback",
    }
)
#: The content-part types of the OpenAI wires (Chat Completions and Responses), which a
#: client leaks into a Messages request when it converts one wire into the other.  They
#: are not Anthropic's, and Anthropic refuses them with its tagged-union error (seen for
#: ``image_url`` and ``output_text``); any other type the suite does not know may be one
#: Anthropic added after this list, so it is only recorded (``inferred``) and served.
FOREIGN_BLOCK_TYPES = frozenset(
    {
        "image_url",
        "input_audio",
        "file",
        "refusal",
        "input_text",
        "input_image",
        "input_file",
        "output_text",
    }
)
SERVER_RESULT_SUFFIX = "_tool_result"
#: The keys each block type cannot do without (``thinking`` has rules of its own).
REQUIRED_BLOCK_KEYS: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "image": ("source",),
    "tool_use": ("id", "name", "input"),
    "tool_result": ("tool_use_id",),
    "redacted_thinking": ("data",),
}


def content_block(item: object) -> ContentBlock | None:
    """A raw block other than ``tool_result`` in neutral form (None: the neutral vocabulary
    has no such block, so the view leaves it out)."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "thinking":
        return Reasoning(
            text=values.text(item.get("thinking")),
            signature=values.optional_text(item.get("signature")),
        )
    if kind == "redacted_thinking":
        return Reasoning(redacted=True, data=values.optional_text(item.get("data")))
    if kind == "text":
        return Text(text=values.text(item.get("text")))
    if kind == "tool_use":
        raw_input = item.get("input", {})
        arguments = raw_input if isinstance(raw_input, dict) else values.compact(raw_input)
        return ToolCall(
            id=values.text(item.get("id")), name=values.text(item.get("name")), arguments=arguments
        )
    if kind == "server_tool_use":
        raw_input = item.get("input")
        return ServerToolUse(
            id=values.text(item.get("id")),
            name=values.text(item.get("name")),
            arguments=raw_input if isinstance(raw_input, dict) else {},
        )
    if server_result_type(kind):
        return ServerToolResult(
            call_id=values.text(item.get("tool_use_id")),
            type=values.text(kind),
            content=item.get("content"),
        )
    if kind == "image":
        source = item.get("source")
        if isinstance(source, dict) and source.get("type") == "base64":
            return Media(
                mime=values.text(source.get("media_type")), data=values.text(source.get("data"))
            )
    return None


def server_result_type(kind: object) -> bool:
    """Whether a block type is a server tool's result (``web_search_tool_result`` and
    the rest of the ``*_tool_result`` family; a client ``tool_result`` is not)."""
    return (
        isinstance(kind, str)
        and kind.endswith(SERVER_RESULT_SUFFIX)
        and kind not in ("tool_result", "mcp_tool_result")
    )
