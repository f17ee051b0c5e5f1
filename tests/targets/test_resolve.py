"""Resolving a target: each spec gives the kind object that holds its conversations and
the declarations the runner plans with."""

from __future__ import annotations

import sys

import pytest

from conformance._reference.adapter import ReferenceAdapter
from conformance._targets.adapter import AdapterKind
from conformance._targets.client import ClientKind
from conformance._targets.command import CommandKind
from conformance._targets.kind import TargetKind
from conformance._targets.resolve import (
    ResolvedTarget,
    command_name,
    resolve_target,
    target_from_object,
)
from conformance.errors import TargetError
from harness.clients.reference_client import ReferenceOverHttpx


def test_an_adapter_resolves_to_the_adapter_kind() -> None:
    target = resolve_target("reference")
    assert isinstance(target.kind, AdapterKind)
    assert isinstance(target.kind.adapter, ReferenceAdapter)
    assert target.kind.name == "adapter"
    assert target.spec == "conformance._reference.adapter:ReferenceAdapter"
    assert target.wires == ReferenceAdapter.wires
    assert target.capabilities == ReferenceAdapter.capabilities


def test_a_client_resolves_to_the_client_kind() -> None:
    client = ReferenceOverHttpx()
    target = target_from_object(client, name="mine")
    assert target.kind == ClientKind(client)
    assert (target.kind.name, target.name) == ("client", "mine")


def test_a_command_resolves_to_the_command_kind_declaring_nothing() -> None:
    target = resolve_target(f"cmd: {sys.executable} -V ")
    assert target.kind == CommandKind(f"{sys.executable} -V")
    assert target.kind.name == "command"
    assert target.name == command_name(f"{sys.executable} -V")
    assert (target.wires, target.capabilities) == (None, frozenset())
    assert target.speaks("gemini")


def test_the_capability_gap_is_each_kinds_own() -> None:
    gaps = {k.name: k.capability_gap for k in (AdapterKind, ClientKind, CommandKind)}
    assert gaps == {
        "adapter": "which the target does not declare",
        "client": "which the target does not declare",
        "command": "which the target does not declare",
    }
    assert all(issubclass(k, TargetKind) for k in (AdapterKind, ClientKind, CommandKind))


def test_what_is_no_target_is_refused() -> None:
    with pytest.raises(TargetError, match="not an Adapter or Client target"):
        target_from_object(object())
    with pytest.raises(TargetError, match="give the shell command"):
        resolve_target("cmd:  ")


def test_a_pin_applies_by_case_or_by_case_and_wire() -> None:
    target = ResolvedTarget(
        "t",
        "t",
        CommandKind("true"),
        frozenset({"anthropic-messages"}),
        pins={"two-responses": "known bug #1", "other[anthropic-messages]": "wire-specific"},
    )
    assert target.pin_for("two-responses", "anthropic-messages") == "known bug #1"
    assert target.pin_for("two-responses", "gemini") == "known bug #1"
    assert target.pin_for("other", "anthropic-messages") == "wire-specific"
    assert target.pin_for("other", "gemini") is None
    assert target.pin_for("unpinned", "anthropic-messages") is None
