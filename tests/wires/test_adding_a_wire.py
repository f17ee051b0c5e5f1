"""The checklist of ``docs/adding-a-wire.md``, checked for every registered wire: a wire
added without one of its pieces (a reference codec, an endpoint, its tests, its docs
section, its snapshots, a case) fails here, with the step it missed."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conformance._reference.adapter import ReferenceAdapter
from conformance.http import HttpRequest
from conformance.wires._assembly import contract_problems
from conformance.wires._registry import get_wire, wire_names
from conformance.wires.roles import Wire
from tests.checks.kit import fake_wire

ROOT = Path(__file__).resolve().parents[2]


def package_name(wire: str) -> str:
    return wire.replace("-", "_")


def case_wires(root: Path) -> set[str]:
    """Every wire some case of the library lists under ``wires:``."""
    found: set[str] = set()
    for path in (root / "cases").rglob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        block = re.search(r"^wires:\n((?:[ \t]+.*\n|\n)+)", text, re.MULTILINE)
        if block is not None:
            found.update(re.findall(r"^[ \t]+([a-z][a-z-]*)(?::[a-z]+)?:", block[1], re.M))
    return found


def checklist_misses(wire: Wire, root: Path, registered: tuple[str, ...]) -> list[str]:
    """The steps of ``docs/adding-a-wire.md`` that ``wire`` has not done."""
    name, module = wire.name, package_name(wire.name)
    misses: list[str] = []
    if not (root / "conformance" / "wires" / f"_{module}" / "wire.py").is_file():
        misses.append(f"1. no package conformance/wires/_{module}/")
    elif contract_problems(f"conformance.wires._{module}"):
        misses.append(f"1. conformance/wires/_{module}/ breaks the contract")
    if name not in registered:
        misses.append("2. not discovered (a package under conformance/wires/ or an entry point)")
    for stream in (False, True):
        path = urlsplit(wire.endpoint("model-x", stream))
        if not wire.serves(HttpRequest("POST", path.path, query=path.query)):
            misses.append(f"3. route.endpoint(stream={stream}) is a path route.serves refuses")
    if name not in ReferenceAdapter.codecs or name not in ReferenceAdapter.wires:
        misses.append("4. no reference codec in conformance/_reference/ (ReferenceAdapter)")
    if wire.client is None:
        misses.append("5. no CLIENT in its wire module (how the provider's clients find it)")
    docs = (root / "docs" / "wires.md").read_text(encoding="utf-8")
    if not re.search(rf"^## {re.escape(name)}\b", docs, re.MULTILINE):
        misses.append(f"6. no `## {name}` section in docs/wires.md")
    if f"`{name}`" not in (root / "README.md").read_text(encoding="utf-8"):
        misses.append("6. not named in README.md")
    if name not in case_wires(root):
        misses.append("7. no case lists it under `wires:`")
    if not (root / "tests" / "wires" / f"test_{module}.py").is_file():
        misses.append(f"8. no tests/wires/test_{module}.py")
    for column in (name, *(f"{name}+{dialect}" for dialect in wire.dialects)):
        if not (root / "snapshots" / "reference" / column).is_dir():
            misses.append(f"9. no snapshots/reference/{column}/")
    return misses


@pytest.mark.parametrize("name", wire_names())
def test_every_registered_wire_has_done_every_step(name: str) -> None:
    assert checklist_misses(get_wire(name), ROOT, wire_names()) == []


def test_every_wire_package_is_registered() -> None:
    packages = {
        path.parent.name[1:]
        for path in (ROOT / "conformance" / "wires").glob("_*/wire.py")
        if not path.parent.name.startswith("__")
    }
    assert packages == {package_name(name) for name in wire_names()}


def test_a_wire_that_skipped_the_checklist_is_told_each_step() -> None:
    assert checklist_misses(fake_wire(name="fake-wire"), ROOT, wire_names()) == [
        "1. no package conformance/wires/_fake_wire/",
        "2. not discovered (a package under conformance/wires/ or an entry point)",
        "4. no reference codec in conformance/_reference/ (ReferenceAdapter)",
        "5. no CLIENT in its wire module (how the provider's clients find it)",
        "6. no `## fake-wire` section in docs/wires.md",
        "6. not named in README.md",
        "7. no case lists it under `wires:`",
        "8. no tests/wires/test_fake_wire.py",
        "9. no snapshots/reference/fake-wire/",
    ]


def test_an_endpoint_the_wire_does_not_serve_is_a_miss() -> None:
    refusing = replace(get_wire("gemini"), serves=lambda request: False)
    misses = checklist_misses(refusing, ROOT, wire_names())
    assert misses == [
        "3. route.endpoint(stream=False) is a path route.serves refuses",
        "3. route.endpoint(stream=True) is a path route.serves refuses",
    ]
