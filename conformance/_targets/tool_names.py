"""A target's own names for the case's tools: a prefix, a table, or both.

Some agents only expose their own tools, or namespace them (an MCP tool appears as
``mcp__<server>__<tool>``).  The provider then scripts the calls under the target's names
and the contract document lists the tools under them; the recorded requests are read
back under the case's names, so the checks and the reports speak the case's language.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from conformance._transcript import Exchange
from conformance.vocabulary import Message, ToolCall

if TYPE_CHECKING:
    from conformance._cases.schema import Case


class ToolNames(BaseModel):
    """``table`` names a tool outright (case name → target name); every other tool gets
    ``prefix`` in front of its case name."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    prefix: str = Field("", pattern=r"^[A-Za-z0-9_-]*$", description="e.g. `mcp__conformance__`")
    table: dict[str, str] = Field(default_factory=dict, description="case name → target name")

    @model_validator(mode="after")
    def _one_to_one(self) -> ToolNames:
        names = list(self.table.values())
        if len(names) != len(set(names)):
            raise ValueError("two tools map to one name")
        return self

    def mapped(self, name: str) -> str:
        return self.table.get(name, self.prefix + name)

    def original(self, name: str) -> str:
        back = {v: k for k, v in self.table.items()}
        if name in back:
            return back[name]
        return name.removeprefix(self.prefix) if self.prefix else name

    # ------------------------------------------------------------ the case, mapped

    def apply(self, case: Case) -> Case:
        """The case as the target plays it: its tools and scripted calls renamed."""
        # Imported here: the case schema's models cost a start-up of the command-target
        # helper (``python -m conformance.agent`` reads manifests), which renames nothing.
        from conformance._cases.schema import Given

        given = Given.model_validate(self._rename(case.given.model_dump()))
        return case.model_copy(update={"given": given})

    def _rename(self, node: Any, key: str | None = None) -> Any:
        if isinstance(node, dict):
            renamed = {k: self._rename(v, k) for k, v in node.items()}
            if "name" in node and (key == "tools" or node.get("kind") == "tool_call"):
                renamed["name"] = self.mapped(node["name"])
            return renamed
        if isinstance(node, list | tuple):
            return [self._rename(item, key) for item in node]
        return node

    # ------------------------------------------------------------ the requests, read back

    def restore(self, exchanges: list[Exchange]) -> list[Exchange]:
        """The recorded exchanges with every tool name of their views back to the case's."""
        restored = []
        for exchange in exchanges:
            view = exchange.view
            if view is not None:
                view = view.model_copy(
                    update={
                        "tools": tuple(self.original(t) for t in view.tools),
                        "messages": tuple(self._message(m) for m in view.messages),
                    }
                )
            restored.append(replace(exchange, view=view))
        return restored

    def _message(self, message: Message) -> Message:
        blocks = tuple(
            b.model_copy(update={"name": self.original(b.name)}) if isinstance(b, ToolCall) else b
            for b in message.blocks
        )
        return message.model_copy(update={"blocks": blocks})
