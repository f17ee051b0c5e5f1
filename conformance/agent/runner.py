"""Run any in-process ``Adapter`` as a command target (contract v1 and v2).

``python -m conformance.agent module:attr`` reads ``CONFORMANCE_CASE``, loads its saved
history (v2: the wire's own request JSON, read by the wire's ``parse``), opens a
conversation with the adapter and holds it against the provider over real HTTP, the
same loop the suite runs in-process, then writes the selected output to
``CONFORMANCE_OUTPUT`` (v2).  Running one adapter both ways proves that the command
transport changes no verdict.  Started as a session (``CONFORMANCE_SESSION=1``), it loads
the adapter once and holds every cell the suite hands it (``conformance._targets.session``).

Exit codes: 0 done; 1 the provider answered with an HTTP error (or the turn ran away);
2 bad invocation; the reserved codes of ``conformance._targets.command_contract`` for a wire the
adapter does not speak and a history it cannot load.
"""

from __future__ import annotations

import functools
import json
import os
import ssl
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import httpx

from conformance._targets.adapter import MAX_REQUESTS_PER_TURN, AdapterKind
from conformance._targets.api import (
    CONTRACT_VERSIONS,
    Adapter,
    AdapterSession,
    CaseBrief,
    ConversationStopped,
    ToolDef,
    WireRequest,
    WireResponse,
)
from conformance._targets.command_contract import (
    EXIT_CONVERSATION_STOPPED,
    EXIT_HISTORY_UNLOADABLE,
    EXIT_WIRE_UNSUPPORTED,
    OUTPUT_VARIABLE,
)
from conformance._targets.resolve import resolve_target
from conformance.errors import HistoryLoadError, TargetError
from conformance.examples.command_session import SESSION_VARIABLE, serve
from conformance.vocabulary import Message, ThinkingConfig, ToolChoice
from conformance.wires import _saved_history as saved_history
from conformance.wires._registry import client_environments, get_wire

USAGE = "usage: python -m conformance.agent module:attr"


class AgentError(Exception):
    """A reason to stop, with the exit code to stop with."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class ErrorAnswer(AgentError):
    """The provider answered with an HTTP error: the adapter may retry (``retries``)."""

    def __init__(self, message: str, response: WireResponse) -> None:
        super().__init__(message, 1)
        self.response = response


def brief_from_contract(document: Mapping[str, Any]) -> CaseBrief:
    """The ``CaseBrief`` a ``CONFORMANCE_CASE`` document describes, with its saved history
    (v2); a history that does not load stops with its reserved exit code."""
    if document.get("version") not in CONTRACT_VERSIONS:
        raise ValueError(f"contract version {document.get('version')!r} is not one of 1, 2")
    include, choice = document.get("include"), document.get("tool_choice")
    return CaseBrief(
        case=document["case"],
        wire=document["wire"],
        dialect=document.get("dialect"),
        model=document["model"],
        system=document.get("system"),
        prompts=tuple(document["prompts"]),
        tools=tuple(ToolDef(**tool) for tool in document["tools"]),
        thinking=ThinkingConfig.model_validate(document["thinking"]),
        max_tokens=document["max_tokens"],
        store=document.get("store"),
        include=None if include is None else tuple(include),
        tool_choice=ToolChoice.model_validate(choice) if choice is not None else None,
        prefill=document.get("prefill"),
        betas=tuple(str(beta) for beta in document.get("betas") or ()),
        history=document_history(document),
        results={
            call_id: (str(result["content"]), bool(result.get("is_error", False)))
            for call_id, result in (document.get("results") or {}).items()
        },
    )


def document_history(document: Mapping[str, Any]) -> tuple[Message, ...]:
    """The saved conversation of a v2 document: its ``wire_history`` read by the wire's
    own ``parse`` (origins put back by location), as a client storing the wire's JSON
    loads it; the neutral ``history`` where the wire cannot hold it (``null``)."""
    fields = document.get("wire_history")
    if fields is None:
        return load_history(document.get("history", []))
    try:
        wire = get_wire(document["wire"])
    except KeyError as error:
        raise AgentError(str(error), EXIT_WIRE_UNSUPPORTED) from None
    try:
        origins = document.get("wire_history_origins", {})
        return saved_history.load(wire, fields, origins, document.get("dialect"))
    except HistoryLoadError as error:
        raise AgentError(
            f"cannot load the saved history: {error}", EXIT_HISTORY_UNLOADABLE
        ) from None


def load_history(items: object) -> tuple[Message, ...]:
    """The saved conversation of a v2 case document, as the case language's messages."""
    try:
        if not isinstance(items, list):
            raise ValueError("`history` is not a list")
        return tuple(Message.model_validate(item) for item in items)
    except ValueError as error:
        raise AgentError(
            f"cannot load the saved history: {error}", EXIT_HISTORY_UNLOADABLE
        ) from None


