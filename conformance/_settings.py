"""The run settings: one definition behind every face that takes them.

A run is configured in three places: the ``run`` command's flags, the pytest plugin's
``--conformance-*`` options and the ``ConformanceSuite`` class attributes.  Each
setting is declared once here, with its command-line flags, its pytest option, its
suite attribute, type, choices, default and help; the faces are derived from it
(``add_arguments`` for argparse, ``add_pytest_options`` for pytest, ``suite_default``
and ``suite_problems`` for the suite class), as hypothesis puts one settings object
behind its decorator, its profiles and its pytest options.  A setting that exists on
one face only says so by leaving the others empty.

Adding a setting is one ``Setting`` in ``SETTINGS``; ``tests/test_settings.py`` checks
that every face declares what its settings name, with the same default and choices.

Import-light on purpose: the pytest plugin imports this module in every test session,
so it imports nothing beyond the standard library at load time.  That is why the
evidence levels and the default timeout are written here as values rather than taken
from ``conformance.verdict`` (which loads pydantic); the test checks they agree.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

#: How a setting takes values: ``value`` (one), ``flag`` (on or off), ``list``
#: (repeatable; each use adds one).
Kind = Literal["value", "flag", "list"]
#: How a pytest option and the suite attribute of one setting combine: ``suite``: the
#: attribute wins when set (not ``None``), else the option; ``option``: the option wins
#: when given, else the attribute; ``either``: on when either is; ``adds``: the option's
#: values join the attribute's.
Merge = Literal["suite", "option", "either", "adds"]

#: The suite classes a setting's attribute lives on.
SUITE, GENERATED_SUITE = "ConformanceSuite", "GeneratedSuite"

#: The levels of ``--evidence``; the same tuple as ``conformance.verdict``'s (tested).
EVIDENCE_CHOICES = ("documented", "observed", "any")
DEFAULT_EVIDENCE = "observed"
#: Seconds one cell may take; ``conformance.verdict.DEFAULT_TIMEOUT`` (tested).
DEFAULT_TIMEOUT = 60.0
#: ``replay``'s timeout: a recording may hold far more exchanges than a case.
REPLAY_TIMEOUT = 30.0
#: The most cells ``-j`` runs at once.
MAX_JOBS = 64
#: The most rounds ``--rounds`` runs.
MAX_ROUNDS = 100


def _whole_number(most: int) -> Callable[[str], int]:
    """A converter for a whole number from 1 to ``most`` (``-j``, ``--rounds``)."""

    def convert(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not 1 <= number <= most:
            raise argparse.ArgumentTypeError(f"{text!r}: give 1 to {most}")
        return number

    return convert


@dataclass(frozen=True)
class ShardSpec:
    """``--shard K/N``: shard K of N of the plan's cells (``_runner.shard`` picks them)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> ShardSpec:
        """``K/N`` with ``1 <= K <= N``; ``ValueError`` says what is wrong."""
        index, slash, count = text.partition("/")
        if not slash or not index.isdigit() or not count.isdigit():
            raise ValueError(f"--shard {text!r}: give K/N, shard K of N (as 2/4)")
        spec = cls(int(index), int(count))
        if not 1 <= spec.index <= spec.count:
            raise ValueError(f"--shard {text!r}: K is from 1 to N")
        return spec


def shard(text: str) -> ShardSpec:
    """``--shard``'s converter: a bad ``K/N`` is argparse's usage error (exit 2)."""
    try:
        return ShardSpec.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("--shard ")) from None


def timeout(text: str) -> float:
    """``--timeout`` and ``--conformance-timeout``, read as every command reads a timeout
    (``conformance.verdict.timeout_seconds``, imported on use: see the module's
    docstring)."""
    from conformance.verdict import timeout_seconds

    return timeout_seconds(text)


