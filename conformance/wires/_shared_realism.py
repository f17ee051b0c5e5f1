"""Realism predicates several wires share in shape: each wire registers one in its own
book, reporting its own check id (its finding's text is that id's catalogue entry), so
a shape one provider never sends is judged by one piece of code however many wires
refuse it.  What differs between wires is a parameter: which stops the provider has no
name for, when a call may end with its arguments unparsed (a response cut short).
The findings only one wire's shapes cause are ``wire_only``'s."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from conformance.catalogue.book import RuleBook
from conformance.verdict import Rule, Violation
from conformance.vocabulary import Block, Media, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires._wire_only import CLAUDE_STREAM, claude_stream
from conformance.wires.roles import BlockPredicate, BlockSpot, ResponsePredicate


def unnamed_stops(book: RuleBook[ResponsePredicate], checks: Mapping[str, Rule]) -> None:
    """A response with a stop the provider has no name for: each such stop with the
    check it breaks (filled in with ``stop``)."""

    @book.checks(*dict.fromkeys(checks.values()))
    def _unnamed_stop(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
        check = checks.get(response.stop)
        if check is not None:
            yield check.violated(stop=response.stop)


def signed_answer(book: RuleBook[BlockPredicate], check: Rule) -> None:
    """Text or a tool call carrying a signature, on a wire that signs only reasoning
    (filled in with the block's ``kind``)."""

    @book.checks(check, on=(Text, ToolCall))
    def _signed_answer(block: Block, spot: BlockSpot) -> Iterator[Violation]:
        if isinstance(block, Text | ToolCall) and block.signature is not None:
            yield check.violated(kind=block.kind)


def served_media(book: RuleBook[BlockPredicate], check: Rule) -> None:
    """A media block in a served response, from a provider that answers with none."""

    @book.checks(check, on=(Media,))
    def _media(block: Block, spot: BlockSpot) -> Iterator[Violation]:
        if isinstance(block, Media) and spot.scripted:
            yield check.violated()


def _never(spot: BlockSpot) -> bool:
    return False


def unparsed_arguments(
    book: RuleBook[BlockPredicate], check: Rule, cut: Callable[[BlockSpot], bool] = _never
) -> None:
    """A served tool call whose arguments are not parsed JSON, where the response was not
    ``cut`` short (the only place a provider leaves a call unfinished); by default a
    provider that never does."""

    @book.checks(check, on=(ToolCall,))
    def _unparsed_arguments(block: Block, spot: BlockSpot) -> Iterator[Violation]:
        unparsed = isinstance(block, ToolCall) and isinstance(block.arguments, str)
        if unparsed and spot.scripted and not cut(spot):
            yield check.violated()


def responses_reasoning(book: RuleBook[BlockPredicate], check: Rule) -> None:
    """Reasoning with a Responses item's id or summary, on a wire that has neither."""

    @book.checks(check, on=(Reasoning,))
    def _responses_reasoning(block: Block, spot: BlockSpot) -> Iterator[Violation]:
        if isinstance(block, Reasoning) and (block.id is not None or block.summary is not None):
            yield check.violated()


def served_claude_stream(book: RuleBook[BlockPredicate]) -> None:
    """Claude's empty thinking fragment in a served response of a wire that never
    streams Claude's thinking (``wire_only.claude_stream``, the shared check)."""

    @book.checks(CLAUDE_STREAM, on=(Reasoning,))
    def _claude_stream(block: Block, spot: BlockSpot) -> Iterator[Violation]:
        if spot.scripted:
            yield from claude_stream(block)
