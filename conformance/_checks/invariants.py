"""Universal invariants besides the ledger: each one function over a transcript.

They hold on every wire, so they read only the neutral view (and, for append-only, the
wire's raw history items); the wires' own rules judge the wire-specific shapes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from conformance._checks import quote
from conformance._checks.check import JudgeBook
from conformance._checks.walk import carries, placed
from conformance._transcript import Transcript
from conformance.verdict import Severity, Violation
from conformance.vocabulary import REPAIRED_FAULTS, TRUNCATING_STOPS, ToolCall, ToolResult
from conformance.wires.context import RequestView
from conformance.wires.roles import HistorySource

BOOK = JudgeBook("invariants", __name__)

TOOL_PAIRING = BOOK.rule("invariant/tool-pairing")
NO_EMPTY_MESSAGE = BOOK.rule("invariant/no-empty-message")
NO_REASONING_IN_USER_INPUT = BOOK.rule("invariant/no-reasoning-in-user-input")
APPEND_ONLY = BOOK.rule("invariant/append-only")
TRUNCATED_CALL_NOT_RUN = BOOK.rule("invariant/truncated-call-not-run")


# ---------------------------------------------------------------- tool pairing


@dataclass
class _Turn:
    """An assistant message's calls, and how often the messages after it answered each."""

    message: int
    calls: dict[str, tuple[ToolCall, str | None, int]]
    answers: dict[str, int]


@BOOK.checks(TOOL_PAIRING)
def tool_pairing(transcript: Transcript, wire: object) -> list[Violation]:
    """Calls and results pair one to one between consecutive assistant messages."""
    found: list[Violation] = []
    for number, view in transcript.views:
        turn: _Turn | None = None
        for m, message in enumerate(view.messages):
            if message.role == "assistant":
                found += _unanswered(number, view, turn)
                turn = _Turn(m, {}, {})
                for b, block in enumerate(message.blocks):
                    if isinstance(block, ToolCall):
                        turn.calls.setdefault(block.id, (block, view.where(m, b), b))
                continue
            for b, block in enumerate(message.blocks):
                if isinstance(block, ToolResult):
                    found += _answer(number, view, turn, m, b, block)
        if turn is not None and turn.message != len(view.messages) - 1:
            found += _unanswered(number, view, turn)
    if transcript.dialect in getattr(getattr(wire, "hints", None), "unpaired_tools_taken", ()):
        return [
            v.model_copy(update={"severity": "should", "message": v.message + _UNPAIRED_TAKEN})
            for v in found
        ]
    return found


#: Where the provider renders the conversation into a prompt without pairing calls and
#: results (Ollama), an unpaired one is taken: what it costs is named, as a ``should``.
_UNPAIRED_TAKEN = (
    " (this provider does not pair calls with results and takes the request; the model "
    "reads a call without its answer, or an answer to no call)"
)


def _answer(
    number: int, view: RequestView, turn: _Turn | None, m: int, b: int, result: ToolResult
) -> list[Violation]:
    place = f"{view.messages[m].role} message {m}, block {b}"
    if turn is None or result.call_id not in turn.calls:
        before = (
            "no assistant message precedes it"
            if turn is None
            else f"assistant message {turn.message} before it made no such call"
        )
        return [
            TOOL_PAIRING.violation(
                f"tool result at {place} answers call {result.call_id}, but {before}",
                request=number,
                at=view.where(m, b),
            )
        ]
    turn.answers[result.call_id] = turn.answers.get(result.call_id, 0) + 1
    if turn.answers[result.call_id] > 1:
        return [
            TOOL_PAIRING.violation(
                f"tool result at {place} answers call {result.call_id} a second time",
                request=number,
                at=view.where(m, b),
            )
        ]
    return []


def _unanswered(number: int, view: RequestView, turn: _Turn | None) -> list[Violation]:
    if turn is None:
        return []
    return [
        TOOL_PAIRING.violation(
            f"tool call {call_id} ({call.name}) at assistant message {turn.message}, block "
            f"{b} has no tool result before the next assistant message or the request's end",
            request=number,
            at=at,
        )
        for call_id, (call, at, b) in turn.calls.items()
        if call_id not in turn.answers
    ]


# ---------------------------------------------------------------- empty messages


#: What an empty message costs where the provider takes it.
_EMPTY_ACCEPTED = (
    "; the provider accepts it, so this only costs a turn that says nothing (a design "
    "rule on this wire)"
)


@BOOK.checks(NO_EMPTY_MESSAGE)
def no_empty_message(transcript: Transcript, wire: object) -> list[Violation]:
    """Only a final assistant message may be empty: a ``must`` where the provider
    refuses empty messages (Anthropic, Gemini), a design ``should`` where it takes them
    (``LedgerHints.empty_messages_taken``, by column)."""
    hints = getattr(wire, "hints", None)
    refused = transcript.dialect not in getattr(hints, "empty_messages_taken", frozenset())
    return [
        NO_EMPTY_MESSAGE.violation(
            f"{message.role} message {m} has no content" + ("" if refused else _EMPTY_ACCEPTED),
            request=number,
            at=view.where(m),
            severity=None if refused else "should",
            evidence=None if refused else "design",
        )
        for number, view in transcript.views
        for m, message in enumerate(view.messages)
        if not message.blocks and not (message.role == "assistant" and m == len(view.messages) - 1)
    ]


# ---------------------------------------------------------------- user input


@BOOK.checks(NO_REASONING_IN_USER_INPUT)
def no_reasoning_in_user_input(transcript: Transcript, wire: object) -> list[Violation]:
    """User and tool input carries no reasoning or tool calls, not even nested."""
    found: list[Violation] = []
    for number, view in transcript.views:
        for item in placed(view.messages, view.where):
            block = item.block
            if block.kind not in ("reasoning", "tool_call"):
                continue
            if item.nested >= 0:
                where = "inside a tool result's content"
            elif item.role in ("user", "tool"):
                where = f"in {item.role} input"
            else:
                continue
            what = f"tool call {block.id}" if isinstance(block, ToolCall) else "reasoning block"
            found.append(
                NO_REASONING_IN_USER_INPUT.violation(
                    f"{what} at {item.place} is sent {where}",
                    request=number,
                    at=item.at,
                )
            )
    return found


# ---------------------------------------------------------------- append-only


@BOOK.checks(APPEND_ONLY)
def append_only(transcript: Transcript, wire: HistorySource) -> list[Violation]:
    """Served requests only append to the history the previous served one sent.

    Rejected requests are skipped (a repaired retry legitimately differs), and so is the
    request after a refusal, which must drop the refused turn (rule 17), and the retry
    after a fault that asks for a repair (rule 30's invalid encrypted content).
    """
    found: list[Violation] = []
    previous: tuple[int, list[Any], str] | None = None
    script = transcript.case.given.responses
    for exchange in transcript.exchanges:
        if exchange.view is None or exchange.served is None:
            continue
        items = [_without_cache_control(item) for item in wire.history_items(exchange.view)]
        if previous is not None and previous[2] not in ("refusal", _REPAIRED):
            change = _first_change(previous[1], items, previous[0])
            if change is not None:
                found.append(
                    APPEND_ONLY.violation(
                        f"history does not extend request {previous[0]}'s: {change}",
                        request=exchange.number,
                    )
                )
        fault = script[exchange.served].fault
        repaired = fault is not None and fault.kind in REPAIRED_FAULTS
        previous = (exchange.number, items, _REPAIRED if repaired else script[exchange.served].stop)
    return found


#: Marks a request answered by a fault that asks for a repaired retry (rule 30): the
#: retry leaves out what the provider refused, so it need not extend that request.
_REPAIRED = "repaired"


def _without_cache_control(item: Any) -> Any:
    """A JSON value with every ``cache_control`` key removed, at any depth."""
    if isinstance(item, dict):
        return {k: _without_cache_control(v) for k, v in item.items() if k != "cache_control"}
    if isinstance(item, list):
        return [_without_cache_control(v) for v in item]
    return item


#: Part types whose one-part content list is the same content as the plain string.
_TEXT_PARTS = frozenset({"text", "input_text"})


def _plain(item: Any) -> Any:
    """A JSON value with every ``content`` that is one text part written as its string.

    The wires accept both spellings of the same text, and a library rewrites an older
    message from one to the other when a ``cache_control`` breakpoint moves off it."""
    if isinstance(item, list):
        return [_plain(v) for v in item]
    if not isinstance(item, dict):
        return item
    plain = {k: _plain(v) for k, v in item.items()}
    content = plain.get("content")
    if isinstance(content, list) and len(content) == 1:
        (part,) = content
        if (
            isinstance(part, dict)
            and set(part) == {"type", "text"}
            and part["type"] in _TEXT_PARTS
            and isinstance(part["text"], str)
        ):
            plain["content"] = part["text"]
    return plain


