"""The bundled reference adapter: the suite's default target.

An independent, deliberately plain implementation of everything the cases ask of an
adapter.  It imports only ``conformance.vocabulary`` and ``conformance._targets.api`` from
the suite — never the wire modules, checks, provider, cases or transcript — so a bug in
the judge cannot hide behind the same bug here.  It parses SSE with httpx-sse and
builds request JSON itself.

Modules, one job each:

``guards``        the named guard registry (id, statement, source); ``Guards.on(id)``
``fragments``     neutral stream fragments, the language between decoders and episodes
``consolidate``   the wire-agnostic episode tracker (fragments -> one assistant turn)
``turns``         what a received turn stores and runs (truncation, XML recovery)
``xml_recovery``  XML-style tool calls in visible text -> structured calls
``history``       the session store (durable, append-only, never rewritten for a wire)
``replay``        which user/tool-result input may be replayed (wire-agnostic)
``outbound``      the per-block decisions every request makes, whatever its wire
``output``        final-output selection for subagent results
``sse``           the SSE reader every streaming decoder uses (httpx-sse)
``codec``         what a wire contributes: ``WireCodec`` (decode, build requests)
``anthropic``     the Anthropic Messages codec
``openai_responses``  the OpenAI Responses codec
``openai_chat``   the OpenAI Chat Completions codec (plain, ``deepseek``, ``openrouter``)
``gemini``        the Gemini codec
``adapter``       ``ReferenceAdapter`` and its ``ReferenceSession``

A wire is one ``WireCodec`` module registered in ``ReferenceAdapter.codecs``; episodes,
truncation, XML recovery, history, output selection and the outbound decisions are
shared as they are.

Every decision point that prevents a known bug is a named guard (``guards.GUARDS``);
``ReferenceAdapter(disabled=frozenset({...}))`` turns guards off, re-creating the bug,
which is how the suite proves each one is load-bearing.
"""

from __future__ import annotations

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.guards import GUARDS, Guard, Guards

__all__ = ["GUARDS", "Guard", "Guards", "ReferenceAdapter", "ReferenceSession"]
