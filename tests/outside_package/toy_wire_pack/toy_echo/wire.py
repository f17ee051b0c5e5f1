"""The toy wire's own data."""

from __future__ import annotations

from conformance.wires.hints import LedgerHints
from conformance.wires.roles import ClientEnvironment
from toy_wire_pack.toy_echo._body import PATH


def _key_headers(key: str) -> dict[str, str]:
    return {"x-toy-key": key}


NAME = "toy-echo"
HINTS = LedgerHints()
MODELS = {"": "toy-1"}
CLIENT = ClientEnvironment(
    base_variable="TOY_ECHO_BASE_URL",
    key_variable="TOY_ECHO_API_KEY",
    dummy_key="conformance-toy-key",
    path=lambda model, stream: PATH,
    key_headers=_key_headers,
)
