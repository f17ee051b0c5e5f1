"""A scripted response as the Chat provider sends it: data-only SSE chunks ending in
``data: [DONE]`` (a cut stream ends without a finish chunk or ``[DONE]``), or one JSON
completion, with deterministic ids and usage numbers in each dialect's own shape."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

from conformance.http import HttpResponse, json_response
from conformance.verdict import Violation
from conformance.vocabulary import (
    ContentBlock,
    Message,
    Noise,
    Reasoning,
    ScriptedResponse,
    Text,
    ToolCall,
)
from conformance.wires import _values as values
from conformance.wires._faults import OPENAI_FAULTS, render_fault
from conformance.wires._openai_chat._details import DETAIL_FORMATS, episode_details
from conformance.wires._openai_chat._dialects import (
    DEEPSEEK,
    GEMINI,
    KIMI,
    OLLAMA,
    OPENROUTER,
    REASONING_CONTENT,
    upstream,
)
from conformance.wires._openai_chat._errors import error_answer
from conformance.wires._openai_chat._history import history_messages
from conformance.wires._openai_chat._stops import CUT_STOPS, FINISH_REASONS
from conformance.wires._sse import DONE, format_comment, format_event, fragments
from conformance.wires.context import RenderContext

#: ``created`` of every rendered completion: fixed, so renders are byte-stable.
_CREATED = 1_700_000_000
#: Keep-alive comments a stream may carry between chunks, by dialect.
_KEEP_ALIVE: dict[str | None, str] = {
    None: "keep-alive",
    DEEPSEEK: "keep-alive",
    OPENROUTER: "OPENROUTER PROCESSING",
}
#: Dialects that stream every tool call whole, in one delta: Gemini (whose calls are
#: never fragments, §D) and Ollama (which also puts each at ``index`` 0, rule 31).
_WHOLE_CALLS = frozenset({GEMINI, OLLAMA})
_SERVER_ERROR = (
    "The server had an error processing your request. Sorry about that! You can retry your "
    "request, or contact us through our help center at help.openai.com if you keep seeing "
    "this error. (Please include the request ID {request_id} in your email.)"
)


def render(response: ScriptedResponse, context: RenderContext) -> HttpResponse:
    """The stream, or the completion when the context asks for none."""
    fault = response.fault
    if fault is not None and not (fault.mid_stream and context.stream):
        return render_fault(fault, "openai-chat", OPENAI_FAULTS, render_error)
    rendering = _Render.of(response, context)
    if not context.stream:
        return rendering.completion()
    chunks = tuple(rendering.stream())
    if fault is not None:  # a chunk that is only an error object, then the stream ends
        answer = OPENAI_FAULTS[fault.kind]
        error = {"message": answer.message, "type": answer.error_type, "param": None, "code": None}
        chunks += (format_event(None, {"error": error}),)
    headers = (
        ("content-type", "text/event-stream; charset=utf-8"),
        ("cache-control", "no-cache"),
        ("x-request-id", rendering.request_id),
    )
    return HttpResponse(200, b"".join(chunks), headers, chunks)


def _size(block: ContentBlock) -> int:
    """A block's output characters, for a plausible, deterministic token count."""
    if isinstance(block, Reasoning):
        return len(block.text) + len(block.data or "")
    if isinstance(block, Text):
        return len(block.text)
    if isinstance(block, ToolCall):
        return len(values.argument_text(block))
    return 0


