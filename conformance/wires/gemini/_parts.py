"""The parts of a request's ``contents`` in neutral form, shared by the parse and the
reader: a functionCall sent without an id gets back the id it was served with."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.model import ContentBlock, Media, Reasoning, Text, ToolCall
from conformance.wires import values
from conformance.wires.base import ValidationContext
from conformance.wires.gemini._fields import get, nonempty_text
from conformance.wires.gemini._signatures import signature_bytes, standard_spelling


@dataclass
class CallIds:
    """Ids for functionCall parts that carry none: the id of the served call with the
    same name and arguments (each served call once, and none a request names itself),
    else a deterministic one from the part's place, so every request of a conversation
    gives the same call the same id."""

    served: list[ToolCall]
    used: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, context: ValidationContext | None, contents: Sequence[object]) -> CallIds:
        served: list[ToolCall] = []
        if context is not None:
            history = (b for m in context.history if m.role == "assistant" for b in m.blocks)
            scripted = (b for r in context.served for b in r.blocks)
            served = [
                b for source in (history, scripted) for b in source if isinstance(b, ToolCall)
            ]
        named = {i for _, part in _parts_of(contents) if (i := _call_id(part)) is not None}
        return cls(served, {k for k, call in enumerate(served) if call.id in named})

    def restore(self, name: str, arguments: dict[str, Any] | str, at: str) -> str:
        for k, call in enumerate(self.served):
            if k not in self.used and call.name == name and call.arguments == arguments:
                self.used.add(k)
                return call.id
        return synthesized(at)


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
        call_id = nonempty_text(get(call, "id")) or ids.restore(name, arguments, at)
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
