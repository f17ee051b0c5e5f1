"""What the scripted provider refuses before it reads a request: a body above the size
cap, or JSON nested deeper than the suite can walk.

Real providers cap request sizes too (Anthropic answers a body over its limit with a
413 ``request_too_large``).  The cap keeps a runaway target from filling the suite's
memory, and an over-size body is recorded by its size and hash only, never kept.
"""

from __future__ import annotations

import hashlib

from conformance.http import HttpRequest
from conformance.wires.base import Rule, RuleViolation
from conformance.wires.nesting import MAX_DEPTH, too_deep

#: The largest request body the provider reads: 32 MiB, the request limit Anthropic documents
#: for Messages (so no request a provider accepts is refused), far above any real
#: conversation the cases script, and the cap on every transport (respx, loopback).
MAX_BODY_BYTES = 32 * 1024 * 1024

REQUEST_TOO_LARGE = Rule(
    id="provider/request-too-large",
    ref="design: request bodies above a documented cap are refused",
    statement=f"A request body is at most {MAX_BODY_BYTES} bytes.",
    source="Anthropic API errors: 413 request_too_large",
    error="conformance: the request body has {size} bytes, above the {cap}-byte cap "
    "(sha256 {digest})",
    status=413,
    error_type="request_too_large",
)
REQUEST_TOO_DEEP = Rule(
    id="provider/request-too-deep",
    ref="design: deeply nested request bodies are refused, not a crash",
    statement=f"A request body's JSON nests at most {MAX_DEPTH} levels deep.",
    source="the suite's reading limit (wires.nesting)",
    error="conformance: {problem}",
)
MALFORMED_FRAMING = Rule(
    id="provider/malformed-framing",
    ref="design: malformed framing is answered, never a silent drop",
    statement="A request body is framed by a valid Content-Length or chunked coding.",
    source="RFC 9112, section 6 (message body length)",
    error="conformance: malformed request framing: {problem}",
)
LIMIT_RULES = (REQUEST_TOO_LARGE, REQUEST_TOO_DEEP, MALFORMED_FRAMING)


def oversize(request: HttpRequest) -> tuple[HttpRequest, RuleViolation] | None:
    """The request with its body dropped, and the violation naming its size and hash,
    when the body is above ``MAX_BODY_BYTES``."""
    if request.dropped is not None:  # the transport read it through a hash already
        size, digest = request.dropped
    elif len(request.body) > MAX_BODY_BYTES:
        size, digest = len(request.body), hashlib.sha256(request.body).hexdigest()
    else:
        return None
    kept = HttpRequest(request.method, request.path, b"", request.query, request.headers)
    return kept, REQUEST_TOO_LARGE.violated(None, size=size, cap=MAX_BODY_BYTES, digest=digest)


def misframed(request: HttpRequest) -> RuleViolation | None:
    """The violation when the transport could not read the body's framing."""
    if request.framing is None:
        return None
    return MALFORMED_FRAMING.violated(None, problem=request.framing)


def overdeep(request: HttpRequest) -> RuleViolation | None:
    """The violation when the body's JSON nests deeper than the suite reads."""
    problem = too_deep(request.body)
    return None if problem is None else REQUEST_TOO_DEEP.violated(None, problem=problem)
