"""``wire-conformance recording import``: vcrpy cassettes (YAML, gzip YAML, JSON) and HAR
files made by hand here, in the shapes vcrpy and browsers write them, read into
recordings that load and replay."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance._cli import main
from conformance._recording.cassette import read_cassette
from conformance._recording.importing import PLACEHOLDER_DATE, import_cassettes
from conformance._recording.load import load_recording, recording_files
from conformance._recording.replay import replay_paths
from conformance._runner import RunOptions
from conformance._targets.resolve import resolve_target
from conformance.errors import CassetteError
from conformance.wires._sse import format_event

KEY = "sk-ant-api03-" + "Q" * 60
ASK = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 64,
    "stream": True,
    "messages": [{"role": "user", "content": f"hi, my key is {KEY}"}],
}
START = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
}
EVENTS = [
    format_event(str(data["type"]), data)
    for data in (
        START,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    )
]
STREAM = b"".join(EVENTS)


def vcr_interaction(
    uri: str,
    body: Any,
    response: Any,
    *,
    method: str = "POST",
    headers: dict[str, list[str]] | None = None,
    response_headers: dict[str, list[str]] | None = None,
    status: Any = None,
) -> dict[str, Any]:
    return {
        "request": {
            "body": body,
            "headers": headers if headers is not None else {"Content-Type": ["application/json"]},
            "method": method,
            "uri": uri,
        },
        "response": {
            "body": {"string": response},
            "headers": response_headers or {},
            "status": {"code": 200, "message": "OK"} if status is None else status,
        },
    }


def anthropic_cassette() -> dict[str, Any]:
    """A streamed Anthropic answer kept gzip-encoded as ``!!binary`` (vcrpy's default),
    a count_tokens call and an image fetch from another host around it."""
    return {
        "interactions": [
            vcr_interaction(
                "https://api.anthropic.com/v1/messages/count_tokens",
                json.dumps({"model": "claude-sonnet-4-5", "messages": ASK["messages"]}),
                '{"input_tokens": 12}',
            ),
            vcr_interaction(
                "https://api.anthropic.com/v1/messages",
                json.dumps(ASK),
                gzip.compress(STREAM, mtime=0),
                headers={
                    "Content-Type": ["application/json"],
                    "anthropic-version": ["2023-06-01"],
                    "anthropic-beta": ["interleaved-thinking-2025-05-14"],
                    "User-Agent": ["Anthropic/Python 0.89.0"],
                    "x-api-key": [KEY],
                },
                response_headers={
                    "Content-Encoding": ["gzip"],
                    "Content-Type": ["text/event-stream; charset=utf-8"],
                    "Date": ["Sun, 05 Apr 2026 10:23:56 GMT"],
                    "request-id": ["req_1"],
                    "set-cookie": ["_cfuvid=x"],
                },
            ),
            vcr_interaction(
                "https://static.example.com/pelican.jpg",
                "",
                b"\xff\xd8\xff",
                method="GET",
                headers={},
            ),
        ],
        "version": 1,
    }


def write_yaml(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def only_file(out: Path) -> Path:
    (path,) = recording_files(out)
    return path


def test_a_vcrpy_cassette_becomes_one_recording(tmp_path: Path) -> None:
    source = write_yaml(tmp_path / "cassettes" / "test_hello.yaml", anthropic_cassette())
    summary = import_cassettes([source], tmp_path / "out", "owner/repo@abc123", "MIT")
    assert not summary.failed
    path = only_file(tmp_path / "out")
    assert path == tmp_path / "out" / "anthropic-messages" / "test_hello.json"
    recording = load_recording(path)
    meta = recording.metadata
    assert (meta.wire, meta.dialect, meta.model) == (
        "anthropic-messages",
        None,
        "claude-sonnet-4-5",
    )
    assert meta.synthetic is False
    assert meta.source == "api.anthropic.com"
    assert meta.origin == f"owner/repo@abc123 {source.as_posix()}"
    assert meta.license == "MIT"
    assert meta.recorded_at == "2026-04-05T10:23:56+00:00"  # the response's Date header
    assert meta.edits is not None
    assert "one chunk per SSE event" in meta.edits
    assert "gzip-encoded response bodies decoded" in meta.edits
    (exchange,) = recording.exchanges
    request, response = exchange.request, exchange.response
    assert request.path == "/v1/messages"
    # what the request is, and nothing else (no user agent, no credential)
    assert request.headers == {
        "content-type": "application/json",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "interleaved-thinking-2025-05-14",
    }
    assert response.headers == (("content-type", "text/event-stream; charset=utf-8"),)
    # the gzip body decoded and cut where each event ends
    assert [c.encode() for c in response.chunks if isinstance(c, str)] == EVENTS
    # the sanitizer ran: the key in the prompt is gone, same length
    body = json.loads(request.body if isinstance(request.body, str) else "")
    text = body["messages"][0]["content"]
    assert KEY not in text
    assert len(text) == len(f"hi, my key is {KEY}")


def test_skipped_exchanges_are_counted_by_endpoint_and_host(tmp_path: Path) -> None:
    source = write_yaml(tmp_path / "c.yaml", anthropic_cassette())
    summary = import_cassettes([source], tmp_path / "out")
    assert dict(summary.skipped) == {
        "not a conversation: endpoint POST api.anthropic.com/v1/messages/count_tokens": 1,
        "not a conversation: host static.example.com": 1,
    }
    lines = summary.lines()
    assert "skipped 2 exchange(s):" in lines
    assert "imported 1 conversation(s) from 1 cassette(s)" in lines


def test_a_gzip_compressed_cassette_reads_the_same(tmp_path: Path) -> None:
    plain = write_yaml(tmp_path / "a" / "test_x.yaml", anthropic_cassette())
    packed = tmp_path / "b" / "test_x.yaml.gz"
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress(plain.read_bytes(), mtime=0))
    import_cassettes([plain], tmp_path / "out-a")
    import_cassettes([packed], tmp_path / "out-b")
    a, b = only_file(tmp_path / "out-a"), only_file(tmp_path / "out-b")
    assert b.name == "test_x.json"
    assert load_recording(a).exchanges == load_recording(b).exchanges


def test_a_vcrpy_json_cassette_and_a_plain_string_body(tmp_path: Path) -> None:
    data = anthropic_cassette()
    data["interactions"][1]["response"] = {
        "body": {"string": STREAM.decode()},
        "headers": {"Content-Type": ["text/event-stream"]},
        "status": {"code": 200, "message": "OK"},
    }
    del data["interactions"][2]  # JSON keeps no bytes
    source = tmp_path / "test_j.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    import_cassettes([source], tmp_path / "out")
    recording = load_recording(only_file(tmp_path / "out"))
    assert recording.metadata.recorded_at == PLACEHOLDER_DATE  # no Date header kept
    assert recording.metadata.edits is not None
    assert "placeholder" in recording.metadata.edits
    assert len(recording.exchanges[0].response.chunks) == len(EVENTS)


OPENROUTER_ANSWER = {
    "id": "gen-1",
    "object": "chat.completion",
    "model": "anthropic/claude-sonnet-4.5",
    "choices": [
        {
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": "Hello!"},
        }
    ],
}


def har(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}}


def har_entry(url: str, body: dict[str, Any], answer: bytes, started: str) -> dict[str, Any]:
    return {
        "startedDateTime": started,
        "request": {
            "method": "POST",
            "url": url,
            "headers": [
                {"name": "Authorization", "value": "Bearer sk-or-v1-" + "a" * 40},
                {"name": "Content-Type", "value": "application/json"},
            ],
            "postData": {"mimeType": "application/json", "text": json.dumps(body)},
        },
        "response": {
            "status": 200,
            "headers": [{"name": "content-type", "value": "application/json"}],
            "content": {
                "mimeType": "application/json",
                "encoding": "base64",
                "text": base64.b64encode(answer).decode(),
            },
        },
    }


def test_a_har_file_on_openrouters_real_path(tmp_path: Path) -> None:
    ask = {"model": "anthropic/claude-sonnet-4.5", "messages": [{"role": "user", "content": "hi"}]}
    answer = json.dumps(OPENROUTER_ANSWER).encode()
    entry = har_entry(
        "https://openrouter.ai/api/v1/chat/completions", ask, answer, "2026-02-03T04:05:06.789Z"
    )
    source = tmp_path / "session.har"
    source.write_text(json.dumps(har([entry])), encoding="utf-8")
    summary = import_cassettes([source], tmp_path / "out")
    assert not summary.failed
    assert not summary.skipped
    path = only_file(tmp_path / "out")
    assert path == tmp_path / "out" / "openai-chat" / "session.json"
    recording = load_recording(path)
    assert recording.metadata.column == "openai-chat:openrouter"
    assert recording.metadata.recorded_at == "2026-02-03T04:05:06+00:00"
    assert recording.metadata.edits is not None
    assert "path /api/v1/chat/completions filed as /v1/chat/completions" in recording.metadata.edits
    (exchange,) = recording.exchanges
    assert exchange.request.path == "/v1/chat/completions"
    assert exchange.request.headers == {"content-type": "application/json"}
    assert exchange.response.body == answer  # base64 content decoded, one chunk
    assert len(exchange.response.chunks) == 1


def test_the_dialect_option_overrides_the_host(tmp_path: Path) -> None:
    ask = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    entry = har_entry(
        "https://api.openai.com/v1/chat/completions",
        ask,
        json.dumps(OPENROUTER_ANSWER).encode(),
        "2026-02-03T04:05:06Z",
    )
    source = tmp_path / "s.har"
    source.write_text(json.dumps(har([entry])), encoding="utf-8")
    import_cassettes([source], tmp_path / "plain")
    import_cassettes([source], tmp_path / "kimi", dialect="kimi")
    assert load_recording(only_file(tmp_path / "plain")).metadata.column == "openai-chat"
    assert load_recording(only_file(tmp_path / "kimi")).metadata.column == "openai-chat:kimi"


GEMINI_ANSWER = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "Hi"}]}, "finishReason": "STOP"}
    ],
    "modelVersion": "gemini-2.5-flash",
}


def test_a_vertex_path_is_filed_under_the_gemini_api_path(tmp_path: Path) -> None:
    ask = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    vertex = (
        "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/p-1/locations/"
        "us-central1/publishers/google/models/gemini-2.5-flash:generateContent"
    )
    cassette = {
        "interactions": [
            vcr_interaction(
                vertex,
                json.dumps(ask),
                json.dumps(GEMINI_ANSWER),
                response_headers={"Content-Type": ["application/json; charset=UTF-8"]},
            )
        ]
    }
    source = write_yaml(tmp_path / "test_vertex.yaml", cassette)
    import_cassettes([source], tmp_path / "out")
    recording = load_recording(only_file(tmp_path / "out"))
    assert recording.metadata.column == "gemini"
    assert recording.metadata.model == "gemini-2.5-flash"
    assert recording.metadata.source == "us-central1-aiplatform.googleapis.com"
    path = recording.exchanges[0].request.path
    assert path == "/v1beta/models/gemini-2.5-flash:generateContent"


def test_two_conversations_in_one_cassette_are_two_files(tmp_path: Path) -> None:
    second = dict(ASK, messages=[{"role": "user", "content": "another"}])
    data = anthropic_cassette()
    data["interactions"].append(
        vcr_interaction(
            "https://api.anthropic.com/v1/messages",
            json.dumps(second),
            STREAM.decode(),
            response_headers={"Content-Type": ["text/event-stream"]},
        )
    )
    source = write_yaml(tmp_path / "test_two.yaml", data)
    import_cassettes([source], tmp_path / "out")
    names = [p.name for p in recording_files(tmp_path / "out")]
    assert names == ["test_two-1.json", "test_two-2.json"]


def test_the_same_cassettes_give_the_same_names_and_bytes(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    write_yaml(root / "test_a" / "test_one.yaml", anthropic_cassette())
    write_yaml(root / "test_b" / "test_one.yaml", anthropic_cassette())
    import_cassettes([root], tmp_path / "first")
    import_cassettes([root], tmp_path / "second")

    def files(out: Path) -> dict[str, bytes]:
        return {p.relative_to(out).as_posix(): p.read_bytes() for p in recording_files(out)}

    assert files(tmp_path / "first") == files(tmp_path / "second")
    assert sorted(files(tmp_path / "first")) == [
        "anthropic-messages/test_a/test_one.json",
        "anthropic-messages/test_b/test_one.json",
    ]


def test_a_malformed_cassette_is_located_and_the_others_still_import(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    write_yaml(root / "good.yaml", anthropic_cassette())
    broken = anthropic_cassette()
    del broken["interactions"][1]["response"]["status"]
    bad = write_yaml(root / "bad.yaml", broken)
    (root / "notes.yaml").write_text("title: not a cassette\n", encoding="utf-8")
    summary = import_cassettes([root], tmp_path / "out")
    (failure,) = summary.failed
    line = next(
        n for n, text in enumerate(bad.read_text().splitlines(), 1) if "uri:" in text
    )  # the request of interaction 1 ends just before its response
    assert failure.startswith(f"{bad}: line ")
    assert "interactions.1.response.status: is missing" in failure
    assert int(failure.split("line ")[1].split(":")[0]) > line
    assert [p.name for p in recording_files(tmp_path / "out")] == ["good.json"]
    assert summary.not_cassettes == [root / "notes.yaml"]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("interactions: [\n  {request: \n", "line "),
        ("interactions: 3\n", "line 1: interactions: is not a list"),
        (
            "interactions:\n- request: {method: POST, uri: /v1/messages}\n  response: {}\n",
            "line 2: interactions.0.request.uri: is not an absolute URL",
        ),
    ],
)
def test_broken_yaml_names_the_line(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CassetteError) as raised:
        read_cassette(path)
    assert str(raised.value).startswith(f"{path}: {where}")


def test_a_broken_har_names_the_field(tmp_path: Path) -> None:
    entry = har_entry("https://openrouter.ai/api/v1/chat/completions", {}, b"{}", "x")
    entry["response"]["content"]["text"] = "not base64!"
    path = tmp_path / "s.har"
    path.write_text(json.dumps(har([entry])), encoding="utf-8")
    with pytest.raises(CassetteError, match=r"log\.entries\.0\.response\.content\.text: is not"):
        read_cassette(path)


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "cassettes"
    write_yaml(root / "good.yaml", anthropic_cassette())
    assert main(["recording", "import", str(root), "--out", str(tmp_path / "o1")]) == 0
    write_yaml(root / "bad.yaml", {"interactions": [{"request": {}}]})
    assert main(["recording", "import", str(root), "--out", str(tmp_path / "o2")]) == 1
    assert "bad.yaml: line 2: interactions.0.response: is missing" in capsys.readouterr().out
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["recording", "import", str(empty), "--out", str(tmp_path / "o3")]) == 2
    assert main(["recording", "import", str(tmp_path / "nowhere"), "--out", "x"]) == 2


def test_an_imported_recording_replays_on_the_reference(tmp_path: Path) -> None:
    source = write_yaml(tmp_path / "test_hello.yaml", anthropic_cassette())
    import_cassettes([source], tmp_path / "out")
    path = only_file(tmp_path / "out")
    report = replay_paths([(path, path.name)], resolve_target("reference", None), RunOptions())
    (result,) = report.recordings
    assert result.status == "pass", result


@pytest.mark.parametrize(
    ("url", "method", "placed"),
    [
        ("https://api.anthropic.com/v1/messages", "POST", ("anthropic-messages", None)),
        ("https://api.openai.com/v1/responses", "POST", ("openai-responses", None)),
        ("https://api.openai.com/v1/chat/completions", "POST", ("openai-chat", None)),
        ("https://openrouter.ai/api/v1/chat/completions", "POST", ("openai-chat", "openrouter")),
        ("https://api.deepseek.com/chat/completions", "POST", ("openai-chat", "deepseek")),
        ("https://api.deepseek.com/beta/chat/completions", "POST", ("openai-chat", "deepseek")),
        ("https://api.moonshot.ai/v1/chat/completions", "POST", ("openai-chat", "kimi")),
        ("http://localhost:11434/v1/chat/completions", "POST", ("openai-chat", "ollama")),
        (
            "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
            "POST",
            ("openai-chat", "gemini"),
        ),
        (
            "https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent",
            "POST",
            ("gemini", None),
        ),
        ("https://api.openai.com/v1/messages", "POST", None),  # no such endpoint there
        ("https://api.anthropic.com/v1/messages/count_tokens", "POST", None),
        ("https://api.openai.com/v1/conversations", "POST", None),
        ("https://api.openai.com/v1/files", "POST", None),
        ("https://api.anthropic.com/v1/messages", "GET", None),
        ("https://generativelanguage.googleapis.com/v1beta/models", "GET", None),
        ("https://example.com/v1/messages", "POST", None),
    ],
)
def test_placement_by_host_and_path(url: str, method: str, placed: Any) -> None:
    from urllib.parse import urlsplit

    from conformance._recording.routing import Placement, place
    from conformance.http import HttpRequest

    parts = urlsplit(url)
    found = place(HttpRequest(method, parts.path), parts.hostname or "", parts.port, None)
    if placed is None:
        assert isinstance(found, str)
    else:
        assert isinstance(found, Placement)
        assert (found.wire, found.dialect) == placed


def test_older_vcrpy_forms_read(tmp_path: Path) -> None:
    """vcrpy's aiohttp stub writes header names as ``multidict.istr`` objects, and its
    httpx stub before 5.0 wrote ``status_code`` and ``content`` (the text already
    decoded, the gzip header kept); DataDog/dd-trace-py tests/cassettes/openai/*.yaml and
    tests/contrib/openai/cassettes/v1/*.yaml have both."""
    ask = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]})
    text = f"""\
interactions:
- request:
    body: '{ask}'
    headers:
      ? !!python/object/apply:multidict._multidict.istr
      - Content-Type
      : - application/json
      ? !!python/object/new:multidict._multidict.istr
      - Accept
      : - application/json
    method: POST
    uri: https://api.openai.com/v1/chat/completions
  response:
    content: '{json.dumps(OPENROUTER_ANSWER)}'
    headers:
      Content-Encoding:
      - gzip
      Content-Type:
      - application/json
    http_version: HTTP/1.1
    status_code: 200
version: 1
"""
    path = tmp_path / "old.yaml"
    path.write_text(text, encoding="utf-8")
    import_cassettes([path], tmp_path / "out")
    (exchange,) = load_recording(only_file(tmp_path / "out")).exchanges
    assert exchange.request.headers == {"content-type": "application/json"}
    assert exchange.response.status == 200
    assert json.loads(exchange.response.body) == OPENROUTER_ANSWER


def test_other_python_tags_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "evil.yaml"
    path.write_text("interactions: !!python/object/apply:os.system ['true']\n", encoding="utf-8")
    with pytest.raises(CassetteError, match=r"line 1: not YAML \(could not determine"):
        read_cassette(path)


def test_a_stream_the_cassette_calls_json_is_still_cut_per_event(tmp_path: Path) -> None:
    """DataDog/dd-trace-py tests/contrib/openai/cassettes/v1/chat_completion_streamed.yaml
    types an SSE body ``application/json``: the bytes are kept, and cut per event."""
    data = anthropic_cassette()
    data["interactions"][1]["response"] = {
        "body": {"string": STREAM.decode()},
        "headers": {"Content-Type": ["application/json"]},
        "status": {"code": 200, "message": "OK"},
    }
    source = write_yaml(tmp_path / "c.yaml", data)
    import_cassettes([source], tmp_path / "out")
    (exchange,) = load_recording(only_file(tmp_path / "out")).exchanges
    assert exchange.response.headers == (("content-type", "application/json"),)
    assert len(exchange.response.chunks) == len(EVENTS)


def test_an_exchange_whose_request_body_was_not_kept_is_skipped(tmp_path: Path) -> None:
    """DataDog/dd-trace-py tests/cassettes/vertexai/*.yaml keep ``body: null`` requests."""
    data = anthropic_cassette()
    data["interactions"][1]["request"]["body"] = None
    source = write_yaml(tmp_path / "c.yaml", data)
    summary = import_cassettes([source], tmp_path / "out")
    assert summary.skipped["the cassette kept no request body: POST api.anthropic.com/v1/messages"]
    assert not summary.written


def test_chat_conversations_sharing_a_system_prompt_are_told_apart() -> None:
    """The importer and the recorder grouped every Chat request of a client with one
    system prompt into one recording (crewAIInc/crewAI's cassettes: 55 merged): the key
    is the system prompt and the first message after it."""
    from conformance._recording.routing import conversation_key
    from conformance.http import HttpRequest

    def chat(*messages: dict[str, str]) -> HttpRequest:
        body = {"model": "gpt-4o", "messages": list(messages)}
        return HttpRequest("POST", "/v1/chat/completions", json.dumps(body).encode())

    system = {"role": "system", "content": "You are a researcher."}
    first = chat(system, {"role": "user", "content": "Find A"})
    later = chat(
        system,
        {"role": "user", "content": "Find A"},
        {"role": "assistant", "content": "A is here."},
        {"role": "user", "content": "And B?"},
    )
    other = chat(system, {"role": "user", "content": "Find C"})
    assert conversation_key(first) == conversation_key(later)
    assert conversation_key(first) != conversation_key(other)
    # Negative: the system prompt still tells conversations apart too.
    assert conversation_key(first) != conversation_key(chat({"role": "user", "content": "Find A"}))


def test_a_stream_kept_without_headers_gets_its_type_and_replays(tmp_path: Path) -> None:
    """Cassettes that filter every header out (Arize-ai/openinference's, 60 recordings)
    kept SSE bodies with no content-type: the reference read them as JSON and the replay
    blamed the target.  The import adds the type and says so."""
    cassette = {
        "interactions": [
            vcr_interaction("https://api.anthropic.com/v1/messages", json.dumps(ASK), STREAM)
        ],
        "version": 1,
    }
    source = write_yaml(tmp_path / "test_bare.yaml", cassette)
    import_cassettes([source], tmp_path / "out")
    path = only_file(tmp_path / "out")
    recording = load_recording(path)
    assert recording.exchanges[0].response.headers == (("content-type", "text/event-stream"),)
    assert "content-type: text/event-stream added" in (recording.metadata.edits or "")
    report = replay_paths([(path, path.name)], resolve_target("reference", None), RunOptions())
    assert report.recordings[0].status == "pass", report.recordings[0]
    # Negative: a JSON body without headers gets no type of the suite's invention.
    cassette["interactions"] = [
        vcr_interaction(
            "https://api.anthropic.com/v1/messages",
            json.dumps({**ASK, "stream": False}),
            json.dumps({"type": "message", "role": "assistant", "content": []}),
        )
    ]
    source = write_yaml(tmp_path / "json" / "test_bare_json.yaml", cassette)
    import_cassettes([source], tmp_path / "out-json")
    recording = load_recording(only_file(tmp_path / "out-json"))
    assert recording.exchanges[0].response.headers == ()
