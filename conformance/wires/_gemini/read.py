"""A recorded Gemini answer read back into a scripted turn: SSE ``data:`` chunks, the
JSON array a stream without ``alt=sse`` gets, or one ``:generateContent`` response.
Parts are read as the request side reads a model part."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from conformance.errors import ResponseReadError
from conformance.vocabulary import ContentBlock, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires import _values as values
from conformance.wires._gemini._fields import as_object, get, nonempty_text
from conformance.wires._gemini._parts import CallIds, content_block
from conformance.wires._gemini._stops import FINISH_REASONS
from conformance.wires._reading import neutral_response, read_json_body, required, response_text
from conformance.wires._sse import read_events


def read(body: bytes, streaming: bool, dialect: str | None = None) -> ScriptedResponse:
    """A stream is SSE ``data:`` chunks, or the JSON array a request without
    ``alt=sse`` gets; the answer of ``:generateContent`` is one chunk."""
    if not streaming:
        return _read_chunks([("body", read_json_body(body))], stream=False)
    array = body.lstrip().startswith(b"[")
    return _read_chunks(_array_chunks(body) if array else _sse_chunks(body), stream=True)


#: ``finishReason`` back to the neutral stop: the render table inverted (``STOP`` reads as
#: ``end``, and as ``tool_calls`` when the answer holds calls), plus the other
#: content-policy reasons of the FinishReason enum, which end an answer as SAFETY does.
#: The rest (OTHER, MALFORMED_FUNCTION_CALL, …) have no neutral stop: a read error.
_READ_FINISH: dict[str | int, str] = {
    **{reason: stop for stop, reason in reversed(FINISH_REASONS.items())},
    **dict.fromkeys(
        ("RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"), "refusal"
    ),
    # The enum's numbers, as an answer asked for with ``$alt=json;enum-encoding=int``
    # spells it (Google's own Python clients ask so: open-telemetry's vertexai cassettes).
    # Only the numbers the Gemini API and Vertex AI share: STOP, MAX_TOKENS, SAFETY and
    # RECITATION.
    1: "end",
    2: "max_tokens",
    3: "refusal",
    4: "refusal",
}


def _read_part(part: object, at: str, place: str) -> ContentBlock | None:
    """One part of the answer in neutral form, as the request side reads a model part; a
    call the API sent without an id gets one from its ``place`` (the answer and the
    part's position in it).  Parts with no neutral form (code execution, file data,
    kinds added later) give None."""
    if not isinstance(part, dict):
        raise ResponseReadError("a part is not an object", at)
    call = get(part, "functionCall")
    if call is not None:
        if not isinstance(call, dict):
            raise ResponseReadError("`functionCall` is not an object", at)
        required(call, "name", str, at)
        if not isinstance(get(call, "args") or {}, dict):
            raise ResponseReadError("`args` is not an object", at)
    return content_block(part, place, CallIds([]))


def _merged(blocks: list[ContentBlock], block: ContentBlock) -> None:
    """A streamed part joins the open block of its kind: streams split a block's text
    over parts and put its signature on the last one (``render.py``).  A signed block is
    closed, and an empty-text part stands alone: the signature carrier of rule 43."""
    last = blocks[-1] if blocks else None
    if (
        isinstance(last, Reasoning | Text)
        and type(block) is type(last)
        and isinstance(block, Reasoning | Text)
        and last.signature is None
        and last.text
        and block.text
    ):
        update = {"text": last.text + block.text, "signature": block.signature}
        blocks[-1] = last.model_copy(update=update)
    else:
        blocks.append(block)


def _provider_error(error: object, at: str) -> ResponseReadError:
    """Google's error object (``{code, message, status}``) as a read error."""
    error = error if isinstance(error, dict) else {"message": error}
    code = error.get("status") or error.get("code")
    return ResponseReadError(f"provider error {code}: {error.get('message')}", at)


