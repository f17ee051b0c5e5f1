"""The realism shapes several wires share are one predicate each
(``conformance.wires._shared_realism``), registered in each wire's book under the wire's
own check id: the same block gets the same finding, cited by each wire's id."""

from __future__ import annotations

from conformance.vocabulary import Media, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires._registry import get_wire
from conformance.wires.roles import BlockSpot


def _checks(wire: str, block: object, spot: BlockSpot) -> list[str]:
    return [v.check for v in get_wire(wire).realism.block(block, spot)]  # type: ignore[arg-type]


def test_a_served_media_block_is_each_wires_own_finding() -> None:
    media = Media(mime="image/png", data="aGk=")
    served = BlockSpot(scripted=True, index=0, blocks=(media,), stop="end")
    for wire in ("anthropic-messages", "openai-responses", "openai-chat"):
        assert _checks(wire, media, served) == [f"{wire}/realism/media"]
    # The negative example: the same block in a saved history is no finding.
    saved = BlockSpot(scripted=False, index=0, blocks=(media,))
    assert _checks("anthropic-messages", media, saved) == []


def test_unparsed_arguments_differ_only_in_when_a_cut_allows_them() -> None:
    call = ToolCall(id="toolu_1", name="t", arguments='{"a":')
    for stop, anthropic, gemini in (("end", True, True), ("max_tokens", False, True)):
        spot = BlockSpot(scripted=True, index=0, blocks=(call,), stop=stop)  # type: ignore[arg-type]
        found = "anthropic-messages/realism/unparsed-arguments" in _checks(
            "anthropic-messages", call, spot
        )
        assert found is anthropic
        assert ("gemini/realism/unparsed-arguments" in _checks("gemini", call, spot)) is gemini


def test_signed_text_and_unnamed_stops() -> None:
    text = Text(text="hi", signature="c2ln")
    spot = BlockSpot(scripted=True, index=0, blocks=(text,), stop="end")
    assert "openai-responses/realism/signed-text-or-call" in _checks("openai-responses", text, spot)
    assert _checks("openai-responses", Text(text="hi"), spot) == []
    cancelled = ScriptedResponse(blocks=(Text(text="x"),), stop="cancelled")
    found = get_wire("gemini").realism.response(cancelled, None)
    assert [(v.check, v.message) for v in found] == [
        (
            "gemini/realism/stop-without-finish-reason",
            "stop `cancelled`; Gemini has no such finishReason",
        )
    ]
    reasoning = Reasoning(text="r", id="rs_1")
    rspot = BlockSpot(scripted=False, index=0, blocks=(reasoning,))
    assert "gemini/realism/responses-reasoning" in _checks("gemini", reasoning, rspot)