@dataclass(frozen=True)
class Setting:
    """One setting and every face it has.

    ``name`` is its key (the ``run`` command's argparse ``dest``).  ``flags`` are its
    ``run`` flags (empty: not on the command line), ``pytest`` its pytest option (None:
    not in pytest), ``attribute`` its suite attribute (None: no attribute) on the class
    ``suite``.  ``default`` is what a run gets when nothing sets it; a pytest option
    left unset is ``None`` (``False`` for a flag, empty for a list), so that the suite
    attribute can tell "not given" from a value (``merge``); the attribute's own
    default is ``attribute_default`` where it must differ (and says why there).
    """

    name: str
    help: str
    flags: tuple[str, ...] = ()
    pytest: str | None = None
    attribute: str | None = None
    suite: str = SUITE
    kind: Kind = "value"
    type: Callable[[str], Any] | None = None
    choices: tuple[str, ...] | None = None
    default: Any = None
    metavar: str | None = None
    #: The pytest option's metavar where it differs from the command line's.
    pytest_metavar: str | None = None
    merge: Merge | None = None
    #: The attribute's default where it is not the one ``merge`` implies.
    attribute_default: Any = ...
    #: ``(command, default, help)``: another command that takes this run flag with a
    #: default of its own, and the help that says it and why (``add_arguments``).
    command_defaults: tuple[tuple[str, Any, str], ...] = ()

    def for_command(self, command: str) -> tuple[Any, str]:
        """The default and help this setting's flag has on ``command``."""
        own = [(default, text) for name, default, text in self.command_defaults if name == command]
        return own[0] if own else (self.default, self.help)

    def suite_default(self) -> Any:
        """The default of the suite attribute: unset (``None``) where the attribute
        wins over the option, an empty tuple for a list, else the run's default."""
        if self.attribute_default is not ...:
            return self.attribute_default
        if self.kind == "list":
            return ()
        if self.merge == "suite":
            return None
        return self.default

    def pytest_help(self) -> str:
        """The help text, plus how the option meets the suite attribute."""
        if self.attribute is None or self.merge is None:
            return self.help
        note = {
            "suite": f"used where a suite leaves `{self.attribute}` unset",
            "option": f"overrides a suite's `{self.attribute}`",
            "either": f"as does a suite's `{self.attribute} = True`",
            "adds": f"adds to a suite's `{self.attribute}`",
        }[self.merge]
        if self.help.endswith(")"):
            return f"{self.help[:-1]}; {note})"
        return f"{self.help} ({note})"


