"""The realism predicates: shapes a case scripts or saves that Gemini never sends (redacted
reasoning, Responses-style reasoning items, argument fragments, stops it has no
finishReason for, a signature that is not the base64 it mints).  Each is one small
predicate registered with the realism check it reports (its finding's text is the
catalogue's, ``conformance/catalogue/checks.yaml``)."""

from __future__ import annotations

from collections.abc import Iterator

from conformance.catalogue.book import RuleBook
from conformance.verdict import Violation
from conformance.vocabulary import Block, Reasoning, ScriptedResponse, ToolCall
from conformance.wires._gemini._view import NAME
from conformance.wires._shared_realism import (
    responses_reasoning,
    served_claude_stream,
    unnamed_stops,
    unparsed_arguments,
)
from conformance.wires._thought_signatures import standard_base64
from conformance.wires._wire_only import ANTHROPIC_ONLY, CHAT_ONLY, RESPONSES_ONLY
from conformance.wires.roles import BlockPredicate, BlockSpot, ResponsePredicate

RESPONSE: RuleBook[ResponsePredicate] = RuleBook(NAME, __name__)
BLOCK: RuleBook[BlockPredicate] = RuleBook(NAME, __name__)

NO_SUCH_STOP = RESPONSE.rule("gemini/realism/stop-without-finish-reason")
NOISE = RESPONSE.rule("gemini/realism/noise")
REDACTED = BLOCK.rule("gemini/realism/redacted-reasoning")
RESPONSES_REASONING = BLOCK.rule("gemini/realism/responses-reasoning")
SIGNATURE_CHUNKS = BLOCK.rule("gemini/realism/signature-chunks")
UNPARSED_ARGUMENTS = BLOCK.rule("gemini/realism/unparsed-arguments")
ARGUMENT_CHUNKS = BLOCK.rule("gemini/realism/argument-chunks")
NOT_BASE64 = BLOCK.rule("gemini/realism/signature-not-base64")
PARALLEL_SIGNATURE = BLOCK.rule("gemini/realism/parallel-call-signed")


unnamed_stops(RESPONSE, {"pause": NO_SUCH_STOP, "cancelled": NO_SUCH_STOP})


@RESPONSE.checks(NOISE)
def _noise(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    if response.noise:
        yield NOISE.violated()


RESPONSE.include(RESPONSES_ONLY)
RESPONSE.include(CHAT_ONLY)
BLOCK.include(ANTHROPIC_ONLY)


@BLOCK.checks(REDACTED, on=(Reasoning,))
def _redacted(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if isinstance(block, Reasoning) and (block.redacted or block.data is not None):
        yield REDACTED.violated()


responses_reasoning(BLOCK, RESPONSES_REASONING)


served_claude_stream(BLOCK)


@BLOCK.checks(SIGNATURE_CHUNKS, on=(Reasoning,))
def _signature_chunks(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if isinstance(block, Reasoning) and spot.scripted and block.signature_chunks is not None:
        yield SIGNATURE_CHUNKS.violated()


unparsed_arguments(BLOCK, UNPARSED_ARGUMENTS)


@BLOCK.checks(ARGUMENT_CHUNKS, on=(ToolCall,))
def _argument_chunks(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if isinstance(block, ToolCall) and spot.scripted and block.chunks is not None:
        yield ARGUMENT_CHUNKS.violated()


@BLOCK.checks(NOT_BASE64)
def _not_base64(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    signature = getattr(block, "signature", None)
    if isinstance(signature, str) and not standard_base64(signature):
        yield NOT_BASE64.violated()


@BLOCK.checks(PARALLEL_SIGNATURE, on=(ToolCall,))
def _parallel_signature(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    earlier_call = any(isinstance(b, ToolCall) for b in spot.before)
    if isinstance(block, ToolCall) and earlier_call and block.signature is not None:
        yield PARALLEL_SIGNATURE.violated()
