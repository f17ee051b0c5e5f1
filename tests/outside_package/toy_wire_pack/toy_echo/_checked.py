"""What the toy rule reads: the request and the tokens the server minted so far."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.wires.context import RequestView


@dataclass(frozen=True)
class Checked:
    view: RequestView
    minted: frozenset[str | None]
