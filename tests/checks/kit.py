"""Hand-built cases, request views and transcripts for the tests of the checks.

Wire-agnostic on purpose: a tiny fake wire, neutral blocks, and an ideal client
(``ideal_views``) that replays every scripted response the way the rules demand, so a
test can start from a transcript that holds and break exactly one thing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from conformance._cases.schema import Case
from conformance._transcript import Exchange, Transcript
from conformance.errors import RequestParseError
from conformance.http import HttpRequest, HttpResponse
from conformance.verdict import Violation
from conformance.vocabulary import (
    TRUNCATING_STOPS,
    Block,
    ContentBlock,
    Message,
    Reasoning,
    Role,
    ScriptedResponse,
    Stop,
    Text,
    ToolCall,
    ToolResult,
)
from conformance.wires._saved_history import STREAM_DIRECTIVES
from conformance.wires.context import RequestView, ValidationContext
from conformance.wires.hints import LedgerHints
from conformance.wires.roles import Realism, Wire

RESULT = "file contents"
TRUNCATED_RESULT = "not run: the call was truncated"


#: The hints of a wire that changes none of the defaults.
DEFAULT_HINTS = LedgerHints()


@dataclass(frozen=True)
class HintsOnly:
    """The ledger's test double: a wire's hints and nothing else, all the ledger reads."""

    hints: LedgerHints = DEFAULT_HINTS


#: Like Gemini: a signature on visible text is owed only as a ``should``.
SOFT_TEXT = HintsOnly(LedgerHints(strengths={"text": "should"}))


def _parse_nothing(request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
    raise RequestParseError("the fake wire parses nothing")


def _read_nothing(body: bytes, streaming: bool, dialect: str | None = None) -> ScriptedResponse:
    raise NotImplementedError("the fake wire reads no responses")


def _messages(view: RequestView) -> list[Any]:
    items = view.raw.get("messages")
    return list(items) if isinstance(items, list) else []


def _anything(request: HttpRequest) -> bool:
    return True


def fake_wire(
    hints: LedgerHints = DEFAULT_HINTS,
    name: str = "fake",
    serves: Callable[[HttpRequest], bool] = _anything,
) -> Wire:
    """A whole wire, for what takes one (every judge at once): nothing renders or parses;
    it serves every request, and its history items are the body's ``messages``."""
    return Wire(
        name=name,
        rules=(),
        serves=serves,
        endpoint=lambda model, stream: "/fake",
        wants_stream=lambda request, view: False,
        parse=_parse_nothing,
        validate=lambda view, context: [],
        render=lambda response, context: HttpResponse(200, b"{}"),
        render_error=lambda violation: HttpResponse(400, violation.message.encode()),
        render_history=lambda messages, dialect: {"messages": []},
        read=_read_nothing,
        history_items=_messages,
        hints=hints,
        realism=Realism(response=lambda response, dialect: [], block=lambda block, spot: []),
    )


# ---------------------------------------------------------------- blocks


def think(text: str, signature: str | None = None, **extra: Any) -> Reasoning:
    return Reasoning(text=text, signature=signature, **extra)


def text(value: str, **extra: Any) -> Text:
    return Text(text=value, **extra)


def call(call_id: str, arguments: dict[str, Any] | str | None = None) -> ToolCall:
    args = {"path": f"{call_id}.txt"} if arguments is None else arguments
    return ToolCall(id=call_id, name="read_file", arguments=args)


def result(call_id: str, content: Any = RESULT, is_error: bool = False) -> ToolResult:
    return ToolResult(call_id=call_id, content=content, is_error=is_error)


def message(role: Role, *blocks: Block) -> Message:
    return Message(role=role, blocks=blocks)


def user(prompt: str) -> Message:
    return message("user", text(prompt))


def respond(stop: Stop, *blocks: ContentBlock) -> ScriptedResponse:
    return ScriptedResponse(stop=stop, blocks=blocks)


# ---------------------------------------------------------------- cases


