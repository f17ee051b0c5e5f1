"""The reference adapter passes every generated conversation on every column (the
``ci`` profile's seed, fewer examples here than the profile's 100 to keep the suite
fast; ``wire-conformance generate --profile ci`` runs them all)."""

from __future__ import annotations

import pytest

from conformance._targets.resolve import resolve_target
from conformance.generate._properties import Search, search
from conformance.wires._registry import columns


@pytest.mark.slow
@pytest.mark.parametrize("column", columns())
def test_the_reference_survives_generation(column: str) -> None:
    outcome = search(Search(resolve_target("reference"), column, "ci", 0, 20, None))
    found = outcome.counterexample
    assert found is None, (found.case.id, found.result.violations) if found else None
    assert outcome.examples >= 20


def test_the_reference_survives_the_shape_generation_found_on_anthropic() -> None:
    """Seed 1 found a max_tokens cut call after interleaved thinking (now the library
    case anthropic-max-tokens-cut-call-after-interleaved-thinking): the same search no
    longer finds anything in its first 60 conversations."""
    outcome = search(Search(resolve_target("reference"), "anthropic-messages", "dev", 1, 60, None))
    assert outcome.counterexample is None
