"""The opaque-payload ledger: every replay token the provider minted comes back exactly
once, byte-exact, on its own block, in order relative to the tool calls.

Payloads are compared whole and named in messages by length and SHA-256 prefix only
(seed B12: ids, lengths and hashes, never truncated display strings;
B13: each request's tokens are an ordered, byte-exact prefix of what was minted).

Minted before request *k*: the opaque fields of every block of every response served
before *k*, plus the blocks of ``given.history`` without an ``origin`` (minted by this
provider in an earlier session).  A history block with an ``origin`` was minted elsewhere
and is foreign.  Only assistant history blocks are owed back: a token saved inside user
or tool input (a child agent's reasoning) is known, but no wire can carry it there.

Responses that ended their turn by truncation, cancellation or refusal owe nothing: the
provider accepts dropping them (rule 9, 10, 16, 17, 33).  After an
``invalid-encrypted-content`` fault the reasoning minted so far is owed no more: the
provider said it cannot verify it, and the repair drops it (rule 30).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from conformance._cases.schema import Case
from conformance._checks import quote
from conformance._checks.check import JudgeBook
from conformance._checks.walk import Placed, placed
from conformance._transcript import Transcript
from conformance.verdict import Rule, Violation
from conformance.vocabulary import (
    REPAIRED_FAULTS,
    TRUNCATING_STOPS,
    Block,
    ToolCall,
    opaque_fields,
)
from conformance.wires.context import RequestView
from conformance.wires.hints import LedgerHints
from conformance.wires.roles import Hinted

#: Stops after which the provider accepts that the response is dropped from history.
DROPPABLE_STOPS: frozenset[str] = TRUNCATING_STOPS | {"refusal"}

BOOK = JudgeBook("ledger", __name__)

KNOWN = BOOK.rule("invariant/ledger-known")
FOREIGN = BOOK.rule("invariant/ledger-foreign")
PAIRED = BOOK.rule("invariant/ledger-paired")
ONCE = BOOK.rule("invariant/ledger-once")
ORDER = BOOK.rule("invariant/ledger-order")
CURRENT_LOOP = BOOK.rule("invariant/ledger-current-loop")
COMPLETE = BOOK.rule("invariant/ledger-complete")
LEDGER_CHECKS: tuple[Rule, ...] = (
    KNOWN,
    FOREIGN,
    PAIRED,
    ONCE,
    ORDER,
    CURRENT_LOOP,
    COMPLETE,
)

#: Sort key of a payload in minted order: (rank, message, block, nested, field).
Order = tuple[int, int, int, int, int]


@dataclass(frozen=True)
class Mint:
    """One payload as the provider minted it."""

    payload: str
    field: str
    block: Block
    order: Order
    group: str  # the response (or history message) that minted it
    index: int  # its block's index there
    response: int | None  # 0-based script index; None for history
    owed: bool  # whether its return is demanded at all

    @property
    def source(self) -> str:
        return f"{self.group}, block {self.index}"


@dataclass(frozen=True)
class _Sent:
    """One payload as a request carries it."""

    payload: str
    field: str
    placed: Placed
    rank: int  # field order within its block

    @property
    def position(self) -> tuple[int, int, int, int]:
        return (*self.placed.position, self.rank)


@dataclass
class _Book:
    """What the case itself says was minted: its history, and its script."""

    case: Case
    history: list[Mint]
    foreign: dict[str, str]
    calls: dict[str, list[tuple[int, str]]]
    turns: list[int]  # the 0-based user turn of each script index

    @classmethod
    def of(cls, case: Case) -> _Book:
        history: list[Mint] = []
        foreign: dict[str, str] = {}
        calls: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for item in placed(case.given.history):
            group = f"history message {item.message}"
            if isinstance(item.block, ToolCall) and item.nested < 0:
                calls[group].append((item.index, item.block.id))
            origin = getattr(item.block, "origin", None)
            for rank, (field, payload) in enumerate(opaque_fields(item.block).items()):
                if origin is not None:
                    foreign.setdefault(payload, f"{origin} ({group}, block {item.index})")
                    continue
                order = (0, item.message, item.index, item.nested, rank)
                owed = item.role == "assistant" and item.nested < 0
                history.append(
                    Mint(payload, field, item.block, order, group, item.index, None, owed)
                )
        for r, response in enumerate(case.given.responses):
            group = _response_group(r)
            calls[group] = [
                (b, c.id) for b, c in enumerate(response.blocks) if isinstance(c, ToolCall)
            ]
        turns = [t for t, turn in enumerate(case.given.turns) for _ in turn.responses]
        return cls(case, history, foreign, dict(calls), turns)

    def minted(self, served: Sequence[int], hints: LedgerHints) -> list[Mint]:
        """Every payload minted once the responses ``served`` (in serve order) went out.

        A response cut before its end also leaves the values its stream announced before
        the final ones (``LedgerHints.announced``): where the final one never came, the
        early one is all the client had, so it is known, and owed by neither."""
        mints = list(self.history)
        for rank, r in enumerate(served, start=1):
            response = self.case.given.responses[r]
            if response.fault is not None and response.fault.kind in REPAIRED_FAULTS:
                # Rule 30: the provider could not verify the encrypted reasoning sent so
                # far; the repair drops it, so none of it is owed any more.
                mints = [
                    replace(m, owed=False) if m.block.kind == "reasoning" else m for m in mints
                ]
            owed = response.stop not in DROPPABLE_STOPS
            for b, block in enumerate(response.blocks):
                group = _response_group(r)
                for field_rank, (field, payload) in enumerate(opaque_fields(block).items()):
                    order = (rank, 0, b, -1, field_rank)
                    mints.append(Mint(payload, field, block, order, group, b, r, owed))
                early = hints.announced(block) if response.stop in TRUNCATING_STOPS else None
                if early:
                    order = (rank, 0, b, -1, 0)
                    mints.append(Mint(early, "signature", block, order, group, b, r, False))
        return mints

    def turn_of(self, response: int) -> int:
        """The 0-based user turn of a script index (past the end: the last turn)."""
        return self.turns[min(response, len(self.turns) - 1)]


@BOOK.checks(*LEDGER_CHECKS)
def ledger_violations(transcript: Transcript, wire: Hinted) -> list[Violation]:
    """Every ledger violation of every parsed request, grouped by check."""
    book = _Book.of(transcript.case)
    found: list[Violation] = []
    served: list[int] = []
    for exchange in transcript.exchanges:
        if exchange.view is not None:
            # The script index the request is answered from: not ``len(served)`` once a
            # scripted continuation or retry answer was passed over.
            at = (
                exchange.served
                if exchange.served is not None
                else (served[-1] + 1 if served else 0)
            )
            found += _judge(exchange.number, exchange.view, book, (served, at), wire.hints)
        if exchange.served is not None:
            served.append(exchange.served)
    rank = {check.id: i for i, check in enumerate(LEDGER_CHECKS)}
    return sorted(found, key=lambda v: rank[v.check])


def _response_group(index: int) -> str:
    return f"scripted response {index + 1}"


def _token(block: Block, field: str, payload: str) -> str:
    """A payload named the way B12 names it: kind, id, field, length, hash."""
    ident = getattr(block, "id", None)
    named = f"{block.kind} {ident}" if ident else block.kind
    return f"{named} {field} ({quote.payload(payload)})"


def _sent(view: RequestView, hints: LedgerHints) -> list[_Sent]:
    """The payloads a request carries; a wire's documented placeholders are not payloads."""
    return [
        _Sent(payload, field, item, rank)
        for item in placed(view.messages, view.where)
        for rank, (field, payload) in enumerate(opaque_fields(item.block).items())
        if not hints.sentinel(payload)
    ]


