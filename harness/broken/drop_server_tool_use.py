"""Broken: a client that stores a server tool's result but not its ``server_tool_use``.

anthropics/claude-code#64383, #80439, #84783 (rule 14): the replayed assistant message
kept the ``*_tool_result`` block and lost the ``server_tool_use`` before it, and every
later request was rejected ("unexpected `tool_use_id` found in `…_tool_result` blocks").
"""

from __future__ import annotations

from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.codec import Decoded
from conformance._reference.consolidate import TurnBlock
from conformance.vocabulary import ServerToolUse


class DropServerToolUseSession(ReferenceSession):
    def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
        return tuple(b for b in super().consolidate(decoded) if not isinstance(b, ServerToolUse))


class DropServerToolUseAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-drop-server-tool-use"
    session_class: ClassVar[type[ReferenceSession]] = DropServerToolUseSession
