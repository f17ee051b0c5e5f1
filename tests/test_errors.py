"""Every exception the suite raises about its inputs lives in ``conformance.errors``.

A second module defining its own error class is how two classes with one meaning
appeared (a report reader's error twice, under two names); this scan keeps them in one
place.  Signals that end or redirect a run, and the reference adapter's own exceptions
(it is a target like any user's), are the listed exceptions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import conformance.errors as errors
from conformance.errors import ConformanceError

PACKAGE = Path(errors.__file__).parent

#: Exception classes allowed outside ``conformance.errors``, each with why it is not a
#: report about an input.
SIGNALS: dict[str, str] = {
    "conformance/_interrupt.py:Interrupted": "a signal ended the run (BaseException)",
    "conformance/_targets/kind.py:Abandoned": "a cell's thread is left behind (BaseException)",
    "conformance/_targets/kind.py:ProcessExit": "a target called os._exit (BaseException)",
    "conformance/_targets/api.py:ConversationStopped": "a target's own library stopped on "
    "purpose; part of the target API, judged as a stop",
    "conformance/agent/runner.py:AgentError": "the command runner's reason to exit with a code",
    "conformance/agent/runner.py:ErrorAnswer": "the provider answered an HTTP error",
    "conformance/pytest/_probes.py:ProbeFailure": "a pytest failure of a probe test",
    "conformance/generate/_properties.py:ConversationFailed": "hypothesis's counterexample",
    "conformance/generate/_case_file.py:CaseFileError": "a bug: a generated case did not "
    "load back, which must surface as itself",
    "conformance/_reference/codec.py:ProviderError": "the reference adapter's own",
    "conformance/_reference/codec.py:UnsupportedBlock": "the reference adapter's own",
    "conformance/_reference/guards.py:UnknownGuard": "the reference adapter's own",
}

_EXCEPTION_BASES = {"Exception", "BaseException", "ValueError", "RuntimeError", "KeyError"}
_EXCEPTION_BASES |= {"AssertionError", "TypeError", "OSError", "LookupError"}


def _exception_classes(tree: ast.Module) -> list[str]:
    """Top-level classes whose bases end in an exception name (``…Error``, a builtin)."""
    found = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        names = [ast.unparse(base).rsplit(".", 1)[-1] for base in node.bases]
        if any(n in _EXCEPTION_BASES or n.endswith(("Error", "Exception")) for n in names):
            found.append(node.name)
    return found


def _defined_elsewhere() -> set[str]:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "errors.py" and path.parent == PACKAGE:
            continue
        rel = path.relative_to(PACKAGE.parent).as_posix()
        for name in _exception_classes(ast.parse(path.read_text(encoding="utf-8"))):
            if not name.startswith("_"):  # private: raised and caught in its module
                found.add(f"{rel}:{name}")
    return found


def test_exceptions_about_inputs_live_in_the_errors_module() -> None:
    stray = _defined_elsewhere() - set(SIGNALS)
    assert not stray, f"define these in conformance/errors.py: {sorted(stray)}"


def test_every_listed_signal_still_exists() -> None:
    assert set(SIGNALS) <= _defined_elsewhere()


def test_every_error_in_the_module_is_a_conformance_error() -> None:
    classes = [
        value
        for value in vars(errors).values()
        if isinstance(value, type) and issubclass(value, BaseException)
    ]
    assert len(classes) > 15
    for cls in classes:
        assert issubclass(cls, ConformanceError), cls


@pytest.mark.parametrize(
    "source",
    ["class Stray(ValueError):\n    pass\n", "class Stray(ConformanceError):\n    pass\n"],
)
def test_the_scan_sees_an_exception_class(source: str) -> None:
    assert _exception_classes(ast.parse(source)) == ["Stray"]


def test_the_scan_ignores_other_classes() -> None:
    assert _exception_classes(ast.parse("class Model(BaseModel):\n    pass\n")) == []
