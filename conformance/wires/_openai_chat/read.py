"""A recorded Chat response (SSE chunks or one JSON completion) read back into a
scripted response, reasoning read as the dialect's provider sends it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from conformance.errors import ResponseReadError, Unmodelled
from conformance.vocabulary import ContentBlock, Noise, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires import _values as values
from conformance.wires._openai_chat._details import streamed_episodes
from conformance.wires._openai_chat._dialects import GEMINI, OPENROUTER, REASONING_CONTENT
from conformance.wires._openai_chat._messages import (
    call_signature,
    content_parts,
    message_reasoning,
)
from conformance.wires._openai_chat._stops import READ_FINISH
from conformance.wires._reading import call_arguments, neutral_response, read_json_body, required
from conformance.wires._sse import StreamEvent, read_events


def read(body: bytes, streaming: bool, dialect: str | None = None) -> ScriptedResponse:
    """A stream or a completion, as ``streaming`` says the body is."""
    if streaming:
        return _read_stream(body, dialect)
    return _read_completion(body, dialect)


def _finish(reason: object, at: str) -> str:
    if not isinstance(reason, str) or reason not in READ_FINISH:
        raise ResponseReadError(f"unknown finish_reason {reason!r}", at)
    return READ_FINISH[reason]


def _provider_error(error: object, at: str) -> ResponseReadError:
    """An ``{"error": {...}}`` body or chunk: OpenAI's and OpenRouter's mid-stream error
    shape (OpenRouter's streaming doc: errors mid-generation arrive as data events with
    an ``error`` field)."""
    error = error if isinstance(error, dict) else {"message": error}
    code = error.get("code") or error.get("type")
    return ResponseReadError(f"provider error {code}: {error.get('message')}", at)


def _read_call(item: object, at: str, dialect: str | None) -> ToolCall:
    """One ``tool_calls`` entry of a completion message (on Gemini's endpoint, with the
    thought signature of its ``extra_content``)."""
    if not isinstance(item, dict):
        raise ResponseReadError("the tool call is not an object", at)
    if item.get("type") not in (None, "function"):
        raise Unmodelled(f"a {item.get('type')!r} tool call, which the suite does not model", at)
    function = required(item, "function", dict, at)
    raw = function.get("arguments", "")
    arguments = raw if isinstance(raw, dict) else call_arguments(values.text(raw), complete=True)
    name = required(function, "name", str, at)
    signature = call_signature(item) if dialect == GEMINI else None
    return ToolCall(
        id=required(item, "id", str, at), name=name, arguments=arguments, signature=signature
    )


def _choice(choices: list[Any]) -> dict[str, Any] | None:
    """Choice 0, the one a single-answer request gets (``index`` defaults to it)."""
    return next((c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), None)


@dataclass
class _Segment:
    """A run of deltas of one kind, in stream order: text, reasoning (DeepSeek's text or
    OpenRouter's details) or one tool call (its id, name and argument text)."""

    kind: Literal["text", "reasoning", "call"]
    text: str = ""
    details: list[dict[str, Any]] = field(default_factory=list)
    call: tuple[str, str] = ("", "")
    signature: str | None = None

    def blocks(self, dialect: str | None, finished: bool) -> list[ContentBlock]:
        if self.kind == "text":
            return [Text(text=self.text)]
        if self.kind == "call":
            arguments = call_arguments(self.text, complete=finished)
            call_id, name = self.call
            return [ToolCall(id=call_id, name=name, arguments=arguments, signature=self.signature)]
        if dialect == OPENROUTER:
            return list(streamed_episodes(self.details))
        return [Reasoning(text=self.text)]


@dataclass
class _Stream:
    """What a Chat stream has said so far: segments in order, the open call per
    ``tool_calls`` index, and the finish_reason once it comes."""

    dialect: str | None
    segments: list[_Segment] = field(default_factory=list)
    calls: dict[int, _Segment] = field(default_factory=dict)
    stop: str = "no_finish"

    def run(self, kind: Literal["text", "reasoning"]) -> _Segment:
        """The segment a delta of ``kind`` extends: the last one, or a new one."""
        if not self.segments or self.segments[-1].kind != kind:
            self.segments.append(_Segment(kind))
        return self.segments[-1]

    def delta(self, delta: dict[str, Any], at: str) -> None:
        reasoning = delta.get("reasoning_content") if self.dialect in REASONING_CONTENT else None
        if isinstance(reasoning, str) and reasoning:
            self.run("reasoning").text += reasoning
        details = delta.get("reasoning_details") if self.dialect == OPENROUTER else None
        text = delta.get("reasoning") if self.dialect == OPENROUTER else None
        if isinstance(details, list) and details:
            self.run("reasoning").details += [d for d in details if isinstance(d, dict)]
        elif isinstance(text, str) and text:
            self.run("reasoning").details.append({"type": "reasoning.text", "text": text})
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.run("text").text += content
        if delta.get("function_call") is not None:
            raise Unmodelled(
                "the legacy functions API's `function_call`, which the suite does not model", at
            )
        calls = delta.get("tool_calls")
        for entry in calls if isinstance(calls, list) else ():
            self.call(entry, at)

    def call(self, entry: object, at: str) -> None:
        """Rule 31: fragments join by ``index``; the first carries the id and name, and a
        new id at an index already seen starts a new call (Ollama-style servers)."""
        if not isinstance(entry, dict):
            raise ResponseReadError("a tool_calls entry is not an object", at)
        index = required(entry, "index", int, at)
        function = entry.get("function")
        function = function if isinstance(function, dict) else {}
        call_id = entry.get("id")
        if (
            isinstance(call_id, str)
            and call_id
            and (index not in self.calls or self.calls[index].call[0] != call_id)
        ):
            name = required(function, "name", str, at)
            signature = call_signature(entry) if self.dialect == GEMINI else None
            self.calls[index] = _Segment("call", call=(call_id, name), signature=signature)
            self.segments.append(self.calls[index])
        elif index not in self.calls:
            raise ResponseReadError(f"tool call {index} was never started (no id)", at)
        self.calls[index].text += values.text(function.get("arguments"))

    def blocks(self) -> list[ContentBlock]:
        finished = self.stop != "no_finish"
        return [b for s in self.segments for b in s.blocks(self.dialect, finished)]


def _read_stream(body: bytes, dialect: str | None) -> ScriptedResponse:
    """Chunks in order until ``[DONE]``; the stop is the finish_reason, and a stream that
    never gave one was cut (``no_finish``).  Chunks without a choice 0 (the usage chunk
    ``stream_options.include_usage`` adds, with ``choices: []``; Azure's filter results)
    and keep-alive comments (OpenRouter's streaming doc: ignore them, per the SSE spec)
    carry nothing and are skipped; a chunk whose ``object`` is no completion chunk is a
    kind this reader does not know: skipped too.  Reasoning is read as the dialect's
    provider sends it; plain OpenAI sends none."""
    stream = _Stream(dialect)
    at = "byte 0"
    for event in read_events(body):
        at = event.at()
        if event.data.strip() == "[DONE]":
            break
        chunk = event.object()
        if "error" in chunk:
            raise _provider_error(chunk["error"], at)
        kind = chunk.get("object")
        if "choices" not in chunk and kind not in (None, "chat.completion.chunk"):
            continue
        choice = _choice(required(chunk, "choices", list, at))
        if choice is None:
            continue
        delta = choice.get("delta", {})
        if not isinstance(delta, dict):
            raise ResponseReadError("`delta` is not an object", at)
        stream.delta(delta, at)
        if choice.get("finish_reason") is not None:
            stream.stop = _finish(choice["finish_reason"], at)
    return neutral_response(stream.stop, stream.blocks(), at)


def _read_completion(body: bytes, dialect: str | None) -> ScriptedResponse:
    """A completion's message in the order the request side reads one (reasoning, text,
    calls: the JSON form says no more)."""
    completion = read_json_body(body)
    if "error" in completion:
        raise _provider_error(completion["error"], "body")
    choice = _choice(required(completion, "choices", list, "body"))
    if choice is None:
        raise ResponseReadError("no choice 0", "choices")
    message = required(choice, "message", dict, "choices.0")
    if message.get("function_call") is not None and not message.get("tool_calls"):
        raise Unmodelled(
            "the legacy functions API's `function_call`, which the suite does not model",
            "choices.0.message",
        )
    stop = _finish(required(choice, "finish_reason", str, "choices.0"), "choices.0")
    at = "choices.0.message"
    reasoning = [b for b, _ in message_reasoning(message, at, dialect) if isinstance(b, Reasoning)]
    calls = message.get("tool_calls")
    blocks = [
        *reasoning,
        *(b for b, _ in content_parts(message.get("content"), at)),
        *(
            _read_call(c, f"{at}.tool_calls.{k}", dialect)
            for k, c in enumerate(calls if isinstance(calls, list) else ())
        ),
    ]
    return neutral_response(stop, blocks, "body")


def noise(events: list[StreamEvent], body: bytes) -> list[Noise]:
    """The noise of a recorded stream: its SSE comments (keep-alives, as pings) and its
    chunks with no choices that are not the usage chunk."""
    comments = sum(1 for line in body.replace(b"\r", b"\n").split(b"\n") if line.startswith(b":"))
    empty = 0
    for event in events:
        try:
            data = json.loads(event.data)
        except ValueError:
            continue  # [DONE]
        if isinstance(data, dict) and data.get("choices") == [] and "usage" not in data:
            empty += 1
    found: list[Noise] = ["ping"] * comments
    return found + ["unknown-event"] * empty