def load_adapter(spec: str) -> Adapter:
    """The adapter ``module:attr`` names, resolved as the suite resolves ``--target``."""
    try:
        kind = resolve_target(spec).kind
    except TargetError as error:  # a bad spec, or its import or constructor failed
        raise AgentError(f"cannot load {spec!r}: {error}\n{USAGE}", 2) from None
    except Exception as error:  # the user's module or constructor failed
        raise AgentError(f"cannot load {spec!r}: {type(error).__name__}: {error}", 2) from error
    if not isinstance(kind, AdapterKind):
        raise AgentError(f"{spec!r} is not a conformance Adapter\n{USAGE}", 2)
    return kind.adapter


def _streaming(body: bytes) -> bool:
    try:
        document = json.loads(body)
    except ValueError:
        return False
    return isinstance(document, dict) and document.get("stream") is True


Send = Callable[[WireRequest], WireResponse]


def hold(conversation: AdapterSession, brief: CaseBrief, send: Send) -> None:
    """Send the prompts in order, each after the previous tool loop ended, answering
    every call the adapter runs with the tool's scripted result: the loop of
    ``conformance._targets.adapter.drive_adapter``, over HTTP."""
    for prompt in brief.prompts:
        conversation.add_user(prompt)
        for _ in range(MAX_REQUESTS_PER_TURN):
            try:
                response = send(WireRequest.coerce(conversation.next_request()))
            except ErrorAnswer as error:
                if conversation.retries(error.response):
                    continue  # a transient fault: the adapter resends its request
                raise
            calls = conversation.receive(response)
            if not calls and not conversation.continues():
                break
            conversation.add_tool_results([brief.result_of(call.id, call.name) for call in calls])
        else:
            raise AgentError(f"more than {MAX_REQUESTS_PER_TURN} requests in one user turn", 1)


class Poster(Protocol):
    """What the sender needs of an HTTP client (httpx.Client and httpx2.Client both fit)."""

    def post(self, url: str, *, content: bytes, headers: Mapping[str, str]) -> Any: ...


def http_sender(client: Poster, brief: CaseBrief, environ: Mapping[str, str]) -> Send:
    """Posts each request on the wire's real path; an HTTP error status stops the run."""
    endpoints = client_environments()
    endpoint = endpoints.get(brief.wire)
    if endpoint is None:
        known = ", ".join(endpoints)
        raise AgentError(f"wire {brief.wire!r} is not one of {known}", EXIT_WIRE_UNSUPPORTED)
    key_headers = endpoint.key_headers(environ.get(endpoint.key_variable, "conformance-key"))

    def send(request: WireRequest) -> WireResponse:
        body = request.body_bytes()
        if request.path is not None:
            url = environ["CONFORMANCE_BASE_URL"] + request.path
        else:
            url = environ[endpoint.base_variable] + endpoint.path(brief.model, _streaming(body))
        headers = httpx.Headers({"content-type": "application/json", **key_headers})
        headers.update(request.headers)  # the adapter's own headers win, by any case
        answer = client.post(url, content=body, headers=dict(headers.items()))
        response = WireResponse(answer.status_code, dict(answer.headers), answer.content)
        if answer.status_code >= 400:
            raise ErrorAnswer(f"HTTP {answer.status_code} from POST {url}: {answer.text}", response)
        return response

    return send