def _canonical(item: Any) -> str:
    """JSON equality in the order the keys were sent (rule 53: a re-serialization that
    reorders keys changes the prompt's bytes), telling ``true`` from ``1``, and with a
    one-text-part content the same as its string (``_plain``)."""
    return json.dumps(_plain(item), ensure_ascii=False, separators=(",", ":"))


def _first_change(old: list[Any], new: list[Any], before: int) -> str | None:
    for i, item in enumerate(old):
        if i >= len(new):
            return f"it has {len(new)} history item(s), request {before} had {len(old)}"
        if _canonical(item) != _canonical(new[i]):
            path, was, now = _difference(item, new[i], "")
            return f"history item {i} changed at {path}: {was} → {now}"
    return None


def _difference(old: Any, new: Any, path: str) -> tuple[str, str, str]:
    """The first place two JSON values differ, and both values there."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            here = f"{path}.{key}" if path else key
            if key not in old:
                return here, "(absent)", quote.value(new[key])
            if key not in new:
                return here, quote.value(old[key]), "(absent)"
            if _canonical(old[key]) != _canonical(new[key]):
                return _difference(old[key], new[key], here)
        return f"{path or '(item)'} key order", _keys(old), _keys(new)
    if isinstance(old, list) and isinstance(new, list):
        for i, (a, b) in enumerate(zip(old, new, strict=False)):
            if _canonical(a) != _canonical(b):
                return _difference(a, b, f"{path}.{i}" if path else str(i))
        return path or "(item)", f"{len(old)} entries", f"{len(new)} entries"
    return path or "(item)", quote.value(old), quote.value(new)


def _keys(value: dict[str, Any]) -> str:
    return "[" + ", ".join(value) + "]"


# ---------------------------------------------------------------- truncated calls


@dataclass(frozen=True)
class _Suspect:
    call: ToolCall
    response: int
    severity: Severity
    why: str
    result: str


@BOOK.checks(TRUNCATED_CALL_NOT_RUN)
def truncated_call_not_run(transcript: Transcript, wire: object) -> list[Violation]:
    """A call from a truncated turn is answered with an error, or dropped, never run."""
    suspects: dict[str, _Suspect] = {}
    found: list[Violation] = []
    for exchange in transcript.exchanges:
        if exchange.view is not None:
            for item in placed(exchange.view.messages, exchange.view.where):
                block = item.block
                if not isinstance(block, ToolResult) or item.nested >= 0 or block.is_error:
                    continue
                suspect = suspects.get(block.call_id)
                if suspect is None or not carries(block, suspect.result):
                    continue
                del suspects[block.call_id]
                found.append(
                    TRUNCATED_CALL_NOT_RUN.violation(
                        f"tool call {suspect.call.id} ({suspect.call.name}) {suspect.why} in "
                        f"scripted response {suspect.response + 1}, yet {item.place} answers "
                        f"it with the tool's real result, as if it ran (the provider takes "
                        "it: the cost is a tool run the model never finished asking for)",
                        request=exchange.number,
                        at=item.at,
                        severity=suspect.severity,
                    )
                )
        if exchange.served is not None:
            suspects.update(_suspects(transcript, exchange.served))
    return found


def _suspects(transcript: Transcript, index: int) -> dict[str, _Suspect]:
    given = transcript.case.given
    response = given.responses[index]
    found: dict[str, _Suspect] = {}
    # A call with cut-off arguments marks its whole turn as cut, whatever the finish
    # claims: routers and parsers report `tool_calls` for truncated output (rule 33).
    cut = any(isinstance(b, ToolCall) and not b.complete for b in response.blocks)
    for block in response.blocks:
        tool = given.tool(block.name) if isinstance(block, ToolCall) else None
        if not isinstance(block, ToolCall) or tool is None:
            continue
        if not block.complete:
            result = given.result_of(block.id, tool).content
            found[block.id] = _Suspect(block, index, "must", "had cut-off arguments", result)
        elif response.stop in TRUNCATING_STOPS or cut:
            why = (
                f"came from a response that stopped with {response.stop}"
                if response.stop in TRUNCATING_STOPS
                else "came from a response whose other call was cut off"
            )
            result = given.result_of(block.id, tool).content
            found[block.id] = _Suspect(block, index, "should", why, result)
    return found