def _judge(
    number: int,
    view: RequestView,
    book: _Book,
    position: tuple[Sequence[int], int],
    hints: LedgerHints,
) -> list[Violation]:
    served, at = position
    mints = book.minted(served, hints)
    by_payload: dict[str, list[Mint]] = defaultdict(list)
    for mint in mints:
        by_payload[mint.payload].append(mint)
    sent = _sent(view, hints)
    found: list[Violation] = []
    seen: Counter[str] = Counter()
    returned: list[tuple[_Sent, Mint]] = []
    for item in sent:
        candidates = by_payload.get(item.payload)
        if candidates is None:
            found.append(_unknown(number, item, book, mints, hints))
            continue
        seen[item.payload] += 1
        if seen[item.payload] > len(candidates):
            found.append(_repeated(number, item, candidates, seen[item.payload], hints))
            continue
        paired = next((m for m in candidates if _pairs(item, m, hints)), None)
        mint = paired or candidates[0]
        if paired is None:
            found.append(_mispaired(number, item, mint, hints))
        if seen[item.payload] == 1:
            returned.append((item, mint))
    found += _order(number, view, returned, book, hints)
    found += _missing(number, {item.payload for item in sent}, mints, book, at, hints)
    return found


def _pairs(item: _Sent, mint: Mint, hints: LedgerHints) -> bool:
    if item.placed.block.kind != mint.block.kind or item.field != mint.field:
        return False
    companion = hints.companion(mint.block)
    return companion is None or hints.companion(item.placed.block) == companion


