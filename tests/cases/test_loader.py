"""The loader: good files become cases; every bad one is one clear error, and the rest load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance._cases.load_problem import LoadProblem
from conformance._cases.loader import CaseSet, load_dirs, load_text
from conformance._cases.parse_cache import ParseCache
from conformance._cases.validate import Vocabulary
from conformance._cases.yamlfile import parse

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
        (
            ("name: read_file, arguments", "name: read_file, argumentz"),
            13,
            "given.turns[0].responses[0].blocks[0].argumentz",
            "Extra inputs are not permitted",
        ),
        (
            ("blocks: [{kind: tool_result", "blocks: [{kind: tool_resultt"),
            18,
            "expect[0].blocks[0].kind",
            "Input should be",
        ),
        (
            ("stop: end", "stop: finished"),
            14,
            "given.turns[0].responses[1].stop",
            "Input should be",
        ),
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
    assert error.message.startswith(message)  # no pydantic prefix such as "Value error, "
    assert str(error).startswith(f"{bad}:{line}: {field}: ")


def test_yaml_syntax_and_duplicate_keys_are_located(tmp_path: Path) -> None:
    write(tmp_path, "syntax", "id: a\n  b: [\n")
    write(tmp_path, "dup", GOOD.format(id="dup") + "title: again\n")
    errors = {Path(e.file).stem: e for e in load(tmp_path).errors}
    assert errors["syntax"].line == 2
    assert errors["dup"].line == 19
    assert "duplicate key 'title'" in errors["dup"].message


def test_file_name_must_be_the_id_and_ids_unique(tmp_path: Path) -> None:
    misnamed = write(tmp_path, "other-name", "# the id is on line 2\n" + GOOD.format(id="paired"))
    second = tmp_path / "second"
    write(second, "paired", GOOD.format(id="paired"))
    write(tmp_path, "paired", GOOD.format(id="paired"))
    cases = load_dirs([tmp_path, second], VOCABULARY, ParseCache(None))
    messages = sorted(e.message for e in cases.errors)
    assert any("named 'other-name' but the case id is 'paired'" in m for m in messages)
    assert any("also used by" in m for m in messages)
    assert [c.case.id for c in cases.cases] == ["paired"]
    (named,) = [e for e in cases.errors if e.file == str(misnamed)]
    assert (named.line, named.field) == (2, "id")


def test_the_parse_cache_is_keyed_by_content(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    source = tmp_path / "lib"
    path = write(source, "paired", GOOD.format(id="paired"))
    assert load_dirs([source], VOCABULARY, cache).errors == ()
    assert list((tmp_path / "cache").iterdir())  # written
    # An edit changes the digest: the new text is parsed, not the cached document.
    path.write_text(
        GOOD.format(id="paired").replace("stop: end", "stop: finished"), encoding="utf-8"
    )
    (error,) = load_dirs([source], VOCABULARY, cache).errors
    assert error.line == 14  # and the error is still located, from a fresh parse


def test_load_text_without_vocabulary_accepts_any_names() -> None:
    case, errors = load_text(
        GOOD.format(id="x").replace("tool-pairing", "anything"), "x.yaml", None
    )
    assert errors == []
    assert case is not None
    assert case.features == ("anything",)


def test_a_file_that_is_not_a_mapping_or_not_utf8_is_one_error(tmp_path: Path) -> None:
    write(tmp_path, "paired", GOOD.format(id="paired"))
    listed = write(tmp_path, "listed", "- id: listed\n")
    empty = write(tmp_path, "empty", "")
    latin = write(tmp_path, "latin", "x")
    latin.write_bytes("id: latin\ntitle: caf\u00e9\n".encode("latin-1"))
    cases = load(tmp_path)
    assert [c.case.id for c in cases.cases] == ["paired"]
    assert sorted(cases.errors, key=lambda e: e.file) == [
        LoadProblem(file=str(empty), line=1, field=None, message="a case file is a YAML mapping"),
        LoadProblem(file=str(latin), line=None, field=None, message="a case file is UTF-8 text"),
        LoadProblem(file=str(listed), line=1, field=None, message="a case file is a YAML mapping"),
    ]


def test_a_load_error_reads_file_line_field_message() -> None:
    assert str(LoadProblem(file="a.yaml", line=3, field="id", message="bad")) == "a.yaml:3: id: bad"
    assert str(LoadProblem(file="a.yaml", line=None, field=None, message="bad")) == "a.yaml: bad"


class CountingParse:
    """Stands in for the YAML parser and counts the texts it was asked to parse."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str, located: bool = True) -> Any:
        self.calls += 1
        return parse(text, located)


