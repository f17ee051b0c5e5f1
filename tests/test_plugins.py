"""The entry-point groups as the suite reads them: each plugin found once, in a stable
order, and a plugin that fails to load left out with a warning that names its
distribution and entry point while everything else still runs.  ``importlib.metadata``
is replaced by the entry points an installed distribution would declare (the real
installation is ``test_outside_package.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest

import conformance.examples
from conformance import _plugins as plugins
from conformance._cases import library
from conformance._checks import registry as checks
from conformance._checks import retries
from conformance._targets import resolve
from conformance.wires import _registry as registry


def entry(group: str, name: str, value: str) -> metadata.EntryPoint:
    """An entry point of the distribution ``broken-pack 1.0``."""
    found = metadata.EntryPoint(name, value, group)
    vars(found).update(dist=SimpleNamespace(name="broken-pack", version="1.0"))
    return found


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[metadata.EntryPoint]]:
    """The entry points ``importlib.metadata`` reports, empty until a test adds some;
    every cache of discovery is cleared before and after."""
    declared: list[metadata.EntryPoint] = []

    def entry_points(group: str) -> list[metadata.EntryPoint]:
        return [e for e in declared if e.group == group]

    forget()
    monkeypatch.setattr(metadata, "entry_points", entry_points)
    yield declared
    forget()


def forget() -> None:
    """Clear every cache of discovery, as a new process starts without them."""
    for cached in (
        plugins.plugins,
        registry._discovered,
        library.pack_dirs,
        checks.registered,
        checks.all_checks,
        resolve._named_targets,
    ):
        cached.cache_clear()


def test_no_plugin_leaves_the_bundled_wires(installed: list[metadata.EntryPoint]) -> None:
    assert registry.wire_names() == (
        "anthropic-messages",
        "gemini",
        "openai-chat",
        "openai-responses",
    )


def test_a_broken_wire_plugin_is_named_and_left_out(
    installed: list[metadata.EntryPoint],
) -> None:
    installed.append(entry(plugins.WIRES, "toy-broken", "no_such_package_anywhere"))
    with pytest.warns(plugins.PluginWarning) as warned:
        names = registry.wire_names()
    assert "toy-broken" not in names
    assert "gemini" in names
    message = str(warned[0].message)
    assert "entry point toy-broken = no_such_package_anywhere" in message
    assert "group wire_conformance.wires, distribution broken-pack 1.0" in message
    with pytest.raises(KeyError, match="toy-broken = no_such_package_anywhere"):
        registry.get_wire("toy-broken")


def test_a_plugin_naming_a_wire_by_another_name_is_refused(
    installed: list[metadata.EntryPoint],
) -> None:
    installed.append(entry(plugins.WIRES, "renamed", "conformance.wires._gemini"))
    with pytest.warns(plugins.PluginWarning, match="names the wire 'gemini', not 'renamed'"):
        assert "renamed" not in registry.wire_names()


def test_a_case_pack_is_a_directory_beside_the_bundled_library(
    installed: list[metadata.EntryPoint],
) -> None:
    installed.append(entry(plugins.CASES, "examples", "conformance.examples"))
    installed.append(entry(plugins.CASES, "gone", "no_such_case_pack"))
    with pytest.warns(plugins.PluginWarning, match="entry point gone = no_such_case_pack"):
        dirs = library.case_dirs([Path("mine")])
    examples = Path(conformance.examples.__file__).parent
    assert dirs == [library.bundled_cases_dir(), examples, Path("mine")]


def test_a_check_pack_without_a_book_is_left_out(
    installed: list[metadata.EntryPoint],
) -> None:
    bundled = checks.registered()
    forget()
    installed.append(entry(plugins.CHECKS, "empty", "conformance.version"))
    with pytest.warns(plugins.PluginWarning, match="conformance.version has no BOOK"):
        assert checks.registered() == bundled


def test_a_check_pack_adds_its_book_after_the_suites(
    installed: list[metadata.EntryPoint],
) -> None:
    bundled = checks.registered()
    forget()
    installed.append(entry(plugins.CHECKS, "again", "conformance._checks.retries"))
    assert checks.registered()[len(bundled) :] == retries.BOOK.registered


def test_a_named_target_resolves_and_a_broken_one_says_why(
    installed: list[metadata.EntryPoint],
) -> None:
    installed.append(entry(plugins.TARGETS, "ref", resolve.REFERENCE_SPEC))
    installed.append(entry(plugins.TARGETS, "nameless", "no_colon"))
    with pytest.warns(plugins.PluginWarning):
        assert resolve.named_target("ref") == resolve.REFERENCE_SPEC
    assert resolve.resolve_target("ref").wires == resolve.resolve_target("reference").wires
    with pytest.raises(resolve.TargetError, match="entry point nameless = no_colon"):
        resolve.named_target("nameless")
    assert resolve.named_target("pkg:Adapter") == "pkg:Adapter"
