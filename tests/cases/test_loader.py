"""The loader: good files become cases; every bad one is one clear error, and the rest load."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cases.loader import CaseSet, ParseCache, Vocabulary, load_dirs, load_text

VOCABULARY = Vocabulary(frozenset({"truncation", "tool-pairing"}), {"anthropic-messages": ()})

GOOD = """\
id: {id}
title: A tool call answered by its result
provenance: [{{rule: 13}}]
features: [tool-pairing]
wires:
  anthropic-messages: Every tool_use of a response must be answered (rule 13).
given:
  tools: [{{name: read_file, result: contents}}]
  turns:
    - user: Read it
      responses:
        - stop: tool_calls
          blocks: [{{kind: tool_call, id: toolu_1, name: read_file, arguments: {{path: a}}}}]
        - stop: end
          blocks: [{{kind: text, text: Done.}}]
expect:
  - in: {{request: 2, role: tool, nth: -1}}
    blocks: [{{kind: tool_result, call_id: toolu_1}}]
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / "tool-pairing" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load(directory: Path) -> CaseSet:
    return load_dirs([directory], VOCABULARY, ParseCache(None))


def test_a_good_file_loads(tmp_path: Path) -> None:
    write(tmp_path, "paired", GOOD.format(id="paired"))
    cases = load(tmp_path)
    assert cases.errors == ()
    assert [c.case.id for c in cases.cases] == ["paired"]


@pytest.mark.parametrize(
    ("edit", "line", "field", "message"),
    [
        (("features: [tool-pairing]", "features: [nope]"), 4, "features", "unknown feature 'nope'"),
        (("anthropic-messages:", "gemini-x:"), 5, "wires", "unknown wire 'gemini-x'"),
        (("provenance: [{rule: 13}]\n", ""), 1, "provenance", "Field required"),
        (("name: read_file, arguments", "name: read_file, argumentz"), 13,
         "given.turns[0].responses[0].blocks[0].argumentz", "Extra inputs are not permitted"),
        (("blocks: [{kind: tool_result", "blocks: [{kind: tool_resultt"), 18,
         "expect[0].blocks[0].kind", "Input should be"),
        (("stop: end", "stop: finished"), 14, "given.turns[0].responses[1].stop", "Input should be"),
    ],
)
def test_a_bad_file_names_file_line_and_field(
    tmp_path: Path, edit: tuple[str, str], line: int, field: str, message: str
) -> None:
    write(tmp_path, "paired", GOOD.format(id="paired"))
    bad = write(tmp_path, "broken", GOOD.format(id="broken").replace(*edit))
    cases = load(tmp_path)
    assert [c.case.id for c in cases.cases] == ["paired"]  # the others still load
    (error,) = cases.errors
    assert error.file == str(bad)
    assert error.line == line
    assert error.field == field
    assert message in error.message
    assert str(error).startswith(f"{bad}:{line}: {field}: ")


def test_yaml_syntax_and_duplicate_keys_are_located(tmp_path: Path) -> None:
    write(tmp_path, "syntax", "id: a\n  b: [\n")
    write(tmp_path, "dup", GOOD.format(id="dup") + "title: again\n")
    errors = {Path(e.file).stem: e for e in load(tmp_path).errors}
    assert errors["syntax"].line == 2
    assert errors["dup"].line == 19 and "duplicate key 'title'" in errors["dup"].message


def test_file_name_must_be_the_id_and_ids_unique(tmp_path: Path) -> None:
    write(tmp_path, "other-name", GOOD.format(id="paired"))
    second = tmp_path / "second"
    write(second, "paired", GOOD.format(id="paired"))
    write(tmp_path, "paired", GOOD.format(id="paired"))
    cases = load_dirs([tmp_path, second], VOCABULARY, ParseCache(None))
    messages = sorted(e.message for e in cases.errors)
    assert any("named 'other-name' but the case id is 'paired'" in m for m in messages)
    assert any("also used by" in m for m in messages)
    assert [c.case.id for c in cases.cases] == ["paired"]


def test_the_parse_cache_is_keyed_by_content(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    source = tmp_path / "lib"
    path = write(source, "paired", GOOD.format(id="paired"))
    assert load_dirs([source], VOCABULARY, cache).errors == ()
    assert list((tmp_path / "cache").iterdir())  # written
    # An edit changes the digest: the new text is parsed, not the cached document.
    path.write_text(GOOD.format(id="paired").replace("stop: end", "stop: finished"), encoding="utf-8")
    (error,) = load_dirs([source], VOCABULARY, cache).errors
    assert error.line == 14  # and the error is still located, from a fresh parse


def test_load_text_without_vocabulary_accepts_any_names() -> None:
    case, errors = load_text(GOOD.format(id="x").replace("tool-pairing", "anything"), "x.yaml", None)
    assert errors == [] and case is not None and case.features == ("anything",)