def test_a_second_load_takes_every_document_from_the_parse_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ParseCache(tmp_path / "cache")
    source = tmp_path / "lib"
    write(source, "paired", GOOD.format(id="paired"))
    write(source, "other", GOOD.format(id="other"))
    counting = CountingParse()
    monkeypatch.setattr("conformance._cases.loader.parse", counting)
    cold = load_dirs([source], VOCABULARY, cache)
    assert counting.calls == 2  # a cold cache parses every file
    (stored,) = (tmp_path / "cache").iterdir()
    written = stored.stat().st_mtime_ns
    warm = load_dirs([source], VOCABULARY, cache)
    assert counting.calls == 2  # the warm load parsed nothing: every document was a hit
    assert warm == cold  # and the proven cases are the very same cases
    assert stored.stat().st_mtime_ns == written  # an unchanged cache is not rewritten


def test_a_cached_document_that_fails_validation_is_parsed_again_for_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ParseCache(tmp_path / "cache")
    source = tmp_path / "lib"
    write(source, "paired", GOOD.format(id="paired"))
    assert load_dirs([source], VOCABULARY, cache).errors == ()
    counting = CountingParse()
    monkeypatch.setattr("conformance._cases.loader.parse", counting)
    narrower = Vocabulary(frozenset({"truncation"}), {"anthropic-messages": ()})
    (error,) = load_dirs([source], narrower, cache).errors
    assert (error.line, error.field) == (4, "features")  # located, not line 1
    # Another vocabulary is another key: the proven case is not taken, the file is
    # parsed (without positions), and parsed again to locate its error.
    assert counting.calls == 2


def test_a_deleted_file_leaves_the_parse_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ParseCache(tmp_path / "cache")
    source = tmp_path / "lib"
    write(source, "paired", GOOD.format(id="paired"))
    gone = write(source, "other", GOOD.format(id="other"))
    load_dirs([source], VOCABULARY, cache)
    gone.unlink()
    load_dirs([source], VOCABULARY, cache)
    key = cache.directory(source, VOCABULARY.key()).key
    assert list(cache.read(source, key)) == ["tool-pairing/paired.yaml"]


def test_a_cache_that_cannot_be_read_or_written_only_costs_speed(tmp_path: Path) -> None:
    source = tmp_path / "lib"
    write(source, "paired", GOOD.format(id="paired"))
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory should be")
    cache = ParseCache(blocked / "cache")
    assert [c.case.id for c in load_dirs([source], VOCABULARY, cache).cases] == ["paired"]
    corrupt = ParseCache(tmp_path / "cache")
    load_dirs([source], VOCABULARY, corrupt)
    (stored,) = (tmp_path / "cache").iterdir()
    stored.write_text("{not json")
    assert [c.case.id for c in load_dirs([source], VOCABULARY, corrupt).cases] == ["paired"]


def test_the_default_parse_cache_is_under_xdg_cache_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("WIRE_CONFORMANCE_NO_CACHE", raising=False)
    assert ParseCache.default_root() == tmp_path / "wire-conformance" / "parsed-v4"
    monkeypatch.setenv("WIRE_CONFORMANCE_NO_CACHE", "1")
    assert ParseCache.default_root() is None


def test_tests_never_use_the_real_user_cache() -> None:
    root = ParseCache.default_root()
    assert root is None or not root.is_relative_to(Path.home() / ".cache")


def test_load_text_validates_names_against_a_vocabulary() -> None:
    text = GOOD.format(id="x").replace("features: [tool-pairing]", "features: [nope]")
    case, errors = load_text(text, "x.yaml", VOCABULARY)
    assert case is None
    assert [(e.file, e.line, e.field) for e in errors] == [("x.yaml", 4, "features")]
    assert errors[0].message.startswith("unknown feature 'nope'")