def _array_chunks(body: bytes) -> Iterator[tuple[str, dict[str, Any]]]:
    """A stream without ``alt=sse``: one JSON array written element by element.  A cut
    one lacks its closing bracket and may end inside an element, which is dropped the way
    an SSE event cut before its blank line is."""
    text = response_text(body)
    decoder = json.JSONDecoder()
    position, number = text.index("[") + 1, 0
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        if position >= len(text) or text[position] == "]":
            return
        number += 1
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            if _cut_at(text, error):
                return
            at = f"element {number}, byte {len(text[: error.pos].encode())}"
            raise ResponseReadError(f"the element is not JSON: {error.msg}", at) from None
        if not isinstance(value, dict):
            raise ResponseReadError("the element is not a JSON object", f"element {number}")
        yield f"element {number}", value


def _cut_at(text: str, error: json.JSONDecodeError) -> bool:
    """Whether JSON stopped making sense only because the text ended: inside a string,
    between tokens, or inside a bare word (``tru``, ``12.``) running to the end."""
    rest = text[error.pos :].rstrip()
    return error.msg.startswith("Unterminated") or re.fullmatch(r"[\w.+-]*", rest) is not None


def _sse_chunks(body: bytes) -> Iterator[tuple[str, dict[str, Any]]]:
    for event in read_events(body):
        yield event.at(), event.object()


def _read_chunks(chunks: Iterable[tuple[str, dict[str, Any]]], stream: bool) -> ScriptedResponse:
    """Candidate 0 of each GenerateContentResponse, parts in order (merged into blocks
    when streamed; a call without ``id`` named from ``_answer_key`` and its position, and
    the answer marked ``gemini_call_ids`` when its calls came with theirs), the stop from
    its finishReason; a stream without one was cut (``no_finish``, rule 48; the
    FinishReason reference: empty means the model has not stopped).  Chunks without a
    candidate (usage only) are skipped; a prompt blocked before any candidate is a
    refusal.  Unknown fields and part kinds are skipped, as the API's JSON mapping lets a
    client do."""
    blocks: list[ContentBlock] = []
    stop, at, places, named = "no_finish", "body", 0, False
    answer: str | None = None
    for at, chunk in chunks:
        if "error" in chunk:
            raise _provider_error(chunk["error"], at)
        candidates = get(chunk, "candidates")
        if candidates is None:
            blocked = as_object(get(chunk, "promptFeedback")).get("blockReason")
            stop = "refusal" if blocked is not None else stop
            continue
        if not isinstance(candidates, list):
            raise ResponseReadError("`candidates` is not an array", at)
        candidate = next(
            (c for c in candidates if isinstance(c, dict) and c.get("index", 0) == 0), None
        )
        if candidate is None:
            continue
        parts = as_object(candidate.get("content")).get("parts", [])
        if not isinstance(parts, list):
            raise ResponseReadError("`content.parts` is not an array", at)
        answer = answer or _answer_key(chunk)
        for part in parts:
            block = _read_part(part, at, f"answer {answer}, parts[{places}]")
            places += 1
            named = named or _named_call(part)
            if block is not None and stream:
                _merged(blocks, block)
            elif block is not None:
                blocks.append(block)
        reason = get(candidate, "finishReason")
        if reason is not None:
            if (
                isinstance(reason, bool)
                or not isinstance(reason, str | int)
                or reason not in _READ_FINISH
            ):
                raise ResponseReadError(f"finishReason {reason!r} has no neutral stop", at)
            stop = _READ_FINISH[reason]
    if stop == "end" and any(isinstance(b, ToolCall) for b in blocks):
        stop = "tool_calls"
    response = neutral_response(stop, blocks, at)
    return response.model_copy(update={"gemini_call_ids": True}) if named else response


def _answer_key(chunk: dict[str, Any]) -> str:
    """What tells this answer from the others of a recording, for the ids of the calls
    the API sent without one (as it mostly does): its ``responseId`` and its first
    chunk's candidates, whatever the framing (SSE or a JSON array), so the same answer
    always names its calls alike and two answers never do."""
    candidates = values.compact(get(chunk, "candidates"))
    return values.digest("gemini-answer", get(chunk, "responseId"), candidates)[:16]


def _named_call(part: object) -> bool:
    """Whether ``part`` is a functionCall that came with its ``id``."""
    call = get(part, "functionCall") if isinstance(part, dict) else None
    return isinstance(call, dict) and nonempty_text(get(call, "id")) is not None
