"""The realism predicates: what in a case's scripted responses and saved history Anthropic
never sends, so a case built on it would test a provider that does not exist.  The case
linter's one walk (``conformance/_cases/realism.py``) asks them about every response and
block, and about a case's options (``options_problems``).  Each response and block
finding is one small predicate registered with the realism check it reports (its
finding's text is the catalogue's, ``conformance/catalogue/checks.yaml``)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator

from conformance.catalogue.book import RuleBook
from conformance.verdict import Rule, Violation
from conformance.vocabulary import (
    Block,
    Options,
    Reasoning,
    ServerToolResult,
    ServerToolUse,
    Text,
    ToolCall,
    ToolSpec,
)
from conformance.wires._anthropic_messages._models import INTERLEAVED_BETA
from conformance.wires._anthropic_messages._stops import TRUNCATED_STOPS
from conformance.wires._anthropic_messages._view import NAME
from conformance.wires._shared_realism import (
    responses_reasoning,
    served_media,
    signed_answer,
    unnamed_stops,
    unparsed_arguments,
)
from conformance.wires._wire_only import (
    CHAT_ONLY,
    EMPTY_CHUNK_UNSIGNED,
    RESPONSES_ONLY,
    empty_chunk,
)
from conformance.wires.roles import BlockPredicate, BlockSpot, ResponsePredicate

#: How Anthropic's tool_use ids begin: client tools, then server tools.
_TOOL_USE_ID_PREFIXES = ("toolu_", "srvtoolu_")

RESPONSE: RuleBook[ResponsePredicate] = RuleBook(NAME, __name__)
BLOCK: RuleBook[BlockPredicate] = RuleBook(NAME, __name__)

STOP_CANCELLED = RESPONSE.rule("anthropic-messages/realism/stop-cancelled")
SIGNED_ANSWER = BLOCK.rule("anthropic-messages/realism/signed-text-or-call")
MEDIA = BLOCK.rule("anthropic-messages/realism/media")
UNPARSED_ARGUMENTS = BLOCK.rule("anthropic-messages/realism/unparsed-arguments")
TOOL_USE_ID = BLOCK.rule("anthropic-messages/realism/tool-use-id")
SERVER_TOOL_USE_ID = BLOCK.rule("anthropic-messages/realism/server-tool-use-id")
SERVER_RESULT_TYPE = BLOCK.rule("anthropic-messages/realism/server-result-type")
SERVER_RESULT_UNPAIRED = BLOCK.rule("anthropic-messages/realism/server-result-unpaired")
THINKING_AFTER_ANSWER = BLOCK.rule("anthropic-messages/realism/thinking-after-answer")
NOT_BASE64 = BLOCK.rule("anthropic-messages/realism/thinking-not-base64")
RESPONSES_REASONING = BLOCK.rule("anthropic-messages/realism/responses-reasoning")
REDACTED_WITHOUT_DATA = BLOCK.rule("anthropic-messages/realism/redacted-without-data")
REDACTED_WITH_TEXT = BLOCK.rule("anthropic-messages/realism/redacted-with-text")
SIGNATURE_CHUNKS = BLOCK.rule("anthropic-messages/realism/signature-chunks")
UNSIGNED = BLOCK.rule("anthropic-messages/realism/unsigned-thinking")
BUDGET = BLOCK.rule("anthropic-messages/realism/budget-not-below-max-tokens")


unnamed_stops(RESPONSE, {"cancelled": STOP_CANCELLED})


RESPONSE.include(RESPONSES_ONLY)
RESPONSE.include(CHAT_ONLY)


def _base64(value: str) -> bool:
    """Whether ``value`` is padded standard base64, the form Anthropic mints."""
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return bool(value)


def _truncated(spot: BlockSpot) -> bool:
    return spot.stop in TRUNCATED_STOPS


signed_answer(BLOCK, SIGNED_ANSWER)


served_media(BLOCK, MEDIA)


unparsed_arguments(BLOCK, UNPARSED_ARGUMENTS, cut=_truncated)


@BLOCK.checks(TOOL_USE_ID, on=(ToolCall,))
def _tool_use_id(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    # A saved history may hold calls another provider minted; only what Anthropic serves
    # must carry its own prefix.
    if (
        isinstance(block, ToolCall)
        and spot.scripted
        and not block.id.startswith(_TOOL_USE_ID_PREFIXES)
    ):
        yield TOOL_USE_ID.violated(id=block.id)


@BLOCK.checks(
    SERVER_TOOL_USE_ID,
    SERVER_RESULT_TYPE,
    SERVER_RESULT_UNPAIRED,
    on=(ServerToolUse, ServerToolResult),
)
def _server_blocks(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    """Server-tool blocks (rule 14): a use has a ``srvtoolu_`` id, and a result follows
    its use in the same message, with a ``*_tool_result`` type."""
    if isinstance(block, ServerToolUse) and not block.id.startswith("srvtoolu_"):
        yield SERVER_TOOL_USE_ID.violated(id=block.id)
    if not isinstance(block, ServerToolResult):
        return
    if not block.type.endswith("_tool_result") or block.type in ("tool_result", "mcp_tool_result"):
        yield SERVER_RESULT_TYPE.violated(type=block.type)
    if block.call_id not in {b.id for b in spot.before if isinstance(b, ServerToolUse)}:
        yield SERVER_RESULT_UNPAIRED.violated(type=block.type, call_id=block.call_id)


@BLOCK.checks(THINKING_AFTER_ANSWER, on=(Reasoning,))
def _thinking_after_answer(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    # Blank text after it leaves it last in substance: Claude follows its thinking with
    # an answer or calls, and a blank text is neither (a client drops it, rule 15).
    rest = spot.blocks[spot.index + 1 :] if spot.scripted else ()
    blank_after = all(isinstance(b, Text) and not b.text.strip() for b in rest)
    if not isinstance(block, Reasoning) or not spot.scripted or not blank_after:
        return
    complete = block.signature is not None or block.redacted
    after_answer = any(isinstance(b, Text | ToolCall) for b in spot.before)
    if after_answer and (complete or not _truncated(spot)):
        yield THINKING_AFTER_ANSWER.violated()


@BLOCK.checks(NOT_BASE64, on=(Reasoning,))
def _not_base64(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if not isinstance(block, Reasoning):
        return
    for field, value in (("signature", block.signature), ("data", block.data)):
        if value is not None and not _base64(value):
            yield NOT_BASE64.violated(field=field)


responses_reasoning(BLOCK, RESPONSES_REASONING)


@BLOCK.checks(REDACTED_WITHOUT_DATA, REDACTED_WITH_TEXT, on=(Reasoning,))
def _redacted(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if not isinstance(block, Reasoning) or not block.redacted:
        return
    if not block.data:
        yield REDACTED_WITHOUT_DATA.violated()
    if block.text or block.signature is not None:
        yield REDACTED_WITH_TEXT.violated()


def _served_thinking(block: Block, spot: BlockSpot) -> Reasoning | None:
    """A thinking block (not redacted) of a served response: what a stream sends."""
    if isinstance(block, Reasoning) and not block.redacted and spot.scripted:
        return block
    return None


@BLOCK.checks(SIGNATURE_CHUNKS, on=(Reasoning,))
def _signature_chunks(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    thinking = _served_thinking(block, spot)
    if thinking and thinking.signature_chunks is not None and len(thinking.signature_chunks) > 1:
        yield SIGNATURE_CHUNKS.violated()


@BLOCK.checks(EMPTY_CHUNK_UNSIGNED, on=(Reasoning,))
def _empty_chunk(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    thinking = _served_thinking(block, spot)
    if thinking is not None:
        yield from empty_chunk(thinking)


@BLOCK.checks(UNSIGNED, on=(Reasoning,))
def _unsigned(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    thinking = _served_thinking(block, spot)
    if thinking and thinking.signature is None and not (_truncated(spot) and spot.last):
        yield UNSIGNED.violated()


def options_problems(options: Options, tools: tuple[ToolSpec, ...]) -> list[Violation]:
    """A manual thinking budget not below ``max_tokens``, which Anthropic refuses unless
    the interleaved-thinking beta is sent with tools: an authoring mistake the linter
    catches before a client is blamed for the 400."""
    budget = options.thinking.budget_tokens
    if options.thinking.mode != "manual" or budget is None or budget < options.max_tokens:
        return []
    if tools and INTERLEAVED_BETA in options.betas:
        return []
    return [BUDGET.violated(budget=budget, max_tokens=options.max_tokens, beta=INTERLEAVED_BETA)]


#: The realism checks these predicates report (``wire-conformance checks --kind realism``):
#: listed here, not made from the books, because the options check is in neither.
REALISM_RULES: tuple[Rule, ...] = (*RESPONSE.rules, *BLOCK.rules, BUDGET)
