"""The toy wire's one rule: the token of an assistant message is one the server minted."""

from __future__ import annotations

from collections.abc import Iterator

from conformance.model import Reasoning
from conformance.wires.base import Rule, RuleViolation
from conformance.wires.rulebook import RuleBook
from toy_wire_pack.toy_echo._checked import Checked
from toy_wire_pack.toy_echo.wire import NAME

TOKEN_MINTED = Rule(
    id="toy-echo/token-minted",
    ref="toy-echo",
    statement=(
        "Every assistant message carries back the token the server answered it with, unchanged."
    ),
    source="the toy-echo wire's own definition, its only document (an example of an outside wire)",
    error="messages.{i}: token is not one this server minted",
    evidence="documented",
)

BOOK: RuleBook[Checked] = RuleBook(NAME)


@BOOK.checks(TOKEN_MINTED)
def _token_minted(check: Checked) -> Iterator[RuleViolation]:
    for i, message in enumerate(check.view.messages):
        if message.role != "assistant":
            continue
        tokens = [b.signature for b in message.blocks if isinstance(b, Reasoning)]
        if any(token not in check.minted for token in tokens):
            yield TOKEN_MINTED.violated(f"messages.{i}", i=i)


RULES = BOOK.rules
