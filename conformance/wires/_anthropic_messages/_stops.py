"""How the neutral stops meet Anthropic's ``stop_reason``: the reason a render writes for
each, the stops that cut a stream, and those under which a response may end inside a block."""

from __future__ import annotations

#: The neutral stop, as Anthropic's ``stop_reason`` spells it.
STOP_REASONS: dict[str, str] = {
    "end": "end_turn",
    "tool_calls": "tool_use",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
    "pause": "pause_turn",
}
#: Stops that cut the stream before its terminal events.  Anthropic has no ``cancelled``
#: stop reason (a realism problem), so it is rendered as the cut it most resembles.
CUT_STOPS = frozenset({"no_finish", "cancelled"})
#: Stops under which a response may end inside a thinking block or a tool call.
TRUNCATED_STOPS = frozenset({"max_tokens", "no_finish"})
