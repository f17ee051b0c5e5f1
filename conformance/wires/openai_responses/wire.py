"""The Responses wire, assembled from the job modules of this package.  One ledger hint
differs from the defaults: a reasoning item's encrypted content comes back under its own
``rs_`` id.  A script that leaves the id to the provider (derived at render) names none,
and neither does a client that drops it (OpenAI tolerates that): any reasoning item then
pairs."""

from __future__ import annotations

from conformance.wires.hints import DEFAULT_COMPANIONS, LedgerHints
from conformance.wires.openai_responses import (
    _server_state,
    parse,
    read,
    realism,
    render,
    route,
    rules,
)
from conformance.wires.openai_responses._view import NAME
from conformance.wires.openai_responses.validate import validate
from conformance.wires.roles import Realism, Wire

WIRE = Wire(
    name=NAME,
    rules=rules.RULES,
    serves=route.serves,
    endpoint=route.endpoint,
    wants_stream=route.wants_stream,
    parse=parse.parse,
    validate=validate,
    render=render.render,
    render_error=render.render_error,
    render_history=render.render_history,
    read=read.read,
    history_items=parse.history_items,
    hints=LedgerHints(companions={**DEFAULT_COMPANIONS, "reasoning": "id"}),
    realism=Realism(response=realism.response_problems, block=realism.block_problems),
    unseen_state=_server_state.unseen_state,
    models={"": "gpt-5"},
)
