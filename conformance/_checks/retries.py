"""What a target sends after a scripted fault (a transient HTTP error answer).

A careful client may retry, stop, or go on with the next prompt; the provider accepts
each.  A retry should resend the same request: the fault said nothing about the history,
so a retry that changes it (a prompt appended twice, an empty turn stored from the error)
is a different conversation than the one the target meant to continue.  The provider
accepts such a retry all the same, and no provider document or public report says
otherwise, so the check is a ``should`` resting on ``inferred`` evidence: it fails a run
only under ``--strict --evidence any``.
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

from conformance._checks.check import JudgeBook
from conformance._transcript import Exchange, Transcript
from conformance.verdict import Violation
from conformance.vocabulary import REPAIRED_FAULTS, Text

BOOK = JudgeBook("retries", __name__)

RETRY_IDENTICAL = BOOK.rule("invariant/retry-identical")


def _json(exchange: Exchange) -> Any:
    try:
        return json.loads(exchange.request.body)
    except ValueError:
        return None


def _faulted(transcript: Transcript, exchange: Exchange) -> bool:
    """Whether the exchange got a transient fault (one a retry resends unchanged; a
    repaired fault, rule 30's invalid encrypted content, asks for a changed request)."""
    responses = transcript.case.given.responses
    if exchange.served is None:
        return False
    fault = responses[exchange.served].fault
    return fault is not None and fault.kind not in REPAIRED_FAULTS


def _later_prompts(transcript: Transcript, served: int) -> set[str]:
    """The prompts of the turns after the one whose response ``served`` is."""
    seen, prompts = 0, set[str]()
    after = False
    for turn in transcript.case.given.turns:
        if after:
            prompts.add(turn.user)
        seen += len(turn.responses)
        after = after or seen > served
    return prompts


def _next_prompt(transcript: Transcript, after: Exchange, sent: Exchange) -> bool:
    """Whether ``sent`` goes on with a later turn's prompt instead of retrying."""
    if sent.view is None or not sent.view.messages or after.served is None:
        return False
    last = sent.view.messages[-1]
    texts = {b.text for b in last.blocks if isinstance(b, Text)}
    return last.role == "user" and bool(texts & _later_prompts(transcript, after.served))


@BOOK.checks(RETRY_IDENTICAL)
def retry_identical(transcript: Transcript, wire: object) -> list[Violation]:
    """Each request right after a fault is the identical request, or a later prompt."""
    found: list[Violation] = []
    exchanges = transcript.exchanges
    for faulted, sent in pairwise(exchanges):
        if not _faulted(transcript, faulted) or _next_prompt(transcript, faulted, sent):
            continue
        if _json(sent) != _json(faulted) or _json(sent) is None:
            found.append(
                RETRY_IDENTICAL.violation(
                    f"request {sent.number} follows the fault answered to request "
                    f"{faulted.number} with a different body: a retry resends the same "
                    f"request",
                    request=sent.number,
                )
            )
    return found
