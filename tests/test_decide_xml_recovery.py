"""A target that declares ``xml-recovery`` and ends its turn on the response whose text
carries the call did not recover it: ``fail`` (rule 50), where the same quiet early stop
in any other case stays an unexplained ``error``."""

from __future__ import annotations

from conformance._cases.loader import load_text
from conformance._cases.schema import Case
from conformance._decide import decide
from tests.test_decide import CASE, exchange, transcript

XML_CASE = """\
id: xml-call
title: An XML call leaked as text
provenance: [{rule: 50}]
features: [xml-recovery]
requires: [xml-recovery]
wires: {anthropic-messages: Qwen-family models leak markup as text (rule 50).}
given:
  tools: [{name: t, result: r}]
  turns:
    - user: go
      responses:
        - {stop: end, blocks: [{kind: text, text: "<invoke name=\\"t\\"></invoke>"}]}
        - {stop: end, blocks: [{kind: text, text: done}]}
expect:
  - {requests: 2}
"""


def load(text: str) -> Case:
    loaded, errors = load_text(text, "x.yaml", None)
    assert loaded is not None, errors
    return loaded


def test_a_quiet_stop_on_the_markup_response_fails_when_recovery_is_declared() -> None:
    c = load(XML_CASE)
    result = decide(c, "anthropic-messages", None, transcript(c, exchange(1, 0)), [], strict=True)
    assert result.verdict == "fail"
    assert result.reason is not None
    assert result.reason.startswith("the target declares xml-recovery but ended its turn")


def test_the_same_stop_elsewhere_or_with_a_reason_of_its_own_stays_an_error() -> None:
    other = load(CASE)  # no xml-recovery requirement: nothing explains the stop
    short = decide(
        other, "anthropic-messages", None, transcript(other, exchange(1, 0)), [], strict=True
    )
    assert short.verdict == "error"
    c = load(XML_CASE)
    crashed = transcript(c, exchange(1, 0))
    crashed.stopped = "the command exited with status 3"
    assert decide(c, "anthropic-messages", None, crashed, [], strict=True).verdict == "error"
    hung = transcript(c, exchange(1, 0), error="timed out after 30 s")
    assert decide(c, "anthropic-messages", None, hung, [], strict=True).verdict == "error"
