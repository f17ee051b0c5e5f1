"""The content block types of the Messages API, shared by the checks and the reader."""

from __future__ import annotations

#: The block types that carry reasoning (signed thinking, or redacted data).
REASONING_TYPES = frozenset({"thinking", "redacted_thinking"})
#: Content block types the Messages API accepts in a message.  Server-tool result blocks
#: (``web_search_tool_result`` and their growing family) are accepted by their suffix, so
#: a client passing them through verbatim (rule 14) is never rejected.
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
        "mcp_tool_use",
        "mcp_tool_result",
        "container_upload",
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
