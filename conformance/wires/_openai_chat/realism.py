"""The realism predicates: the shapes a case scripts or saves that this wire, in a given
dialect, never produces (stops without a ``finish_reason``, signed text, reasoning the
dialect cannot carry).  Each is one small predicate registered with the realism check it
reports (its finding's text is the catalogue's, ``conformance/catalogue/checks.yaml``)."""

from __future__ import annotations

from collections.abc import Iterator

from conformance.catalogue.book import RuleBook
from conformance.verdict import Violation
from conformance.vocabulary import Block, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires._openai_chat._dialects import (
    GEMINI,
    NAME,
    OLLAMA,
    OPENROUTER,
    REASONING_CONTENT,
    upstream,
)
from conformance.wires._openai_chat._stops import RAW_ARGUMENT_STOPS, TRUNCATED_STOPS
from conformance.wires._shared_realism import served_media, unnamed_stops, unparsed_arguments
from conformance.wires._thought_signatures import standard_base64
from conformance.wires._wire_only import (
    ANTHROPIC_ONLY,
    CLAUDE_STREAM,
    EMPTY_CHUNK_UNSIGNED,
    RESPONSES_ONLY,
    claude_stream,
    empty_chunk,
)
from conformance.wires.roles import BlockPredicate, BlockSpot, ResponsePredicate

#: The dialects whose endpoint sends each call whole, its arguments parsed.
_WHOLE_CALLS = (GEMINI, OLLAMA)

RESPONSE: RuleBook[ResponsePredicate] = RuleBook(NAME, __name__)
BLOCK: RuleBook[BlockPredicate] = RuleBook(NAME, __name__)

NO_SUCH_STOP = RESPONSE.rule("openai-chat/realism/stop-without-finish-reason")
NOISE = RESPONSE.rule("openai-chat/realism/noise")
INTERLEAVED_CALLS = RESPONSE.rule("openai-chat/realism/interleaved-calls")
SIGNED_TEXT = BLOCK.rule("openai-chat/realism/signed-text")
SIGNED_CALL = BLOCK.rule("openai-chat/realism/signed-call")
MEDIA = BLOCK.rule("openai-chat/realism/media")
UNPARSED_ARGUMENTS = BLOCK.rule("openai-chat/realism/unparsed-arguments")
REASONING_ID = BLOCK.rule("openai-chat/realism/reasoning-id")
PLAIN_REASONING = BLOCK.rule("openai-chat/realism/reasoning-content-plain")
EMPTY_EPISODE = BLOCK.rule("openai-chat/realism/reasoning-content-empty")
NO_REASONING = BLOCK.rule("openai-chat/realism/no-reasoning")
ENCRYPTED_WITHOUT_DATA = BLOCK.rule("openai-chat/realism/encrypted-detail-without-data")
ENCRYPTED_WITH_TEXT = BLOCK.rule("openai-chat/realism/encrypted-detail-with-text")
SIGNATURE_DETAILS = BLOCK.rule("openai-chat/realism/signature-over-details")
UNSIGNED = BLOCK.rule("openai-chat/realism/unsigned-anthropic-reasoning")
LATER_EPISODE = BLOCK.rule("openai-chat/realism/later-reasoning-episode")
CALL_FRAGMENTS = BLOCK.rule("openai-chat/realism/call-fragments")
NOT_BASE64 = BLOCK.rule("openai-chat/realism/signature-not-base64")
PARALLEL_SIGNATURE = BLOCK.rule("openai-chat/realism/parallel-call-signed")


unnamed_stops(RESPONSE, {"pause": NO_SUCH_STOP, "cancelled": NO_SUCH_STOP})


