"""Which conversation an exchange belongs to, and on which wire and dialect: one source for
the recording proxy and the cassette importer.

The wire comes from the wires' own routing (``Wire.serves``), so a path the suite does
not answer is never recorded as a conversation.  Which provider host speaks which wire
and dialect is each wire's own data (``Wire.hosts``), and so are a provider's real paths
(``Wire.path_rewrites``: OpenRouter's ``/api/v1/...``, Vertex AI's
``/projects/P/locations/L/publishers/google/...``), which a cassette recorded against a
provider's real base URL is placed under as the suite serves them; nothing here names a
provider.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from conformance.http import HttpRequest
from conformance.wires._registry import get_wire, wire_names
from conformance.wires.roles import ProviderHost


def _upstreams(host: str, port: int | None) -> list[tuple[str, ProviderHost]]:
    """The wires' provider hosts (``Wire.hosts``) an upstream at ``host:port`` is, each
    with its wire: one known by its port (Ollama's) is that, whatever its host."""
    every = [(name, known) for name in wire_names() for known in get_wire(name).hosts]
    by_port = [(name, known) for name, known in every if known.by_port(port)]
    return by_port or [(name, known) for name, known in every if known.by_name(host)]


def dialect_of_host(host: str, port: int | None = None) -> str | None:
    """The dialect an upstream speaks, as its wire's hosts say (``None``: the plain one)."""
    return next((k.dialect for _, k in _upstreams(host, port) if k.dialect), None)


def host_wires(host: str, port: int | None = None) -> frozenset[str] | None:
    """The wires a host serves, or ``None`` for a host the suite knows no provider at."""
    return frozenset(name for name, _ in _upstreams(host, port)) or None


def suite_path(path: str) -> str:
    """``path`` as the suite serves it (a path it already serves is unchanged): the
    first of the wires' ``path_rewrites`` that matches."""
    for name in wire_names():
        for pattern, replacement in get_wire(name).path_rewrites:
            if re.match(pattern, path):
                return re.sub(pattern, replacement, path)
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
