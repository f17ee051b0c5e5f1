"""The Gemini wire: ``POST /v1beta/models/<model>:streamGenerateContent`` and
``:generateContent``.

It renders a scripted turn as the Gemini API sends it (``data:`` chunks with ``alt=sse``,
a JSON array stream without it, or one JSON response), parses a request body into the
neutral view, validates it with the rules of the rule catalogue (``docs/rules.md``) section D,
answering with Google's real error texts, and reads a recorded answer back into a
scripted turn.  The API reads every field under its JSON name or its proto name
(``thoughtSignature`` or ``thought_signature``), and so does this package.

The modules of the wire contract (``conformance/wires/_assembly.py``), one job each:
``route``, ``parse``, ``render``, ``rules`` (each rule bound to its check in ``BOOK``),
``validate``, ``read``, ``realism``; ``wire`` holds the wire's own data; ``WIRE`` is
assembled from them all.  Private helpers: ``_paths`` (the URLs), ``_fields`` (lenient
JSON access), ``_signatures``, ``_stops``, ``_errors``, ``_parts`` (parts in neutral
form), ``_checked`` (the request as the checks read it), ``_view``.
"""

from conformance.wires._assembly import assemble
from conformance.wires._gemini._view import GeminiRequestView
from conformance.wires._gemini.rules import (
    CALL_TURN_PLACED,
    CONTENTS_REQUIRED,
    PARTS_REQUIRED,
    RESPONSE_COUNT,
    RESPONSE_TURN_PLACED,
    RULES,
    SIGNATURE_BASE64,
    SIGNATURE_MINTED,
    SIGNATURE_NOT_NESTED,
    SIGNATURE_REQUIRED,
    VALID_ROLE,
)
from conformance.wires._thought_signatures import SENTINEL

WIRE = assemble(__name__)

__all__ = [
    "CALL_TURN_PLACED",
    "CONTENTS_REQUIRED",
    "PARTS_REQUIRED",
    "RESPONSE_COUNT",
    "RESPONSE_TURN_PLACED",
    "RULES",
    "SENTINEL",
    "SIGNATURE_BASE64",
    "SIGNATURE_MINTED",
    "SIGNATURE_NOT_NESTED",
    "SIGNATURE_REQUIRED",
    "VALID_ROLE",
    "WIRE",
    "GeminiRequestView",
]