# ---------------------------------------------------------------- violations


def _unknown(
    number: int, item: _Sent, book: _Book, mints: Sequence[Mint], hints: LedgerHints
) -> Violation:
    token = _token(item.placed.block, item.field, item.payload)
    origin = book.foreign.get(item.payload)
    if origin is not None:
        return FOREIGN.violation(
            f"{token} at {item.placed.place} was minted by {origin}, not by the provider "
            "and model of this conversation" + _unchecked(hints, item.placed.block),
            request=number,
            at=item.placed.at,
            severity=hints.severity(item.placed.block),
        )
    early = next((m for m in mints if hints.announced(m.block) == item.payload), None)
    why = (
        diagnose(item.payload, [m.payload for m in mints])
        if early is None
        else f"the value its stream announced first, not the final one of {early.source} "
        f"({quote.payload(early.payload)}) that came later in the same stream"
    )
    return KNOWN.violation(
        f"{token} at {item.placed.place} was never minted before request {number}: {why}"
        + _unchecked(hints, item.placed.block),
        request=number,
        at=item.placed.at,
        severity=hints.severity(item.placed.block),
    )


def _repeated(
    number: int, item: _Sent, candidates: list[Mint], count: int, hints: LedgerHints
) -> Violation:
    token = _token(item.placed.block, item.field, item.payload)
    return ONCE.violation(
        f"{token} at {item.placed.place} is occurrence {count} in this request; it was "
        f"minted {len(candidates)} time(s) ({candidates[0].source})"
        + _unchecked(hints, candidates[0].block),
        request=number,
        at=item.placed.at,
        severity=hints.severity(candidates[0].block),
    )


def _mispaired(number: int, item: _Sent, mint: Mint, hints: LedgerHints) -> Violation:
    token = _token(item.placed.block, item.field, item.payload)
    block = item.placed.block
    if block.kind != mint.block.kind or item.field != mint.field:
        why = (
            f"was minted as the {mint.field} of a {mint.block.kind} block ({mint.source}) "
            f"but is sent as the {item.field} of a {block.kind} block"
        )
    else:
        sent = hints.companion(block)
        minted = hints.companion(mint.block)
        why = (
            f"was minted paired with {quote.value(minted)} ({mint.source}) but is sent "
            f"paired with {quote.value(sent)}"
        )
    return PAIRED.violation(
        f"{token} at {item.placed.place} {why}" + _unchecked(hints, mint.block),
        request=number,
        at=item.placed.at,
        severity=hints.severity(mint.block),
    )


def _unchecked(hints: LedgerHints, block: Block) -> str:
    """What a payload the provider does not check on ``block`` costs: a ``should``."""
    if hints.severity(block) == "must":
        return ""
    return (
        f" (the provider does not check the payload of a {block.kind} block: the cost is "
        "reasoning continuity, not a rejection)"
    )


