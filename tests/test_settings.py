"""The run settings are declared once (``conformance._settings``) and every face agrees
with that declaration: the ``run`` flags, the pytest options and the suite attributes
name the same settings, with the same defaults and choices."""

from __future__ import annotations

import argparse
from typing import Any, ClassVar

import pytest

from conformance import _settings as settings
from conformance._cli import _parser
from conformance._settings import GENERATED_SUITE, SETTINGS, SUITE, Setting, suite_problems
from conformance.pytest._cells import suite_setting
from conformance.pytest._generated import GeneratedSuite
from conformance.pytest._suite import ConformanceSuite

SUITES: dict[str, type[ConformanceSuite]] = {
    SUITE: ConformanceSuite,
    GENERATED_SUITE: GeneratedSuite,
}


def run_actions() -> dict[str, argparse.Action]:
    """The ``run`` subcommand's arguments by dest."""
    parser = _parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    run = commands.choices["run"]
    return {action.dest: action for action in run._actions if action.dest != "help"}


class Group:
    """A pytest option group that records what it is given."""

    def __init__(self) -> None:
        self.options: dict[str, dict[str, Any]] = {}

    def addoption(self, *flags: str, **options: Any) -> None:
        (flag,) = flags
        self.options[flag] = options


def pytest_options() -> dict[str, dict[str, Any]]:
    group = Group()
    settings.add_pytest_options(group)
    return group.options


def test_every_run_flag_is_a_setting_and_every_setting_with_flags_is_a_run_flag() -> None:
    actions = run_actions()
    assert set(actions) == {item.name for item in SETTINGS if item.flags}
    for item in SETTINGS:
        if not item.flags:
            continue
        action = actions[item.name]
        assert tuple(action.option_strings) == item.flags, item.name
        expected = [] if item.kind == "list" else item.default
        assert action.default == expected, item.name
        assert action.choices == item.choices, item.name
        assert action.help == item.help, item.name


def test_the_run_flags_keep_their_order() -> None:
    """``run --help`` lists the flags in ``SETTINGS`` order (after ``-h``)."""
    flags = [item.flags for item in SETTINGS if item.flags]
    shown = [tuple(a.option_strings) for a in run_actions().values()]
    assert shown == flags


def test_every_pytest_option_is_a_setting_with_its_choices() -> None:
    options = pytest_options()
    assert set(options) == {item.pytest for item in SETTINGS if item.pytest}
    for item in SETTINGS:
        if item.pytest is None:
            continue
        option = options[item.pytest]
        assert option.get("choices") == item.choices, item.name
        assert option["help"].startswith(item.help.rstrip(")")), item.name
        # unset, the option leaves the choice to the suite attribute
        unset: Any = [] if item.kind == "list" else (False if item.kind == "flag" else None)
        assert option["default"] == unset, item.name


def test_the_pytest_options_the_docs_and_users_rely_on_are_all_there() -> None:
    assert set(pytest_options()) == {
        "--conformance-target",
        "--conformance-target-name",
        "--conformance-cases",
        "--conformance-wire",
        "--conformance-case",
        "--conformance-timeout",
        "--conformance-strict",
        "--conformance-evidence",
        "--conformance-probes",
        "--conformance-profile",
        "--conformance-seed",
        "--conformance-save-exchanges",
    }


@pytest.mark.parametrize("item", [s for s in SETTINGS if s.attribute], ids=lambda s: s.name)
def test_every_suite_attribute_is_declared_with_the_settings_default(item: Setting) -> None:
    assert item.attribute is not None
    suite = SUITES[item.suite]
    assert item.attribute in suite.__annotations__, item.attribute
    assert getattr(suite, item.attribute) == item.suite_default()
    if item.merge in ("option", "either"):  # the attribute is the value: the run's default
        assert item.suite_default() == item.default
    if item.merge == "suite":  # unset: the option, else the run's default
        assert item.suite_default() is None
    if item.kind == "list":
        assert item.suite_default() == ()


def test_every_suite_attribute_is_a_setting() -> None:
    """The class attributes a user sets (not the test methods) are all settings."""
    for name, suite in SUITES.items():
        own = {
            attribute
            for attribute in vars(suite)
            if not attribute.startswith("_") and not callable(vars(suite)[attribute])
        }
        declared = {item.attribute for item in settings.suite_settings(name)}
        assert own == declared, name


def test_the_settings_values_are_the_verdicts() -> None:
    """Written out in ``settings`` to keep it import-light; the same as the verdict's."""
    from conformance.generate._command import PROFILE_NAMES
    from conformance.verdict import (
        DEFAULT_EVIDENCE_THRESHOLD,
        DEFAULT_TIMEOUT,
        EVIDENCE_THRESHOLDS,
    )

    assert settings.EVIDENCE_CHOICES == EVIDENCE_THRESHOLDS
    assert settings.DEFAULT_EVIDENCE == DEFAULT_EVIDENCE_THRESHOLD
    assert settings.DEFAULT_TIMEOUT == DEFAULT_TIMEOUT
    assert settings.setting("profile").choices == PROFILE_NAMES


