"""The Responses wire, assembled from the job modules of this package.  Two ledger hints
differ from the defaults: a reasoning item's encrypted content comes back under its own
``rs_`` id (a script that leaves the id to the provider, derived at render, names none,
and neither does a client that drops it, which OpenAI tolerates: any reasoning item then
pairs); and its stream announces another encrypted content first, at
``output_item.added`` (``_minted.announced``)."""

from __future__ import annotations

from conformance.wires.hints import DEFAULT_COMPANIONS, LedgerHints
from conformance.wires.openai_responses import (
    _background,
    _server_state,
    parse,
    read,
    realism,
    render,
    route,
    rules,
)
from conformance.wires.openai_responses._minted import announced
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
    hints=LedgerHints(companions={**DEFAULT_COMPANIONS, "reasoning": "id"}, announced=announced),
    realism=Realism(
        response=realism.response_problems, block=realism.block_problems, rules=realism.RULES
    ),
    unseen_state=_server_state.unseen_state,
    settle=_background.settle,
    defers=_background.defers,
    poll_of=_background.poll_of,
    models={"": "gpt-5"},
)
