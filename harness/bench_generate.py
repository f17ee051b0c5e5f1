"""Benchmark of generated shapes (figures, never assertions): generated conversations
judged per second on each column, on the reference in-process and as a command, and
the median time to shrink a counterexample (the broken adapters, ``ci`` profile).

    python -m harness.bench_generate [--examples N] [--command-examples N] [--no-shrink]
                                     [--no-throughput] [--shrink-runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from hypothesis import HealthCheck, given, settings

from conformance._cases.schema import Case
from conformance._runner import RunOptions
from conformance._targets.resolve import ResolvedTarget, resolve_target, target_from_object
from conformance.generate._properties import Search, judge, search
from conformance.generate.conversations import cases
from conformance.wires._registry import columns
from harness.broken import (
    DropRedactedAfterCallAdapter,
    DropSignatureOnlyAdapter,
    HoistThinkingAdapter,
    MergeEpisodesAdapter,
    TextBeforeCallsAdapter,
)

#: The broken adapters the ``ci`` profile finds, each on the column it finds it on (the
#: pairs ``tests/generate/test_generation_finds.py`` holds it to, minus the one that
#: fails only under ``--strict --evidence any``).
FOUND = (
    (MergeEpisodesAdapter, "openai-chat:openrouter"),
    (HoistThinkingAdapter, "gemini"),
    (DropSignatureOnlyAdapter, "openai-responses"),
    (DropRedactedAfterCallAdapter, "openai-chat:openrouter"),
    (TextBeforeCallsAdapter, "gemini"),
)


def drawn(column: str, examples: int) -> list[Case]:
    """``examples`` conversations for ``column``, drawn reproducibly."""
    found: list[Case] = []

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(cases(column))
    def collect(case: Case) -> None:
        found.append(case)

    collect()
    return found


def per_second(target: ResolvedTarget, column: str, conversations: list[Case]) -> float:
    """Conversations judged per second (drawing excluded)."""
    started = time.perf_counter()
    for case in conversations:
        judge(target, case, column, RunOptions(timeout=60))
    return len(conversations) / (time.perf_counter() - started)


def bench_throughput(examples: int, command_examples: int) -> None:
    reference = resolve_target("reference")
    command = resolve_target("reference-command")
    print(f"{'column':28} {'drawn/s':>9} {'in-process/s':>13} {'command/s':>10}")
    for column in columns():
        started = time.perf_counter()
        conversations = drawn(column, examples)
        drawing = len(conversations) / (time.perf_counter() - started)
        inprocess = per_second(reference, column, conversations)
        as_command = per_second(command, column, conversations[:command_examples])
        print(f"{column:28} {drawing:9.1f} {inprocess:13.1f} {as_command:10.2f}")


def bench_shrink(runs: int) -> None:
    """The first ``runs`` searches of ``FOUND``: where the failure was found and how long
    shrinking it to the final case took."""
    times: list[float] = []
    for adapter, column in FOUND[:runs]:
        outcome = search(Search(target_from_object(adapter()), column, "ci", database=None))
        state = "found" if outcome.counterexample else "not found"
        print(
            f"{adapter.name:28} {column:20} {state:9} after {outcome.examples} conversations; "
            f"shrinking {outcome.shrinking:.1f}s of {outcome.seconds:.1f}s"
        )
        if outcome.counterexample:
            times.append(outcome.shrinking)
    if times:
        print(f"median time to shrink a counterexample: {statistics.median(times):.1f}s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=30)
    parser.add_argument("--command-examples", type=int, default=5)
    parser.add_argument("--no-shrink", action="store_true")
    parser.add_argument("--no-throughput", action="store_true")
    parser.add_argument(
        "--shrink-runs", type=int, default=len(FOUND), help="searches to shrink (of FOUND)"
    )
    args = parser.parse_args()
    if not args.no_throughput:
        bench_throughput(args.examples, args.command_examples)
    if not args.no_shrink:
        bench_shrink(args.shrink_runs)


if __name__ == "__main__":
    main()
