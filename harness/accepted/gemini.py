"""Accepted Gemini spellings: signatures in the URL-safe alphabet without padding, and a
free-form ``functionResponse.response``.

``thoughtSignature`` is protobuf ``bytes``: the API decodes both base64 alphabets, padded
or not, so a library that re-encodes a signature URL-safe sends the minted bytes.
``functionResponse.response`` is a free-form object: ``{"return_value": ...}`` (the name
one library uses) carries the result as well as ``{"output": ...}``; an answer to a call
that did not run may be a plain output text instead of an ``error`` key.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.codec import WireCodec
from conformance._reference.gemini import GeminiCodec
from harness.accepted._rewrite import Rewriting


def _parts(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        part
        for content in body.get("contents") or ()
        for part in content.get("parts") or ()
        if isinstance(part, dict)
    ]


def urlsafe(signature: str) -> str:
    """The same bytes in the URL-safe alphabet, unpadded (``/`` -> ``_``, ``+`` -> ``-``)."""
    raw = base64.b64decode(signature)
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


class UrlSafeSignatureCodec(Rewriting, GeminiCodec):
    def rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        for part in _parts(body):
            if isinstance(part.get("thoughtSignature"), str):
                part["thoughtSignature"] = urlsafe(part["thoughtSignature"])
        return body


class ReturnValueCodec(Rewriting, GeminiCodec):
    def rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        for part in _parts(body):
            response = part.get("functionResponse")
            if isinstance(response, dict) and "output" in response.get("response", {}):
                response["response"] = {"return_value": response["response"]["output"]}
        return body


class ErrorAsOutputCodec(Rewriting, GeminiCodec):
    def rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        for part in _parts(body):
            response = part.get("functionResponse")
            if isinstance(response, dict) and "error" in response.get("response", {}):
                response["response"] = {"output": response["response"]["error"]}
        return body


class UrlSafeSignatureAdapter(ReferenceAdapter):
    name: ClassVar[str] = "accepted-urlsafe-signatures"
    wires: ClassVar[frozenset[str]] = frozenset({"gemini"})
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {"gemini": UrlSafeSignatureCodec}


class ReturnValueAdapter(ReferenceAdapter):
    name: ClassVar[str] = "accepted-return-value"
    wires: ClassVar[frozenset[str]] = frozenset({"gemini"})
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {"gemini": ReturnValueCodec}
