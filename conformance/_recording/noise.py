"""The noise of a recorded stream, in the case language: the events a client must
tolerate and skip (``ping``, ``unknown-event``), counted by the wire's own reading
(``Wire.noise``: which events its provider sends is the wire's knowledge).

Only the count is kept: the renderer places noise round-robin between blocks, so a case
made from a recording has the recorded noise, not at the recorded places (``replay``
serves it exactly where it was).
"""

from __future__ import annotations

from conformance.errors import ResponseReadError
from conformance.vocabulary import ScriptedResponse
from conformance.wires._registry import get_wire
from conformance.wires._sse import read_events


def with_noise(response: ScriptedResponse, wire: str, body: bytes) -> ScriptedResponse:
    """``response`` with the noise its recorded stream carried (Gemini streams carry
    none)."""
    try:
        events = read_events(body)
    except ResponseReadError:
        return response
    noise = get_wire(wire).noise(events, body)
    return response.model_copy(update={"noise": tuple(noise)}) if noise else response