@RESPONSE.checks(NOISE)
def _noise(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    if response.noise and dialect in _WHOLE_CALLS:
        yield NOISE.violated(dialect=dialect)


RESPONSE.include(RESPONSES_ONLY)


@RESPONSE.checks(INTERLEAVED_CALLS)
def _interleaved_calls(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    calls = [b for b in response.blocks if isinstance(b, ToolCall)]
    if response.interleaved_calls and (len(calls) < 2 or dialect in _WHOLE_CALLS):
        yield INTERLEAVED_CALLS.violated()


@BLOCK.checks(SIGNED_TEXT, on=(Text,))
def _signed_text(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if isinstance(block, Text) and block.signature is not None:
        yield SIGNED_TEXT.violated()


@BLOCK.checks(SIGNED_CALL, on=(ToolCall,))
def _signed_call(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if isinstance(block, ToolCall) and block.signature is not None and spot.dialect != GEMINI:
        yield SIGNED_CALL.violated()


served_media(BLOCK, MEDIA)


def _raw_arguments_stop(spot: BlockSpot) -> bool:
    """A stop under which this wire may send a call's arguments as they were cut."""
    return spot.stop in RAW_ARGUMENT_STOPS


unparsed_arguments(BLOCK, UNPARSED_ARGUMENTS, cut=_raw_arguments_stop)


def _relays_claude(spot: BlockSpot) -> bool:
    """OpenRouter relaying a Claude model: its reasoning streams as Claude's does."""
    return spot.dialect == OPENROUTER and upstream(spot.model) == "anthropic"


@BLOCK.checks(CLAUDE_STREAM, EMPTY_CHUNK_UNSIGNED, on=(Reasoning,))
def _empty_chunk(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if not isinstance(block, Reasoning) or not spot.scripted:
        return
    yield from (empty_chunk(block) if _relays_claude(spot) else claude_stream(block))


@BLOCK.checks(REASONING_ID, on=(Reasoning,))
def _reasoning_id(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if isinstance(block, Reasoning) and block.id is not None:
        yield REASONING_ID.violated()


@BLOCK.checks(PLAIN_REASONING, EMPTY_EPISODE, on=(Reasoning,))
def _reasoning_content(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    """DeepSeek's and Kimi's ``reasoning_content``: plain streamed text."""
    if not isinstance(block, Reasoning) or spot.dialect not in REASONING_CONTENT:
        return
    if block.signature is not None or block.redacted or block.data or block.summary:
        yield PLAIN_REASONING.violated()
    elif spot.scripted and not block.text:
        yield EMPTY_EPISODE.violated()


@BLOCK.checks(NO_REASONING, on=(Reasoning,))
def _no_reasoning(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    dialect = spot.dialect
    if isinstance(block, Reasoning) and dialect not in (*REASONING_CONTENT, OPENROUTER):
        where = f"the {dialect} endpoint" if dialect else "OpenAI Chat Completions"
        yield NO_REASONING.violated(where=where)


def _openrouter_reasoning(block: Block, spot: BlockSpot) -> Reasoning | None:
    """A reasoning block as OpenRouter's ``reasoning_details`` carry it."""
    if isinstance(block, Reasoning) and spot.dialect == OPENROUTER:
        return block
    return None


@BLOCK.checks(ENCRYPTED_WITHOUT_DATA, ENCRYPTED_WITH_TEXT, on=(Reasoning,))
def _encrypted_detail(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    reasoning = _openrouter_reasoning(block, spot)
    if reasoning is None or not reasoning.redacted:
        return
    if not reasoning.data:
        yield ENCRYPTED_WITHOUT_DATA.violated()
    if reasoning.text or reasoning.signature is not None or reasoning.summary:
        yield ENCRYPTED_WITH_TEXT.violated()


@BLOCK.checks(SIGNATURE_DETAILS, on=(Reasoning,))
def _signature_details(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    reasoning = _openrouter_reasoning(block, spot)
    if reasoning is None or reasoning.redacted or not spot.scripted:
        return
    if reasoning.signature_chunks is not None and len(reasoning.signature_chunks) > 1:
        yield SIGNATURE_DETAILS.violated()


@BLOCK.checks(UNSIGNED, on=(Reasoning,))
def _unsigned(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    reasoning = _openrouter_reasoning(block, spot)
    if reasoning is None or reasoning.redacted or not spot.scripted:
        return
    unsigned = reasoning.signature is None and reasoning.summary is None
    cut = spot.stop in TRUNCATED_STOPS and spot.last
    if unsigned and upstream(spot.model) == "anthropic" and not cut:
        yield UNSIGNED.violated()


BLOCK.include(ANTHROPIC_ONLY)


@BLOCK.checks(LATER_EPISODE, on=(Reasoning,))
def _later_episode(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    episode = spot.dialect in REASONING_CONTENT and isinstance(block, Reasoning)
    if episode and spot.scripted and spot.index > 0:
        yield LATER_EPISODE.violated()


def _whole_call(block: Block, spot: BlockSpot) -> ToolCall | None:
    """A call of Gemini's or Ollama's endpoint: parsed by the server, sent whole, and on
    Gemini signed on the first call of a response only, in the base64 it mints (rule 41,
    47)."""
    return block if isinstance(block, ToolCall) and spot.dialect in _WHOLE_CALLS else None


@BLOCK.checks(CALL_FRAGMENTS, on=(ToolCall,))
def _call_fragments(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    call = _whole_call(block, spot)
    if call and spot.scripted and (call.chunks is not None or isinstance(call.arguments, str)):
        yield CALL_FRAGMENTS.violated(dialect=spot.dialect)


@BLOCK.checks(NOT_BASE64, PARALLEL_SIGNATURE, on=(ToolCall,))
def _call_signature(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    call = _whole_call(block, spot)
    if call is None or call.signature is None:
        return
    if not standard_base64(call.signature):
        yield NOT_BASE64.violated()
    if spot.scripted and any(isinstance(b, ToolCall) for b in spot.before):
        yield PARALLEL_SIGNATURE.violated()
