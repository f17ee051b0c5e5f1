"""The toy wire's one rule: the token of an assistant message is one the server minted.
Its data (statement, source, error text) is the catalogue entry ``checks.yaml`` gives;
this module holds only the predicate, registered by id."""

from __future__ import annotations

from collections.abc import Iterator

from conformance.catalogue.book import Predicate, RuleBook
from conformance.verdict import Rule, Violation
from conformance.vocabulary import Reasoning
from toy_wire_pack.toy_echo._checked import Checked
from toy_wire_pack.toy_echo.wire import NAME

BOOK: RuleBook[Predicate[Checked]] = RuleBook(NAME, __name__)
TOKEN_MINTED = BOOK.rule("toy-echo/token-minted")


@BOOK.checks(TOKEN_MINTED)
def _token_minted(check: Checked) -> Iterator[Violation]:
    for i, message in enumerate(check.view.messages):
        if message.role != "assistant":
            continue
        tokens = [b.signature for b in message.blocks if isinstance(b, Reasoning)]
        if any(token not in check.minted for token in tokens):
            yield TOKEN_MINTED.violated(f"messages.{i}", i=i)


RULES: tuple[Rule, ...] = BOOK.rules
