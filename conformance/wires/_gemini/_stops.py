"""The neutral stops as Gemini's ``finishReason`` spells them, shared by rendering and
reading so the two stay each other's inverse."""

from __future__ import annotations

#: The neutral stop, as Gemini's ``finishReason`` spells it.  ``pause`` is no Gemini stop
#: (a realism problem) and is rendered as the plain stop it resembles.
FINISH_REASONS: dict[str, str] = {
    "end": "STOP",
    "tool_calls": "STOP",
    "max_tokens": "MAX_TOKENS",
    "refusal": "SAFETY",
    "pause": "STOP",
}
#: Stops that cut the stream before any finishReason.  Gemini has no ``cancelled``
#: finish reason (a realism problem), so it is rendered as the cut it most resembles.
CUT_STOPS = frozenset({"no_finish", "cancelled"})
