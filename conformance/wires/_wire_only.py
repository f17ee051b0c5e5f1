"""Case-language shapes only one wire has: the OpenAI Responses terminal-event
directives, Anthropic's server-tool blocks, Chat's interleaved call fragments and the
empty thinking fragment Claude streams before a signature.  Every other wire's realism
lint refuses them with one finding each: the wires include these books in their own
(``RuleBook.include``), or report the two Claude-stream findings from predicates of
their own where their dialect allows (``claude_stream``, ``empty_chunk``)."""

from __future__ import annotations

from collections.abc import Iterator

from conformance.catalogue.book import RuleBook, rule
from conformance.verdict import Violation
from conformance.vocabulary import (
    Block,
    Reasoning,
    ScriptedResponse,
    ServerToolResult,
    ServerToolUse,
)
from conformance.wires.roles import BlockPredicate, BlockSpot, ResponsePredicate

#: What a wire other than OpenAI Responses never sends.
RESPONSES_ONLY: RuleBook[ResponsePredicate] = RuleBook("responses-only", __name__)
EMPTY_FINAL_OUTPUT = RESPONSES_ONLY.rule("realism/responses-only-empty-final-output")
SERVED_IDS = RESPONSES_ONLY.rule("realism/responses-only-served-ids")
RESPONSE_FAILED = RESPONSES_ONLY.rule("realism/responses-only-response-failed")
ENCRYPTED_FAULT = RESPONSES_ONLY.rule("realism/responses-only-invalid-encrypted-content")
#: What a wire other than Chat Completions never sends.
CHAT_ONLY: RuleBook[ResponsePredicate] = RuleBook("chat-only", __name__)
INTERLEAVED_CALLS = CHAT_ONLY.rule("realism/chat-only-interleaved-calls")
#: What a wire other than Anthropic Messages never carries.
ANTHROPIC_ONLY: RuleBook[BlockPredicate] = RuleBook("anthropic-only", __name__)
SERVER_TOOL_BLOCK = ANTHROPIC_ONLY.rule("realism/anthropic-only-server-tool-block")
#: The empty thinking fragment before a signature, outside Claude's stream or unsigned.
CLAUDE_STREAM = rule("realism/claude-stream-empty-chunk", __name__)
EMPTY_CHUNK_UNSIGNED = rule("realism/empty-chunk-without-signature", __name__)


@RESPONSES_ONLY.checks(EMPTY_FINAL_OUTPUT)
def _empty_final_output(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    if response.empty_final_output:
        yield EMPTY_FINAL_OUTPUT.violated()


@RESPONSES_ONLY.checks(SERVED_IDS)
def _served_ids(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    if response.ids is not None:
        yield SERVED_IDS.violated()


@RESPONSES_ONLY.checks(RESPONSE_FAILED)
def _response_failed(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    if response.fault is not None and response.fault.response_failed:
        yield RESPONSE_FAILED.violated()


@RESPONSES_ONLY.checks(ENCRYPTED_FAULT)
def _encrypted_fault(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    if response.fault is not None and response.fault.kind == "invalid-encrypted-content":
        yield ENCRYPTED_FAULT.violated()


@CHAT_ONLY.checks(INTERLEAVED_CALLS)
def _interleaved_calls(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    if response.interleaved_calls:
        yield INTERLEAVED_CALLS.violated()


@ANTHROPIC_ONLY.checks(SERVER_TOOL_BLOCK, on=(ServerToolUse, ServerToolResult))
def _server_tool_block(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if isinstance(block, ServerToolUse | ServerToolResult):
        yield SERVER_TOOL_BLOCK.violated(kind=block.kind)


def claude_stream(block: Block) -> Iterator[Violation]:
    """Why a wire that does not stream Claude's thinking never sends this block: the
    empty thinking fragment before a signature is Anthropic's (and OpenRouter's, relaying
    it from a Claude upstream)."""
    if isinstance(block, Reasoning) and block.empty_chunk_before_signature:
        yield CLAUDE_STREAM.violated()


def empty_chunk(block: Block) -> Iterator[Violation]:
    """Why a Claude thinking stream never sends this block's empty fragment: it comes
    right before a signature, so an unsigned or redacted episode has none."""
    if (
        isinstance(block, Reasoning)
        and block.empty_chunk_before_signature
        and (block.signature is None or block.redacted)
    ):
        yield EMPTY_CHUNK_UNSIGNED.violated()
