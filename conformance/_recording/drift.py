"""What the target sent against what was recorded: the request count, each request's
normalized message structure (roles and block kinds) and its opaque-payload ledger
(field, block id, length and SHA-256 of every payload, in order).

Drift is a fact, not a verdict: whether it breaks anything is for the checks (the
invariants, the ledger, the wire's rules) to say, and the replay report puts the two
side by side.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from conformance.vocabulary import opaque_fields
from conformance.wires.context import RequestView

DriftKind = Literal["requests", "unparsed", "structure", "ledger"]


class Drift(BaseModel):
    """One difference between a recorded request and the one the target sent."""

    model_config = ConfigDict(frozen=True)

    kind: DriftKind
    request: int | None = None
    detail: str


class LedgerEntry(BaseModel):
    """One opaque payload of a request, by what identifies it without its bytes."""

    model_config = ConfigDict(frozen=True)

    message: int
    kind: str
    field: str
    id: str | None
    length: int
    sha256: str

    def __str__(self) -> str:
        named = f" {self.id}" if self.id else ""
        return (
            f"{self.field} of {self.kind}{named} in message {self.message} "
            f"({self.length} bytes, sha256 {self.sha256[:12]})"
        )


def ledger(view: RequestView) -> list[LedgerEntry]:
    """Every opaque payload of a request, in body order."""
    entries: list[LedgerEntry] = []
    for m, message in enumerate(view.messages):
        for block in message.blocks:
            for field, payload in opaque_fields(block).items():
                entries.append(
                    LedgerEntry(
                        message=m,
                        kind=block.kind,
                        field=field,
                        id=getattr(block, "id", None),
                        length=len(payload),
                        sha256=hashlib.sha256(payload.encode("utf-8")).hexdigest(),
                    )
                )
    return entries


def structure(view: RequestView) -> list[str]:
    """Each message as ``role[kind, kind]``."""
    return [f"{m.role}[{', '.join(b.kind for b in m.blocks)}]" for m in view.messages]


def _structure_drift(number: int, recorded: RequestView, sent: RequestView) -> list[Drift]:
    old, new = structure(recorded), structure(sent)
    if old == new:
        return []
    at = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    if at is None:
        detail = f"recorded {len(old)} messages, sent {len(new)}"
    else:
        detail = f"message {at}: recorded {old[at]}, sent {new[at]}"
    return [Drift(kind="structure", request=number, detail=detail)]


def _ledger_drift(number: int, recorded: RequestView, sent: RequestView) -> list[Drift]:
    old, new = ledger(recorded), ledger(sent)
    old_keys = [(e.field, e.sha256) for e in old]
    new_keys = [(e.field, e.sha256) for e in new]
    if old_keys == new_keys:
        return []
    found: list[Drift] = []
    missing = [e for e in old if (e.field, e.sha256) not in new_keys]
    extra = [e for e in new if (e.field, e.sha256) not in old_keys]
    for entry in missing:
        found.append(Drift(kind="ledger", request=number, detail=f"missing: recorded {entry}"))
    for entry in extra:
        found.append(Drift(kind="ledger", request=number, detail=f"not recorded: sent {entry}"))
    if not found:
        what = "repeated" if len(old_keys) != len(new_keys) else "reordered"
        found.append(
            Drift(
                kind="ledger",
                request=number,
                detail=f"payloads {what}: recorded {len(old)} in one order, sent {len(new)}",
            )
        )
    return found


def compare(recorded: Sequence[RequestView], sent: Sequence[RequestView | None]) -> list[Drift]:
    """The drift of the target's requests from the recorded ones, request by request."""
    found: list[Drift] = []
    if len(recorded) != len(sent):
        found.append(
            Drift(kind="requests", detail=f"recorded {len(recorded)} requests, sent {len(sent)}")
        )
    for number, (old, new) in enumerate(zip(recorded, sent, strict=False), 1):
        if new is None:
            found.append(Drift(kind="unparsed", request=number, detail="the request did not parse"))
            continue
        found += _structure_drift(number, old, new)
        found += _ledger_drift(number, old, new)
    return found
