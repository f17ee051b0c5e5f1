"""The realism predicates: case shapes OpenAI's Responses API never produces.

A scripted response is held to what OpenAI serves (no paused turn, no pings, every
reasoning item encrypted and followed by what it produced unless the response is cut);
a saved history block only to the shapes the wire can carry at all.  Each is one small
predicate registered with the realism check it reports (its finding's text is the
catalogue's, ``conformance/catalogue/checks.yaml``).
"""

from __future__ import annotations

from collections.abc import Iterator

from conformance.catalogue.book import RuleBook
from conformance.verdict import Violation
from conformance.vocabulary import Block, Reasoning, ScriptedResponse
from conformance.wires._openai_responses._view import NAME
from conformance.wires._shared_realism import (
    served_claude_stream,
    served_media,
    signed_answer,
    unnamed_stops,
    unparsed_arguments,
)
from conformance.wires._wire_only import ANTHROPIC_ONLY, CHAT_ONLY
from conformance.wires.roles import BlockPredicate, BlockSpot, ResponsePredicate

#: Stops under which a response may end inside an item (an unfinished call, say).
_TRUNCATED_STOPS = frozenset({"max_tokens", "no_finish"})

RESPONSE: RuleBook[ResponsePredicate] = RuleBook(NAME, __name__)
BLOCK: RuleBook[BlockPredicate] = RuleBook(NAME, __name__)

STOP_PAUSE = RESPONSE.rule("openai-responses/realism/stop-pause")
STOP_CANCELLED = RESPONSE.rule("openai-responses/realism/stop-cancelled")
PING = RESPONSE.rule("openai-responses/realism/noise-ping")
ENCRYPTED_FAULT_MID_STREAM = RESPONSE.rule("openai-responses/realism/encrypted-fault-mid-stream")
EMPTY_FINAL_OUTPUT = RESPONSE.rule("openai-responses/realism/empty-final-output-without-items")
SIGNED_ANSWER = BLOCK.rule("openai-responses/realism/signed-text-or-call")
MEDIA = BLOCK.rule("openai-responses/realism/media")
UNPARSED_ARGUMENTS = BLOCK.rule("openai-responses/realism/unparsed-arguments")
REDACTED = BLOCK.rule("openai-responses/realism/redacted-reasoning")
REASONING_TEXT = BLOCK.rule("openai-responses/realism/reasoning-text")
REASONING_ID = BLOCK.rule("openai-responses/realism/reasoning-id")
ENCRYPTED_PIECES = BLOCK.rule("openai-responses/realism/encrypted-content-pieces")
UNENCRYPTED = BLOCK.rule("openai-responses/realism/reasoning-unencrypted")
UNFOLLOWED = BLOCK.rule("openai-responses/realism/reasoning-unfollowed")


unnamed_stops(RESPONSE, {"pause": STOP_PAUSE, "cancelled": STOP_CANCELLED})


@RESPONSE.checks(PING)
def _ping(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    if "ping" in response.noise:
        yield PING.violated()


@RESPONSE.checks(ENCRYPTED_FAULT_MID_STREAM)
def _encrypted_fault(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    fault = response.fault
    if fault is not None and fault.kind == "invalid-encrypted-content" and fault.mid_stream:
        yield ENCRYPTED_FAULT_MID_STREAM.violated()


RESPONSE.include(CHAT_ONLY)


@RESPONSE.checks(EMPTY_FINAL_OUTPUT)
def _empty_final_output(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    if response.empty_final_output and not response.blocks:
        yield EMPTY_FINAL_OUTPUT.violated()


BLOCK.include(ANTHROPIC_ONLY)


def _truncated(spot: BlockSpot) -> bool:
    return spot.stop in _TRUNCATED_STOPS


def _cut_at_last(spot: BlockSpot) -> bool:
    """The last block of a response cut short: the only one a cut leaves unfinished."""
    return _truncated(spot) and spot.last


signed_answer(BLOCK, SIGNED_ANSWER)


served_media(BLOCK, MEDIA)


unparsed_arguments(BLOCK, UNPARSED_ARGUMENTS, cut=_cut_at_last)


@BLOCK.checks(REDACTED, REASONING_TEXT, REASONING_ID, on=(Reasoning,))
def _reasoning_shape(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if not isinstance(block, Reasoning):
        return
    if block.redacted:
        yield REDACTED.violated()
    if block.text:
        yield REASONING_TEXT.violated()
    if block.id is not None and not block.id.startswith("rs_"):
        yield REASONING_ID.violated(id=block.id)


served_claude_stream(BLOCK)


@BLOCK.checks(ENCRYPTED_PIECES, on=(Reasoning,))
def _encrypted_pieces(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    pieces = block.signature_chunks if isinstance(block, Reasoning) else None
    if spot.scripted and pieces is not None and len(pieces) > 2:
        yield ENCRYPTED_PIECES.violated()


@BLOCK.checks(UNENCRYPTED, on=(Reasoning,))
def _unencrypted(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if not isinstance(block, Reasoning) or not spot.scripted:
        return
    if block.signature is None and not block.redacted and not (_truncated(spot) and spot.last):
        yield UNENCRYPTED.violated()


@BLOCK.checks(UNFOLLOWED, on=(Reasoning,))
def _unfollowed(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    scripted_reasoning = isinstance(block, Reasoning) and spot.scripted
    if scripted_reasoning and spot.after is None and not _truncated(spot):
        yield UNFOLLOWED.violated()
