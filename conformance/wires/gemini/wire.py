"""The Gemini wire, assembled from the job modules of this package, with the ledger hints
that say how strongly each signature must come back: signatures on functionCall parts
are enforced (rules 40, 41), on text and thought parts they only keep reasoning
continuity (rule 44, F7).  A call's signature stays with its call id; a text or thought
signature may come back on the text it concluded, merged or not (rule 43), so it has no
companion.  The field is protobuf ``bytes``, so the ledger compares decoded bytes."""

from __future__ import annotations

from conformance.wires.gemini import parse, read, realism, render, route, rules
from conformance.wires.gemini._signatures import SENTINELS
from conformance.wires.gemini._view import NAME
from conformance.wires.gemini.validate import validate
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
    hints=LedgerHints(
        sentinels=SENTINELS,
        strength="should",
        strengths={"tool_call": "must"},
        companions={"tool_call": "id"},
    ),
    realism=Realism(
        response=realism.response_problems, block=realism.block_problems, rules=realism.RULES
    ),
    models={"": "gemini-2.5-flash"},
)
