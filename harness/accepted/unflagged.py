"""Accepted: a call that did not run answered with an explanatory text but no error flag
(Anthropic ``tool_result`` without ``is_error``; a Gemini ``functionResponse`` with an
``output`` instead of an ``error`` key), as a library whose tool message has no such
field sends it.  The provider accepts it and the model reads that the call did not run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.codec import WireCodec
from harness.accepted.anthropic import NoErrorFlagCodec
from harness.accepted.gemini import ErrorAsOutputCodec


class NoErrorFlagAdapter(ReferenceAdapter):
    name: ClassVar[str] = "accepted-no-error-flag"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages", "gemini"})
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {
        "anthropic-messages": NoErrorFlagCodec,
        "gemini": ErrorAsOutputCodec,
    }