def test_the_settings_module_stays_import_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys, conformance._settings; "
        "print([m for m in ('pydantic', 'rich', 'yaml') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class Config:
    """The options a pytest run was given, by flag."""

    def __init__(self, **given: Any) -> None:
        self.given = {f"--conformance-{k.replace('_', '-')}": v for k, v in given.items()}

    def getoption(self, flag: str) -> Any:
        item = next(s for s in SETTINGS if s.pytest == flag)
        unset: Any = [] if item.kind == "list" else (False if item.kind == "flag" else None)
        return self.given.get(flag, unset)


def test_a_suite_setting_combines_the_attribute_and_the_option_as_declared() -> None:
    class Plain(GeneratedSuite):
        pass

    class Set(GeneratedSuite):
        target = "mine:Adapter"
        timeout = 5.0
        strict = True
        wires = ("gemini",)
        generate_seed = 0

    bare: Any = Config()
    given: Any = Config(target="cmd:x", timeout=9.0, wire=["anthropic-messages"], seed=7)
    assert suite_setting(Plain, bare, "target") == "reference"
    assert suite_setting(Plain, given, "target") == "cmd:x"
    assert suite_setting(Set, given, "target") == "mine:Adapter"  # the attribute wins
    assert suite_setting(Plain, bare, "timeout") == 60.0
    assert suite_setting(Set, bare, "timeout") == 5.0
    assert suite_setting(Set, given, "timeout") == 9.0  # the option wins
    assert suite_setting(Plain, bare, "strict") is False
    assert suite_setting(Set, bare, "strict") is True
    assert suite_setting(Set, given, "wire") == ["gemini", "anthropic-messages"]
    assert suite_setting(Set, given, "seed") == 0  # a set 0 is set
    assert suite_setting(Plain, given, "seed") == 7


def test_a_mistyped_or_out_of_range_suite_attribute_is_named_with_a_suggestion() -> None:
    class TestTypo(ConformanceSuite):
        case_pattern = ("xml-*",)
        evidence = "strong"  # type: ignore[assignment]

    problems = suite_problems(TestTypo, [SUITE])
    assert problems == [
        "TestTypo.evidence: 'strong' is not one of documented, observed, any",
        "TestTypo.case_pattern is no suite setting (did you mean 'case_patterns'?)",
    ]


def test_a_suite_of_its_own_attributes_and_helpers_passes() -> None:
    """Negative: a class's own names far from every setting are its business."""

    class TestMine(GeneratedSuite):
        target = "mine:Adapter"
        evidence = "any"
        generate_profile = "nightly"
        pytestmark: ClassVar[list[Any]] = []
        fixtures_dir = "data"

        def helper(self) -> None: ...

    assert suite_problems(TestMine, [GENERATED_SUITE, SUITE]) == []


def test_a_suite_with_a_mistyped_attribute_fails_collection_with_one_line() -> None:
    from conformance.pytest._cells import _target

    class TestTypo(ConformanceSuite):
        wire = ("gemini",)

    bare: Any = Config()
    with pytest.raises(pytest.fail.Exception) as failed:
        _target(TestTypo, bare)
    assert str(failed.value) == (
        "wire-conformance: TestTypo.wire is no suite setting (did you mean 'wires'?)"
    )


def test_generate_probe_and_replay_take_their_run_flags_from_the_settings() -> None:
    """``generate``, ``probe`` and ``replay`` declared their own copies of run flags, and
    replay's timeout default (30) differed unsaid; now each comes from the one table, and
    replay's own default is the setting's, with the help saying why."""
    import argparse
    import inspect

    import conformance._probe.command as probe
    import conformance._recording.command as recording
    import conformance.generate._command as generate
    from conformance._settings import REPLAY_TIMEOUT, setting

    adders = {
        "generate": generate.add_generate_arguments,
        "probe": probe.add_probe_arguments,
        "replay": recording.add_replay_arguments,
    }
    for command, adder in adders.items():
        parser = argparse.ArgumentParser()
        adder(parser)
        actions = {a.dest: a for a in parser._actions}
        timeout = actions["timeout"]
        default, text = setting("timeout").for_command(command)
        assert (timeout.default, timeout.help) == (default, text)
        assert actions["target"].help == setting("target").help
        for flag in ('"--target"', '"--timeout"', '"--strict"', '"--json"', '"--wire"'):
            assert flag not in inspect.getsource(adder), (command, flag)
    replay = argparse.ArgumentParser()
    recording.add_replay_arguments(replay)
    assert replay.parse_args([]).timeout == REPLAY_TIMEOUT
    assert (
        "a recorded conversation may hold many more exchanges"
        in (setting("timeout").for_command("replay")[1])
    )
    # The negative example: a command without a default of its own gets run's.
    assert setting("timeout").for_command("generate") == (
        setting("timeout").default,
        setting("timeout").help,
    )
