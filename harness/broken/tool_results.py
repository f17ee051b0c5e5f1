"""Broken: tool results that lose what the call returned.

* ``DropErrorFlagAdapter`` sends a failed tool's output as an ordinary result: the error
  flag is never written (JetBrains/koog#1700, langchain4j/langchain4j#4481), so the
  model reads a failure as a success.
* ``ResultPerToolAdapter`` answers every call to a tool with the first result that tool
  gave in the turn, as a results cache keyed by tool name does: the second call's own
  output is lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._targets.api import ToolResultIn


class DropErrorFlagSession(ReferenceSession):
    def add_tool_results(self, results: Sequence[ToolResultIn]) -> None:
        super().add_tool_results([replace(r, is_error=False) for r in results])


class DropErrorFlagAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-drop-error-flag"
    session_class: ClassVar[type[ReferenceSession]] = DropErrorFlagSession


class ResultPerToolSession(ReferenceSession):
    def add_tool_results(self, results: Sequence[ToolResultIn]) -> None:
        first: dict[str, ToolResultIn] = {}
        for result in results:
            first.setdefault(result.name, result)
        cached = [replace(first[r.name], call_id=r.call_id) for r in results]
        super().add_tool_results(cached)


class ResultPerToolAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-result-per-tool"
    session_class: ClassVar[type[ReferenceSession]] = ResultPerToolSession
