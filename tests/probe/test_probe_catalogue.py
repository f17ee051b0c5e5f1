"""Probe catalogues: the strict schema, located errors, diffs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance._probe.catalogue import (
    catalogue_schema,
    load_catalogue,
    parse_catalogue,
    reference_catalogue,
)
from conformance._probe.mutate import mutated_source, parse_hunks
from conformance.errors import ProbeCatalogueError, ProbeInvalid

PROBE = "  - id: p1\n    module: m\n    find: a\n    replace: b\n    note: n\n"


def parse(text: str) -> object:
    return parse_catalogue(text, "probes.yaml", Path("."))


def test_a_minimal_catalogue_loads() -> None:
    catalogue = parse_catalogue(f"probes:\n{PROBE}", "probes.yaml", Path("."))
    assert [p.id for p in catalogue.probes] == ["p1"]
    assert catalogue.probes[0].where == "m"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"probes:\n{PROBE}colour: red\n", "colour: Extra inputs are not permitted"),
        (f"probes:\n{PROBE}    colour: red\n", "probes.0.colour (probe 'p1')"),
        (f"probes:\n{PROBE}{PROBE}", "two probes have the id 'p1'"),
        (
            "probes:\n  - {id: p, module: m, path: x.py, find: a, replace: b, note: n}\n",
            "exactly one of",
        ),
        ("probes:\n  - {id: p, module: m, find: a, note: n}\n", "`find` needs `replace`"),
        ("probes:\n  - {id: p, module: m, find: a, replace: b, diff: x.diff, note: n}\n", "either"),
        (
            "probes:\n  - {id: p, module: m, find: a, replace: b}\n",
            "probes.0.note (probe 'p'): Field required",
        ),
        ("probes: []\n", "probes: Tuple should have at least 1 item"),
        ("version: 2\nprobes:\n" + PROBE, "this runner reads 1"),
        ("- a list\n", "a catalogue is a mapping"),
        ("probes: [\n", "not YAML"),
    ],
)
def test_a_bad_catalogue_is_a_located_error(text: str, message: str) -> None:
    with pytest.raises(ProbeCatalogueError) as caught:
        parse(text)
    assert str(caught.value).startswith("probes.yaml: ")
    assert message in str(caught.value)


def test_the_exported_schema_is_strict_and_hides_internal_fields() -> None:
    schema = catalogue_schema()
    probe = schema["$defs"]["Probe"]
    assert probe["additionalProperties"] is False
    assert schema["additionalProperties"] is False
    assert {
        "id",
        "module",
        "path",
        "find",
        "replace",
        "diff",
        "expect_killed_by",
        "accepted",
        "note",
    } == set(probe["properties"])
    assert "source" not in schema["properties"]
    json.dumps(schema)


#: A diff whose blank context lines are a single space, as diff -u writes them.
DIFF = "".join(
    f"{line}\n"
    for line in (
        "--- a/pkg/mod.py",
        "+++ b/pkg/mod.py",
        "@@ -1,4 +1,4 @@",
        " def f(x):",
        "-    return x + 1",
        "+    return x - 1",
        " ",
        " ",
        "@@ -9,2 +9,3 @@",
        " def g():",
        '+    print("g")',
        "     return 2",
    )
)
SOURCE = "def f(x):\n    return x + 1\n\n\nprint()\n\n\n\ndef g():\n    return 2\n"


def test_a_diff_file_is_one_probe_applied_by_content(tmp_path: Path) -> None:
    path = tmp_path / "Off By One.diff"
    path.write_text(DIFF)
    catalogue = load_catalogue(path)
    (probe,) = catalogue.probes
    assert (probe.id, probe.path) == ("off-by-one", "pkg/mod.py")
    mutated = mutated_source(probe, SOURCE)
    assert "return x - 1" in mutated
    assert 'def g():\n    print("g")\n    return 2\n' in mutated


def test_a_diff_hunk_that_no_longer_applies_is_invalid(tmp_path: Path) -> None:
    path = tmp_path / "p.diff"
    path.write_text(DIFF)
    (probe,) = load_catalogue(path).probes
    with pytest.raises(ProbeInvalid, match="hunk 1 of the diff matches never"):
        mutated_source(probe, SOURCE.replace("x + 1", "x + 2"))
    assert len(parse_hunks(DIFF)) == 2


def test_a_catalogue_reads_its_diffs_relative_to_itself(tmp_path: Path) -> None:
    (tmp_path / "m.diff").write_text(DIFF)
    (tmp_path / "p.yaml").write_text(
        "probes:\n  - {id: p, module: pkg.mod, diff: m.diff, note: n}\n"
    )
    (probe,) = load_catalogue(tmp_path / "p.yaml").probes
    assert probe.diff_text == DIFF
    (tmp_path / "p.yaml").write_text(
        "probes:\n  - {id: p, module: pkg.mod, diff: gone.diff, note: n}\n"
    )
    with pytest.raises(ProbeCatalogueError, match=r"cannot read diff gone\.diff"):
        load_catalogue(tmp_path / "p.yaml")


@pytest.mark.parametrize(
    ("find", "message"),
    [("x", "matches 3 times"), ("nowhere", "matches never")],
)
def test_find_must_match_exactly_once(find: str, message: str) -> None:
    probe = parse_catalogue(
        f"probes:\n  - {{id: p, module: m, find: {find}, replace: y, note: n}}\n", "c", Path(".")
    ).probes[0]
    with pytest.raises(ProbeInvalid, match=message):
        mutated_source(probe, "x x x")


def test_the_reference_catalogue_covers_every_named_guard() -> None:
    from conformance._reference.guards import GUARDS

    catalogue = reference_catalogue()
    probed = {p.id.removeprefix("guard-") for p in catalogue.probes if p.id.startswith("guard-")}
    assert probed == set(GUARDS)
    assert all(
        p.module and p.module.startswith("conformance._reference.") for p in catalogue.probes
    )
