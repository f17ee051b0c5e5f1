"""The recording tools ask the wires which provider host speaks which wire and dialect,
where a provider's real paths go, and where a tool keeps its schema (``Wire.hosts``,
``Wire.path_rewrites``, ``Wire.tool_schema_keys``): nothing in ``conformance/_recording``
names a provider, and a wire that says nothing (the outside toy wire) gets defaults."""

from __future__ import annotations

import re
from pathlib import Path

from conformance._recording.routing import dialect_of_host, host_wires, place, suite_path
from conformance.http import HttpRequest
from conformance.wires._registry import get_wire
from conformance.wires.roles import ProviderHost, Wire

RECORDING = Path(__file__).parents[2] / "conformance" / "recording"


def test_the_hosts_each_wire_declares_place_an_imported_exchange() -> None:
    assert host_wires("api.openai.com") == frozenset({"openai-chat", "openai-responses"})
    assert host_wires("Generativelanguage.googleapis.com") == frozenset({"gemini", "openai-chat"})
    assert host_wires("europe-west4-aiplatform.googleapis.com") == frozenset({"gemini"})
    assert host_wires("localhost", 11434) == frozenset({"openai-chat"})
    assert dialect_of_host("api.moonshot.cn") == "kimi"
    assert dialect_of_host("example.org", 11434) == "ollama"
    # The negative examples: a host no wire declares is no provider, a plain one no dialect.
    assert host_wires("example.org") is None
    assert host_wires("xaiplatform.googleapis.com") is None
    assert dialect_of_host("api.openai.com") is None
    request = HttpRequest("POST", "/api/v1/chat/completions", b"{}")
    assert place(request, "openrouter.ai", None, None).__dict__ == {
        "wire": "openai-chat",
        "dialect": "openrouter",
        "path": "/v1/chat/completions",
    }
    assert place(request, "example.org", None, None) == "host example.org"


def test_a_wire_says_its_real_paths_and_its_tool_schema_keys() -> None:
    vertex = "/v1/projects/p/locations/l/publishers/google/models/gemini-2.5:generateContent"
    assert suite_path(vertex) == "/v1beta/models/gemini-2.5:generateContent"
    assert suite_path("/v1/messages") == "/v1/messages"
    assert get_wire("anthropic-messages").tool_schema_keys == ("input_schema",)
    assert get_wire("gemini").tool_schema_keys == ("parameters", "parametersJsonSchema")


def test_a_wire_that_declares_none_of_it_gets_the_defaults() -> None:
    """What the outside toy wire relies on: no host (its exchanges are recorded by the
    proxy through ``serves`` but never placed from a cassette), no rewrite, the common
    ``parameters`` key."""
    defaults = {f.name: f.default for f in Wire.__dataclass_fields__.values()}
    assert defaults["hosts"] == ()
    assert defaults["path_rewrites"] == ()
    assert defaults["tool_schema_keys"] == ("parameters",)
    regional = ProviderHost("aiplatform.googleapis.com", regional=True)
    assert regional.by_name("us-central1-aiplatform.googleapis.com")
    assert not ProviderHost("aiplatform.googleapis.com").by_name("us-aiplatform.googleapis.com")


def test_nothing_in_the_recording_tools_names_a_provider_host() -> None:
    host = re.compile(r"[a-z0-9-]+\.(?:com|ai|cn)\b")
    named = {
        path.name: host.findall(path.read_text(encoding="utf-8"))
        for path in sorted(RECORDING.glob("*.py"))
        if host.search(path.read_text(encoding="utf-8"))
    }
    assert named == {}