def make_case(
    *turns: Sequence[ScriptedResponse],
    history: Sequence[Message] = (),
    expect: Sequence[dict[str, Any]] = ({"requests": 1},),
) -> Case:
    """A case with one ``read_file`` tool, a prompt per turn, and the given script."""
    return Case.model_validate(
        {
            "id": "checks-test",
            "title": "A case built by the tests of the checks",
            "provenance": [{"seed": 25}],
            "features": ["opaque-ledger"],
            "wires": {"fake": "the fake wire of the tests of the checks"},
            "given": {
                "tools": [{"name": "read_file", "result": RESULT}],
                "history": list(history),
                "turns": [
                    {"user": prompt(t), "responses": list(responses)}
                    for t, responses in enumerate(turns)
                ],
            },
            "expect": list(expect),
        }
    )


def prompt(turn: int) -> str:
    return f"prompt {turn + 1}"


# ---------------------------------------------------------------- requests


def view(*messages: Message, raw: dict[str, Any] | None = None) -> RequestView:
    """A request view with Anthropic-style locations and a raw body made of the messages."""
    locations = tuple(
        (f"messages.{i}", tuple(f"messages.{i}.content.{j}" for j in range(len(m.blocks))))
        for i, m in enumerate(messages)
    )
    body = raw if raw is not None else {"messages": [_raw(m) for m in messages]}
    return RequestView(wire="fake", messages=messages, locations=locations, raw=body)


def _raw(item: Message) -> dict[str, Any]:
    dumped: dict[str, Any] = item.model_dump(mode="json", exclude_none=True)
    return dumped


def replayed(block: ContentBlock) -> ContentBlock:
    """A scripted block as a request carries it: without stream directives."""
    fields = type(block).model_fields
    return block.model_copy(
        update={name: fields[name].default for name in STREAM_DIRECTIVES if name in fields}
    )


def ideal_views(case: Case) -> list[RequestView]:
    """Every request a rule-abiding client sends for ``case``, one per scripted response:
    the saved history without foreign tokens or reasoning in user input, each response
    replayed verbatim, every call answered (with an error when truncated)."""
    history = [_sendable(m) for m in case.given.history]
    views: list[RequestView] = []
    for t, turn in enumerate(case.given.turns):
        history.append(user(prompt(t)))
        for response in turn.responses:
            views.append(view(*history))
            history.append(message("assistant", *(replayed(b) for b in response.blocks)))
            calls = [b for b in response.blocks if isinstance(b, ToolCall)]
            if calls:
                cut = response.stop in TRUNCATING_STOPS or any(not c.complete for c in calls)
                history.append(message("tool", *(_answer(c, cut) for c in calls)))
    return views


def _sendable(saved: Message) -> Message:
    def keep(block: Block) -> bool:
        if getattr(block, "origin", None) is not None:
            return False
        return saved.role == "assistant" or block.kind not in ("reasoning", "tool_call")

    return message(saved.role, *(b for b in saved.blocks if keep(b)))


def _answer(item: ToolCall, cut: bool) -> ToolResult:
    """A rule-abiding answer: no call of a cut turn runs (rule 33)."""
    if cut:
        return result(item.id, TRUNCATED_RESULT, is_error=True)
    return result(item.id)


def transcript(
    case: Case,
    views: Iterable[RequestView | None],
    served: Sequence[int | None] | None = None,
    violations: dict[int, Sequence[Violation]] | None = None,
) -> Transcript:
    """A transcript of ``views`` in order; by default request *k* got response *k-1*."""
    exchanges = []
    for i, item in enumerate(views):
        number = i + 1
        index = i if served is None else served[i]
        body = json.dumps(item.raw if item else "garbage").encode()
        exchanges.append(
            Exchange(
                number=number,
                request=HttpRequest("POST", "/v1/fake", body),
                view=item,
                response=HttpResponse(200 if index is not None else 400, b"{}"),
                served=index,
                violations=tuple((violations or {}).get(number, ())),
                problem=None if item else "not JSON",
            )
        )
    return Transcript(case=case, wire="fake", dialect=None, exchanges=exchanges)


def replace_message(item: RequestView, index: int, *blocks: Block) -> RequestView:
    """``item`` with message ``index`` holding ``blocks`` instead (same role)."""
    messages = list(item.messages)
    messages[index] = message(messages[index].role, *blocks)
    return view(*messages)


def ids(violations: Iterable[Violation]) -> list[str]:
    return [v.check for v in violations]
