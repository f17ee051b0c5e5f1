"""Which conversation an exchange belongs to, and on which wire and dialect: one source for
the recording proxy and the cassette importer.

The wire comes from the wires' own routing (``Wire.serves``), so a path the suite does
not answer is never recorded as a conversation.  The dialect of a Chat upstream comes
from its host.  A cassette recorded against a provider's real base URL is placed on the
path the suite serves (OpenRouter's ``/api/v1/...``, Gemini's OpenAI-compatible
``/v1beta/openai/...``, Vertex AI's ``/projects/P/locations/L/publishers/google/...``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from conformance.http import HttpRequest
from conformance.wires.registry import get_wire, wire_names

#: Chat upstreams whose dialect the host says.
DIALECT_HOSTS = {
    "openrouter.ai": "openrouter",
    "api.deepseek.com": "deepseek",
    "generativelanguage.googleapis.com": "gemini",
    "api.moonshot.ai": "kimi",
    "api.moonshot.cn": "kimi",
}
#: Ollama's default port: its OpenAI-compatible endpoint on whatever host.
OLLAMA_PORT = 11434
_VERTEX = "aiplatform.googleapis.com"


def dialect_of_host(host: str, port: int | None = None) -> str | None:
    """The Chat dialect a host speaks (``None``: plain OpenAI Chat Completions)."""
    if port == OLLAMA_PORT:
        return "ollama"
    return DIALECT_HOSTS.get(host.lower())


#: The wires each provider host serves, for an imported exchange: a request to another
#: host, or to a wire its host does not speak, is not one of the suite's conversations.
HOST_WIRES: dict[str, frozenset[str]] = {
    "api.anthropic.com": frozenset({"anthropic-messages"}),
    "api.openai.com": frozenset({"openai-responses", "openai-chat"}),
    "openrouter.ai": frozenset({"openai-chat"}),
    "api.deepseek.com": frozenset({"openai-chat"}),
    "generativelanguage.googleapis.com": frozenset({"gemini", "openai-chat"}),
    _VERTEX: frozenset({"gemini"}),
    "api.moonshot.ai": frozenset({"openai-chat"}),
    "api.moonshot.cn": frozenset({"openai-chat"}),
}


def host_wires(host: str, port: int | None = None) -> frozenset[str] | None:
    """The wires a host serves, or ``None`` for a host the suite knows no provider at.
    Vertex AI is ``aiplatform.googleapis.com`` and its regional ``L-aiplatform`` hosts."""
    host = host.lower()
    if port == OLLAMA_PORT:
        return frozenset({"openai-chat"})
    if host.endswith("-" + _VERTEX):
        host = _VERTEX
    return HOST_WIRES.get(host)


#: A provider's real paths, as the suite serves them: (pattern, replacement).
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^/api/v1/chat/completions$"), "/v1/chat/completions"),  # OpenRouter
    (re.compile(r"^/v1beta/openai/chat/completions$"), "/v1/chat/completions"),  # Gemini
    (
        re.compile(
            r"^/v1(?:beta1)?/projects/[^/]+/locations/[^/]+/publishers/google/models/"
            r"(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)$"
        ),
        r"/v1beta/models/\g<model>:\g<method>",
    ),  # Vertex AI
)


def suite_path(path: str) -> str:
    """``path`` as the suite serves it (a path it already serves is unchanged)."""
    for pattern, replacement in _REWRITES:
        if pattern.match(path):
            return pattern.sub(replacement, path)
    return path


def wire_of(request: HttpRequest) -> str | None:
    """The wire whose endpoint the request is addressed to."""
    return next((name for name in wire_names() if get_wire(name).serves(request)), None)


@dataclass(frozen=True)
class Placement:
    """Where an exchange goes: its wire, its dialect, and the path it is filed under."""

    wire: str
    dialect: str | None
    path: str


def place(
    request: HttpRequest, host: str, port: int | None, dialect: str | None
) -> Placement | str:
    """The exchange's wire and dialect, or why it is not one of the suite's conversations
    (``"host H"``, ``"endpoint METHOD H/PATH"``).  ``dialect`` overrides the host's."""
    wires = host_wires(host, port)
    shown = host if port is None else f"{host}:{port}"
    if wires is None:
        return f"host {shown}"
    path = suite_path(request.path)
    wire = wire_of(HttpRequest(request.method, path, request.body, request.query))
    if wire is None or wire not in wires:
        return f"endpoint {request.method.upper()} {shown}{request.path}"
    if not get_wire(wire).dialects:
        return Placement(wire, None, path)
    return Placement(wire, dialect or dialect_of_host(host, port), path)


def conversation_key(request: HttpRequest) -> str:
    """What ties the requests of one conversation together: path, system prompt and the
    opening of the conversation: its first message (or input item, or content) after the
    system and developer messages a Chat or Responses request puts first.  Keyed on those
    alone, every conversation of a client with one system prompt became one recording."""
    try:
        body = json.loads(request.body)
    except ValueError:
        body = None
    opening: Any = None
    if isinstance(body, dict):
        for key in ("messages", "input", "contents"):
            items = body.get(key)
            if isinstance(items, list) and items:
                opening = _opening(items)
                break
            if isinstance(items, str):
                opening = items
                break
        opening = [body.get("system"), body.get("instructions"), opening]
    text = json.dumps([request.path.split(":")[0], opening], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def history_length(request: HttpRequest) -> int | None:
    """How many items of history a request carries (its messages, input items or
    contents), or ``None`` when its body says nothing countable."""
    try:
        body = json.loads(request.body)
    except ValueError:
        return None
    if isinstance(body, dict):
        for key in ("messages", "input", "contents"):
            items = body.get(key)
            if isinstance(items, list):
                return len(items)
    return None


def restarted(last: int | None, length: int | None) -> bool:
    """Whether a request that opens like a conversation starts it again: a history
    shorter than the conversation's last request's is a second client run with the same
    first message, not the next turn (longer) or a retry (as long).  Such runs were
    merged into one recording."""
    return last is not None and length is not None and length < last


_INSTRUCTING = frozenset({"system", "developer"})


def _opening(items: list[Any]) -> list[Any]:
    """The leading system and developer items and the first item after them."""
    for index, item in enumerate(items):
        if not (isinstance(item, dict) and item.get("role") in _INSTRUCTING):
            return items[: index + 1]
    return items


def model_of(request: HttpRequest) -> str | None:
    """The model the request names: in its body, or (Gemini) in its path."""
    try:
        body = json.loads(request.body)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("model"), str):
        return str(body["model"])
    marker = "/models/"
    if marker in request.path:  # Gemini names the model in the path
        return request.path.split(marker, 1)[1].split(":", 1)[0]
    return None
