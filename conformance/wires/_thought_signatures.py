"""Gemini's thoughtSignature as bytes, shared by every wire that carries one: the Gemini
wire itself and Gemini's OpenAI-compatible endpoint (``openai-chat:gemini``, its
``extra_content.google.thought_signature``).  One module, so both wires read the same
dummy signatures and compare the same spellings of the same bytes.

The field is protobuf ``bytes``: the base64 the API accepts, the form it mints, and the
two dummy signatures the docs allow in place of a real one.
"""

from __future__ import annotations

import base64
import binascii
import re

#: The dummy signatures the thought-signatures doc (FAQ, ai.google.dev/gemini-api/docs/
#: thought-signatures) allows in place of a real one, e.g. for calls another model made:
#: either string, as the bytes of the field.  Both reach the API as the base64 of their
#: ASCII bytes: ``skip_thought_signature_validator`` from pydantic-ai to gemini-2.0-flash
#: (pydantic/pydantic-ai tests/models/cassettes/test_google/
#: test_google_model_structured_output.yaml) and ``context_engineering_is_the_way_to_go``
#: to gemini-3-pro-preview (test_google/test_thinking_with_tool_calls_from_other_model.yaml),
#: both answered 200.  One source: every rule and hint that excuses a placeholder reads
#: ``SENTINELS``.
DUMMY_SIGNATURES: tuple[str, ...] = (
    "skip_thought_signature_validator",
    "context_engineering_is_the_way_to_go",
)
#: The first dummy: the one Vertex's doc also names, and the one this suite's docs cite.
SENTINEL = DUMMY_SIGNATURES[0]
#: Each dummy as the literal: the form the neutral view carries it in.
SENTINELS: frozenset[str] = frozenset(DUMMY_SIGNATURES)
#: Each dummy's bytes as canonical standard base64 (the form real clients send), to the
#: literal.  The literal itself is accepted too: which form the live API honours when the
#: JSON carries the bare string is not documented, so neither is refused.
_SENTINEL_BASE64: dict[str, str] = {
    base64.b64encode(dummy.encode()).decode(): dummy for dummy in DUMMY_SIGNATURES
}
#: The first dummy's base64 (as pydantic-ai sends it).
SENTINEL_BASE64 = base64.b64encode(SENTINEL.encode()).decode()


def decodes(value: str) -> bool:
    """Whether the API's bytes decoding accepts ``value``: the standard or the URL-safe
    alphabet, padded or not.  Lenient on purpose: only a value no base64 reader can
    decode (a cut signature, a stray character) is refused."""
    body = value.rstrip("=")
    if len(value) - len(body) > 2 or len(body) % 4 == 1:
        return False
    return re.fullmatch(r"[A-Za-z0-9+/_-]*", body) is not None


def standard_base64(value: str) -> bool:
    """Whether ``value`` is canonical standard base64, the form Gemini mints."""
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return bool(value) and base64.b64encode(decoded).decode() == value


def canonical(value: str) -> str:
    """The bytes a thoughtSignature stands for, as canonical standard base64.

    The field is protobuf ``bytes``: the API decodes the standard and the URL-safe
    alphabet, padded or not, to the same bytes, so two spellings of them are one
    signature.  A value that does not decode stays as it is (it matches only itself);
    a dummy signature, as the literal or in any base64 spelling of its bytes, is the
    literal (a placeholder, not bytes)."""
    if value in SENTINELS:
        return value
    spelled = standard_spelling(value)
    return _SENTINEL_BASE64.get(spelled, spelled)


def standard_spelling(value: str) -> str:
    """Any protobuf ``bytes`` value as JSON carries it (standard or URL-safe alphabet,
    padded or not), as canonical standard base64; a value that does not decode stays as
    it is.  Used for every Gemini ``bytes`` field: thoughtSignature, inlineData.data."""
    if not value or not decodes(value):
        return value
    body = value.rstrip("=").replace("-", "+").replace("_", "/")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return value
    return base64.b64encode(raw).decode()


def is_sentinel(value: str) -> bool:
    """Whether ``value`` is one of the documented dummy signatures, as the literal or
    its base64."""
    return canonical(value) in SENTINELS
