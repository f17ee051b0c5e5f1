"""The target API: what users implement to put their code under test.

Three kinds share one verdict pipeline:

* ``Adapter`` — in-process conversion code: the suite hands it wire responses and asks
  it for the next request body.  Fastest; what the probe runner drives.
* ``Client`` — an in-process real client stack pointed at the scripted provider through
  respx (httpx and httpx2) or a loopback server.
* ``command`` — any program, run once per case × wire against a loopback provider
  (see ``conformance._targets.command``).

A target declares the wires it speaks and the capabilities it has; a case that needs
more is ``n/a`` with the reason.  ``pins`` maps ``case-id`` (or ``case-id[wire]``) to
the reason of a known failure: it runs as a strict xfail.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from conformance.vocabulary import FinalOutput, Message, ThinkingConfig, ToolChoice

CONTRACT_VERSION = 1
#: Contract v2 adds the saved history, the output file and the reserved exit codes
#: (``conformance._targets.command_contract``); a manifest target speaks it by default.
CONTRACT_V2 = 2
CONTRACT_VERSIONS = (CONTRACT_VERSION, CONTRACT_V2)


@dataclass(frozen=True)
class ToolDef:
    """A tool offered to the model, as the target should declare it."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    result: str


@dataclass(frozen=True)
class CaseBrief:
    """Everything a target needs to hold one scripted conversation.

    This is the in-process form of the command contract's ``CONFORMANCE_CASE`` file
    (``contract()`` renders that file), plus a saved ``history`` for targets that
    declare the ``history`` capability.
    """

    case: str
    wire: str
    dialect: str | None
    model: str
    system: str | None
    prompts: tuple[str, ...]
    tools: tuple[ToolDef, ...]
    thinking: ThinkingConfig
    max_tokens: int
    store: bool | None = None
    include: tuple[str, ...] | None = None
    #: The tool choice every request asks for (capability ``tool-choice``); ``None``:
    #: the target's default.
    tool_choice: ToolChoice | None = None
    #: The assistant prefill each turn's first request ends with (capability
    #: ``prefill``); ``None``: no prefill.
    prefill: str | None = None
    #: The Anthropic betas every request carries (capability ``betas``); empty: none.
    betas: tuple[str, ...] = ()
    history: tuple[Message, ...] = ()
    #: A result per call id (``content``, ``is_error``) where the case scripts one;
    #: other calls get their tool's ``result``.
    results: Mapping[str, tuple[str, bool]] = field(default_factory=dict)
    #: The arguments of the scripted call behind each result, for a target that runs
    #: tools by name and arguments only (an MCP server is told no call id).
    result_arguments: Mapping[str, object] = field(default_factory=dict)

    def tool(self, name: str) -> ToolDef | None:
        return next((t for t in self.tools if t.name == name), None)

    def result_for(self, name: str) -> str:
        """The result the suite's tools return when a call to ``name`` runs."""
        tool = self.tool(name)
        return tool.result if tool else f"unknown tool {name!r}"

    def result_of(self, call_id: str, name: str) -> ToolResultIn:
        """What the call ``call_id`` to ``name`` returns when it runs: the case's result
        for that call (which may be a failure), else the tool's."""
        if call_id in self.results:
            content, is_error = self.results[call_id]
            return ToolResultIn(call_id, name, content, is_error)
        return ToolResultIn(call_id, name, self.result_for(name))

    def contract(self, version: int = CONTRACT_VERSION) -> dict[str, Any]:
        """The ``CONFORMANCE_CASE`` JSON document; v2 adds the saved ``history`` (the
        case language's messages, as JSON) and the same history in the wire's request
        form (``wire_history``)."""
        thinking: dict[str, Any] = {"mode": self.thinking.mode}
        if self.thinking.budget_tokens is not None:
            thinking["budget_tokens"] = self.thinking.budget_tokens
        document: dict[str, Any] = {
            "version": version,
            "case": self.case,
            "wire": self.wire,
            "dialect": self.dialect,
            "model": self.model,
            "system": self.system,
            "prompts": list(self.prompts),
            "tools": [
                {
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.parameters),
                    "result": t.result,
                }
                for t in self.tools
            ],
            "thinking": thinking,
            "max_tokens": self.max_tokens,
        }
        if self.store is not None:
            document["store"] = self.store
        if self.include is not None:
            document["include"] = list(self.include)
        if self.tool_choice is not None:
            document["tool_choice"] = self.tool_choice.model_dump(exclude_none=True)
        if self.prefill is not None:
            document["prefill"] = self.prefill
        if self.betas:
            document["betas"] = list(self.betas)
        if self.results:
            document["results"] = {
                call_id: {"content": content, "is_error": is_error}
                | (
                    {"arguments": self.result_arguments[call_id]}
                    if call_id in self.result_arguments
                    else {}
                )
                for call_id, (content, is_error) in self.results.items()
            }
        if version >= CONTRACT_V2:
            document["history"] = [m.model_dump(mode="json") for m in self.history]
            document.update(self.wire_history())
        return document

    def wire_history(self) -> dict[str, Any]:
        """The v2 fields that carry the saved history in the wire's own request form:
        ``wire_history`` (the request body fields, ``null`` when the wire has no field for
        some block, ``wire_history_lost`` says which), ``wire_history_origins`` (who
        minted each token that came from elsewhere, by the block's location)."""
        # Imported here: the target API stays free of the judge's wires for the
        # reference adapter, which imports this module (its independence test).
        from conformance.wires._registry import get_wire
        from conformance.wires._saved_history import hold

        held = hold(get_wire(self.wire), self.history, self.dialect)
        fields: dict[str, Any] = {
            "wire_history": held.fields,
            "wire_history_origins": held.origins,
        }
        if held.lost is not None:
            fields["wire_history_lost"] = held.lost
        return fields

    def contract_json(self, version: int = CONTRACT_VERSION) -> str:
        return json.dumps(self.contract(version), ensure_ascii=False, indent=2) + "\n"


