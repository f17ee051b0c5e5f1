"""The neutral stops as ``finish_reason`` spells them, both ways, and the stops that
cut a response short: shared by rendering, reading and the realism lint."""

from __future__ import annotations

#: The neutral stop, as ``finish_reason`` spells it.  ``pause`` is no Chat shape (a
#: realism problem); it renders as the plain stop it most resembles.
FINISH_REASONS: dict[str, str] = {
    "end": "stop",
    "tool_calls": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
    "pause": "stop",
}
#: Stops that cut the stream: no finish chunk, no ``[DONE]``.  ``cancelled`` is no Chat
#: shape (a realism problem); it renders as the cut it most resembles.
CUT_STOPS = frozenset({"no_finish", "cancelled"})
#: Stops under which a response may end inside a reasoning episode.
TRUNCATED_STOPS = frozenset({"max_tokens", "no_finish"})
#: Stops under which a call's arguments may be cut text: the output limit, a cut stream,
#: and ``tool_calls`` (rule 33: routers and vLLM parsers report it for truncated calls).
RAW_ARGUMENT_STOPS = TRUNCATED_STOPS | {"tool_calls"}

#: ``finish_reason`` back to the neutral stop: the render table inverted (``stop`` reads
#: as ``end``, the first stop rendered so), plus the deprecated ``function_call``.
READ_FINISH: dict[str, str] = {
    **{reason: stop for stop, reason in reversed(FINISH_REASONS.items())},
    "function_call": "tool_calls",
}