def _order(
    number: int,
    view: RequestView,
    returned: list[tuple[_Sent, Mint]],
    book: _Book,
    hints: LedgerHints,
) -> list[Violation]:
    calls: dict[str, tuple[int, int, int]] = {}
    for block in placed(view.messages):
        if isinstance(block.block, ToolCall) and block.role == "assistant":
            calls.setdefault(block.block.id, block.position)
    found: list[Violation] = []
    latest: tuple[_Sent, Mint] | None = None
    for item, mint in sorted(returned, key=lambda pair: pair[0].position):
        token = _token(item.placed.block, item.field, item.payload)
        if latest is not None and mint.order < latest[1].order:
            other = _token(latest[0].placed.block, latest[0].field, latest[0].payload)
            found.append(
                ORDER.violation(
                    f"{token} from {mint.source} is sent after {other} from "
                    f"{latest[1].source}, which was minted later" + _unchecked(hints, mint.block),
                    request=number,
                    at=item.placed.at,
                    severity=hints.severity(mint.block),
                )
            )
            continue
        latest = (item, mint)
        if not hints.reasoning_between_calls:
            continue  # the wire keeps reasoning in a field of its own, apart from the calls
        problem = _call_side(item, mint, book.calls.get(mint.group, []), calls)
        if problem is not None:
            found.append(
                ORDER.violation(
                    f"{token} {problem}" + _unchecked(hints, mint.block),
                    request=number,
                    at=item.placed.at,
                    severity=hints.severity(mint.block),
                )
            )
    return found


def _call_side(
    item: _Sent,
    mint: Mint,
    minted_calls: Iterable[tuple[int, str]],
    sent_calls: dict[str, tuple[int, int, int]],
) -> str | None:
    """Why a payload sits on the wrong side of one of its response's calls, if it does."""
    for index, call_id in minted_calls:
        position = sent_calls.get(call_id)
        if index == mint.index or position is None or position == item.placed.position:
            continue
        minted_before = mint.index < index
        if minted_before != (item.placed.position < position):
            side, now = ("before", "after") if minted_before else ("after", "before")
            return (
                f"was minted {side} call {call_id} ({mint.source}) but is sent {now} it "
                f"(at {item.placed.place})"
            )
    return None


def _missing(
    number: int,
    present: set[str],
    mints: list[Mint],
    book: _Book,
    at: int,
    hints: LedgerHints,
) -> list[Violation]:
    turn = book.turn_of(at)
    found: list[Violation] = []
    reported: set[str] = set()
    for mint in mints:
        if not mint.owed or mint.payload in present or mint.payload in reported:
            continue
        reported.add(mint.payload)
        token = _token(mint.block, mint.field, mint.payload)
        if mint.response is not None and book.turn_of(mint.response) == turn:
            found.append(
                CURRENT_LOOP.violation(
                    f"{token} minted by {mint.source} in the current tool loop is missing",
                    request=number,
                    severity=hints.severity(mint.block),
                )
            )
        else:
            found.append(
                COMPLETE.violation(
                    f"{token} minted by {mint.source} in an earlier turn is missing",
                    request=number,
                )
            )
    return found


# ---------------------------------------------------------------- diagnosis


def diagnose(payload: str, minted: Sequence[str]) -> str:
    """What an unknown payload most likely is, relative to the minted ones."""
    values = [v for v in dict.fromkeys(minted) if v]
    for value in values:
        if value.startswith(payload):
            return (
                f"a truncated copy (first {len(payload)} of {len(value)} chars) of the "
                f"minted payload ({quote.payload(value)})"
            )
    parts = _concatenation(payload, values)
    if parts is not None:
        return "a concatenation of minted payloads " + " + ".join(
            f"({quote.payload(p)})" for p in parts
        )
    for value in values:
        if payload.startswith(value):
            extra = len(payload) - len(value)
            return f"the minted payload ({quote.payload(value)}) with {extra} chars appended"
    for value in values:
        if payload in value:
            return f"a fragment of the minted payload ({quote.payload(value)})"
    return "it matches no minted payload (fabricated, re-encoded, or minted elsewhere)"


def _concatenation(payload: str, values: Sequence[str]) -> list[str] | None:
    """``payload`` split into two or more minted values, if it is one."""
    ways: dict[int, list[str]] = {0: []}
    for start in range(len(payload)):
        if start not in ways:
            continue
        for value in values:
            end = start + len(value)
            if end not in ways and payload.startswith(value, start):
                ways[end] = [*ways[start], value]
    parts = ways.get(len(payload))
    return parts if parts is not None and len(parts) > 1 else None