def test_a_cache_hit_loads_the_very_cases_a_miss_loads(tmp_path: Path) -> None:
    """The whole bundled library, loaded cold and then from the proven cases: every
    case, file and shown name alike, field for field."""
    from conformance._cases.library import load_library

    cache = ParseCache(tmp_path / "cache")
    cold = load_library((), ParseCache(None))
    load_library((), cache)  # stores the proven cases
    warm = load_library((), cache)
    assert warm.errors == cold.errors == ()
    assert len(warm.cases) == len(cold.cases) > 200
    for hit, miss in zip(warm.cases, cold.cases, strict=True):
        assert (hit.file, hit.shown) == (miss.file, miss.shown)
        assert hit.case.model_dump() == miss.case.model_dump()
        assert fields_set(hit.case) == fields_set(miss.case)  # the checks read them
        assert hit.case == miss.case


def fields_set(value: object) -> list[object]:
    """The fields set on every model inside ``value``, in order: what a check reading
    ``model_fields_set`` (a pattern's fields the case wrote) sees."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        inner = [fields_set(v) for v in value.__dict__.values()]
        return [type(value).__name__, sorted(value.model_fields_set), inner]
    if isinstance(value, list | tuple):
        return [fields_set(v) for v in value]
    if isinstance(value, dict):
        return [(k, fields_set(v)) for k, v in value.items()]
    return []


def test_a_misnamed_file_is_located_alike_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A valid case in a file of another name is proven (its schema holds), yet the
    error names the id's line on the warm load too, not line 1."""
    cache = ParseCache(tmp_path / "cache")
    source = tmp_path / "lib"
    write(source, "elsewhere", "\n" + GOOD.format(id="paired"))
    (cold,) = load_dirs([source], VOCABULARY, cache).errors
    counting = CountingParse()
    monkeypatch.setattr("conformance._cases.loader.parse", counting)
    (warm,) = load_dirs([source], VOCABULARY, cache).errors
    assert warm == cold
    assert (warm.line, warm.field) == (2, "id")
    assert counting.calls == 1  # the proven case, parsed once more to locate the error


def test_a_changed_schema_source_or_an_unsafe_store_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance._cases import parse_cache

    cache = ParseCache(tmp_path / "cache")
    source = tmp_path / "lib"
    write(source, "paired", GOOD.format(id="paired"))
    load_dirs([source], VOCABULARY, cache)
    counting = CountingParse()
    monkeypatch.setattr("conformance._cases.loader.parse", counting)
    load_dirs([source], VOCABULARY, cache)
    assert counting.calls == 0  # proven
    (stored,) = (tmp_path / "cache").iterdir()
    stored.chmod(0o666)  # another user could have written it: never unpickled
    load_dirs([source], VOCABULARY, cache)
    assert counting.calls == 1
    assert stored.stat().st_mode & 0o777 == 0o600  # replaced by one only we may write
    monkeypatch.setattr(parse_cache, "schema_fingerprint", lambda: "an edited schema")
    load_dirs([source], VOCABULARY, cache)
    assert counting.calls == 2


def test_the_quick_parse_gives_the_located_parse_data_and_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A loader parses without positions first, from libyaml's events, building no
    nodes: every bundled case takes that path, and its data are the located parse's, to
    the type and order (``repr``); the error of every refused document is the located
    parse's."""
    from conformance._cases import yamlfile
    from conformance._cases.library import bundled_cases_dir
    from conformance.errors import YamlError

    texts = [p.read_text(encoding="utf-8") for p in sorted(bundled_cases_dir().rglob("*.yaml"))]
    located_data = [repr(parse(text)[0]) for text in texts]
    with monkeypatch.context() as patched:
        patched.setattr(yamlfile, "_compose", NoComposing())
        quick_data = [repr(parse(text, located=False)[0]) for text in texts]
    assert quick_data == located_data
    refused = [
        "a: [1, 2\nb: 3\n",
        "a: 1\n---\nb: 2\n",
        "a: 1\n\tb: 2\n",
        "a: !shout x\n",
        "a: =\n",
        "a: <<\n",
        "*x\n",
        "a: 1\na: 2\n",
        "a: &x {b: 1}\nc:\n  <<: *x\n",
        "? [a]\n: 1\n",
        "a: !!binary 'not base64 ~'\n",
        "a: [" * 120 + "]" * 120 + "\n",
        "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
        + "".join(
            f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
            for p, c in zip("abcde", "bcdef", strict=True)
        ),
    ]
    for text in refused:
        with pytest.raises(YamlError) as located:
            parse(text)
        with pytest.raises(YamlError) as quick:
            parse(text, located=False)
        assert (quick.value.message, quick.value.line, quick.value.field) == (
            located.value.message,
            located.value.line,
            located.value.field,
        )