def write_output(conversation: AdapterSession, path: Path) -> None:
    """The selected output in the v2 output file; an adapter that selects none writes
    none (the suite then says so)."""
    try:
        output = conversation.final_output()
    except NotImplementedError:
        return
    document = {"text": output.text, "complete": output.complete, "stop": output.stop}
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")


def _speaks(adapter: Adapter, brief: CaseBrief) -> bool:
    wires = adapter.wires
    column = f"{brief.wire}:{brief.dialect}" if brief.dialect else brief.wire
    return not wires or brief.wire in wires or column in wires


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One TLS context per process, for every HTTP client that holds a cell (this
    runner's, and a ``Client`` target that drives an adapter through ``hold``): building
    one loads a CA bundle (about 10 ms, far more on a loaded machine), which a session
    would pay on every cell; the provider is plain HTTP on loopback and never uses it."""
    return ssl.create_default_context()


def run(spec: str, environ: Mapping[str, str], adapter: Adapter | None = None) -> None:
    """Hold the case ``environ`` names with the adapter ``spec`` names (``adapter``: that
    adapter, already loaded by a session)."""
    adapter = adapter or load_adapter(spec)
    document = json.loads(Path(environ["CONFORMANCE_CASE"]).read_text(encoding="utf-8"))
    brief = brief_from_contract(document)
    if not _speaks(adapter, brief):
        raise AgentError(f"{spec} does not speak {brief.wire}", EXIT_WIRE_UNSUPPORTED)
    conversation = adapter.open(brief)
    # trust_env=False: the provider is on loopback; no proxy from the environment.
    with httpx.Client(timeout=60.0, trust_env=False, verify=tls_context()) as client:
        hold(conversation, brief, http_sender(client, brief, environ))
    if OUTPUT_VARIABLE in environ:
        write_output(conversation, Path(environ[OUTPUT_VARIABLE]))


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if len(arguments) != 1:
        print(USAGE, file=sys.stderr)
        return 2
    if os.getcwd() not in sys.path:  # resolve module:attr from here, as `python -m` does
        sys.path.insert(0, os.getcwd())
    if os.environ.get(SESSION_VARIABLE) == "1":
        return serve_cells(arguments[0])
    return held(arguments[0], os.environ)


def held(spec: str, environ: Mapping[str, str], adapter: Adapter | None = None) -> int:
    """One cell, as its exit status."""
    try:
        run(spec, environ, adapter)
    except AgentError as error:
        print(error, file=sys.stderr)
        return error.code
    except ConversationStopped as stop:  # the adapter's own stop: the contract's 93
        print(str(stop) or type(stop).__name__, file=sys.stderr)
        return EXIT_CONVERSATION_STOPPED
    return 0


def serve_cells(spec: str) -> int:
    """Session mode: load the adapter once, then hold every cell the suite hands over
    (``conformance.examples.command_session``); an adapter that does not load is the
    status of the session's first cell, as of a process."""
    try:
        adapter = load_adapter(spec)
    except AgentError as error:
        print(error, file=sys.stderr)
        return error.code
    return serve(lambda: held(spec, os.environ, adapter))


def __getattr__(name: str) -> Any:
    """``session_from_contract`` is ``brief_from_contract`` now (the document describes a
    case brief, not a session); the old name works one release, with a warning."""
    if name == "session_from_contract":
        from conformance._renamed import warn_renamed

        warn_renamed(f"{__name__}.session_from_contract", f"{__name__}.brief_from_contract")
        return brief_from_contract
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    sys.exit(main())
