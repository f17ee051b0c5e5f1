"""The property: every generated conversation passes on the target.  Each one is run
through the ordinary pipeline (``_runner.plan`` and ``_runner.run_job``: the scripted
provider, the target kind, every check, ``decide``), never a second one.

``search`` drives hypothesis over ``conversations.cases`` for one column; the first
failure is shrunk (fewer turns, fewer blocks, shorter payloads) and handed back as a
``Counterexample`` with the result that condemned it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import Phase, given, settings

from conformance._cases.schema import Case
from conformance._runner import RunOptions, plan, run_job
from conformance._targets.resolve import ResolvedTarget, target_from_object
from conformance.generate._profiles import PROFILES, profile_settings
from conformance.generate.conversations import cases
from conformance.verdict import Result

FAILING = frozenset({"fail", "error"})


def judge(
    target: ResolvedTarget | object,
    case: Case,
    column: str,
    options: RunOptions | None = None,
) -> Result:
    """The verdict of ``case`` on ``column`` of ``target``, as ``run`` would decide it.

    ``target`` is what ``run`` resolves, or an ``Adapter``/``Client`` (a class, an
    instance or a factory): a user's own hypothesis test hands its adapter over as it
    is, and the default options are ``run``'s."""
    if not isinstance(target, ResolvedTarget):
        target = target_from_object(target)
    jobs = plan([case], target, [column])
    result, _ = run_job(target, jobs[0], options or RunOptions())
    return result


class ConversationFailed(AssertionError):
    """A generated conversation failed on the target (what hypothesis shrinks)."""

    def __init__(self, case: Case, result: Result) -> None:
        super().__init__(f"{case.id}: {result.verdict}: {failing_check(result)}")
        self.case = case
        self.result = result


def failing_check(result: Result) -> str:
    """The check that condemned the result (its first violation), or the verdict's
    reason for an ``error``."""
    if result.violations:
        return result.violations[0].check
    return f"error: {result.reason}" if result.reason else result.verdict


@dataclass(frozen=True)
class Search:
    """What to search: a target, one column, a profile and a seed."""

    target: ResolvedTarget
    column: str
    profile: str = "dev"
    seed: int | None = None
    examples: int | None = None
    #: The example database to replay and keep failures in; ``None``: none.
    database: Path | None = None
    options: RunOptions = field(default_factory=RunOptions)
    #: Bound a budgeted profile by its examples alone, never by the clock: the same
    #: batches on any machine (what a test that must not depend on speed asks for).
    unbudgeted: bool = False
    #: Shrink the first failure to the smallest conversation that still fails (what a
    #: person reads); ``False`` keeps it as found: a search that only asks whether the
    #: failure can be found, and that the saved case reproduces it, needs no shrinking.
    shrink: bool = True

    def chosen_seed(self) -> int:
        """The seed given, else 0 for a reproducible profile, else a fresh one."""
        if self.seed is not None:
            return self.seed
        return 0 if PROFILES[self.profile].fixed_seed else random.SystemRandom().getrandbits(32)


@dataclass(frozen=True)
class Outcome:
    """How a search ended: the shrunk counterexample (if any), how many conversations
    were judged, the seed used and the time taken."""

    column: str
    seed: int
    examples: int
    seconds: float
    counterexample: ConversationFailed | None = None
    #: The conversations judged ``n/a`` (the target cannot run them), by reason.
    skipped: dict[str, int] = field(default_factory=dict)
    #: Seconds spent after the first failure: shrinking it to the counterexample.
    shrinking: float = 0.0


def _batch(
    search: Search,
    seed: int,
    examples: int,
    counter: list[int],
    skipped: dict[str, int],
    failed_at: list[float],
) -> None:
    """One hypothesis run of ``examples`` conversations from ``seed``."""
    settings_ = profile_settings(search.profile, examples, search.database)
    if not search.shrink:
        settings_ = settings(settings_, phases=[p for p in settings_.phases if p != Phase.shrink])

    @settings_
    @given(cases(search.column))
    def conversation_passes(case: Case) -> None:
        counter[0] += 1
        result = judge(search.target, case, search.column, search.options)
        if result.verdict == "n/a":
            skipped[result.reason or "n/a"] = skipped.get(result.reason or "n/a", 0) + 1
        if result.verdict in FAILING:
            if not failed_at:
                failed_at.append(time.monotonic())
            raise ConversationFailed(case, result)

    # One example database entry per target and column, not one for every search.
    digest = f"{search.target.name}\0{search.column}".encode()
    conversation_passes.hypothesis.inner_test._hypothesis_internal_add_digest = digest  # type: ignore[attr-defined]
    # What ``hypothesis.seed`` does, without its other effect: it also switches the
    # example database off, and a profile that keeps one (dev) replays its failures
    # first, then draws from the seed.
    conversation_passes._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
    with _without_local_constants():
        conversation_passes()


@contextmanager
def _without_local_constants() -> Iterator[None]:
    """Draw as if no module of the current project were loaded.

    Hypothesis mixes constants it finds in the project's loaded modules into what it
    draws, so the same seed drew different conversations in a process that had imported
    other modules (a pytest worker, a user's adapter, a new string anywhere in the
    code): a seed printed by one run did not reproduce in another.  Its fixed constants
    stay.  If hypothesis no longer has the hook, draws fall back to its default."""
    from hypothesis.internal.conjecture import providers

    original = getattr(providers, "_get_local_constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    if original is None or cache is None or not hasattr(providers, "Constants"):
        yield
        return
    empty = providers.Constants()
    # The pools already computed from the project's modules are cached per choice kind.
    cache.clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.clear()


def search(spec: Search) -> Outcome:
    """Run the property on one column until a failure or the profile's examples; a
    budgeted profile runs batches from successive seeds until its budget is spent."""
    seed = spec.chosen_seed()
    profile = PROFILES[spec.profile]
    wanted = spec.examples or profile.max_examples
    batch = wanted if profile.budget is None else min(wanted, 100)
    counter: list[int] = [0]
    skipped: dict[str, int] = {}
    failed_at: list[float] = []
    start = time.monotonic()
    round_ = 0
    try:
        while True:
            _batch(spec, seed + round_, batch, counter, skipped, failed_at)
            round_ += 1
            spent = time.monotonic() - start
            budget = None if spec.unbudgeted else profile.budget
            over = budget is not None and spent >= budget
            if counter[0] >= wanted or profile.budget is None or over:
                break
    except ConversationFailed as failure:
        end = time.monotonic()
        shrinking = end - failed_at[0] if failed_at else 0.0
        return Outcome(
            spec.column, seed + round_, counter[0], end - start, failure, skipped, shrinking
        )
    return Outcome(spec.column, seed, counter[0], time.monotonic() - start, None, skipped)
