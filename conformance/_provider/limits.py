"""What the scripted provider refuses before it reads a request: a body above the size
cap, or JSON nested deeper than the suite can walk.

Real providers cap request sizes too (Anthropic answers a body over its limit with a
413 ``request_too_large``).  The cap keeps a runaway target from filling the suite's
memory, and an over-size body is recorded by its size and hash only, never kept.
"""

from __future__ import annotations

import hashlib

from conformance.catalogue.book import rule
from conformance.http import HttpRequest
from conformance.verdict import Violation
from conformance.wires._nesting import too_deep

#: The largest request body the provider reads: 32 MiB, the request limit Anthropic documents
#: for Messages (so no request a provider accepts is refused), far above any real
#: conversation the cases script, and the cap on every transport (respx, loopback).
MAX_BODY_BYTES = 32 * 1024 * 1024

REQUEST_TOO_LARGE = rule("provider/request-too-large", __name__)
REQUEST_TOO_DEEP = rule("provider/request-too-deep", __name__)
MALFORMED_FRAMING = rule("provider/malformed-framing", __name__)
LIMIT_RULES = (REQUEST_TOO_LARGE, REQUEST_TOO_DEEP, MALFORMED_FRAMING)


def oversize(request: HttpRequest) -> tuple[HttpRequest, Violation] | None:
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


def misframed(request: HttpRequest) -> Violation | None:
    """The violation when the transport could not read the body's framing."""
    if request.framing is None:
        return None
    return MALFORMED_FRAMING.violated(None, problem=request.framing)


def overdeep(request: HttpRequest) -> Violation | None:
    """The violation when the body's JSON nests deeper than the suite reads."""
    problem = too_deep(request.body)
    return None if problem is None else REQUEST_TOO_DEEP.violated(None, problem=problem)
