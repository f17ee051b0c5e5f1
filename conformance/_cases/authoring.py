"""Authoring mistakes the linter catches before a user's client is blamed for them:
options a wire's provider refuses before any turn (a thinking budget Anthropic refuses:
each wire's ``realism.options_problems``), expectations naming ids or payloads the script
never produces (such an expectation can never match, so a ``none`` passes vacuously and
a ``contains`` fails every client), and exact ``blocks`` on a user message (a client may
add blocks of its own there, which every provider accepts)."""

from __future__ import annotations

from collections.abc import Iterator

from conformance._cases.realism import finding
from conformance._cases.schema import (
    BlockPattern,
    Case,
    ExpectAnyOf,
    Expectation,
    ExpectBlocks,
    ExpectContains,
    ExpectNone,
)
from conformance.vocabulary import (
    Block,
    Message,
    Reasoning,
    ServerToolResult,
    ServerToolUse,
    Text,
    ToolCall,
    ToolResult,
)
from conformance.wires._registry import get_wire, split_column, wire_names


def budget_problems(case: Case) -> list[str]:
    """What the providers of the case's wires refuse in its options before any turn (a
    manual thinking budget Anthropic refuses), asked of each wire once."""
    known = set(wire_names())
    wires = dict.fromkeys(split_column(column)[0] for column in case.wires)
    problems: list[str] = []
    for name in (w for w in wires if w in known):
        found = get_wire(name).realism.options(case.given.options, case.given.tools)
        problems += [finding(f"{name}: given.options", violation) for violation in found]
    return problems


def reference_problems(case: Case) -> list[str]:
    """Expectations naming a call id, item id or opaque payload that no scripted response
    or saved history block carries.  The case's blocks are gathered only for a case with
    such an expectation (most have none): without one there is nothing to look up."""
    naming = [
        (n, pattern)
        for n, pattern in _patterns(case.expect, "expect")
        if (pattern.id, pattern.call_id, pattern.signature, pattern.data) != (None,) * 4
    ]
    if not naming:
        return []
    ids, calls, payloads = _produced(case)
    problems: list[str] = []
    for n, pattern in naming:
        if pattern.id is not None and pattern.id not in ids:
            problems.append(f"{n}: names id {pattern.id!r}, which the script never produces")
        if pattern.call_id is not None and pattern.call_id not in calls:
            problems.append(
                f"{n}: names call_id {pattern.call_id!r}, which no scripted tool call has"
            )
        for field in ("signature", "data"):
            value = getattr(pattern, field)
            if value is not None and value not in payloads:
                problems.append(f"{n}: names a {field} ({value[:24]}…) the script never produces")
    return problems


def user_message_problems(case: Case) -> list[str]:
    """Exact ``blocks`` expectations on a user message.  Harnesses add blocks of their own
    to what the user typed (qwen-code prepends ``<system-reminder>`` text to every
    prompt; others attach notes of their own), and every provider accepts them; what a case can
    demand of a user message is that it holds the user's blocks (``contains``), and that
    it holds nothing it must not (``none``)."""
    return [
        f"{where}: exact `blocks` on a user message would blame a client that adds blocks of "
        "its own there (which providers accept): write `contains`"
        for where, expectation in _expectations(case.expect, "expect")
        if isinstance(expectation, ExpectBlocks) and expectation.where.role == "user"
    ]


def _expectations(
    expectations: tuple[Expectation, ...], at: str
) -> Iterator[tuple[str, Expectation]]:
    """Every expectation with its place, those nested in ``any_of`` too."""
    for e, expectation in enumerate(expectations):
        where = f"{at}[{e}]"
        yield where, expectation
        if isinstance(expectation, ExpectAnyOf):
            yield from _expectations(expectation.any_of, f"{where}.any_of")


def _produced(case: Case) -> tuple[set[str], set[str], set[str]]:
    """Ids, tool-call ids and opaque payloads the case puts on the wire."""
    blocks: list[Block] = [b for r in case.given.responses for b in r.blocks]
    message: Message
    for message in case.given.history:
        blocks += message.blocks
    ids: set[str] = set()
    calls: set[str] = set()
    payloads: set[str] = set()
    for block in blocks:
        if isinstance(block, ToolCall):
            ids.add(block.id)
            calls.add(block.id)
        if isinstance(block, ServerToolUse):
            ids.add(block.id)
            calls.add(block.id)
        if isinstance(block, ToolResult | ServerToolResult):
            calls.add(block.call_id)
        if isinstance(block, Reasoning) and block.id is not None:
            ids.add(block.id)
        if isinstance(block, Reasoning | Text | ToolCall) and block.signature:
            payloads.add(block.signature)
        if isinstance(block, Reasoning) and block.data:
            payloads.add(block.data)
    return ids, calls, payloads


def _patterns(expectations: tuple[Expectation, ...], at: str) -> Iterator[tuple[str, BlockPattern]]:
    for e, expectation in enumerate(expectations):
        where = f"{at}[{e}]"
        if isinstance(expectation, ExpectAnyOf):
            yield from _patterns(expectation.any_of, f"{where}.any_of")
        elif isinstance(expectation, ExpectBlocks):
            yield from ((f"{where}.blocks[{b}]", p) for b, p in enumerate(expectation.blocks))
        elif isinstance(expectation, ExpectContains):
            yield from ((f"{where}.contains[{b}]", p) for b, p in enumerate(expectation.contains))
        elif isinstance(expectation, ExpectNone):
            yield f"{where}.none", expectation.none
