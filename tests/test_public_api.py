"""The public face: what users import from ``conformance`` itself, and the one exception
root every deliberate error of the suite shares."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import conformance
from conformance.errors import ConformanceError

ROOT = Path(conformance.__file__).parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_every_public_name_resolves_to_its_defining_object() -> None:
    for name in conformance.__all__:
        value = getattr(conformance, name)
        assert value is not None, name
        if name != "__version__":
            assert value.__name__ == name


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nonexistent'"):
        _ = conformance.Nonexistent


@pytest.mark.slow
def test_importing_the_package_loads_nothing_but_the_version() -> None:
    probe = (
        "import sys, conformance; "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('conformance'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert loaded == ["conformance", "conformance.version"]


def test_every_exported_error_descends_from_the_root() -> None:
    errors = [
        getattr(conformance, name)
        for name in conformance.__all__
        if name.endswith("Error") and isinstance(getattr(conformance, name), type)
    ]
    exceptions = [e for e in errors if issubclass(e, BaseException)]
    assert {e.__name__ for e in exceptions} >= {
        "ConformanceError",
        "TargetError",
        "RequestParseError",
        "ResponseReadError",
        "YamlError",
    }
    assert all(issubclass(e, ConformanceError) for e in exceptions)


def test_the_users_api_is_importable_from_the_package() -> None:
    """The names the docs tell users to import are all public."""
    for name in ("Adapter", "AdapterSession", "Client", "Conversation", "ConformanceSuite"):
        assert name in conformance.__all__


def test_no_document_sends_users_to_an_internal_module_for_the_api() -> None:
    internal = re.compile(r"from conformance\.(targets\.base|pytest\.suite) import")
    assert [str(d.name) for d in DOCUMENTS if internal.search(d.read_text())] == []
