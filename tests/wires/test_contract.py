"""Every wire package keeps one contract: the same public modules, the same public names
with the same parameters (``conformance/wires/_assembly.py``), and a rule book whose
rules are the wire's rules."""

from __future__ import annotations

import dataclasses
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.wires._assembly import CONTRACT, assemble, contract_problems, field_of
from conformance.wires._registry import get_wire, wire_names
from conformance.wires.roles import Realism, Wire

#: A package that keeps the contract, module by module; the negative examples break it.
GOOD: dict[str, str] = {
    "__init__": "",
    "route": (
        "def serves(request): ...\n"
        "def endpoint(model, stream): ...\n"
        "def wants_stream(request, view): ...\n"
    ),
    "parse": "def parse(request, context=None): ...\ndef history_items(view): ...\n",
    "render": (
        "def render(response, context): ...\n"
        "def render_error(violation): ...\n"
        "def render_history(messages, dialect): ...\n"
    ),
    "rules": (
        "from conformance.verdict import Rule\n"
        "SOME_RULE = Rule(id='fake/r', ref='', statement='', source='', error='')\n"
        "BOOK = None\n"
        "RULES = (SOME_RULE,)\n"
    ),
    "validate": "def validate(view, context): ...\n",
    "read": "def read(body, streaming, dialect=None): ...\n",
    "realism": (
        "def response_problems(response, dialect): ...\ndef block_problems(block, spot): ...\n"
        "RESPONSE = None\nBLOCK = None\nREALISM_RULES = ()\n"
    ),
    "wire": "NAME = 'fake-good'\nHINTS = None\n",
    "_stops": "STOPS = ()\n",
}


def package(root: Path, name: str, modules: dict[str, str]) -> str:
    """Write ``modules`` as package ``name`` under ``root`` and return its dotted name."""
    folder = root / name
    folder.mkdir()
    for module, text in modules.items():
        (folder / f"{module}.py").write_text(text)
    return name


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in set(sys.modules) - before:
        del sys.modules[name]
    importlib.invalidate_caches()


@pytest.mark.parametrize("name", wire_names())
def test_every_registered_wire_package_keeps_the_contract(name: str) -> None:
    dotted = f"conformance.wires._{name.replace('-', '_')}"
    assert contract_problems(dotted) == []
    assert assemble(dotted) is get_wire(name) is importlib.import_module(dotted).WIRE


@pytest.mark.parametrize("name", wire_names())
def test_the_wire_lists_exactly_its_rule_books_rules(name: str) -> None:
    dotted = f"conformance.wires._{name.replace('-', '_')}.rules"
    rules = importlib.import_module(dotted)
    assert get_wire(name).rules == rules.RULES == rules.BOOK.rules
    assert all(rule.id.startswith(f"{name}/") for rule in rules.RULES)


def test_the_contract_names_the_job_modules() -> None:
    assert set(CONTRACT) == {
        "route",
        "parse",
        "render",
        "rules",
        "validate",
        "read",
        "realism",
        "wire",
    }


def test_a_package_that_keeps_the_contract_has_no_problems(root: Path) -> None:
    assert contract_problems(package(root, "fake_good", GOOD)) == []


def test_a_missing_module_and_an_extra_public_module_are_reported(root: Path) -> None:
    modules = {k: v for k, v in GOOD.items() if k != "read"}
    modules["stops"] = "STOPS = ()\n"
    assert contract_problems(package(root, "fake_modules", modules)) == [
        "fake_modules: no module `read`",
        "fake_modules: public module `stops` is not in the contract (make it `_stops`)",
    ]


def test_a_missing_name_an_extra_name_and_other_parameters_are_reported(root: Path) -> None:
    modules = dict(GOOD)
    modules["read"] = "def read_recorded(body, streaming): ...\n"
    modules["render"] = GOOD["render"] + "FUTURE_EVENT = 'x'\n"
    modules["validate"] = "def validate(view): ...\n"
    modules["rules"] = GOOD["rules"] + "def check_request(view): ...\n"
    assert contract_problems(package(root, "fake_names", modules)) == [
        "fake_names.read: `read` is missing",
        "fake_names.read: `read_recorded` is not in the contract (make it `_read_recorded`)",
        "fake_names.render: `FUTURE_EVENT` is not in the contract (make it `_FUTURE_EVENT`)",
        "fake_names.rules: `check_request` is not in the contract (make it `_check_request`)",
        "fake_names.validate: `validate` takes (view), the contract says (view, context)",
    ]


