"""The Responses wire's own data (``_assembly.assemble`` builds its ``Wire`` from this and
the job modules).  Two ledger hints differ from the defaults: a reasoning item's encrypted
content comes back under its own ``rs_`` id (a script that leaves the id to the provider,
derived at render, names none, and neither does a client that drops it, which OpenAI
tolerates: any reasoning item then pairs); and its stream announces another encrypted
content first, at ``output_item.added`` (``_minted.announced``).  The provider keeps
state (stored responses, background responses polled until they end), and a
conversation's ``store`` and ``include`` are case options of their own."""

from __future__ import annotations

from typing import Any

from conformance.wires._openai_responses import _background, _server_state, _view, route
from conformance.wires._openai_responses._minted import announced
from conformance.wires._sdk_clients import openai_client
from conformance.wires.context import RequestView
from conformance.wires.hints import DEFAULT_COMPANIONS, LedgerHints
from conformance.wires.roles import ProviderHost

NAME = _view.NAME
CLIENT = openai_client(route.endpoint)
HOSTS = (ProviderHost("api.openai.com"),)
HINTS = LedgerHints(companions={**DEFAULT_COMPANIONS, "reasoning": "id"}, announced=announced)
MODELS = {"": "gpt-5"}
unseen_state = _server_state.unseen_state
settle = _background.settle
defers = _background.defers
poll_of = _background.poll_of


def case_options(view: RequestView) -> dict[str, Any]:
    """The request's ``store`` and ``include``, as a case made from it states them."""
    options: dict[str, Any] = {}
    if isinstance(view.raw.get("store"), bool):
        options["store"] = view.raw["store"]
    if isinstance(view.raw.get("include"), list):
        options["include"] = view.raw["include"]
    return options
