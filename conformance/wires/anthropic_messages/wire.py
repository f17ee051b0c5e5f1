"""The Anthropic Messages wire, assembled from the job modules of this package; the
ledger hints are the defaults (a signature pairs with its thinking text, and every
minted payload must come back)."""

from __future__ import annotations

from conformance.wires.anthropic_messages import parse, read, realism, render, route, rules
from conformance.wires.anthropic_messages._threads import unseen_state
from conformance.wires.anthropic_messages._view import NAME
from conformance.wires.anthropic_messages.validate import validate
from conformance.wires.hints import LedgerHints
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
    hints=LedgerHints(),
    realism=Realism(
        response=realism.response_problems, block=realism.block_problems, rules=realism.RULES
    ),
    models={"": "claude-sonnet-4-5"},
    unseen_state=unseen_state,
)
