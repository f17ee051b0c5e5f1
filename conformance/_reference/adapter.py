"""The reference adapter: an independent implementation every case must pass.

It shares only the neutral model and the target API with the suite (never the wire
modules, checks or provider), so a bug in the judge cannot hide behind the same bug
here.  A session stores the history, decodes each response through its wire's codec,
consolidates episodes, settles truncation and XML recovery, and builds every request
from the stored history.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, get_args

from conformance._reference.anthropic import AnthropicCodec
from conformance._reference.codec import Decoded, WireCodec
from conformance._reference.consolidate import TurnBlock, consolidate
from conformance._reference.gemini import GeminiCodec
from conformance._reference.guards import Guards
from conformance._reference.history import History
from conformance._reference.openai_chat import OpenAIChatCodec
from conformance._reference.openai_responses import OpenAIResponsesCodec
from conformance._reference.output import select_output
from conformance._reference.turns import settle
from conformance._reference.xml_recovery import DIALECTS, Dialect
from conformance._targets.api import (
    Adapter,
    AdapterSession,
    CallToRun,
    CaseBrief,
    ToolResultIn,
    WireRequest,
    WireResponse,
)
from conformance.vocabulary import Capability, FinalOutput, ToolResult

#: Statuses a provider answers for a transient failure, which a client retries as is.
TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504, 529})


class ReferenceSession(AdapterSession):
    """One conversation held by the reference adapter."""

    #: The XML markup forms recovered as calls (the seam a broken adapter narrows).
    xml_dialects: ClassVar[tuple[Dialect, ...]] = DIALECTS

    def __init__(self, brief: CaseBrief, guards: Guards, codec: WireCodec) -> None:
        self.brief = brief
        self.guards = guards
        self.codec = codec
        self.history = History(brief.history)
        self._recovered = 0
        self._prompt: str | None = None

    def add_user(self, text: str) -> None:
        self._prompt = text
        self.history.add_user(text)

    def retries(self, response: WireResponse) -> bool:
        """A transient fault is retried; the history stays as it was.  An answer the codec
        can repair the request for (rule 30's unverifiable reasoning) is retried once,
        repaired."""
        if response.status not in TRANSIENT_STATUSES:
            return self.codec.repairs(response, self.history.messages)
        if not self.guards.on("retry-unchanged") and self._prompt is not None:
            self.history.add_user(self._prompt)  # the bug: the retry appends the prompt again
        return True

    def next_request(self) -> WireRequest:
        return self.codec.request(self.history.replayable(self.guards))

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        decoded = self.codec.decode(response)
        settled = settle(
            self.consolidate(decoded),
            decoded.stop,
            self._offered(),
            self.guards,
            self._new_id,
            self.xml_dialects,
        )
        self.history.add_assistant(settled.blocks, decoded.stop)
        self.history.add_tool_results(settled.answered)
        return list(settled.calls)

    def continues(self) -> bool:
        """A paused turn resumes by resending its content, with no new message (rule 14)."""
        return self.history.last_stop == "pause"

    def add_tool_results(self, results: Sequence[ToolResultIn]) -> None:
        self.history.add_tool_results(
            [ToolResult(call_id=r.call_id, content=r.content, is_error=r.is_error) for r in results]
        )

    def final_output(self) -> FinalOutput:
        return select_output(self.history.final_turn(), self.history.last_stop, self.guards)

    def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
        """The turn's blocks from its fragments (the seam the broken adapters replace)."""
        return consolidate(decoded.fragments, self.guards, decoded.ended)

    def _offered(self) -> dict[str, Mapping[str, Any]]:
        return {tool.name: tool.parameters for tool in self.brief.tools}

    def _new_id(self) -> str:
        self._recovered += 1
        return self.codec.recovered_call_id(self._recovered)


class ReferenceAdapter(Adapter):
    """The bundled reference adapter (the suite's default target)."""

    name: ClassVar[str] = "reference"
    wires: ClassVar[frozenset[str]] = frozenset(
        {"anthropic-messages", "openai-responses", "openai-chat", "gemini"}
    )
    #: The reference can do everything a case may ask for.
    capabilities: ClassVar[frozenset[str]] = frozenset(get_args(Capability))
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {
        codec.wire: codec
        for codec in (AnthropicCodec, OpenAIResponsesCodec, OpenAIChatCodec, GeminiCodec)
    }
    session_class: ClassVar[type[ReferenceSession]] = ReferenceSession

    def __init__(self, disabled: Iterable[str] = frozenset()) -> None:
        self.guards = Guards(disabled)

    def open(self, brief: CaseBrief) -> ReferenceSession:
        codec = self.codecs.get(brief.wire)
        if codec is None:
            raise ValueError(f"the reference adapter does not speak {brief.wire!r}")
        return self.session_class(brief, self.guards, codec(brief, self.guards))