def test_the_quick_parse_keeps_the_value_budget_without_aliases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long flat list has no alias to expand, and still more values than the budget
    (made small here): refused by both parses alike; one value fewer, read by both."""
    from conformance._cases import yamlfile
    from conformance.errors import YamlError

    monkeypatch.setattr(yamlfile, "NODE_BUDGET", 50)
    text = "[" + "0, " * 50 + "0]\n"  # the list and its 51 items
    with pytest.raises(YamlError) as located:
        parse(text)
    with pytest.raises(YamlError) as quick:
        parse(text, located=False)
    assert quick.value.message == located.value.message
    assert "more than 50 values" in quick.value.message
    shorter = "[" + "0, " * 48 + "0]\n"
    assert parse(shorter, located=False)[0] == parse(shorter)[0] == [0] * 49


def test_the_quick_parse_puts_libyaml_event_classes_back() -> None:
    """The quick parse reads libyaml's events through light stand-ins put in libyaml's
    module for its own parse only: after a document it read, one it refused and one
    libyaml could not parse, the module holds its own classes again, and PyYAML's event
    API still builds real events."""
    import yaml
    from yaml import _yaml as libyaml

    from conformance.errors import YamlError

    names = [name for name in vars(libyaml) if name.endswith("Event")]
    own = {name: getattr(libyaml, name) for name in names}
    assert len(own) == 10
    assert parse("a: [1, {b: c}]\n", located=False)[0] == {"a": [1, {"b": "c"}]}
    assert parse("a: &x 1\nb: *x\n", located=False)[0] == {"a": 1, "b": 1}
    with pytest.raises(YamlError):
        parse("a: [1, 2\nb: 3\n", located=False)
    assert {name: getattr(libyaml, name) for name in names} == own
    events = list(yaml.parse("a: 1\n", Loader=yaml.CSafeLoader))
    assert [type(e).__name__ for e in events][3] == "ScalarEvent"


class NoComposing:
    """Stands in for the composer: the quick parse must never need the node graph."""

    def __call__(self, text: str) -> Any:
        raise AssertionError(f"composed: {text[:40]!r}")


#: Documents whose every scalar and key the quick parse reads as the located walk does:
#: YAML 1.1's booleans, octal, hexadecimal, sexagesimal and underscored numbers, nulls,
#: dates kept as written, keys that are not strings, block and quoted scalars, a lone
#: scalar, a list, an anchor no alias uses, directives and document markers.
ODD_DOCUMENTS = [
    "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\ng: True\nh: false\n",
    "a: 010\nb: 0o17\nc: 0x1F\nd: 0b101\ne: 1_000\nf: 1:20\ng: -0\nh: +12\n",
    "a: 1.5\nb: 1e3\nc: 1.0e+3\nd: .inf\ne: -.Inf\nf: 6.8523015e+5\ng: 1_0.5\n",
    "a: ~\nb: null\nc: Null\nd:\ne: ''\nf: \"\"\ng: NULL\n",
    "a: 2020-01-02\nb: 2001-12-14t21:59:43.10-05:00\nc: 2002-12-14\nd: '2020-01-02'\n",
    "1: a\ntrue: b\n~: c\n2020-01-02: d\n1.5: e\n'2': f\n",
    'a: "1"\nb: \'yes\'\nc: |\n  two\n  lines\nd: >-\n  folded\n  text\ne: "\\u00e9\\t"\n',
    "just words\n",
    "- 1\n- [a, {b: c}]\n- {}\n- []\n",
    "a: &x 1\nb: &y [2]\n",
    "%YAML 1.1\n---\na: b\n...\n",
    "---\n...\n",
    "",
    "# nothing but a comment\n",
    "? a\n: 1\n? b\n",
    "a: {b: [c, {d: e}], f: }\n",
    "a: x=y\nb: '<<'\nc: ~x\nd: -x\ne: ':'\n",
]


@pytest.mark.parametrize("text", ODD_DOCUMENTS)
def test_the_quick_parse_reads_odd_scalars_and_keys_as_the_located_walk(text: str) -> None:
    assert repr(parse(text, located=False)[0]) == repr(parse(text)[0])


#: Malformed variants of ``GOOD`` and the problems (line, field, message) the loader
#: gave for them when it walked pyyaml's node graph (d94c3a8): every one of them is
#: still given word for word, now that a sound file is read from libyaml's events.
MALFORMED = {
    "unclosed flow": (
        ("features: [tool-pairing]", "features: [tool-pairing"),
        [
            (
                5,
                None,
                "did not find expected ',' or ']' "
                "(while parsing a flow sequence that starts at line 4)",
            )
        ],
    ),
    "unknown field": (
        ("title:", "colour: blue\ntitle:"),
        [(2, "colour", "Extra inputs are not permitted")],
    ),
    "wrong type": (
        ("request: 2", "request: two"),
        [
            (
                18,
                "expect[0].blocks",
                "Input should be a valid integer, unable to parse string as an integer",
            ),
            (18, "expect[0].blocks", "Input should be 'each'"),
        ],
    ),
    "duplicate key": (
        ("features:", "title: Again\nfeatures:"),
        [(4, "title", "duplicate key 'title'")],
    ),
    "tab indentation": (
        ("  turns:", "\tturns:"),
        [
            (
                9,
                None,
                "found character that cannot start any token "
                "(while scanning for the next token that starts at line 9)",
            )
        ],
    ),
    "two documents": (
        ("expect:", "---\nexpect:"),
        [
            (
                16,
                None,
                "but found another document "
                "(expected a single document in the stream that starts at line 1)",
            )
        ],
    ),
    "alias of the wrong type": (
        ("features: [tool-pairing]", "features: &f [tool-pairing]\nnotes: *f"),
        [(5, "notes", "Input should be a valid string")],
    ),
    "merge key": (
        ("  turns:", "  base: &b {x: 1}\n  more:\n    <<: *b\n  turns:"),
        [(11, "given.more", "a YAML merge key (`<<`) is not supported: write the keys out")],
    ),
    "yes for a text": (
        ("title: A tool call answered by its result", "title: yes"),
        [(2, "title", "Input should be a valid string")],
    ),
    "unknown tag": (
        ("title: A tool", "title: !shout A tool"),
        [(2, None, "could not determine a constructor for the tag '!shout'")],
    ),
    "collection as a key": (
        ("title:", "? [a]\n: 1\ntitle:"),
        [(2, None, "mapping keys must be plain words")],
    ),
    "no blocks": (
        ("blocks: [{kind: text, text: Done.}]", "blocks:"),
        [(15, "given.turns[0].responses[1].blocks", "Input should be a valid tuple")],
    ),
    "deep nesting": (
        ("title: A tool call answered by its result", "title: " + "[" * 120 + "]" * 120),
        [(2, "title.0.0.0.0.0.…", "values nest deeper than 100 levels")],
    ),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_file_is_reported_as_before(tmp_path: Path, name: str) -> None:
    (old, new), expected = MALFORMED[name]
    text = GOOD.format(id="paired")
    assert old in text
    path = write(tmp_path, "paired", text.replace(old, new, 1))
    errors = load(tmp_path).errors
    assert [(e.line, e.field, e.message) for e in errors] == expected
    assert {e.file for e in errors} == {str(path)}


def test_without_libyaml_the_pure_python_loader_gives_the_same_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import yaml

    from conformance._cases import yamlfile

    text = GOOD.format(id="paired")
    fast = parse(text)
    monkeypatch.setattr(yamlfile, "_Loader", yaml.SafeLoader)
    slow = parse(text)
    assert slow[0] == fast[0]
    assert slow[1].lines == fast[1].lines


class ClockMovedOn:
    """Stands in for ``time`` in the parse cache: the clock ``seconds`` later, so files
    written by the test are old enough for their ``stat`` to vouch for them."""

    def __init__(self, seconds: int) -> None:
        self.seconds = seconds

    def time_ns(self) -> int:
        import time

        return time.time_ns() + self.seconds * 1_000_000_000


class CountingRead:
    """Stands in for the loader's file read and counts the files it read."""

    def __init__(self) -> None:
        from conformance._cases import loader

        self.real = loader._read
        self.calls = 0

    def __call__(self, path: Path) -> Any:
        self.calls += 1
        return self.real(path)