#: Every run setting, in the order ``run --help`` lists them.
SETTINGS: tuple[Setting, ...] = (
    Setting(
        "target",
        "reference (default), reference-command, a manifest (*.toml, *.yaml), "
        "module:attr, or 'cmd:<shell command>'",
        flags=("--target",),
        pytest="--conformance-target",
        attribute="target",
        default="reference",
        pytest_metavar="SPEC",
        merge="suite",
    ),
    Setting(
        "jobs",
        "run up to N cells of a command target at once (default 1)",
        flags=("-j", "--jobs"),
        type=_whole_number(MAX_JOBS),
        default=1,
        metavar="N",
    ),
    Setting(
        "target_name",
        "name used in reports and snapshot paths",
        flags=("--target-name",),
        pytest="--conformance-target-name",
        attribute="target_name",
        pytest_metavar="NAME",
        merge="suite",
    ),
    Setting(
        "wire",
        "only this wire (repeatable)",
        flags=("--wire",),
        pytest="--conformance-wire",
        attribute="wires",
        kind="list",
        merge="adds",
    ),
    Setting(
        "case",
        "only cases whose id matches (repeatable)",
        flags=("--case",),
        pytest="--conformance-case",
        attribute="case_patterns",
        kind="list",
        metavar="GLOB",
        merge="adds",
    ),
    Setting(
        "cases",
        "add a directory of case files to the bundled library (repeatable)",
        flags=("--cases",),
        pytest="--conformance-cases",
        attribute="case_dirs",
        kind="list",
        type=Path,
        metavar="DIR",
        merge="adds",
    ),
    Setting(
        "json",
        "write the JSON report",
        flags=("--json",),
        type=Path,
        metavar="PATH",
    ),
    Setting(
        "junit",
        "write a JUnit XML report",
        flags=("--junit",),
        type=Path,
        metavar="PATH",
    ),
    Setting(
        "markdown",
        "write a Markdown report",
        flags=("--markdown",),
        type=Path,
        metavar="PATH",
    ),
    Setting(
        "html",
        "write an HTML report: one self-contained page with the matrix, filters, each "
        "failing cell's violations and the requests it sent",
        flags=("--html",),
        type=Path,
        metavar="PATH",
    ),
    Setting(
        "timeout",
        f"seconds a case may take on the target (default {DEFAULT_TIMEOUT:g}, at most a day)",
        flags=("--timeout",),
        pytest="--conformance-timeout",
        attribute="timeout",
        type=timeout,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        merge="option",
        command_defaults=(
            (
                "replay",
                REPLAY_TIMEOUT,
                f"seconds a recording may take on the target (default {REPLAY_TIMEOUT:g}, at "
                "most a day: a recorded conversation may hold many more exchanges than a case)",
            ),
        ),
    ),
    Setting(
        "strict",
        "`should` violations fail too",
        flags=("--strict",),
        pytest="--conformance-strict",
        attribute="strict",
        kind="flag",
        default=False,
        merge="either",
    ),
    Setting(
        "evidence",
        "the weakest evidence that may fail a cell: documented, observed (default) or any; "
        "a violation resting on weaker evidence (inferred, design) is a warning, even with "
        "--strict",
        flags=("--evidence",),
        pytest="--conformance-evidence",
        attribute="evidence",
        choices=EVIDENCE_CHOICES,
        default=DEFAULT_EVIDENCE,
        merge="option",
    ),
    Setting(
        "save_exchanges",
        "write every request and response of every cell to DIR/<target>/<wire>/<case>.json",
        flags=("--save-exchanges",),
        pytest="--conformance-save-exchanges",
        type=Path,
        metavar="DIR",
    ),
    Setting(
        "snapshots",
        "compare emitted request bodies with DIR/<target>/<wire>/<case>.json",
        flags=("--snapshots",),
        attribute="snapshot_dir",
        type=Path,
        metavar="DIR",
        # A pytest project keeps snapshots unless it opts out (syrupy's way); the
        # command line writes no file it was not asked for.
        attribute_default="snapshots",
    ),
    Setting(
        "update_snapshots",
        "write new and changed snapshots and delete stale ones (with --snapshots)",
        flags=("--update-snapshots",),
        kind="flag",
        default=False,
    ),
    Setting(
        "quiet",
        "print only the summary line",
        flags=("-q", "--quiet"),
        kind="flag",
        default=False,
    ),
    Setting(
        "progress",
        "show cells as they finish: a bar on a terminal, a line per cell in a log (auto: "
        "the bar on a terminal, lines for a command target elsewhere, else off)",
        flags=("--progress",),
        choices=("auto", "bar", "lines", "off"),
        default="auto",
    ),
    Setting(
        "verbose",
        "print every warning under its cell (default: one line counting them)",
        flags=("-v", "--verbose"),
        kind="flag",
        default=False,
    ),
    Setting(
        "rounds",
        "run the selection N times and fail if any verdict or exchanged byte differs "
        "between rounds (the flakiness gate; default 1)",
        flags=("--rounds",),
        type=_whole_number(MAX_ROUNDS),
        default=1,
        metavar="N",
    ),
    Setting(
        "baseline",
        "also run this target on the same selection and print an A/B cell table (both "
        "verdicts per case × wire, and what was fixed, broke or still fails)",
        flags=("--baseline",),
        metavar="TARGET",
    ),
    Setting(
        "ab_json",
        "write the A/B table as JSON",
        flags=("--ab-json",),
        type=Path,
        metavar="PATH",
    ),
    Setting(
        "shard",
        "run shard K of N of the plan's cells, for a CI matrix (merge the JSON reports "
        "with `report merge`)",
        flags=("--shard",),
        type=shard,
        metavar="K/N",
    ),
    Setting(
        "durations",
        "with --shard: balance the shards by the cells' seconds in this earlier JSON "
        "report (default: round-robin in plan order)",
        flags=("--durations",),
        type=Path,
        metavar="REPORT.json",
    ),
    Setting(
        "format",
        "the verdicts as a case × wire matrix, or one line per case (auto: the matrix when "
        "it fits the output's width; a matrix is never cut)",
        flags=("--format",),
        choices=("auto", "matrix", "list"),
        default="auto",
    ),
    Setting(
        "probes",
        "a probe catalogue (or `reference` for the shipped one): one test item per probe, "
        "run on --conformance-target (repeatable); the command line's is `probe --probes`",
        pytest="--conformance-probes",
        kind="list",
        metavar="FILE",
    ),
    Setting(
        "profile",
        "the generation profile of GeneratedSuite tests (default: ci when CI is set, else "
        "dev); the command line's is `generate --profile`",
        pytest="--conformance-profile",
        attribute="generate_profile",
        suite=GENERATED_SUITE,
        choices=("dev", "ci", "nightly"),
        merge="suite",
    ),
    Setting(
        "seed",
        "the seed of GeneratedSuite searches; the command line's is `generate --seed`",
        pytest="--conformance-seed",
        attribute="generate_seed",
        suite=GENERATED_SUITE,
        type=int,
        metavar="S",
        merge="suite",
    ),
    Setting(
        "examples",
        "conversations per column (default: the profile's); the command line's is "
        "`generate --examples`",
        attribute="generate_examples",
        suite=GENERATED_SUITE,
    ),
)

