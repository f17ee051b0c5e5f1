"""A recording read back into the case language: the conversation a target is told
about (prompts, tools, options, a saved history), the provider's answers as scripted
responses (transient errors as faults), and a provenance naming the recording.

Replay plays this case's conversation but serves the recorded bytes
(``conformance._recording.replay``); ``wire-conformance recording to-case`` writes it as a
case file of its own, which plays the same answers through the wire's renderer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from conformance._cases.schema import Case, Turn, may_continue
from conformance._recording.file_format import RecordedExchange, Recording
from conformance._recording.fragments import with_chunks
from conformance._recording.noise import with_noise
from conformance.errors import (
    RequestParseError,
    ResponseReadError,
    ToCaseError,
    Unmodelled,
    Unscriptable,
)
from conformance.vocabulary import (
    CONTINUING_STOPS,
    Fault,
    FaultKind,
    Media,
    Message,
    Options,
    ScriptedResponse,
    Text,
    ToolCall,
    ToolResult,
)
from conformance.wires._registry import get_wire, split_column
from conformance.wires._sse import looks_streamed
from conformance.wires.context import RequestView, ValidationContext

#: Transient error statuses, as the fault a case scripts for them.
FAULT_STATUS: Mapping[int, FaultKind] = {
    529: "overloaded",
    503: "overloaded",
    429: "rate-limit",
    500: "server-error",
    502: "server-error",
    504: "server-error",
}
_MID_STREAM_FAULT: tuple[tuple[str, FaultKind], ...] = (
    ("overload", "overloaded"),
    ("unavailable", "overloaded"),
    ("rate", "rate-limit"),
    ("quota", "rate-limit"),
)


@dataclass(frozen=True)
class Played:
    """One exchange as the case plays it: the request's view and the scripted answer,
    or ``None`` for a request the provider rejected (its own rules answer it again)."""

    exchange: RecordedExchange
    view: RequestView
    response: ScriptedResponse | None


def _view(
    exchange: RecordedExchange, column: str, at: str, served: tuple[ScriptedResponse, ...]
) -> RequestView:
    """The recorded request parsed as the provider parses it, knowing the answers
    ``served`` before it: the dialect decides where a router's reasoning fields are read,
    and a call the provider sent without an id (Gemini's, mostly) is the served call the
    client replays, whatever id the client gave it."""
    wire, dialect = split_column(column)
    context = ValidationContext(
        number=exchange.number, options=Options(), served=served, dialect=dialect
    )
    try:
        return get_wire(wire).parse(exchange.request.http(), context)
    except RequestParseError as error:
        where = f"{at}.request" + (f" ({error.at})" if error.at else "")
        raise ToCaseError(where, f"the request does not parse as {wire}: {error.message}") from None


def _cut_before_error(body: bytes) -> bytes:
    """The stream up to (not including) the first error event."""
    events = re.split(rb"(?<=\n\n)", body.replace(b"\r\n", b"\n"))
    kept: list[bytes] = []
    for event in events:
        if re.search(rb'^event: *error|"type": *"error"|^data: *\{"error"', event, re.M):
            break
        kept.append(event)
    return b"".join(kept)


def _mid_stream_kind(message: str) -> FaultKind:
    lowered = message.lower()
    return next((kind for word, kind in _MID_STREAM_FAULT if word in lowered), "server-error")


def scripted_answer(exchange: RecordedExchange, column: str, at: str) -> ScriptedResponse | None:
    wire, dialect = split_column(column)
    response = exchange.response
    kind = FAULT_STATUS.get(response.status)
    if kind is not None or response.ended == "unreachable":
        after = next((v for k, v in response.headers if k.lower() == "retry-after"), None)
        retry = int(after) if after is not None and after.isdigit() and int(after) <= 60 else None
        return ScriptedResponse(
            stop="no_finish", fault=Fault(kind=kind or "server-error", retry_after=retry)
        )
    if response.status >= 400:
        return None  # the provider rejected the request: its rule answers it again
    body = response.body
    streaming = looks_streamed(body)
    reader = get_wire(wire)
    try:
        read = reader.read(body, streaming, dialect)
    except Unmodelled as error:
        raise Unscriptable(f"{at}.response ({error.at})", error.message) from None
    except ResponseReadError as error:
        if not (streaming and error.message.startswith("provider error")):
            raise ToCaseError(f"{at}.response ({error.at})", error.message) from None
        fault = Fault(kind=_mid_stream_kind(error.message), mid_stream=True)
        before = _cut_before_error(body)
        try:
            read = reader.read(before, True, dialect)
        except ResponseReadError:
            return ScriptedResponse(stop="no_finish", fault=fault)
        return ScriptedResponse(stop="no_finish", blocks=read.blocks, fault=fault)
    return with_noise(with_chunks(read, body), wire, body) if streaming else read


def conversation_exchanges(recording: Recording) -> list[tuple[int, RecordedExchange]]:
    """The exchanges that are turns of the conversation, each with its index in the
    file: requests to the wire's conversation endpoints.  A client's other calls on the
    same host (token counting, file uploads, fetching a stored response) are no turn
    of it, and a real recording holds them beside the turns."""
    wire = get_wire(split_column(recording.metadata.column)[0])
    return [(i, e) for i, e in enumerate(recording.exchanges) if wire.serves(e.request.http())]


def settled_at(recording: Recording, index: int) -> int:
    """The index of the exchange whose answer holds the outcome of exchange ``index``'s
    turn: ``index`` itself, or the later one the wire says settles it (a Responses
    background response, polled until it ends).  An answer that never settled within
    the recording is no turn."""
    exchange = recording.exchanges[index]
    if not 200 <= exchange.response.status < 300:
        return index
    wire = get_wire(split_column(recording.metadata.column)[0])
    later = recording.exchanges[index + 1 :]
    at = wire.settle(exchange.response.body, [(e.request.http(), e.response.body) for e in later])
    if at is None:
        return index
    if at < 0:
        raise Unscriptable(
            f"exchanges.{index}.response",
            "the answer is a background response still running when the recording ended: "
            "no poll shows its outcome, so the provider answered no turn",
        )
    return index + 1 + at


def settled(recording: Recording, index: int) -> RecordedExchange:
    """Exchange ``index`` with the answer that holds its turn's outcome (``settled_at``)."""
    exchange = recording.exchanges[index]
    at = settled_at(recording, index)
    if at == index:
        return exchange
    return exchange.model_copy(update={"response": recording.exchanges[at].response})


def played(recording: Recording) -> list[Played]:
    """Every conversation exchange with its parsed request and its scripted answer
    (a polled answer's outcome, ``settled``)."""
    column = recording.metadata.column
    out: list[Played] = []
    turns = conversation_exchanges(recording)
    if not turns:
        raise ToCaseError(
            "exchanges",
            "no request to a conversation endpoint of the wire: nothing to replay",
        )
    served: list[ScriptedResponse] = []
    for index, _ in turns:
        exchange = settled(recording, index)
        at = f"exchanges.{index}"
        view = _view(exchange, column, at, tuple(served))
        answer = scripted_answer(exchange, column, at)
        out.append(Played(exchange, view, answer))
        served += [answer] if answer is not None else []
    return out


def _prompt(view: RequestView, at: str) -> str:
    if not view.messages or view.messages[-1].role != "user":
        raise Unscriptable(
            at, "a conversation starts with a request whose last message is the user's"
        )
    blocks = view.messages[-1].blocks
    texts = [b.text for b in blocks if isinstance(b, Text)]
    if not "".join(texts).strip() and any(isinstance(b, Media) for b in blocks):
        raise Unscriptable(
            at, "the prompt is media with no text, and a case's prompt is text: no case scripts it"
        )
    return "\n".join(texts)


def _starts_turn(view: RequestView, before: Played | None) -> bool:
    """A new user prompt: the last message is the user's, and it is not the retry of a
    faulted request (which repeats the same messages)."""
    if before is None:
        return True
    if not view.messages or view.messages[-1].role != "user":
        return False
    retry = before.response is None or before.response.fault is not None
    return not (retry and len(before.view.messages) == len(view.messages))


def _data(model: BaseModel) -> Any:
    """A model as the case file writes it: defaults left out, every ``kind`` kept (it
    is the discriminator, and a default)."""
    data = model.model_dump(mode="json", exclude_defaults=True)
    return _with_kinds(model, data)


def _with_kinds(model: Any, data: Any) -> Any:
    if isinstance(model, BaseModel) and isinstance(data, dict):
        if "kind" in type(model).model_fields:
            data = {"kind": getattr(model, "kind"), **data}  # noqa: B009
        return {key: _with_kinds(getattr(model, key), value) for key, value in data.items()}
    if isinstance(model, tuple | list) and isinstance(data, list):
        return [_with_kinds(m, d) for m, d in zip(model, data, strict=True)]
    return data


def _turns(plays: list[Played]) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    ends: list[ScriptedResponse | None] = []
    before: Played | None = None
    for index, play in enumerate(plays):
        if _starts_turn(play.view, before):
            turns.append(
                {"user": _prompt(play.view, f"exchanges.{index}.request"), "responses": []}
            )
            ends.append(None)
        if play.response is not None:
            turns[-1]["responses"].append(_data(play.response))
            ends[-1] = play.response
        before = play
    answered = [t for t in turns if t["responses"]]
    lasts = [end for end in ends if end is not None]
    if not answered:
        raise Unscriptable(
            "exchanges", "the provider answered no conversation request: no turn to replay"
        )
    for number, last in enumerate(lasts):
        _ends_where_a_case_can(last, f"turn {number + 1}")
    return answered


def _ends_where_a_case_can(last: ScriptedResponse, at: str) -> None:
    """A recorded turn the client ended where a case's target must go on (on a complete
    tool call, an output tool's say; after a transient error, with no retry recorded):
    the turn schema refuses it, and says why."""
    try:
        Turn(user="", responses=(last,))
    except ValidationError as error:
        said = error.errors()[0]["msg"].removeprefix("Value error, ")
        raise Unscriptable(at, f"the client ended its run there, and {said}") from None
    complete_call = any(isinstance(b, ToolCall) and b.complete for b in last.blocks)
    if last.fault is None and last.stop == "end" and complete_call:
        # A forced tool choice is answered with the call and finish_reason "stop": the
        # client reads the call as its output, where a case's target runs it.
        raise Unscriptable(
            at,
            "the client ended its run on a complete tool call that finished as a final answer "
            "(a forced tool choice's, or an output tool's), where a case's target runs the "
            "call and asks again",
        )


def _blocks(messages: Iterable[Message]) -> Iterator[Any]:
    for message in messages:
        yield from message.blocks


def _tool_results(plays: list[Played]) -> dict[str, str]:
    """Each tool's first recorded result, by tool name: only the result of a call that
    ran (from a response that went on with the tool loop, not an error answer).  The
    answer to a call of a cut turn is the client's error text, never the tool's result:
    taking it would make a correct target look as if it ran a cut call."""
    names: dict[str, str] = {}
    results: dict[str, str] = {}
    for play in plays:
        response = play.response
        if response is not None and response.stop in CONTINUING_STOPS:
            for block in response.blocks:
                if isinstance(block, ToolCall) and block.complete:
                    names[block.id] = block.name
        for block in _blocks(play.view.messages):
            if isinstance(block, ToolResult) and not block.is_error and block.call_id in names:
                content = block.content
                text = (
                    content
                    if isinstance(content, str)
                    else "\n".join(b.text for b in content if isinstance(b, Text))
                )
                results.setdefault(names[block.call_id], text)
    return results


def _declarations(raw: Any, names: set[str]) -> Iterator[dict[str, Any]]:
    """Every tool declaration in a request body, whatever the wire's nesting."""
    if isinstance(raw, dict):
        name = raw.get("name")
        if isinstance(name, str) and name in names:
            yield raw
            return
        for value in raw.values():
            yield from _declarations(value, names)
    elif isinstance(raw, list):
        for item in raw:
            yield from _declarations(item, names)


def _tools(
    views: Iterable[RequestView], results: Mapping[str, str], schema_keys: Sequence[str]
) -> list[dict[str, Any]]:
    """Every tool the conversation's requests offered, in the order first offered (a
    client may offer a tool later, once a search found it), each as first declared, its
    schema under the first of the wire's ``schema_keys`` it has."""
    declared: dict[str, dict[str, Any]] = {}
    names: list[str] = []
    for view in views:
        for found in _declarations(view.raw.get("tools", []), set(view.tools)):
            declared.setdefault(found["name"], found)
        names.extend(n for n in view.tools if n not in names)
    tools: list[dict[str, Any]] = []
    for name in names:
        found = declared.get(name, {})
        schema = next((found[k] for k in schema_keys if k in found), {"type": "object"})
        tools.append(
            {
                "name": name,
                "description": str(found.get("description", "")),
                "parameters": schema if isinstance(schema, dict) else {"type": "object"},
                "result": results.get(name, f"(no result of {name} was recorded)"),
            }
        )
    return tools


def options_of(view: RequestView, column: str, model: str | None = None) -> dict[str, Any]:
    """The case options a conversation's first request says (``model``: the one to name
    when the request names none), with those only its wire has (``Wire.case_options``)."""
    options: dict[str, Any] = {
        "model": view.model or model or "model-under-test",
        "max_tokens": view.max_tokens or 4096,
        "thinking": view.thinking.model_dump(mode="json", exclude_none=True),
    }
    options.update(get_wire(split_column(column)[0]).case_options(view))
    return options


def _features(plays: list[Played]) -> list[str]:
    responses = [p.response for p in plays if p.response is not None]
    features = ["opaque-ledger"]
    if any(isinstance(b, ToolCall) for r in responses for b in r.blocks):
        features.append("tool-pairing")
    if any(r.fault is not None for r in responses):
        features.append("faults")
    if any(r.stop in ("max_tokens", "no_finish") and r.fault is None for r in responses):
        features.append("truncation")
    return features


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def case_id(path: Path, column: str) -> str:
    """``recorded-<column>-<file name>``, slugged: the recorder names files by time and
    number under each wire, so the column keeps two wires' files apart."""
    return f"recorded-{_slug(column)}-{_slug(path.stem) or 'recording'}"


def case_data(recording: Recording, path: Path) -> dict[str, Any]:
    """The case, as the mapping a case file holds."""
    plays = played(recording)
    if not plays:
        raise ToCaseError("exchanges", "no exchange is a turn of a conversation")
    first = plays[0].view
    meta = recording.metadata
    kind = "synthetic" if meta.synthetic else "recorded"
    given: dict[str, Any] = {
        "options": options_of(first, meta.column, meta.model),
        "turns": _turns(plays),
    }
    if first.system:
        given["system"] = first.system
    keys = get_wire(meta.wire).tool_schema_keys
    tools = _tools([p.view for p in plays], _tool_results(plays), keys)
    if tools:
        given["tools"] = tools
    if len(first.messages) > 1:
        given["history"] = [_data(m) for m in first.messages[:-1]]
    requires = ["xml-recovery"] if _asked_again_after_a_final_answer(given["turns"]) else []
    return {
        "id": case_id(path, meta.column),
        "title": f"The {kind} {meta.column} conversation {path.name}, replayed",
        "provenance": [{"recording": path.name, "digest": recording.digest}],
        "features": _features(plays),
        "wires": {
            meta.column: f"recorded from the provider's own answers ({kind}, {meta.source}, "
            f"{meta.recorded_at})"
        },
        "notes": f"Made by `wire-conformance recording to-case` from {path.name}.",
        **({"requires": requires} if requires else {}),
        "given": given,
        "expect": [
            {
                "in": {"request": "each"},
                "no_message": "empty",
                "severity": "should",
                "evidence": "design",
                "why": "the recording's verdict rests on the invariants, the ledger and the "
                "wire's rules; this names the one message-level promise every turn keeps "
                "(a design one: the wire's rules and invariant/no-empty-message say where the "
                "provider refuses an empty message, and a real conversation may hold one "
                "the provider took)",
            }
        ],
    }


def _asked_again_after_a_final_answer(turns: list[dict[str, Any]]) -> bool:
    """Whether the client sent another request within a turn after a response that ended
    it with no structured call (and no fault to retry): it recovered a tool call written
    in the text (rule 50), so only a target that declares ``xml-recovery`` can hold the
    conversation, and one that ends its turn there fails (the lint's same signal)."""
    for number, turn in enumerate(turns, 1):
        responses = turn.get("responses") or []
        for response, after in pairwise(responses):
            retried = "fault" in response or after.get("if_retried") or after.get("if_continued")
            if retried or response.get("stop") in CONTINUING_STOPS:
                continue
            if not any(_MARKUP.search(_text_of(block)) for block in response.get("blocks") or ()):
                raise Unscriptable(
                    f"turn {number}",
                    "the client asked again after a final answer that holds no tool-call "
                    "markup the suite recovers: it read a text protocol of its own (a ReAct "
                    "'Action:' line, say) or re-asked with its own text, which no case scripts",
                )
            return True
    return False


#: The tool-call markup of rule 50's dialects, as a model writes it in its text.
_MARKUP = re.compile(r"<(?:invoke|function_calls|tool_call|function[=\s>])")


def _text_of(block: object) -> str:
    text = block.get("text") if isinstance(block, dict) else None
    return text if isinstance(text, str) else ""


#: The answer scripted for a target that goes on where the recorded client ended a turn.
CONTINUATION: dict[str, Any] = {
    "if_continued": True,
    "stop": "end",
    "blocks": [{"kind": "text", "text": "Asked again, here is the answer in full."}],
}


def _script_continuations(turns: list[dict[str, Any]]) -> bool:
    """Append ``CONTINUATION`` to each turn the recorded client ended on a response it
    could have gone on from (a cut call, a truncated stop, an empty response), as the
    lint asks of every case file; whether any was added. Replay keeps the recorded
    turns: it serves recorded bytes by index."""
    added = False
    for turn in turns:
        last = turn["responses"][-1]
        if not last.get("if_continued") and may_continue(ScriptedResponse.model_validate(last)):
            turn["responses"].append(dict(CONTINUATION))
            added = True
    return added


def recording_case(recording: Recording, path: Path) -> Case:
    """The recording as a validated case, or a ``ToCaseError`` naming what does not fit."""
    return _validated(case_data(recording, path))


def _validated(data: dict[str, Any]) -> Case:
    try:
        return Case.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        at = ".".join(str(p) for p in first["loc"])
        raise ToCaseError(f"case {at}", first["msg"]) from None


def case_yaml(recording: Recording, path: Path) -> str:
    """The case file's text (the conversation validated first, then the file as written)."""
    import yaml

    data = case_data(recording, path)
    _validated(data)
    if _script_continuations(data["given"]["turns"]):
        data["notes"] += (
            " A recorded turn ends on a response a target may go on from; the file scripts"
            " the answer a target that asks again gets, which the recording does not hold."
        )
        _validated(data)
    header = f"# Made from the recording {path.name} by `wire-conformance recording to-case`.\n"
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
