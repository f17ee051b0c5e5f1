"""The URLs the wire serves: the model and whether the answer streams are in the path,
how a stream is framed (``alt=sse``) is in the query."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, unquote

from conformance.http import HttpRequest

#: The paths the API serves, for every API version a client may be configured with, and
#: the same methods on Vertex AI's publisher path for Google's models (the same body:
#: pydantic-ai streamed gemini-3-flash-preview from /v1beta1/projects/<p>/locations/global/
#: publishers/google/models/..., answered 200, pydantic/pydantic-ai tests/models/
#: cassettes/test_google/test_google_vertex_service_tier_flex_stream.yaml).
ROUTE = re.compile(
    r"^/(?:v1beta|v1|v1alpha|v1beta1)/"
    r"(?:projects/[^/]+/locations/[^/]+/publishers/google/)?models/(?P<model>[^/:]+)"
    r":(?P<method>streamGenerateContent|generateContent)$"
)
STREAM_METHOD = "streamGenerateContent"


def route(request: HttpRequest) -> re.Match[str] | None:
    """The path's model and method, or None for a request the API does not serve."""
    if request.method.upper() != "POST":
        return None
    return ROUTE.match(unquote(request.path))


def wants_sse(query: str) -> bool:
    """Whether the query asks for server-sent events rather than a JSON array stream."""
    values = parse_qs(query)
    return "sse" in values.get("alt", []) + values.get("$alt", [])
