"""What the toy server never sends: anything but reasoning (a token) and text, or a turn
that does not end.  Each finding is a predicate registered by its realism id."""

from __future__ import annotations

from collections.abc import Iterator

from conformance.catalogue.book import RuleBook
from conformance.verdict import Rule, Violation
from conformance.vocabulary import Block, Reasoning, ScriptedResponse, Text
from conformance.wires.roles import BlockPredicate, BlockSpot, ResponsePredicate
from toy_wire_pack.toy_echo.wire import NAME

RESPONSE: RuleBook[ResponsePredicate] = RuleBook(NAME, __name__)
BLOCK: RuleBook[BlockPredicate] = RuleBook(NAME, __name__)
UNENDED = RESPONSE.rule("toy-echo/realism/unended-turn")
NOT_A_TOKEN = BLOCK.rule("toy-echo/realism/reasoning-not-a-token")
OTHER_BLOCK = BLOCK.rule("toy-echo/realism/other-block")


@RESPONSE.checks(UNENDED)
def _unended(response: ScriptedResponse, dialect: str | None) -> Iterator[Violation]:
    if response.fault is None and response.stop != "end":
        yield UNENDED.violated(stop=response.stop)


@BLOCK.checks(NOT_A_TOKEN, OTHER_BLOCK)
def _blocks(block: Block, spot: BlockSpot) -> Iterator[Violation]:
    if isinstance(block, Reasoning):
        if not block.signature or block.text:
            yield NOT_A_TOKEN.violated()
    elif not isinstance(block, Text):
        yield OTHER_BLOCK.violated(kind=block.kind)


def response_problems(response: ScriptedResponse, dialect: str | None) -> list[Violation]:
    return RESPONSE.run(response, dialect)


def block_problems(block: Block, spot: BlockSpot) -> list[Violation]:
    return BLOCK.run(block, spot)


REALISM_RULES: tuple[Rule, ...] = (*RESPONSE.rules, *BLOCK.rules)