BY_NAME: dict[str, Setting] = {setting.name: setting for setting in SETTINGS}


def setting(name: str) -> Setting:
    """The setting called ``name`` (a ``KeyError`` names a typo in the package)."""
    return BY_NAME[name]


class ArgumentAdder(Protocol):
    """What takes arguments: an ``argparse`` parser or group, a pytest option group."""

    def add_argument(self, *flags: str, **options: Any) -> Any: ...


def _options(item: Setting, metavar: str | None) -> dict[str, Any]:
    """The keyword arguments both parsers understand."""
    options: dict[str, Any] = {"help": item.help}
    if item.kind == "flag":
        options["action"] = "store_true"
        return options
    if item.kind == "list":
        options["action"] = "append"
    if item.type is not None:
        options["type"] = item.type
    if item.choices is not None:
        options["choices"] = item.choices
    if metavar is not None:
        options["metavar"] = metavar
    return options


def add_arguments(
    parser: ArgumentAdder, names: Iterable[str] | None = None, command: str = "run"
) -> None:
    """The command-line face: the settings called ``names`` (default: every one with a
    flag, in ``SETTINGS`` order) as arguments of ``parser``, for ``command`` (``run``,
    or another command taking run flags: ``generate``, ``probe``, ``replay``), with the
    default and help the setting gives that command."""
    chosen = [setting(name) for name in names] if names is not None else list(SETTINGS)
    for item in chosen:
        if not item.flags:
            continue
        default, text = item.for_command(command)
        options = {**_options(item, item.metavar), "help": text}
        default = [] if item.kind == "list" else default
        if default is not None:
            options["default"] = default
        parser.add_argument(*item.flags, dest=item.name, **options)


class OptionGroup(Protocol):
    """A pytest option group (``parser.getgroup``), typed without importing pytest."""

    def addoption(self, *flags: str, **options: Any) -> None: ...


def pytest_settings() -> Iterator[Setting]:
    """The settings that have a pytest option."""
    return (item for item in SETTINGS if item.pytest is not None)


def add_pytest_options(group: OptionGroup) -> None:
    """The pytest face: every setting with a pytest option.  Unset, an option is
    ``None`` (``False``, empty), so the suite attribute decides (``Setting.merge``)."""
    for item in pytest_settings():
        assert item.pytest is not None
        metavar = item.pytest_metavar or item.metavar
        if metavar is None and item.kind != "flag" and item.choices is None:
            metavar = item.name.upper()  # as the command line shows it
        options = _options(item, metavar)
        options["help"] = item.pytest_help()
        options["default"] = [] if item.kind == "list" else (False if item.kind == "flag" else None)
        group.addoption(item.pytest, **options)


def suite_settings(suite: str) -> list[Setting]:
    """The settings with an attribute on the suite class called ``suite``."""
    return [item for item in SETTINGS if item.attribute is not None and item.suite == suite]


def suite_default(attribute: str) -> Any:
    """The default of a suite class attribute, as the class declares it."""
    for item in SETTINGS:
        if item.attribute == attribute:
            return item.suite_default()
    raise KeyError(attribute)


def suite_problems(cls: type, suites: Iterable[str]) -> list[str]:
    """What is wrong with the settings a suite class sets: a value outside a setting's
    choices, or an attribute whose name is close to a setting's but is none (a typo
    such as ``case_pattern`` would otherwise be ignored in silence).  Attributes far
    from every setting's name are the class's own business and pass."""
    import difflib

    owned = [item for suite in suites for item in suite_settings(suite)]
    known = {item.attribute for item in owned if item.attribute is not None}
    problems: list[str] = []
    for item in owned:
        value = getattr(cls, item.attribute or "", None)
        if item.choices is not None and value is not None and value not in item.choices:
            problems.append(
                f"{cls.__name__}.{item.attribute}: {value!r} is not one of "
                f"{', '.join(item.choices)}"
            )
    for klass in cls.__mro__:
        if klass.__name__ in (SUITE, GENERATED_SUITE) or klass is object:
            break
        for name, value in vars(klass).items():
            if name.startswith("_") or name in known or callable(value):
                continue
            near = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.8)
            if near:
                shown = " or ".join(repr(match) for match in near)
                problems.append(
                    f"{klass.__name__}.{name} is no suite setting (did you mean {shown}?)"
                )
    return problems
