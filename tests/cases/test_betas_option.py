"""``given.options.betas``: the Anthropic betas a case configures, as the client's user would.

Found by the real-library runs (suite fix 12): three libraries passed a configured manual
budget above ``max_tokens`` through without the interleaved beta the harness never asked
for, and failed.  Now the case configures the beta; a target that cannot send configured
betas gets ``n/a`` (capability ``betas``), and one that can is judged on sending it on
every request of the loop."""

from __future__ import annotations

from typing import ClassVar

import pytest
from pydantic import ValidationError

from conformance._cases.schema import Given
from conformance._reference.adapter import ReferenceAdapter
from conformance._runner import plan, session_for
from conformance._targets.resolve import target_from_object
from conformance.agent.runner import brief_from_contract
from tests.support import library_case, run_cell

CASE = "anthropic-budget-over-max-tokens-needs-interleaved-beta"
BETA = "interleaved-thinking-2025-05-14"
A = "anthropic-messages"


class _NoBetas(ReferenceAdapter):
    capabilities: ClassVar[frozenset[str]] = ReferenceAdapter.capabilities - {"betas"}


def test_a_target_that_cannot_send_betas_gets_na_with_the_reason() -> None:
    case = library_case(CASE)
    assert "betas" in case.needs
    jobs = plan([case], target_from_object(_NoBetas()))
    assert {j.skip for j in jobs} == {
        "needs capability betas, which the target does not declare (if it has it, list it "
        f"in {_NoBetas.__module__}:_NoBetas.capabilities)"
    }
    assert {(j.cause, j.missing) for j in jobs} == {("missing-capability", ("betas",))}
    assert {j.skip for j in plan([case], target_from_object(ReferenceAdapter()))} == {None}


def test_a_case_without_betas_needs_no_capability() -> None:
    assert "betas" not in library_case("thinking-config-held-across-tool-loop").needs


def test_the_contract_document_carries_the_betas_and_the_runner_reads_them_back() -> None:
    session = session_for(library_case(CASE), A, None)
    document = session.contract(2)
    assert document["betas"] == [BETA]
    assert brief_from_contract(document).betas == (BETA,)
    plain = session_for(library_case("thinking-config-held-across-tool-loop"), A, None)
    assert "betas" not in plain.contract(2)


def test_a_beta_is_a_header_token() -> None:
    turns = [{"user": "p", "responses": [{"stop": "end"}]}]
    with pytest.raises(ValidationError, match="betas"):
        Given.model_validate({"options": {"betas": ["two words"]}, "turns": turns})


def test_the_configured_beta_dropped_fails_and_sent_on_every_request_passes() -> None:
    dropped = ReferenceAdapter(disabled=frozenset({"configured-betas-every-request"}))
    result, transcript = run_cell(dropped, library_case(CASE), A)
    assert result.verdict == "fail"
    assert "anthropic-messages/budget-below-max-tokens" in str(result.model_dump())
    assert len(transcript.exchanges) == 1
    result, transcript = run_cell(ReferenceAdapter(), library_case(CASE), A)
    assert result.verdict == "pass"
    assert [e.request.header("anthropic-beta") for e in transcript.exchanges] == [BETA] * 3
