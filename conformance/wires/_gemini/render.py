"""A scripted turn as the Gemini API sends it: ``data:`` chunks with ``alt=sse``, a JSON
array written element by element without it, or one JSON response from
``:generateContent``.  Ids and token counts are derived from the case, so the same turn
always gives the same bytes."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conformance.http import HttpResponse, json_response
from conformance.verdict import Violation
from conformance.vocabulary import (
    Chunks,
    ContentBlock,
    Media,
    Message,
    Reasoning,
    ScriptedResponse,
    Text,
    ToolCall,
)
from conformance.wires import _values as values
from conformance.wires._faults import FaultAnswer, FaultTable, render_fault
from conformance.wires._gemini._errors import INTERNAL_ERROR, error_response
from conformance.wires._gemini._history import history_contents
from conformance.wires._gemini._stops import CUT_STOPS, FINISH_REASONS
from conformance.wires._gemini._view import GeminiRequestView
from conformance.wires._sse import format_event, fragments
from conformance.wires.context import RenderContext

#: What this wire's provider answers for each scripted fault.
_FAULTS: FaultTable = {
    "overloaded": FaultAnswer(
        503,
        "UNAVAILABLE",
        "The model is overloaded. Please try again later.",
        "Gemini API troubleshooting: 503 UNAVAILABLE",
    ),
    "rate-limit": FaultAnswer(
        429,
        "RESOURCE_EXHAUSTED",
        "Resource has been exhausted (e.g. check quota).",
        "Gemini API troubleshooting: 429 RESOURCE_EXHAUSTED",
    ),
    "server-error": FaultAnswer(
        500, "INTERNAL", INTERNAL_ERROR, "Gemini API troubleshooting: 500 INTERNAL"
    ),
}


def render(response: ScriptedResponse, context: RenderContext) -> HttpResponse:
    """The answer to the request in ``context``, streamed the way that request asked."""
    fault = response.fault
    if fault is not None and not (fault.mid_stream and context.stream):
        return render_fault(fault, "gemini", _FAULTS, render_error)
    identity = _Identity.of(response, context)
    if not context.stream:
        return _render_json(response, context, identity)
    chunks = _stream_chunks(response, context.model, identity)
    if fault is not None:  # the stream's last element is Google's error object
        answer = _FAULTS[fault.kind]
        status = answer.error_type
        chunks = [
            *chunks,
            {"error": {"code": answer.status, "message": answer.message, "status": status}},
        ]
    request = context.request
    if isinstance(request, GeminiRequestView) and not request.sse:
        frames = tuple(_json_array(chunks, closed=response.stop not in CUT_STOPS))
        content_type = "application/json; charset=UTF-8"
    else:
        frames = tuple(format_event(None, chunk) for chunk in chunks)
        content_type = "text/event-stream"
    return HttpResponse(200, b"".join(frames), (("content-type", content_type),), frames)


def _render_json(
    response: ScriptedResponse, context: RenderContext, identity: _Identity
) -> HttpResponse:
    """The whole response, one part per block.  A cut has no JSON form: the nearest
    thing a non-streaming client meets is the API's internal error (500)."""
    if response.stop in CUT_STOPS:
        return error_response(500, INTERNAL_ERROR)
    ids = response.gemini_call_ids
    parts = [p for block in response.blocks for p in _block_parts(block, False, ids)]
    finish = FINISH_REASONS[response.stop]
    return json_response(200, _response(parts, finish, context.model, identity))


def _pieces(text: str, sizes: Chunks | None) -> list[str]:
    """A block's text parts: one per chunk, and one empty part for an empty text."""
    return fragments(text, sizes) or [""]