def test_a_render_module_without_the_history_renderer_is_reported(root: Path) -> None:
    modules = dict(GOOD)
    modules["render"] = "def render(response, context): ...\ndef render_error(violation): ...\n"
    assert contract_problems(package(root, "fake_history", modules)) == [
        "fake_history.render: `render_history` is missing"
    ]


def test_the_contract_and_the_wire_state_one_shape() -> None:
    """Every field of ``Wire`` (and of its ``Realism``) is filled by exactly one contract
    name: the contract is the one statement of a wire's shape, ``Wire`` its type."""
    filled = [field_of(name) for names in CONTRACT.values() for name in names]
    wire_fields = [f.name for f in dataclasses.fields(Wire) if f.name != "realism"]
    realism_fields = [f"realism.{f.name}" for f in dataclasses.fields(Realism)]
    assert sorted(f for f in filled if f is not None) == sorted(wire_fields + realism_fields)


def test_a_package_is_assembled_by_the_contract_with_defaults_for_what_it_leaves_out(
    root: Path,
) -> None:
    modules = dict(GOOD)
    modules["wire"] = "NAME = 'fake-assembled'\nHINTS = 'hints'\nDIALECTS = ('d',)\n"
    wire = assemble(package(root, "fake_assembled", modules))
    assert (wire.name, wire.dialects, wire.client) == ("fake-assembled", ("d",), None)
    assert wire.hints == "hints"  # type: ignore[comparison-overlap]
    assert wire.rules[0].id == "fake/r"
    assert wire.realism.options(None, ()) == []  # type: ignore[arg-type]


def test_a_wire_without_its_name_is_reported(root: Path) -> None:
    modules = dict(GOOD)
    modules["wire"] = "HINTS = None\nDIALECTS = ()\n"
    assert contract_problems(package(root, "fake_nameless", modules)) == [
        "fake_nameless.wire: `NAME` is missing"
    ]


#: A realism module with its books only: the predicates and the rules are made from them.
BOOKS_ONLY = (
    "from conformance.catalogue.book import RuleBook\n"
    "RESPONSE = RuleBook('fake-books', __name__)\n"
    "BLOCK = RuleBook('fake-books', __name__)\n"
    "STOP = RESPONSE.rule('gemini/realism/noise')\n"
    "@RESPONSE.checks(STOP)\n"
    "def _noisy(response, dialect):\n"
    "    if response.noise:\n"
    "        yield STOP.violated()\n"
)


def test_the_realism_predicates_and_rules_are_made_from_the_books_when_left_out(
    root: Path,
) -> None:
    from conformance.vocabulary import ScriptedResponse

    modules = dict(GOOD, realism=BOOKS_ONLY)
    modules["wire"] = "NAME = 'fake-books'\nHINTS = None\n"
    dotted = package(root, "fake_books", modules)
    assert contract_problems(dotted) == []
    realism = assemble(dotted).realism
    assert [rule.id for rule in realism.rules] == ["gemini/realism/noise"]
    noisy = ScriptedResponse.model_validate({"blocks": [], "stop": "end", "noise": ["ping"]})
    assert [v.check for v in realism.response(noisy, None)] == ["gemini/realism/noise"]
    assert realism.response(noisy.model_copy(update={"noise": ()}), None) == []


def test_a_realism_module_without_its_books_is_reported(root: Path) -> None:
    modules = dict(GOOD, realism="def response_problems(response, dialect): ...\n")
    problems = contract_problems(package(root, "fake_bookless", modules))
    assert problems == [
        "fake_bookless.realism: `RESPONSE` is missing",
        "fake_bookless.realism: `BLOCK` is missing",
    ]
