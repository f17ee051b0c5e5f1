"""Recovery of tool calls a model wrote as XML-style text (rule 50, seed §53–§64).

Recognised dialects (a call must be complete and well-formed: only parameters, and
whitespace between them, inside the call element):

* ``<invoke name="t"><parameter name="k">v</parameter></invoke>``, alone or inside
  ``<function_calls>`` (the wrapper goes when every call inside it was recovered);
* ``<tool_call><function=t><parameter=k>v</parameter></function></tool_call>`` (Qwen3-Coder);
* ``<function=t><parameter=k>v</parameter></function>`` with no ``<tool_call>`` around it;
* ``<tool_call>{"name": "t", "arguments": {...}}</tool_call>`` (Hermes, Qwen2.5): a JSON
  object naming the tool, its arguments an object (absent: none).

Markup naming a tool that was not offered, and prose that merely mentions a tag, stay
as text.  Where two dialects match overlapping text (a bare ``<function=…>`` inside a
``<tool_call>``), the match that starts first and spans most wins.  A parameter value
loses the newlines around it (the dialects' layout); it is kept as a string when the
tool's schema types that property ``string``, else decoded as JSON when it parses
(``3`` -> 3, ``{"a":1}`` -> object) and kept as a string otherwise.  No entity decoding:
models write values raw.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance._reference.consolidate import TurnBlock
from conformance._reference.guards import Guards
from conformance.vocabulary import Reasoning, Text, ToolCall

#: How a dialect reads one match: the tool name and its arguments, or ``None`` when the
#: markup is not a well-formed call.
Reader = Callable[
    [re.Match[str], Mapping[str, Mapping[str, Any]]], tuple[str, dict[str, Any]] | None
]


@dataclass(frozen=True)
class Dialect:
    """One markup form: where a call sits in the text, and how a match reads as a tool
    name and arguments."""

    id: str
    call: re.Pattern[str]
    arguments: Reader


_INVOKE_PARAMETER = re.compile(
    r"<parameter\s+name=\"(?P<name>[^\"]+)\"\s*>(?P<value>.*?)</parameter>", re.DOTALL
)
_FUNCTION_PARAMETER = re.compile(
    r"<parameter=(?P<name>[^>\s]+)>(?P<value>.*?)</parameter>", re.DOTALL
)
_EMPTY_WRAPPER = re.compile(r"<function_calls>\s*</function_calls>")


def _by_parameters(parameter: re.Pattern[str]) -> Reader:
    """A dialect whose tag names the tool and whose body is parameter elements."""

    def read(
        match: re.Match[str], offered: Mapping[str, Mapping[str, Any]]
    ) -> tuple[str, dict[str, Any]] | None:
        name = match["name"]
        arguments = _parameters(match["body"], parameter, offered.get(name, {}))
        return None if arguments is None else (name, arguments)

    return read


def _json_body(
    match: re.Match[str], offered: Mapping[str, Mapping[str, Any]]
) -> tuple[str, dict[str, Any]] | None:
    """Hermes' form: the body is one JSON object with a string ``name`` and object
    ``arguments``."""
    try:
        body = json.loads(match["body"])
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("name"), str):
        return None
    arguments = body.get("arguments", {})
    if not isinstance(arguments, dict) or set(body) - {"name", "arguments"}:
        return None
    return body["name"], arguments


INVOKE = Dialect(
    "invoke",
    re.compile(
        r"<invoke\s+name=\"(?P<name>[^\"]+)\"\s*>(?P<body>(?:(?!<invoke\b).)*?)</invoke>",
        re.DOTALL,
    ),
    _by_parameters(_INVOKE_PARAMETER),
)
TOOL_CALL_FUNCTION = Dialect(
    "tool-call-function",
    re.compile(
        r"<tool_call>\s*<function=(?P<name>[^>\s]+)>(?P<body>(?:(?!<tool_call>).)*?)"
        r"</function>\s*</tool_call>",
        re.DOTALL,
    ),
    _by_parameters(_FUNCTION_PARAMETER),
)
BARE_FUNCTION = Dialect(
    "bare-function",
    re.compile(
        r"<function=(?P<name>[^>\s]+)>(?P<body>(?:(?!<function=).)*?)</function>", re.DOTALL
    ),
    _by_parameters(_FUNCTION_PARAMETER),
)
TOOL_CALL_JSON = Dialect(
    "tool-call-json",
    re.compile(r"<tool_call>\s*(?P<body>\{.*?\})\s*</tool_call>", re.DOTALL),
    _json_body,
)
#: Every dialect the reference recovers, in the order ties are broken.
DIALECTS: tuple[Dialect, ...] = (INVOKE, TOOL_CALL_FUNCTION, TOOL_CALL_JSON, BARE_FUNCTION)


@dataclass(frozen=True)
class Found:
    """One recoverable call in a text."""

    start: int
    end: int
    name: str
    arguments: dict[str, Any]


def find_calls(
    text: str,
    offered: Mapping[str, Mapping[str, Any]],
    guards: Guards,
    dialects: Sequence[Dialect] = DIALECTS,
) -> list[Found]:
    """Every well-formed call in ``text`` worth recovering, in text order; of matches
    that overlap, the one that starts first (and then spans most) is kept.

    ``offered`` maps each offered tool's name to its parameter schema.
    """
    found: list[Found] = []
    for dialect in dialects:
        for match in dialect.call.finditer(text):
            read = dialect.arguments(match, offered)
            if read is None:
                continue
            name, arguments = read
            if name not in offered and guards.on("xml-offered-tools-only"):
                continue
            found.append(Found(match.start(), match.end(), name, arguments))
    kept: list[Found] = []
    for call in sorted(found, key=lambda f: (f.start, -f.end)):
        if not kept or call.start >= kept[-1].end:
            kept.append(call)
    return kept


def without_calls(text: str, found: Sequence[Found]) -> str:
    """``text`` with the recovered markup (and wrappers left empty) cut out, trimmed."""
    kept: list[str] = []
    at = 0
    for call in found:
        kept.append(text[at : call.start])
        at = call.end
    kept.append(text[at:])
    return _EMPTY_WRAPPER.sub("", "".join(kept)).strip()


def recover(
    blocks: Sequence[TurnBlock],
    offered: Mapping[str, Mapping[str, Any]],
    guards: Guards,
    new_id: Callable[[], str],
    dialects: Sequence[Dialect] = DIALECTS,
) -> tuple[TurnBlock, ...] | None:
    """The turn with its XML calls made structured, or ``None`` when there are none.

    Text blocks holding markup are replaced, in place, by the prose around it, which
    keeps the text's signature (Gemini signs text, rule 44; with no prose left, as an
    empty signed text, rule 43); every other block stays where it was; the recovered
    calls come last, so every surviving reasoning episode precedes them (§58, §59).
    """
    kept: list[TurnBlock] = []
    recovered: list[Found] = []
    for block in blocks:
        found = find_calls(block.text, offered, guards, dialects) if isinstance(block, Text) else []
        if not isinstance(block, Text) or not found:
            kept.append(block)
            continue
        recovered.extend(found)
        prose = without_calls(block.text, found)
        if (prose or block.signature) and guards.on("xml-keep-remaining-text"):
            kept.append(Text(text=prose, signature=block.signature))
    if not recovered:
        return None
    if not guards.on("xml-keep-episodes"):
        kept = [b for b in kept if not isinstance(b, Reasoning)]
    calls = [ToolCall(id=new_id(), name=f.name, arguments=f.arguments) for f in recovered]
    at = len(kept)
    if not guards.on("xml-calls-after-episodes"):
        at = next((i for i, b in enumerate(kept) if isinstance(b, Reasoning)), at)
    return (*kept[:at], *calls, *kept[at:])


def _parameters(
    body: str, parameter: re.Pattern[str], schema: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The call's arguments, or ``None`` when its body is not only parameters."""
    if parameter.sub("", body).strip():
        return None
    properties = schema.get("properties", {})
    arguments: dict[str, Any] = {}
    for match in parameter.finditer(body):
        declared = properties.get(match["name"], {}) if isinstance(properties, dict) else {}
        arguments[match["name"]] = _value(match["value"].strip("\r\n"), declared)
    return arguments


def _value(raw: str, declared: Mapping[str, Any]) -> Any:
    if declared.get("type") == "string":
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw
