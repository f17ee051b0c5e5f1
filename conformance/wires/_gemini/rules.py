"""The request rules of the rule catalogue (``docs/rules.md``) section D, each with Google's real
error text, and the check that applies each, registered in ``BOOK`` in the order Gemini
checks them (``RULES`` is derived from it; ``validate`` runs the book).

Rules read the raw ``contents``: Gemini's errors name contents by index, and the
signature rules turn on where a ``thoughtSignature`` sits (a part-level sibling of
``functionCall``, or nested inside it), which the neutral view cannot tell apart.
"""

from __future__ import annotations

from collections.abc import Iterator

from conformance.catalogue.book import Predicate, RuleBook
from conformance.verdict import Rule, Violation
from conformance.wires import _values as values
from conformance.wires._gemini._checked import CheckedRequest
from conformance.wires._gemini._fields import get
from conformance.wires._gemini._signatures import part_signature
from conformance.wires._gemini._view import NAME
from conformance.wires._thought_signatures import canonical, decodes, is_sentinel

BOOK: RuleBook[Predicate[CheckedRequest]] = RuleBook(NAME, __name__)
CONTENTS_REQUIRED = BOOK.rule("gemini/contents-required")
PARTS_REQUIRED = BOOK.rule("gemini/parts-required")
VALID_ROLE = BOOK.rule("gemini/valid-role")
SIGNATURE_NOT_NESTED = BOOK.rule("gemini/signature-not-nested")
SIGNATURE_BASE64 = BOOK.rule("gemini/signature-base64")
CALL_TURN_PLACED = BOOK.rule("gemini/call-turn-placement")
RESPONSE_TURN_PLACED = BOOK.rule("gemini/response-turn-placement")
RESPONSE_COUNT = BOOK.rule("gemini/response-count")
SIGNATURE_REQUIRED = BOOK.rule("gemini/function-call-signature")
SIGNATURE_MINTED = BOOK.rule("gemini/signature-corrupted")


@BOOK.checks(CONTENTS_REQUIRED)
def _contents_required(check: CheckedRequest) -> Iterator[Violation]:
    contents = get(check.view.raw, "contents")
    if not isinstance(contents, list) or not contents:
        yield CONTENTS_REQUIRED.violated("contents")


@BOOK.checks(PARTS_REQUIRED)
def _parts_required(check: CheckedRequest) -> Iterator[Violation]:
    raw = get(check.view.raw, "contents")
    for i, content in enumerate(raw if isinstance(raw, list) else ()):
        parts = get(content, "parts") if isinstance(content, dict) else None
        if not isinstance(parts, list) or not parts:
            yield PARTS_REQUIRED.violated(f"contents[{i}].parts", i=i)


@BOOK.checks(VALID_ROLE)
def _valid_role(check: CheckedRequest) -> Iterator[Violation]:
    for content in check.contents:
        if content.role not in (None, "", "user", "model"):
            yield VALID_ROLE.violated(f"contents[{content.index}].role")


@BOOK.checks(SIGNATURE_NOT_NESTED)
def _nested_signature(check: CheckedRequest) -> Iterator[Violation]:
    for content in check.contents:
        for j, part in content.calls:
            call = get(part, "functionCall")
            for name in ("thoughtSignature", "thought_signature"):
                if name in call:
                    at = f"contents[{content.index}].parts[{j}].function_call"
                    yield SIGNATURE_NOT_NESTED.violated(at, name=name, i=content.index, j=j)


@BOOK.checks(SIGNATURE_BASE64)
def _signature_base64(check: CheckedRequest) -> Iterator[Violation]:
    for content in check.contents:
        for j, part in content.parts:
            value = part_signature(part)
            if value is not None and not decodes(value):
                at = f"contents[{content.index}].parts[{j}]"
                yield SIGNATURE_BASE64.violated(at, i=content.index, j=j, value=value)


@BOOK.checks(CALL_TURN_PLACED)
def _call_turn_placed(check: CheckedRequest) -> Iterator[Violation]:
    for position, content in enumerate(check.contents):
        before = check.at(position - 1)
        if content.call_turn and (before is None or before.model):
            yield CALL_TURN_PLACED.violated(f"contents[{content.index}]")


@BOOK.checks(RESPONSE_TURN_PLACED)
def _response_turn_placed(check: CheckedRequest) -> Iterator[Violation]:
    """A response content follows a call turn, or a response content that does (the run
    of contents answering one call turn: Gemini joins consecutive contents of a role)."""
    placed = False
    for position, content in enumerate(check.contents):
        before = check.at(position - 1)
        if not content.response_turn:
            placed = False
            continue
        placed = before is not None and (before.call_turn or (before.response_turn and placed))
        if not placed:
            yield RESPONSE_TURN_PLACED.violated(f"contents[{content.index}]")


@BOOK.checks(RESPONSE_COUNT)
def _response_count(check: CheckedRequest) -> Iterator[Violation]:
    """The responses of the run of response contents after a call turn, counted
    together.  A call turn that ends the request has no answer yet, so nothing is asked
    of it."""
    for position, content in enumerate(check.contents):
        after = check.at(position + 1)
        if not content.call_turn or after is None:
            continue
        answered = 0
        following = position + 1
        while (run := check.at(following)) is not None and run.response_turn:
            answered += len(run.responses)
            following += 1
        if answered != len(content.calls):
            yield RESPONSE_COUNT.violated(f"contents[{after.index}]")


@BOOK.checks(SIGNATURE_REQUIRED)
def _signature_required(check: CheckedRequest) -> Iterator[Violation]:
    """Rules 40/41/45 on the current turn only; a step the provider did not sign (an
    unsigned script, a call it never served) is not asked for one."""
    starts = [k for k, content in enumerate(check.contents) if content.prompt]
    current = check.contents[starts[-1] + 1 :] if starts else check.contents
    signed = check.signed_calls()
    for content in current:
        if not content.call_turn or not check.call_ids(content) & signed:
            continue
        j, first = content.calls[0]
        if part_signature(first) is None:
            name = values.text(get(get(first, "functionCall"), "name"))
            at = f"contents[{content.index}].parts[{j}]"
            yield SIGNATURE_REQUIRED.violated(at, name=name, position=content.index + 1)


@BOOK.checks(SIGNATURE_MINTED)
def _signature_minted(check: CheckedRequest) -> Iterator[Violation]:
    """The field is bytes: a signature re-spelled in the other base64 alphabet, or without
    padding, is the minted one."""
    minted = {canonical(payload) for payload in check.minted()}
    for content in check.contents:
        for j, part in content.calls:
            value = part_signature(part)
            if value is not None and not is_sentinel(value) and canonical(value) not in minted:
                yield SIGNATURE_MINTED.violated(f"contents[{content.index}].parts[{j}]")


RULES: tuple[Rule, ...] = BOOK.rules
