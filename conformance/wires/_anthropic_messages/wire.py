"""The Anthropic Messages wire's own data (``_assembly.assemble`` builds its ``Wire`` from
this and the job modules): the ledger hints are the defaults (a signature pairs with its
thinking text, and every minted payload must come back); its SDKs read
``ANTHROPIC_BASE_URL`` and take the key in ``x-api-key``."""

from __future__ import annotations

from conformance.wires._anthropic_messages import _threads, _view, route
from conformance.wires.hints import LedgerHints
from conformance.wires.roles import ClientEnvironment, ProviderHost


def _key_headers(key: str) -> dict[str, str]:
    return {"x-api-key": key, "anthropic-version": "2023-06-01"}


NAME = _view.NAME
CLIENT = ClientEnvironment(
    base_variable="ANTHROPIC_BASE_URL",
    key_variable="ANTHROPIC_API_KEY",
    dummy_key="conformance-anthropic-key",
    path=route.endpoint,
    key_headers=_key_headers,
)
HINTS = LedgerHints()
HOSTS = (ProviderHost("api.anthropic.com"),)
TOOL_SCHEMA_KEYS = ("input_schema",)
MODELS = {"": "claude-sonnet-4-5"}
unseen_state = _threads.unseen_state
