"""The parts of a request's ``contents`` in neutral form, shared by the parse and the
reader: a functionCall the client named itself gets back the id it was served with."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.vocabulary import ContentBlock, Media, Reasoning, Text, ToolCall
from conformance.wires import _values as values
from conformance.wires._gemini._fields import get, nonempty_text
from conformance.wires._gemini._signatures import signature_bytes
from conformance.wires._thought_signatures import standard_spelling
from conformance.wires.context import ValidationContext


@dataclass
class CallIds:
    """The served call each functionCall part of a request replays.

    Real Gemini sends calls without ``id`` (``ScriptedResponse.gemini_call_ids``): the
    client names such a call itself, or sends it back without an id, and Gemini pairs a
    functionResponse with its call by order.  So a part without an id, or with one the
    client made up for a call served without one, is the served call with the same name
    and arguments that is still unclaimed, each served call once, in served order; a
    part naming a served call's id is that call (renaming a call the client was shown an
    id for is the client's change, which the ledger reports).  A part that
    matches nothing keeps the id it was sent with, else gets a deterministic one from its
    place.  ``aliases`` maps each id a client made up to the served id it stands for, so
    a functionResponse naming it answers that call."""

    served: list[ToolCall]
    known: set[str] = field(default_factory=set)  # the served calls' ids
    hidden: set[int] = field(default_factory=set)  # served calls rendered without an id
    used: set[int] = field(default_factory=set)
    aliases: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, context: ValidationContext | None, contents: Sequence[object]) -> CallIds:
        served: list[ToolCall] = []
        hidden: set[int] = set()
        if context is not None:
            for message in context.history:  # a saved history holds its ids
                if message.role == "assistant":
                    served += [b for b in message.blocks if isinstance(b, ToolCall)]
            for response in context.served:
                calls = [b for b in response.blocks if isinstance(b, ToolCall)]
                if not response.gemini_call_ids:
                    hidden.update(range(len(served), len(served) + len(calls)))
                served += calls
        known = {call.id for call in served}
        named = {i for _, part in _parts_of(contents) if (i := _call_id(part)) in known}
        used = {k for k, call in enumerate(served) if call.id in named}
        return cls(served, known, hidden, used)

    def restore(self, sent: str | None, name: str, arguments: dict[str, Any] | str, at: str) -> str:
        """The id of the call a part replays (``sent``: the id the part carries)."""
        if sent is not None and sent in self.known:
            return sent
        for k, call in enumerate(self.served):
            unclaimed = k not in self.used and (sent is None or k in self.hidden)
            if unclaimed and call.name == name and call.arguments == arguments:
                self.used.add(k)
                if sent is not None:
                    self.aliases.setdefault(sent, call.id)
                return call.id
        return sent if sent is not None else synthesized(at)

    def answered(self, sent: str) -> str:
        """The call a functionResponse naming ``sent`` answers."""
        return self.aliases.get(sent, sent)


def synthesized(at: str) -> str:
    """The id of an unnamed call or response that matches nothing: from its place."""
    return "call_" + values.digest("gemini", at)[:24]


def _parts_of(contents: Sequence[object]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every part of every content, with its location."""
    for i, content in enumerate(contents):
        parts = get(content, "parts") if isinstance(content, dict) else None
        for j, part in enumerate(parts if isinstance(parts, list) else ()):
            if isinstance(part, dict):
                yield f"contents[{i}].parts[{j}]", part


def _call_id(part: Mapping[str, Any]) -> str | None:
    call = get(part, "functionCall")
    return nonempty_text(get(call, "id")) if isinstance(call, dict) else None


def content_block(part: Mapping[str, Any], at: str, ids: CallIds) -> ContentBlock | None:
    """A part other than functionResponse in neutral form (None: no neutral form).

    Only ``thought: true`` makes a part reasoning (rule 39); a signature alone, with no
    text, is kept as an empty text so its token stays visible.  A signature is carried as
    its bytes in the minted spelling (the field is protobuf ``bytes``), and so is an
    ``inlineData`` payload."""
    signature = signature_bytes(part)
    call = get(part, "functionCall")
    if isinstance(call, dict):
        name = values.text(get(call, "name"))
        raw_args = get(call, "args")
        arguments = {} if raw_args is None else raw_args
        arguments = arguments if isinstance(arguments, dict) else values.compact(arguments)
        call_id = ids.restore(nonempty_text(get(call, "id")), name, arguments, at)
        return ToolCall(id=call_id, name=name, arguments=arguments, signature=signature)
    media = get(part, "inlineData")
    if isinstance(media, dict):
        data = standard_spelling(values.text(get(media, "data")))  # protobuf bytes, too
        return Media(mime=values.text(get(media, "mimeType")), data=data)
    text = get(part, "text")
    if get(part, "thought") is True:
        return Reasoning(text=values.text(text), signature=signature)
    if isinstance(text, str) or signature is not None:
        return Text(text=values.text(text), signature=signature)
    return None