@dataclass(frozen=True)
class WireRequest:
    """A request an adapter wants sent: a JSON body (bytes or an object) and headers."""

    body: bytes | Mapping[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)
    path: str | None = None

    @classmethod
    def coerce(cls, value: WireRequest | Mapping[str, Any] | bytes) -> WireRequest:
        """What ``AdapterSession.next_request`` may return, as a ``WireRequest``."""
        if isinstance(value, WireRequest):
            return value
        if isinstance(value, Mapping):
            return cls(body=value)
        if isinstance(value, bytes | bytearray):
            return cls(body=bytes(value))
        raise TypeError(
            f"next_request() returned {type(value).__name__}; "
            "expected a WireRequest, a mapping or bytes"
        )

    def body_bytes(self) -> bytes:
        if isinstance(self.body, bytes | bytearray):
            return bytes(self.body)
        return json.dumps(self.body, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True)
class WireResponse:
    """The provider's answer, as bytes on the wire."""

    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def streaming(self) -> bool:
        return "event-stream" in self.headers.get("content-type", "")

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class CallToRun:
    """A tool call the adapter decided to execute."""

    id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class ToolResultIn:
    """The result of an executed call, handed back to the adapter."""

    call_id: str
    name: str
    content: str
    is_error: bool = False


class AdapterSession(ABC):
    """One conversation held by an adapter."""

    @abstractmethod
    def add_user(self, text: str) -> None:
        """Append a user prompt."""

    @abstractmethod
    def next_request(self) -> WireRequest | Mapping[str, Any] | bytes:
        """The body (and optionally headers) of the next request, from stored history."""

    @abstractmethod
    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        """Consume a response, store the assistant turn, return the calls to execute
        (an empty list ends the tool loop, unless ``continues`` says otherwise)."""

    def continues(self) -> bool:
        """Whether the turn goes on without calls to run: the provider paused it and
        expects the content resent to resume (Anthropic ``pause_turn``, rule 14)."""
        return False

    def retries(self, response: WireResponse) -> bool:
        """Whether to send the same request again after this error answer (a transient
        fault: overloaded, rate-limited, a server error).  A retry must resend the
        identical body; the default ends the conversation on any error."""
        return False

    @abstractmethod
    def add_tool_results(self, results: Sequence[ToolResultIn]) -> None:
        """Store the results of the calls ``receive`` asked to run."""

    def final_output(self) -> FinalOutput:
        """The selected output of the conversation (capability ``output-selection``)."""
        raise NotImplementedError


class ConversationStopped(Exception):
    """Raise from an adapter or a client to say that its library stopped the
    conversation on purpose (it raised instead of going on), with the library's message.

    It is not a crash: the cell is judged on what was sent, and the stop passes where the
    response before it lets the turn end (a truncated or cut turn, a refusal, a transient
    fault: ``cases.schema.halt_accepted``) and fails elsewhere, as a lost turn.  A command
    says the same with exit status 93 (``_targets.command_contract.EXIT_CONVERSATION_STOPPED``).
    """


class TargetBase:
    """Configuration every target kind shares (capability properties)."""

    name: ClassVar[str] = "target"
    wires: ClassVar[frozenset[str]] = frozenset()
    capabilities: ClassVar[frozenset[str]] = frozenset()
    pins: ClassVar[Mapping[str, str]] = {}


class Adapter(TargetBase, ABC):
    """Subclass to test in-process conversion code."""

    @abstractmethod
    def open(self, brief: CaseBrief) -> AdapterSession:
        """Start a conversation of the case ``brief`` describes."""


@dataclass(frozen=True)
class Conversation:
    """What a ``Client`` target gets: the case brief and where the provider answers."""

    brief: CaseBrief
    base_url: str
    api_key: str = "conformance-test-key"

    @property
    def session(self) -> CaseBrief:
        """The old name of ``brief``, kept one release with a ``DeprecationWarning``."""
        from conformance._renamed import warn_renamed

        warn_renamed("Conversation.session", "Conversation.brief")
        return self.brief


class Client(TargetBase, ABC):
    """Subclass to test a real client stack in-process.

    ``run`` sends ``conversation.brief.prompts`` in order, each after the previous one's
    tool loop ended, answering every call it executes with ``brief.result_for(name)``.  It may
    be a coroutine function.  ``transport`` picks respx (httpx and httpx2 clients are
    both intercepted) or a loopback server on 127.0.0.1.
    """

    transport: ClassVar[str] = "respx"

    @abstractmethod
    def run(self, conversation: Conversation) -> Awaitable[None] | None:
        """Hold the conversation against ``conversation.base_url``."""
