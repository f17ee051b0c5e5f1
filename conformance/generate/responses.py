"""Strategies for whole scripted responses on one wire (and dialect): the tool-loop
responses that call tools, the responses that end a turn (every realistic stop,
truncation inside the last block included) and transient faults."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from hypothesis import strategies as st

from conformance.generate._mint import Mint
from conformance.generate._realistic import realistic_blocks, realistic_noise, realistic_stops
from conformance.generate.blocks import answer_blocks, content_blocks, tool_calls
from conformance.generate.payloads import cut_arguments
from conformance.vocabulary import (
    TRUNCATING_STOPS,
    ContentBlock,
    Fault,
    Noise,
    ScriptedResponse,
    Stop,
    ToolCall,
)
from conformance.wires.roles import Realism

#: Stops that end a turn, in shrink order (``end`` first).
ENDING_STOPS: tuple[Stop, ...] = ("end", "max_tokens", "no_finish", "refusal", "cancelled")
NOISE: tuple[Noise, ...] = ("ping", "unknown-event")


@dataclass(frozen=True)
class Shaping:
    """What realism needs to know about where responses are served."""

    realism: Realism
    dialect: str | None
    model: str
    tools: tuple[str, ...]
    #: Whether the wire may leave call ids out (Gemini, ``gemini_call_ids``): a loop
    #: response then draws whether its calls show theirs (shrinking to the default, none).
    call_ids: bool = False

    def keep(self, blocks: Sequence[ContentBlock], stop: Stop) -> tuple[ContentBlock, ...]:
        return realistic_blocks(self.realism, blocks, stop, self.dialect, self.model)


@cache
def _noise(shaping: Shaping, stop: Stop) -> st.SearchStrategy[tuple[Noise, ...]]:
    drawn = st.lists(st.sampled_from(NOISE), max_size=2, unique=True).map(tuple)
    return drawn.map(lambda n: realistic_noise(shaping.realism, n, stop, shaping.dialect))


@st.composite
def loop_responses(
    draw: st.DrawFn, shaping: Shaping, mint: Mint, max_blocks: int = 5
) -> ScriptedResponse:
    """A response of the tool loop: stop ``tool_calls`` with at least one complete call,
    parallel calls, reasoning and text around them as the wire allows, the calls' ids
    shown or not where the wire may leave them out."""
    drawn = draw(st.lists(content_blocks(shaping.tools), max_size=max_blocks))
    blocks = shaping.keep([mint.block(b) for b in drawn], "tool_calls")
    if not any(isinstance(b, ToolCall) for b in blocks):
        call = mint.block(draw(tool_calls(shaping.tools)))
        blocks = shaping.keep([*blocks, call], "tool_calls")
    if not any(isinstance(b, ToolCall) for b in blocks):
        call = mint.block(draw(tool_calls(shaping.tools))).model_copy(
            update={"signature": None, "chunks": None}
        )
        blocks = shaping.keep([*blocks, call], "tool_calls")
    noise = draw(_noise(shaping, "tool_calls"))
    shown = draw(st.booleans()) if shaping.call_ids else False
    return ScriptedResponse(stop="tool_calls", blocks=blocks, noise=noise, gemini_call_ids=shown)


@st.composite
def ending_responses(
    draw: st.DrawFn, shaping: Shaping, mint: Mint, max_blocks: int = 4
) -> ScriptedResponse:
    """A response that ends the turn, with any stop the wire sends; a truncating stop
    may cut the response inside its last block, a tool call's arguments included."""
    stops = realistic_stops(shaping.realism, ENDING_STOPS, shaping.dialect)
    stop = draw(st.sampled_from(stops))
    drawn = list(draw(st.lists(answer_blocks(), max_size=max_blocks)))
    if stop in TRUNCATING_STOPS and draw(st.booleans()):
        call = draw(tool_calls(shaping.tools))
        assert isinstance(call.arguments, dict)
        at = draw(st.integers(min_value=1, max_value=40))
        drawn.append(call.model_copy(update={"arguments": cut_arguments(call.arguments, at)}))
    blocks = shaping.keep([mint.block(b) for b in drawn], stop)
    return ScriptedResponse(stop=stop, blocks=blocks, noise=draw(_noise(shaping, stop)))


@cache
def faults() -> st.SearchStrategy[ScriptedResponse]:
    """A transient provider failure in place of an answer (the retry gets the next)."""
    kinds = st.sampled_from(("overloaded", "rate-limit", "server-error"))
    return kinds.map(lambda kind: ScriptedResponse(stop="no_finish", fault=Fault(kind=kind)))