def _block_parts(block: ContentBlock, stream: bool, call_ids: bool) -> list[dict[str, Any]]:
    """The parts a block is sent as; the block's signature rides on the last of them.

    A redacted episode has no Gemini form, and a call with unparsed arguments is never
    sent (a MAX_TOKENS cut drops it): both render as nothing.  A call carries its ``id``
    only when the response asks for it (``gemini_call_ids``): real Gemini leaves it out.
    """
    if isinstance(block, Reasoning | Text):
        if isinstance(block, Reasoning) and block.redacted:
            return []
        thought = {"thought": True} if isinstance(block, Reasoning) else {}
        sizes = block.chunks if stream else None
        parts: list[dict[str, Any]] = [{"text": p, **thought} for p in _pieces(block.text, sizes)]
        if block.signature is not None:
            parts[-1]["thoughtSignature"] = block.signature
        return parts
    if isinstance(block, ToolCall):
        if not isinstance(block.arguments, dict):
            return []
        call = {"name": block.name, "args": block.arguments}
        if call_ids:
            call["id"] = block.id
        signed = {} if block.signature is None else {"thoughtSignature": block.signature}
        return [{"functionCall": call, **signed}]
    if isinstance(block, Media):
        return [{"inlineData": {"mimeType": block.mime, "data": block.data}}]
    return []


def _token_size(blocks: Sequence[ContentBlock]) -> tuple[int, int]:
    """Plausible, deterministic (candidates, thoughts) token counts: four characters a
    token; thoughts count only when the response has reasoning."""
    visible = thoughts = 0
    for block in blocks:
        if isinstance(block, Reasoning):
            thoughts += max(1, len(block.text) // 4)
        elif isinstance(block, Text):
            visible += len(block.text)
        elif isinstance(block, ToolCall):
            arguments = block.arguments
            visible += len(arguments if isinstance(arguments, str) else values.compact(arguments))
    return max(1, visible // 4), thoughts


@dataclass(frozen=True)
class _Identity:
    """The deterministic id and usage of one rendered response."""

    response_id: str
    usage: dict[str, int]

    @classmethod
    def of(cls, response: ScriptedResponse, context: RenderContext) -> _Identity:
        seed = values.digest(context.case_id, context.index)
        raw = bytes.fromhex(values.digest("response", seed))[:16]
        prompt = 100 + int(values.digest("input", seed)[:6], 16) % 900
        candidates, thoughts = _token_size(response.blocks)
        usage = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": candidates,
            "totalTokenCount": prompt + candidates + thoughts,
        }
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        return cls(base64.urlsafe_b64encode(raw).decode().rstrip("="), usage)


def _response(
    parts: list[dict[str, Any]], finish: str | None, model: str, identity: _Identity
) -> dict[str, Any]:
    """One GenerateContentResponse.  Without parts the content is ``{"role": "model"}``:
    the API leaves an empty repeated field out (rule 48's zero-part finish)."""
    content: dict[str, Any] = {"parts": parts, "role": "model"} if parts else {"role": "model"}
    candidate: dict[str, Any] = {"content": content}
    if finish is not None:
        candidate["finishReason"] = finish
    candidate["index"] = 0
    return {
        "candidates": [candidate],
        "usageMetadata": identity.usage,
        "modelVersion": model,
        "responseId": identity.response_id,
    }


def _stream_chunks(
    response: ScriptedResponse, model: str, identity: _Identity
) -> list[dict[str, Any]]:
    """One chunk per part; the last chunk carries the finishReason (alone when there is
    no part at all); a cut stream has no finishReason anywhere."""
    ids = response.gemini_call_ids
    parts = [p for block in response.blocks for p in _block_parts(block, True, ids)]
    finish = None if response.stop in CUT_STOPS else FINISH_REASONS[response.stop]
    chunks = [_response([part], None, model, identity) for part in parts]
    if finish is not None:
        chunks[-1:] = [_response(parts[-1:], finish, model, identity)]
    return chunks


def _json_array(chunks: Sequence[dict[str, Any]], closed: bool) -> list[bytes]:
    """A stream without ``alt=sse``: one JSON array written element by element; a cut
    stream never writes the closing bracket."""
    pieces = [("[" if k == 0 else ",\r\n") + values.compact(c) for k, c in enumerate(chunks)]
    pieces = pieces or ["["]
    if closed:
        pieces.append("]")
    return [p.encode() for p in pieces]


def render_error(violation: Violation) -> HttpResponse:
    """Google's error body for a broken rule, with the rule's status."""
    return error_response(violation.broken.status, violation.message)


def render_history(messages: Sequence[Message], dialect: str | None) -> dict[str, Any]:
    """A saved conversation as the request body fields that hold it (``contents``): what a
    client storing the wire's own JSON replays, and ``parse`` reads back."""
    return history_contents(messages)
