"""Generation alone finds each deliberately broken adapter (no hand-written case in the
selection), within four batches of the ``ci`` profile's search, and the saved
counterexample reproduces the failure from its file, while the reference passes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance._cases.library import vocabulary
from conformance._cases.loader import load_dirs
from conformance._cases.parse_cache import ParseCache
from conformance._reference.adapter import ReferenceAdapter
from conformance._runner import RunOptions, plan, run_job
from conformance._targets.api import Adapter
from conformance._targets.resolve import target_from_object
from conformance.generate._case_file import case_yaml, counterexample_case, save_case
from conformance.generate._properties import Search, failing_check, search
from harness.broken import (
    DropRedactedAfterCallAdapter,
    DropSignatureOnlyAdapter,
    HoistThinkingAdapter,
    MergeEpisodesAdapter,
    StoreErrorOnRetryAdapter,
    TextBeforeCallsAdapter,
)

G, R, C, OR = "gemini", "openai-responses", "openai-chat", "openai-chat:openrouter"
#: Its bug is accepted by the provider: it fails only where inferred evidence counts.
STRICTLY = RunOptions(strict=True, evidence="any")

FOUND: list[tuple[type[Adapter], str, RunOptions]] = [
    (MergeEpisodesAdapter, OR, RunOptions()),
    (HoistThinkingAdapter, G, RunOptions()),
    (DropSignatureOnlyAdapter, R, RunOptions()),
    (StoreErrorOnRetryAdapter, C, STRICTLY),
    (DropRedactedAfterCallAdapter, OR, RunOptions()),
    (TextBeforeCallsAdapter, G, RunOptions()),
]


def _reproduce(directory: Path, adapter: object, column: str, options: RunOptions) -> str:
    loaded = load_dirs([directory], vocabulary(), ParseCache(None))
    assert not loaded.errors
    assert len(loaded.cases) == 1
    target = target_from_object(adapter)
    (job,) = plan([loaded.cases[0].case], target, [column])
    result, _ = run_job(target, job, options)
    return result.verdict


@pytest.mark.slow
@pytest.mark.parametrize(
    ("adapter", "column", "options"), FOUND, ids=[f"{a.name}@{c}" for a, c, _ in FOUND]
)
def test_generation_alone_finds_the_broken_adapter(
    adapter: type[Adapter], column: str, options: RunOptions, tmp_path: Path
) -> None:
    # Four batches of the ci profile (seeds 0-3): the rarest shape, a signed text after a
    # signed Gemini call, first turns up in the fourth.  Bounded by the examples alone,
    # never the profile's clock budget: the same four batches on a slow machine.  The
    # failure is shrunk as the command shrinks it: the reference must pass the case a
    # user would be handed.
    spec = Search(
        target_from_object(adapter()), column, "ci", None, 400, None, options, unbudgeted=True
    )
    outcome = search(spec)
    found = outcome.counterexample
    assert found is not None, f"{adapter.name} survived {outcome.examples} conversations"
    check = failing_check(found.result)
    case = counterexample_case(found.case, column, check, outcome.seed, adapter.name)
    save_case(tmp_path, case, case_yaml(case, f"seed {outcome.seed}; failing check: {check}"))
    assert _reproduce(tmp_path, adapter(), column, options) == "fail"
    assert _reproduce(tmp_path, ReferenceAdapter(), column, options) == "pass"
