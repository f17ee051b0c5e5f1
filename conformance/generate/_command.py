"""``wire-conformance generate``: run the property on each column a target speaks and
print any shrunk counterexample as a case file (``--save DIR`` writes it).

Exit 0 when every generated conversation passed, 1 on a counterexample, 2 on a usage
error, 128 + N when signal N ended the run.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from conformance._interrupt import Interrupted, ending_signals_raise
from conformance._settings import add_arguments
from conformance.errors import TargetError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
PROFILE_NAMES = ("dev", "ci", "nightly")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give 1 or more")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a seed is 0 or more")
    return value


def add_generate_arguments(generate: argparse.ArgumentParser) -> None:
    """The arguments of ``generate`` (``conformance._commands.generate`` names it)."""
    add_arguments(generate, ("target", "target_name", "wire"), "generate")
    generate.add_argument(
        "--examples",
        type=_positive,
        metavar="N",
        help="conversations per column (default: the profile's)",
    )
    generate.add_argument(
        "--profile",
        choices=PROFILE_NAMES,
        default=None,
        help="dev (default), ci (default when CI is set: a fixed seed) or nightly (many "
        "examples within a wall-clock budget)",
    )
    generate.add_argument("--seed", type=_seed, metavar="S", help="the search's seed")
    generate.add_argument(
        "--save", type=Path, metavar="DIR", help="write each counterexample to DIR/<family>/"
    )
    database = generate.add_mutually_exclusive_group()
    database.add_argument(
        "--database",
        type=Path,
        metavar="DIR",
        help="the example database (default: .wire-conformance/examples under the current "
        "directory for the dev profile, none for ci and nightly, which must not depend on "
        "earlier runs)",
    )
    database.add_argument("--no-database", action="store_true", help="keep no example database")
    add_arguments(generate, ("timeout",), "generate")
    generate.add_argument(
        "--no-shrink",
        action="store_true",
        help="keep the first failure as found, unshrunk: quicker where only whether a "
        "target fails matters (the saved case is larger than it needs to be)",
    )
    add_arguments(generate, ("strict", "evidence"), "generate")


def run_generate_command(args: argparse.Namespace) -> int:
    """The ``generate`` command; returns its exit status."""
    try:
        with ending_signals_raise():
            return _generate(args)
    except Interrupted as interruption:
        print(f"wire-conformance: {interruption}", file=sys.stderr)
        return interruption.exit_status


def _generate(args: argparse.Namespace) -> int:
    from conformance._runner import RunOptions
    from conformance._targets.resolve import resolve_target
    from conformance.generate._case_file import case_yaml, counterexample_case, save_case
    from conformance.generate._profiles import default_database, default_profile
    from conformance.generate._properties import Search, failing_check, search
    from conformance.wires._registry import columns

    if os.getcwd() not in sys.path:  # module:attr targets resolve from here, as for run
        sys.path.insert(0, os.getcwd())
    try:
        target = resolve_target(args.target, args.target_name)
    except TargetError as error:
        print(f"wire-conformance: {error}", file=sys.stderr)
        return EXIT_USAGE
    unknown = sorted(set(args.wire) - set(columns()))
    if unknown:
        print(
            f"wire-conformance: unknown wire {', '.join(unknown)}; known: {', '.join(columns())}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    chosen = [
        c
        for c in columns()
        if target.speaks(c) and (not args.wire or c in args.wire or c.split(":")[0] in args.wire)
    ]
    if not chosen:
        print(f"wire-conformance: {target.name} speaks none of the selected wires", file=sys.stderr)
        return EXIT_USAGE
    profile = args.profile or default_profile()
    database = None if args.no_database else (args.database or default_database(profile))
    options = RunOptions(timeout=args.timeout, strict=args.strict, evidence=args.evidence)
    failed = False
    for column in chosen:
        spec = Search(
            target,
            column,
            profile,
            args.seed,
            args.examples,
            database,
            options,
            shrink=not args.no_shrink,
        )
        outcome = search(spec)
        found = outcome.counterexample
        if found is None:
            print(
                f"{column}: {outcome.examples} conversations passed "
                f"(profile {profile}, seed {outcome.seed}, {outcome.seconds:.1f}s)"
            )
            continue
        failed = True
        check = failing_check(found.result)
        case = counterexample_case(found.case, column, check, outcome.seed, args.target)
        header = (
            f"Generated counterexample: seed={outcome.seed}, profile {profile}, "
            f"target {target.name}; failing check: {check}"
        )
        text = case_yaml(case, header)
        print(
            f"{column}: FAIL after {outcome.examples} conversations (seed {outcome.seed}): {check}"
        )
        for violation in found.result.violations[:3]:
            print(f"  {violation.check}: {violation.message}")
        print(text)
        if args.save is not None:
            path = save_case(args.save, case, text)
            print(
                f"saved {path}  (reproduce: wire-conformance run --target {args.target} "
                f"--cases {args.save} --case {case.id})"
            )
    return EXIT_FAILED if failed else EXIT_OK
