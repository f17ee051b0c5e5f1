"""The harness agents and clients hold the scripted conversation end to end.

The adapter agent must send byte-for-byte what the same adapter sends in-process; the
Node agent proves a target in another language works; the httpx and httpx2 clients
prove both libraries are intercepted.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance._provider.scripted import ScriptedProvider
from conformance._targets.adapter import drive_adapter
from conformance._targets.api import (
    Adapter,
    AdapterSession,
    CallToRun,
    CaseBrief,
    ToolResultIn,
    WireRequest,
    WireResponse,
)
from conformance._targets.client import run_client
from conformance._targets.command import CommandResult, CommandTarget
from conformance.agent.runner import brief_from_contract, http_sender
from conformance.http import HttpRequest, HttpResponse, json_response
from conformance.wires._registry import client_environments
from harness.clients.httpx2_client import Httpx2AnthropicClient
from harness.clients.httpx_client import HttpxAnthropicClient, request_body
from tests.targets.conversation import SESSION, assert_conversation_held, bodies, provider

ROOT = Path(__file__).resolve().parents[2]
NODE_AGENT = ROOT / "conformance" / "examples" / "anthropic_min.mjs"


class ReplaySession(AdapterSession):
    """A plain Anthropic adapter: replays each assistant turn as received."""

    def __init__(self, brief: CaseBrief) -> None:
        self.brief = brief
        self.messages: list[dict[str, Any]] = []

    def add_user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def next_request(self) -> Mapping[str, Any]:
        return request_body(self.brief, self.messages)

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        reply = response.json()
        if reply["content"]:
            self.messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "max_tokens":
            return []
        return [
            CallToRun(block["id"], block["name"], block["input"])
            for block in reply["content"]
            if block["type"] == "tool_use"
        ]

    def add_tool_results(self, results: Sequence[ToolResultIn]) -> None:
        content = [
            {"type": "tool_result", "tool_use_id": r.call_id, "content": r.content} for r in results
        ]
        self.messages.append({"role": "user", "content": content})


class ReplayAdapter(Adapter):
    name = "replay"
    wires = frozenset({"anthropic-messages"})

    def open(self, brief: CaseBrief) -> AdapterSession:
        return ReplaySession(brief)


def agent(spec: str) -> str:
    """The shell command running the adapter agent from the repository root."""
    python = shlex.quote(sys.executable)
    return f"cd {shlex.quote(str(ROOT))} && {python} -m conformance.agent {spec}"


REPLAY_SPEC = "tests.harness.test_agents:ReplayAdapter"


# ---------------------------------------------------------------- adapter agent


#: The two tests that read the adapter agent's one run share a worker (``--dist
#: loadgroup``), so the module fixture starts the agent once.
READS_THE_AGENT_RUN = pytest.mark.xdist_group("adapter-agent-run")


@pytest.fixture(scope="module")
def agent_run() -> tuple[CommandResult, ScriptedProvider]:
    """The adapter agent's run of the conversation, as a command: its result and the
    provider that served it, which two tests read."""
    scripted = provider()
    return CommandTarget(agent(REPLAY_SPEC), timeout=60).run(SESSION, scripted.handle), scripted


@pytest.mark.slow
@READS_THE_AGENT_RUN
def test_the_adapter_agent_holds_the_conversation(
    agent_run: tuple[CommandResult, ScriptedProvider],
) -> None:
    result, scripted = agent_run
    assert (result.exit_code, result.timed_out) == (0, False), result.stderr_tail
    assert_conversation_held(scripted)


@pytest.mark.slow
@READS_THE_AGENT_RUN
def test_the_adapter_agent_sends_what_the_adapter_sends_in_process(
    agent_run: tuple[CommandResult, ScriptedProvider],
) -> None:
    in_process = provider()
    run = drive_adapter(ReplayAdapter(), SESSION, in_process, "/v1/messages", False)
    assert run.stopped is None
    result, as_command = agent_run
    assert result.ok, result.stderr_tail
    assert [e.request.body for e in as_command.exchanges] == [
        e.request.body for e in in_process.exchanges
    ]
    assert [e.request.path for e in as_command.exchanges] == ["/v1/messages"] * 3


@pytest.mark.slow
def test_an_http_error_stops_the_adapter_agent_with_exit_1() -> None:
    def refuse(request: HttpRequest) -> HttpResponse:
        return json_response(400, {"type": "error", "error": {"message": "no thanks"}})

    result = CommandTarget(agent(REPLAY_SPEC), timeout=60).run(SESSION, refuse)
    assert result.exit_code == 1
    assert "HTTP 400 from POST http://127.0.0.1:" in result.stderr_tail
    assert "no thanks" in result.stderr_tail


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("harness.clients.httpx_client:HttpxAnthropicClient", "not a conformance Adapter"),
        ("tests.harness.test_agents:REPLAY_SPEC", "not an Adapter or Client"),
        ("tests.harness.test_agents:ReplaySession", "cannot load"),
        ("tests.harness.test_agents", "`module:attr`"),
        ("tests.harness.no_such_module:Adapter", "cannot import"),
    ],
)
def test_a_bad_adapter_spec_exits_2(spec: str, message: str) -> None:
    result = CommandTarget(agent(spec), timeout=60).run(SESSION, provider().handle)
    assert result.exit_code == 2
    assert message in result.stderr_tail


def test_the_contract_document_rebuilds_the_session() -> None:
    assert brief_from_contract(SESSION.contract()) == SESSION
    responses = CaseBrief(
        case="c",
        wire="openai-responses",
        dialect=None,
        model="m",
        system=None,
        prompts=("p",),
        tools=(),
        thinking=SESSION.thinking,
        max_tokens=9,
        store=False,
        include=("reasoning.encrypted_content",),
    )
    assert brief_from_contract(json.loads(responses.contract_json())) == responses
    # v2 is spoken since issue 7 (history, output file); an unknown version is not.
    with pytest.raises(ValueError, match="contract version 3"):
        brief_from_contract({**SESSION.contract(), "version": 3})


class Recorder:
    def __init__(self) -> None:
        self.requests: list[HttpRequest] = []

    def __call__(self, request: HttpRequest) -> HttpResponse:
        self.requests.append(request)
        return json_response(200, {})


@pytest.mark.parametrize(
    ("wire", "body", "url", "key_header"),
    [
        ("anthropic-messages", {}, "/anthropic/v1/messages", ("x-api-key", "ak")),
        ("openai-responses", {}, "/openai/responses", ("authorization", "Bearer ok")),
        (
            "openai-chat",
            {"stream": True},
            "/openai/chat/completions",
            ("authorization", "Bearer ok"),
        ),
        ("gemini", {}, "/gemini/v1beta/models/m-1:generateContent", ("x-goog-api-key", "gk")),
    ],
)
def test_each_wire_is_sent_to_its_real_path_with_its_key(
    wire: str, body: dict[str, Any], url: str, key_header: tuple[str, str]
) -> None:
    from conformance._provider.intercept import intercept

    base = "http://provider.invalid"
    environ = {
        "CONFORMANCE_BASE_URL": base,
        "ANTHROPIC_BASE_URL": f"{base}/anthropic",
        "OPENAI_BASE_URL": f"{base}/openai",
        "GEMINI_BASE_URL": f"{base}/gemini",
        "ANTHROPIC_API_KEY": "ak",
        "OPENAI_API_KEY": "ok",
        "GEMINI_API_KEY": "gk",
    }
    brief = CaseBrief("c", wire, None, "m-1", None, ("p",), (), SESSION.thinking, 8)
    recorder = Recorder()
    with intercept(recorder, base), httpx.Client() as client:
        send = http_sender(client, brief, environ)
        send(WireRequest(body=body, headers={"x-extra": "1"}))
        send(WireRequest(body=body, path="/v1beta/models/m-1:streamGenerateContent?alt=sse"))
    first, second = recorder.requests
    assert first.path + (f"?{first.query}" if first.query else "") == url
    assert first.header(key_header[0]) == key_header[1]
    assert first.header("x-extra") == "1"
    assert first.header("content-type") == "application/json"
    assert (second.path, second.query) == ("/v1beta/models/m-1:streamGenerateContent", "alt=sse")


def test_gemini_streams_on_its_sse_endpoint() -> None:
    gemini = client_environments()["gemini"]
    assert gemini.path("m", True) == "/v1beta/models/m:streamGenerateContent?alt=sse"
    assert gemini.path("m", False) == "/v1beta/models/m:generateContent"


# ---------------------------------------------------------------- Node agent


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_the_node_agent_holds_the_conversation() -> None:
    scripted = provider()
    command = f"node {shlex.quote(str(NODE_AGENT))}"
    result = CommandTarget(command, timeout=60).run(SESSION, scripted.handle)
    assert result.ok, result.stderr_tail
    assert_conversation_held(scripted)
    assert bodies(scripted)[0]["thinking"] == {"type": "enabled", "budget_tokens": 1024}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_the_node_agent_refuses_another_wire() -> None:
    other = CaseBrief("c", "gemini", None, "m", None, ("p",), (), SESSION.thinking, 8)
    command = f"node {shlex.quote(str(NODE_AGENT))}"
    result = CommandTarget(command, timeout=60).run(other, provider().handle)
    assert result.exit_code == 2
    assert "wire gemini" in result.stderr_tail


# ---------------------------------------------------------------- clients


@pytest.mark.parametrize(
    "client", [HttpxAnthropicClient(), Httpx2AnthropicClient()], ids=["httpx", "httpx2"]
)
def test_the_httpx_and_httpx2_clients_are_intercepted(
    client: HttpxAnthropicClient | Httpx2AnthropicClient,
) -> None:
    scripted = provider()
    result = run_client(client, SESSION, scripted.handle)
    assert result.ok, result.error
    assert_conversation_held(scripted)


#: The cells the shipped Node example once failed without saying so: a turn cut by
#: max_tokens replayed, empty text sent back, a manual budget on an adaptive-only model.
NODE_AGENT_CELLS = (
    "anthropic-adaptive-only-model-manual-config-sent-adaptive",
    "anthropic-max-tokens-complete-tool-use-not-run",
    "empty-content-blank-final-answer-not-replayed",
    "empty-content-empty-text-before-tool-use",
    "truncation-max-tokens-mid-first-thinking",
    "truncation-max-tokens-mid-tool-use-partial-json",
)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_the_node_example_passes_what_it_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance._cli import main

    selection = [arg for case in NODE_AGENT_CELLS for arg in ("--case", case)]
    command = f"cmd:node {shlex.quote(str(NODE_AGENT))}"
    code = main(["run", "--target", command, "--wire", "anthropic-messages", *selection, "-q"])
    assert code == 0, capsys.readouterr().out
    assert f"{len(NODE_AGENT_CELLS)} pass" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_the_node_example_passes_as_a_session_through_the_node_helper(tmp_path: Path) -> None:
    """The same script, held as a session by ``command_session.mjs``: one process takes
    every cell, and every cell passes as it does once per cell."""
    from conformance._runner import RunOptions, plan, run_job
    from conformance._targets.resolve import resolve_target
    from conformance._targets.session import end_every_session
    from tests.support import library

    manifest = tmp_path / "node-session.toml"
    manifest.write_text(
        f'name = "node-min"\nkind = "command"\ncommand = {json.dumps(f"node {NODE_AGENT}")}\n'
        'wires = ["anthropic-messages"]\ncontract = 1\nsession = true\n',
        encoding="utf-8",
    )
    target = resolve_target(str(manifest))
    cases = [c.case for c in library().cases if c.case.id in NODE_AGENT_CELLS]
    jobs = [j for j in plan(cases, target) if j.skip is None]
    assert len(jobs) == len(NODE_AGENT_CELLS)
    try:
        verdicts = [run_job(target, job, RunOptions(timeout=60))[0].verdict for job in jobs]
    finally:
        end_every_session()
    assert verdicts == ["pass"] * len(jobs)


def test_the_session_helpers_are_listed_examples() -> None:
    from conformance.examples import example_path

    assert example_path("command_session.py").name == "command_session.py"
    assert example_path("command_session.mjs").is_file()
    with pytest.raises(FileNotFoundError, match=r"command_session\.py"):
        example_path("__init__.py")
