"""The stream shapes real providers send and the wires render (issue 21, part 5): each
asserted on the rendered bytes, each read back by the wire's recording reader from the
real bytes (tests/wires/real_stream_excerpts.py cites every source cassette), and a
negative for the client bug each shape exposes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance._cases.realism import realism_problems
from conformance.http import HttpRequest, HttpResponse
from conformance.vocabulary import Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires._openai_responses._minted import interim_content
from conformance.wires._openai_responses._state import StoredResponses
from conformance.wires._registry import get_wire
from conformance.wires._sse import read_events
from conformance.wires.context import RenderContext, ValidationContext
from tests.wires import real_stream_excerpts as real
from tests.wires.kit import end, realism_case, scripted

ANTHROPIC = get_wire("anthropic-messages")
RESPONSES = get_wire("openai-responses")
CHAT = get_wire("openai-chat")
SIG = "EpABf9+px9C2aeF32fVEYtJuaAcNf5oyIOxh5SnjMt0stj61Z6llGCOz+Twv7zZ="
ENC = "gAAAAABpCCSFF5vVKe0PoQPUex0BF00cZ8KfLx2XfTrMwRDthEXa-nkWw219CNALhyLaR5GQ"
THINK = {"kind": "reasoning", "text": "Plan it.", "signature": SIG, "chunks": [4]}
CALL = {"kind": "tool_call", "id": "call_a", "name": "read", "arguments": {"path": "a"}}


def _context(wire: str, body: dict[str, Any] | None, dialect: str | None = None) -> RenderContext:
    view = None
    if body is not None:
        path = "/v1/responses" if wire == "openai-responses" else "/v1/chat/completions"
        view = get_wire(wire).parse(HttpRequest("POST", path, json.dumps(body).encode()))
    model = "anthropic/claude-sonnet-4.5" if dialect == "openrouter" else "m"
    return RenderContext(0, "shape", model, True, dialect, view)


def _events(rendered: HttpResponse) -> list[tuple[str | None, Any]]:
    found: list[tuple[str | None, Any]] = []
    for event in read_events(rendered.body):
        data = None if event.data.strip() == "[DONE]" else json.loads(event.data)
        found.append((event.name, data))
    return found


def _anthropic(response: ScriptedResponse) -> list[tuple[str | None, Any]]:
    return _events(ANTHROPIC.render(response, _context("anthropic-messages", None)))


def _joined(chunks: list[str]) -> bytes:
    return "".join(chunks).encode()


# ---------------------------------------------------------------- Anthropic


def test_anthropic_ping_comes_inside_the_first_block_before_its_deltas() -> None:
    names = [n for n, _ in _anthropic(scripted("end", THINK, {"kind": "text", "text": "ok"}))]
    assert names[:4] == ["message_start", "content_block_start", "ping", "content_block_delta"]
    assert names.count("ping") == 1


def test_anthropic_real_stream_has_its_ping_in_the_same_place() -> None:
    names = [e.name for e in read_events(_joined(real.ANTHROPIC_HEAD))]
    assert names == ["message_start", "content_block_start", "ping", "content_block_delta"]


def test_anthropic_ping_without_blocks_follows_message_start() -> None:
    assert [n for n, _ in _anthropic(scripted("no_finish"))] == ["message_start", "ping"]


def test_empty_thinking_fragment_comes_right_before_the_signature() -> None:
    response = scripted("end", {**THINK, "empty_chunk_before_signature": True})
    deltas = [d["delta"] for n, d in _anthropic(response) if n == "content_block_delta"]
    assert deltas == [
        {"type": "thinking_delta", "thinking": "Plan"},
        {"type": "thinking_delta", "thinking": " it."},
        {"type": "thinking_delta", "thinking": ""},
        {"type": "signature_delta", "signature": SIG},
    ]
    without = [
        d["delta"] for n, d in _anthropic(scripted("end", THINK)) if n == "content_block_delta"
    ]
    assert {"type": "thinking_delta", "thinking": ""} not in without


def test_anthropic_reader_reads_the_real_stream_with_its_empty_fragment() -> None:
    body = _joined(real.ANTHROPIC_HEAD + real.ANTHROPIC_TAIL + real.ANTHROPIC_END)
    response = ANTHROPIC.read(body, True, None)
    (episode,) = response.blocks
    assert isinstance(episode, Reasoning)
    assert episode.text == "This"  # the excerpt keeps the first thinking_delta only
    assert episode.signature is not None
    assert episode.signature.startswith("EvMCCkYI")
    assert episode.empty_chunk_before_signature
    assert response.stop == "end"


def test_rendered_empty_fragment_reads_back_as_the_directive() -> None:
    response = scripted("end", {**THINK, "empty_chunk_before_signature": True})
    body = ANTHROPIC.render(response, _context("anthropic-messages", None)).body
    (episode,) = ANTHROPIC.read(body, True, None).blocks
    assert isinstance(episode, Reasoning)
    assert (episode.text, episode.signature) == ("Plan it.", SIG)
    assert episode.empty_chunk_before_signature
    (plain,) = ANTHROPIC.read(
        ANTHROPIC.render(scripted("end", THINK), _context("anthropic-messages", None)).body,
        True,
        None,
    ).blocks
    assert isinstance(plain, Reasoning)
    assert not plain.empty_chunk_before_signature


# ---------------------------------------------------------------- Responses

STATELESS = {"model": "m", "input": [], "store": False, "include": ["reasoning.encrypted_content"]}


def _items(rendered: HttpResponse, kind: str) -> list[dict[str, Any]]:
    return [d["item"] for n, d in _events(rendered) if n == kind]


def test_responses_added_carries_a_different_whole_token_and_done_the_final_one() -> None:
    response = scripted("tool_calls", {"kind": "reasoning", "signature": ENC}, CALL)
    rendered = RESPONSES.render(response, _context("openai-responses", STATELESS))
    added = _items(rendered, "response.output_item.added")[0]["encrypted_content"]
    done = _items(rendered, "response.output_item.done")[0]["encrypted_content"]
    assert done == ENC
    assert added == interim_content(ENC)
    assert added != ENC
    assert added.startswith("gAAAAAB")
    assert not ENC.startswith(added)  # a whole token of its own, no prefix
    completed = next(d for n, d in _events(rendered) if n == "response.completed")
    assert completed["response"]["output"][0]["encrypted_content"] == ENC


def test_responses_interim_tokens_differ_per_item() -> None:
    other = ENC.replace("F5vV", "F5vW")
    assert interim_content(ENC) != interim_content(other)


def test_responses_real_stream_added_differs_from_done_and_the_reader_takes_done() -> None:
    added = json.loads(real.RESPONSES_ADDED.split("data: ", 1)[1])["item"]["encrypted_content"]
    done = json.loads(real.RESPONSES_DONE.split("data: ", 1)[1])["item"]["encrypted_content"]
    assert added != done
    # The excerpt's two real events, closed by a hand-written minimal terminal event.
    terminal = (
        "event: response.completed\ndata: "
        '{"type":"response.completed","sequence_number":3,'
        '"response":{"status":"completed","output":[]}}\n\n'
    )
    body = (real.RESPONSES_ADDED + real.RESPONSES_DONE + terminal).encode()
    (item,) = RESPONSES.read(body, True, None).blocks
    assert isinstance(item, Reasoning)
    assert item.signature == done


def test_responses_provider_takes_the_interim_token_and_refuses_a_prefix() -> None:
    # The interim token is OpenAI's own: no report shows it refused, so the provider's
    # rule lets it pass and the ledger asks for the final one; a cut value is refused.
    response = scripted("tool_calls", {"kind": "reasoning", "signature": ENC}, CALL)
    stored = StoredResponses.of(ValidationContext(number=2, options=_options(), served=[response]))
    assert interim_content(ENC) in stored.minted
    assert ENC in stored.minted
    assert ENC[:32] not in stored.minted


def _options() -> Any:
    from conformance.vocabulary import Options

    return Options(store=False, include=("reasoning.encrypted_content",))


# ---------------------------------------------------------------- Chat Completions


def _deltas(rendered: HttpResponse) -> list[dict[str, Any]]:
    return [d["choices"][0]["delta"] for _, d in _events(rendered) if d and d["choices"]]


def test_chat_first_chunk_holds_the_role_the_first_call_and_null_content() -> None:
    response = scripted("tool_calls", {**CALL, "chunks": [3]})
    first = _deltas(CHAT.render(response, _context("openai-chat", None)))[0]
    assert first == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "index": 0,
                "id": "call_a",
                "type": "function",
                "function": {"name": "read", "arguments": ""},
            }
        ],
        "refusal": None,
    }


def test_chat_real_first_chunk_has_the_same_shape() -> None:
    first = json.loads(real.CHAT_TOOL_FIRST[0].split("data: ", 1)[1])["choices"][0]["delta"]
    assert set(first) == {"role", "content", "tool_calls", "refusal"}
    assert first["content"] is None


def test_chat_usage_chunk_with_empty_choices_only_when_asked() -> None:
    response = scripted("end", {"kind": "text", "text": "hi"})
    asked = {"model": "m", "messages": [], "stream_options": {"include_usage": True}}
    stream = [d for _, d in _events(CHAT.render(response, _context("openai-chat", asked)))]
    assert stream[-1] is None  # [DONE]
    last = stream[-2]
    assert last["choices"] == []
    assert set(last["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    assert all(c["usage"] is None for c in stream[:-2])
    assert stream[-3]["choices"][0]["finish_reason"] == "stop"
    unasked = [d for _, d in _events(CHAT.render(response, _context("openai-chat", None))) if d]
    assert not any("usage" in c for c in unasked)


def test_chat_reader_reads_the_real_tool_first_stream_without_a_text_block() -> None:
    response = CHAT.read(_joined(real.CHAT_TOOL_FIRST), True, None)
    (call,) = response.blocks
    assert isinstance(call, ToolCall)
    assert (call.id, call.name, call.arguments) == (
        "call_ZR5UUuTt3pf61kjwAJIYdVMj",
        "get_capital",
        {"country": "UK"},
    )
    assert response.stop == "tool_calls"


# ---------------------------------------------------------------- DeepSeek


def test_deepseek_thinking_chunks_name_both_fields_null_on_the_idle_side() -> None:
    response = scripted(
        "end",
        {"kind": "reasoning", "text": "Hm.", "chunks": [1]},
        {"kind": "text", "text": "Hi", "chunks": [1]},
    )
    assert _deltas(CHAT.render(response, _context("openai-chat", None, "deepseek"))) == [
        {"role": "assistant", "content": None, "reasoning_content": ""},
        {"content": None, "reasoning_content": "H"},
        {"content": None, "reasoning_content": "m."},
        {"content": "H", "reasoning_content": None},
        {"content": "i", "reasoning_content": None},
        {"content": "", "reasoning_content": None},
    ]


def test_deepseek_without_reasoning_keeps_the_plain_shape() -> None:
    response = scripted("end", {"kind": "text", "text": "Hi"})
    assert _deltas(CHAT.render(response, _context("openai-chat", None, "deepseek"))) == [
        {"role": "assistant", "content": ""},
        {"content": "Hi"},
        {},
    ]


def test_deepseek_real_nulls_read_back_as_reasoning_then_text() -> None:
    first = [
        json.loads(c.split("data: ", 1)[1])["choices"][0]["delta"] for c in real.DEEPSEEK_FIRST
    ]
    assert first[1] == {"content": None, "reasoning_content": "H"}
    body = _joined(real.DEEPSEEK_FIRST + real.DEEPSEEK_LAST)
    reasoning, text = CHAT.read(body, True, "deepseek").blocks
    assert isinstance(reasoning, Reasoning)
    assert isinstance(text, Text)
    assert "None" not in reasoning.text + text.text
    assert reasoning.text.startswith("H")


# ---------------------------------------------------------------- OpenRouter


def test_openrouter_role_in_every_chunk_and_claude_block_start_first() -> None:
    response = scripted(
        "end", {**THINK, "empty_chunk_before_signature": True}, {"kind": "text", "text": "ok"}
    )
    rendered = CHAT.render(response, _context("openai-chat", None, "openrouter"))
    deltas = _deltas(rendered)
    assert all(d["role"] == "assistant" for d in deltas)
    details = [d["reasoning_details"][0] for d in deltas if d.get("reasoning_details")]
    tag = {"index": 0, "format": "anthropic-claude-v1"}
    assert details == [
        {"type": "reasoning.text", "text": "", "signature": "", **tag},
        {"type": "reasoning.text", "text": "Plan", **tag},
        {"type": "reasoning.text", "text": " it.", **tag},
        {"type": "reasoning.text", "text": "", **tag},
        {"type": "reasoning.text", "signature": SIG, **tag},
    ]
    (episode, _) = CHAT.read(rendered.body, True, "openrouter").blocks
    assert isinstance(episode, Reasoning)
    assert (episode.text, episode.signature) == ("Plan it.", SIG)
    assert episode.empty_chunk_before_signature


def test_openrouter_real_stream_reads_back_with_the_final_signature() -> None:
    deltas = [
        json.loads(c.split("data: ", 1)[1])
        for c in real.OPENROUTER_CLAUDE
        if c.startswith("data: {")
    ]
    assert all(c["choices"][0]["delta"]["role"] == "assistant" for c in deltas)
    opening = deltas[1]["choices"][0]["delta"]["reasoning_details"][0]
    assert (opening["text"], opening["signature"]) == ("", "")
    episode, text = CHAT.read(_joined(real.OPENROUTER_CLAUDE), True, "openrouter").blocks
    assert isinstance(episode, Reasoning)
    assert episode.signature is not None
    assert episode.signature.startswith("Et0BCkgI")
    assert episode.text == "This is a simple arithmetic question. 2+2 equals 4."
    assert episode.empty_chunk_before_signature
    assert isinstance(text, Text)


# ---------------------------------------------------------------- realism


@pytest.mark.parametrize(
    ("column", "options", "allowed"),
    [
        ("anthropic-messages", {}, True),
        ("openai-chat:openrouter", {}, True),
        ("openai-chat:openrouter", {"model": "google/gemini-3-pro-preview"}, False),
        ("openai-chat", {}, False),
        ("openai-chat:deepseek", {}, False),
        ("openai-responses", {}, False),
        ("gemini", {}, False),
    ],
)
def test_the_empty_fragment_directive_runs_only_on_claude_streams(
    column: str, options: dict[str, Any], allowed: bool
) -> None:
    from conformance.wires._registry import split_column

    name, dialect = split_column(column)
    block = {
        "kind": "reasoning",
        "text": "t",
        "signature": SIG,
        "empty_chunk_before_signature": True,
    }
    case = realism_case(column, end(block, {"kind": "text", "text": "ok"}), options=options)
    problems = [
        p for p in realism_problems(case, get_wire(name).realism, dialect) if "empty_chunk" in p
    ]
    assert (problems == []) == allowed


def test_the_empty_fragment_needs_a_signature() -> None:
    block = {"kind": "reasoning", "text": "t", "empty_chunk_before_signature": True}
    case = realism_case("anthropic-messages", end(block, stop_="max_tokens"))
    problems = realism_problems(case, ANTHROPIC.realism, None)
    assert any("without a signature" in p for p in problems)