def test_an_old_unchanged_file_is_taken_without_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance._cases import parse_cache

    monkeypatch.setattr(parse_cache, "time", ClockMovedOn(60))
    cache = ParseCache(tmp_path / "cache")
    source = tmp_path / "lib"
    path = write(source, "paired", GOOD.format(id="paired"))
    cold = load_dirs([source], VOCABULARY, cache)
    reads = CountingRead()
    monkeypatch.setattr("conformance._cases.loader._read", reads)
    assert load_dirs([source], VOCABULARY, cache) == cold
    assert reads.calls == 0  # its stat proved it unchanged
    # A longer text is another size: read, parsed, and its error located, at once.
    path.write_text(GOOD.format(id="paired").replace("stop: end", "stop: finish"))
    (error,) = load_dirs([source], VOCABULARY, cache).errors
    assert (reads.calls, error.line) == (1, 14)


def test_an_edit_keeping_size_and_times_is_seen_while_the_file_is_recent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit in the same tick of the file system's clock keeps size and times: a file
    changed in the last ``RACY_SECONDS`` is read and hashed, never vouched for by stat."""
    import os

    cache = ParseCache(tmp_path / "cache")
    source = tmp_path / "lib"
    path = write(source, "paired", GOOD.format(id="paired"))
    before = path.stat()
    assert load_dirs([source], VOCABULARY, cache).cases[0].case.title.startswith("A tool")
    path.write_text(GOOD.format(id="paired").replace("A tool", "B tool"), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    (loaded,) = load_dirs([source], VOCABULARY, cache).cases
    assert loaded.case.title.startswith("B tool")


def test_a_signature_vouches_only_for_an_old_regular_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance._cases import parse_cache

    path = tmp_path / "a.yaml"
    path.write_text("id: a\n")
    assert parse_cache.signature(path.stat()) is None  # written just now
    monkeypatch.setattr(parse_cache, "time", ClockMovedOn(60))
    status = path.stat()
    assert parse_cache.signature(status) == (
        status.st_dev,
        status.st_ino,
        status.st_size,
        status.st_mtime_ns,
        status.st_ctime_ns,
    )
    assert parse_cache.signature(tmp_path.stat()) is None  # a folder is no case file


def test_remembered_scalar_tags_resolve_as_pyyaml_does() -> None:
    """The loader remembers the tag of each short scalar: the second parse of a document
    (every tag remembered) gives what PyYAML's own safe loader gives."""
    import yaml

    text = 'a: yes\nb: "1"\nc: 1\nd: 1.5\ne: ~\nf: null\ng: 0x1F\n'
    text += 'h: [true, "true", x, 2020-01-02]\n'
    expected = yaml.safe_load(text)
    expected["h"][3] = "2020-01-02"  # dates keep the text as written
    assert parse(text, located=False)[0] == expected
    assert parse(text, located=False)[0] == expected
    assert parse(text)[0] == expected


@pytest.mark.parametrize("item", ["just-a-word", "42", "[blocks]", "null"])
def test_an_expectation_that_is_not_a_mapping_is_a_located_error(tmp_path: Path, item: str) -> None:
    """An ``expect`` item written as a scalar or a list is one located problem of its
    file (it crashed the whole load: the discriminator read it as a model's fields)."""
    write(tmp_path, "paired", GOOD.format(id="paired"))
    text = GOOD.format(id="odd").split("expect:\n")[0] + f"expect:\n  - {item}\n"
    odd = write(tmp_path, "odd", text)
    cases = load(tmp_path)
    assert [c.case.id for c in cases.cases] == ["paired"]
    (problem,) = cases.errors
    assert (problem.file, problem.line, problem.field) == (str(odd), 17, "expect[0]")
    assert "an expectation has one of the keys" in problem.message