@dataclass(frozen=True)
class _Render:
    """One response being rendered: its ids, its dialect and its usage numbers."""

    response: ScriptedResponse
    context: RenderContext
    completion_id: str
    request_id: str
    prompt_tokens: int
    completion_tokens: int

    @classmethod
    def of(cls, response: ScriptedResponse, context: RenderContext) -> _Render:
        seed = values.digest(context.case_id, context.index)
        digest = values.digest("completion", seed)
        if context.dialect == DEEPSEEK:
            ident = f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"
        elif context.dialect == OPENROUTER:
            ident = f"gen-{_CREATED}-{digest[:20]}"
        elif context.dialect == KIMI:
            ident = f"chatcmpl-{digest[:24]}"
        elif context.dialect == OLLAMA:
            ident = f"chatcmpl-{int(digest[:4], 16) % 1000}"
        else:
            ident = f"chatcmpl-{digest[:29]}"
        size = sum(_size(b) for b in response.blocks)
        return cls(
            response,
            context,
            ident,
            "req_" + values.digest("request", seed)[:32],
            100 + int(values.digest("input", seed)[:6], 16) % 900,
            max(1, size // 4),
        )

    @property
    def dialect(self) -> str | None:
        return self.context.dialect

    @property
    def detail_format(self) -> str:
        return DETAIL_FORMATS[upstream(self.context.model)]

    @property
    def usage(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }

    def chunk(
        self, delta: dict[str, Any], finish: str | None = None, **extra: Any
    ) -> dict[str, Any]:
        return {
            "id": self.completion_id,
            "object": "chat.completion.chunk",
            "created": _CREATED,
            "model": self.context.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }

    def deltas(self) -> list[list[dict[str, Any]]]:
        """The ``delta`` objects of each renderable block, block by block."""
        found: list[list[dict[str, Any]]] = []
        calls = episodes = 0
        for block in self.response.blocks:
            if isinstance(block, Text):
                found.append([{"content": p} for p in fragments(block.text, block.chunks)])
            elif isinstance(block, ToolCall) and self.dialect in _WHOLE_CALLS:
                index = 0 if self.dialect == OLLAMA else calls
                found.append([{"tool_calls": [{"index": index, **self.call(block)}]}])
                calls += 1
            elif isinstance(block, ToolCall):
                opening = {
                    "index": calls,
                    "id": block.id,
                    "type": "function",
                    "function": {"name": block.name, "arguments": ""},
                }
                pieces = fragments(values.argument_text(block), block.chunks)
                found.append(
                    [{"tool_calls": [opening]}]
                    + [
                        {"tool_calls": [{"index": calls, "function": {"arguments": p}}]}
                        for p in pieces
                    ]
                )
                calls += 1
            elif isinstance(block, Reasoning) and self.dialect in REASONING_CONTENT:
                pieces = fragments(block.text, block.chunks)
                found.append([{"reasoning_content": p} for p in pieces])
            elif isinstance(block, Reasoning) and self.dialect == OPENROUTER:
                details = episode_details(block, episodes, self.detail_format, streamed=True)
                found.append(
                    [
                        {"reasoning": d.get("text") or None, "reasoning_details": [d]}
                        for d in details
                    ]
                )
                episodes += 1
        return [[self.dialect_delta(d) for d in deltas] for deltas in found]

    @property
    def explicit_nulls(self) -> bool:
        """DeepSeek in thinking mode names both ``content`` and ``reasoning_content`` in
        every chunk, ``null`` on the side that is not streaming (1 of 1 thinking stream:
        pydantic/pydantic-ai tests/models/cassettes/test_deepseek/
        test_deepseek_model_thinking_stream.yaml, all 212 chunks)."""
        return self.dialect == DEEPSEEK and any(
            isinstance(b, Reasoning) for b in self.response.blocks
        )

    def dialect_delta(self, delta: dict[str, Any]) -> dict[str, Any]:
        """A delta in the dialect's own spelling.  OpenRouter repeats ``role`` in every
        chunk, and ``content: ""`` in every reasoning chunk (7 of 7 streams of
        pydantic/pydantic-ai tests/models/cassettes/test_openrouter/, e.g.
        test_openrouter_streaming_reasoning.yaml); DeepSeek's thinking mode spells out its
        nulls (``explicit_nulls``)."""
        if self.dialect == OPENROUTER:
            content = {"content": ""} if "reasoning_details" in delta else {}
            return {"role": "assistant", **content, **delta}
        if self.explicit_nulls and "tool_calls" not in delta:
            return {"content": None, "reasoning_content": None, **delta}
        return delta

    def call(self, call: ToolCall) -> dict[str, Any]:
        """A whole tool call as the message (or a whole-call delta) carries it; on Gemini's
        endpoint its thought signature rides in ``extra_content`` (rule 47)."""
        rendered: dict[str, Any] = {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": values.argument_text(call)},
        }
        if self.dialect == GEMINI and call.signature is not None:
            rendered["extra_content"] = {"google": {"thought_signature": call.signature}}
        return rendered

    def interleaved(self, blocks: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
        """Each run of consecutive calls' deltas as one round-robin run (rule 31: the
        fragments of parallel calls interleave; each keeps its own index)."""
        merged: list[list[dict[str, Any]]] = []
        run: list[list[dict[str, Any]]] = []
        for deltas in [*blocks, []]:
            if deltas and "tool_calls" in deltas[0]:
                run.append(deltas)
                continue
            if run:
                merged.append([d for row in zip_longest(*run) for d in row if d is not None])
                run = []
            if deltas:
                merged.append(deltas)
        return merged

    def noise(self, noise: Noise) -> bytes:
        """A keep-alive comment, or a chunk with no choices (OpenAI's usage chunk and
        Azure's content-filter chunk have that shape): what a client must skip."""
        if noise == "ping":
            return format_comment(_KEEP_ALIVE.get(self.dialect, "keep-alive"))
        return format_event(None, {**self.chunk({}), "choices": []})

    @property
    def usage_chunk(self) -> bool:
        """Whether plain OpenAI streams the usage in a last chunk of its own: the request
        asked for ``stream_options.include_usage``, and then every other chunk says
        ``"usage": null`` and the last one has ``choices: []`` (OpenAI's API reference;
        3 of 3 streams of pydantic/pydantic-ai tests/models/cassettes/test_openai/, e.g.
        test_run_stream_sync_streams_real_model.yaml).  Without it OpenAI sends no usage."""
        request = self.context.request
        options = request.raw.get("stream_options") if request is not None else None
        return isinstance(options, dict) and options.get("include_usage") is True

    def opening(self, blocks: list[list[dict[str, Any]]]) -> dict[str, Any]:
        """The first chunk's delta: the role, with nothing yet (OpenAI also says
        ``"refusal": null``).  On plain OpenAI a response that opens with a tool call
        sends that call's first delta in it too, beside ``"content": null``
        (pydantic/pydantic-ai tests/models/cassettes/test_openai/
        test_run_stream_sync_streams_real_model.yaml); its text responses open with
        ``"content": ""``.  DeepSeek's thinking mode opens with ``"content": null,
        "reasoning_content": ""``."""
        if self.dialect is None:
            first = blocks[0][0] if blocks else {}
            if "tool_calls" in first:
                blocks[0] = blocks[0][1:]
                return {"role": "assistant", "content": None, **first, "refusal": None}
            return {"role": "assistant", "content": "", "refusal": None}
        if self.explicit_nulls:
            return {"role": "assistant", "content": None, "reasoning_content": ""}
        return {"role": "assistant", "content": ""}

    def stream(self) -> list[bytes]:
        """Every flush of the stream: an opening chunk with the role, one chunk per
        delta, the finish chunk (with usage, or before OpenAI's usage chunk), ``[DONE]``;
        a cut ends on the last delta.  Noise goes round-robin into the gaps between
        blocks."""
        blocks = [d for d in self.deltas() if d]
        if self.response.interleaved_calls:
            blocks = self.interleaved(blocks)
        opening = self.opening(blocks)
        gaps = max(len(blocks) - 1, 0)
        noise_after: dict[int, list[bytes]] = {}
        for k, noise in enumerate(self.response.noise):
            noise_after.setdefault(k % gaps if gaps else -1, []).append(self.noise(noise))
        per_chunk: dict[str, Any] = {"usage": None} if self.usage_chunk else {}
        flushes = [format_event(None, self.chunk(opening, **per_chunk))]
        flushes += noise_after.get(-1, [])
        for b, deltas in enumerate(blocks):
            flushes += [format_event(None, self.chunk(d, **per_chunk)) for d in deltas]
            flushes += noise_after.get(b, [])
        if self.response.stop in CUT_STOPS:
            return flushes
        finish = FINISH_REASONS[self.response.stop]
        if self.dialect is None:
            closing = self.chunk({}, finish, **per_chunk)
            flushes.append(format_event(None, closing))
            if self.usage_chunk:
                last = {**self.chunk({}), "choices": [], "usage": self.usage}
                flushes.append(format_event(None, last))
        else:
            spelled = self.explicit_nulls or self.dialect == OPENROUTER
            delta = self.dialect_delta({"content": ""}) if spelled else {}
            flushes.append(format_event(None, self.chunk(delta, finish, usage=self.usage)))
        flushes.append(DONE)
        return flushes

    def message(self) -> dict[str, Any]:
        """The ``choices[0].message`` of a non-streamed completion."""
        blocks = self.response.blocks
        texts = [b.text for b in blocks if isinstance(b, Text)]
        reasoning = [b for b in blocks if isinstance(b, Reasoning)]
        calls = [b for b in blocks if isinstance(b, ToolCall)]
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(texts) if texts else None,
        }
        if reasoning and self.dialect in REASONING_CONTENT:
            message["reasoning_content"] = "".join(r.text for r in reasoning)
        if reasoning and self.dialect == OPENROUTER:
            message["reasoning"] = "".join(r.text for r in reasoning) or None
            message["reasoning_details"] = [
                d
                for k, r in enumerate(reasoning)
                for d in episode_details(r, k, self.detail_format, streamed=False)
            ]
        if calls:
            message["tool_calls"] = [self.call(c) for c in calls]
        return message

    def completion(self) -> HttpResponse:
        """The JSON completion.  A cut has no JSON form: the nearest thing a
        non-streaming client meets is OpenAI's internal-error answer (500 server_error)."""
        headers = {"x-request-id": self.request_id}
        if self.response.stop in CUT_STOPS:
            error = {
                "message": _SERVER_ERROR.format(request_id=self.request_id),
                "type": "server_error",
                "param": None,
                "code": None,
            }
            return json_response(500, {"error": error}, headers)
        body = {
            "id": self.completion_id,
            "object": "chat.completion",
            "created": _CREATED,
            "model": self.context.model,
            "choices": [
                {
                    "index": 0,
                    "message": self.message(),
                    "finish_reason": FINISH_REASONS[self.response.stop],
                }
            ],
            "usage": self.usage,
        }
        return json_response(200, body, headers)


def render_error(violation: Violation) -> HttpResponse:
    """The provider's error envelope for a broken rule (see ``_errors``)."""
    return error_answer(violation)


def render_history(messages: Sequence[Message], dialect: str | None) -> dict[str, Any]:
    """A saved conversation as the request body fields that hold it (``messages``, with
    the dialect's reasoning fields): what a client storing the wire's own JSON replays,
    and ``parse`` reads back."""
    return history_messages(messages, dialect)
