"""Broken: XML recovery that knows only the ``<invoke name=…>`` dialect.

QwenLM/qwen-code#10692 (rule 50, E4): the fallback parser matched ``<invoke>`` only,
while Qwen-family models write ``<tool_call><function=…>``, its bare ``<function=…>``
form, or Hermes' JSON body inside ``<tool_call>``; the turn ended with the raw markup
shown and no tool run.  The adapter still declares ``xml-recovery``, so the cases of
the other dialects fail (not error): it stops on the response that carried the call.
"""

from __future__ import annotations

from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.xml_recovery import INVOKE, Dialect


class InvokeOnlyRecoverySession(ReferenceSession):
    xml_dialects: ClassVar[tuple[Dialect, ...]] = (INVOKE,)


class InvokeOnlyRecoveryAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-invoke-only-recovery"
    session_class: ClassVar[type[ReferenceSession]] = InvokeOnlyRecoverySession
