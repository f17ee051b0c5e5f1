"""``--conformance-probes``: a catalogue run from pytest, one item per probe, failing
for what fails ``wire-conformance probe`` (pytester, in a subprocess where probes run:
they mutate the target's modules)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _not_inside_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The nested pytest is a session of its own, never an xdist worker."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


CATALOGUE = """
version: 1
strict: true
cases: ["empty-terminal-output-*", "chat-empty-final-message-*"]
probes:
  - id: last-even-if-empty
    module: conformance._reference.output
    find: "text = next((t for t in reversed(texts) if t.strip()), None)"
    replace: "text = texts[-1] if texts else None"
    expect_killed_by: [empty-terminal-output-last-nonempty-text]
    note: the last assistant message is selected even when empty
  - id: no-op-survivor
    module: conformance._reference.output
    find: "text = next((t for t in reversed(texts) if t.strip()), None)"
    replace: "text = next((t for t in reversed(texts) if t.strip()), None)  # same"
    note: a mutant no case can see
  - id: accepted-survivor
    module: conformance._reference.output
    find: "text = next((t for t in reversed(texts) if t.strip()), None)"
    replace: "text = next((t for t in reversed(texts) if t.strip() != ''), None)"
    accepted: whitespace-only texts never reach the selection
    note: an accepted survivor
  - id: find-twice
    module: conformance._reference.output
    find: "text"
    replace: "txt"
    note: a find that matches many times
  - id: wrong-killer
    module: conformance._reference.output
    find: "text = next((t for t in reversed(texts) if t.strip()), None)"
    replace: "text = texts[-1] if texts else None"
    expect_killed_by: [xml-*]
    note: killed, but not by the expected cases
"""


def test_one_item_per_probe_failing_as_the_command_does(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", probes=CATALOGUE)
    result = pytester.runpytest_subprocess("--conformance-probes", "probes.yaml", "-rA")
    result.assert_outcomes(passed=2, failed=3)
    text = result.stdout.str()
    assert "PASSED probes.yaml::last-even-if-empty" in text
    assert "PASSED probes.yaml::accepted-survivor" in text
    assert "probe no-op-survivor (conformance._reference.output): survived" in text
    assert "probe find-twice (conformance._reference.output): invalid: `find` matches" in text
    assert (
        "probe wrong-killer (conformance._reference.output): not killed by the expected xml-*"
        in (text)
    )


def test_a_red_target_fails_every_probe_item(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", probes=CATALOGUE)
    pytester.makepyfile(
        red="""
from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.guards import GUARDS

class Red(ReferenceAdapter):
    name = "red"
    def __init__(self):
        super().__init__(disabled={"output-last-nonempty-text"})
"""
    )
    result = pytester.runpytest_subprocess(
        "--conformance-probes",
        "probes.yaml",
        "--conformance-target",
        "red:Red",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(failed=5)
    assert "the unmutated target is red, so no probe proves anything" in result.stdout.str()


def test_an_unreadable_catalogue_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", probes="version: 1\nprobes: []\nextra: 1\n")
    # In-process: no probe runs (nothing is mutated), only the option is read.
    result = pytester.runpytest_inprocess("--conformance-probes", "probes.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--conformance-probes: " in result.stderr.str()
    assert "probes.yaml" in result.stderr.str()


def test_without_the_option_no_probe_item_is_collected(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", probes=CATALOGUE)
    pytester.makepyfile(test_plain="def test_nothing():\n    pass\n")
    pytester.runpytest_inprocess().assert_outcomes(passed=1)  # nothing probed: in-process
