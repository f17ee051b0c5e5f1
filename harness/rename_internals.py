"""Put every internal module of ``conformance`` behind an underscore and give the
overloaded ones (``model``, ``base``, ``contract``, ``framing``) names that say what they
hold (issue 27, step 6): ``python -m harness.rename_internals [--root DIR] [--dry-run]``.

It is a script, not a one-off commit, because the tree keeps moving while it is written:
it renames by pattern (every spelling of an old name in every tracked text file), never
by a list of files, so code that others write with the old names is carried along, and a
second run changes nothing.  One table (``RENAMES``) says what moves where; a package's
entry moves every module inside it, including ones added later.  A new top-level
internal module is one more row.

Steps: ``git mv`` each entry; rewrite every reference (dotted names, ``from x import
module``, relative imports, slash paths, mock strings, manifests, docs); the edits a
pattern cannot make (the wire discovery scan, the layer table, the deprecation shims and
their tests); then ``ruff`` sorts the touched imports and formats the touched files, and
the generated documents are written again (``--no-regenerate`` skips that).
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import subprocess
import sys
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

_TOP_LEVEL_INTERNALS = (
    "agent",
    "cases",
    "checks",
    "cli",
    "commands",
    "decide",
    "exchanges",
    "interrupt",
    "paths",
    "plugins",
    "probe",
    "provider",
    "recording",
    "reference",
    "report",
    "rounds",
    "runner",
    "settings",
    "snapshots",
    "targets",
    "transcript",
)


def _underscored(package: str, names: Iterable[str]) -> dict[str, str]:
    return {f"{package}.{name}": f"{package}._{name}" for name in names}


#: Old dotted module name -> new one.  A package's row moves everything inside it; a
#: module inside a moved package is written with its package's new name on the right.
RENAMES: dict[str, str] = {
    # The overloaded names, renamed for what they hold.
    "conformance.model": "conformance.vocabulary",
    "conformance.wires.base": "conformance.wires.context",
    "conformance.wires.contract": "conformance.wires._assembly",
    "conformance.wires.framing": "conformance.wires._reframe",
    "conformance.targets.base": "conformance._targets.api",
    "conformance.targets.contract": "conformance._targets.command_contract",
    "conformance.commands.base": "conformance._commands.command",
    "conformance.provider.framing": "conformance._provider.request_body",
    "conformance.catalogue.model": "conformance.catalogue._entries",
    "conformance.recording.model": "conformance._recording.file_format",
    "conformance.report.model": "conformance._report.report_schema",
    # Everything docs/api.md does not list, behind an underscore.
    **_underscored("conformance", _TOP_LEVEL_INTERNALS),
    **_underscored("conformance.catalogue", ("checks", "features", "render", "seeds")),
    **_underscored(
        "conformance.wires",
        (
            "anthropic_messages",
            "gemini",
            "openai_chat",
            "openai_responses",
            "faults",
            "nesting",
            "reading",
            "registry",
            "saved_history",
            "sdk_clients",
            "sse",
            "thought_signatures",
            "values",
            "wire_only",
            "shared_realism",
        ),
    ),
    **_underscored(
        "conformance.pytest",
        ("cells", "generated", "generated_cells", "probes", "suite", "sweep"),
    ),
    **_underscored(
        "conformance.generate",
        ("case_file", "command", "features", "mint", "profiles", "properties", "realistic"),
    ),
}

#: Public modules renamed: the old name stays one release as a module that warns and
#: forwards (written by ``write_shims``), and only there.
SHIMS: dict[str, str] = {
    "conformance.model": "conformance.vocabulary",
    "conformance.wires.base": "conformance.wires.context",
}

#: Classes renamed (old -> new) in code, in backticked docs and in ``Name.attribute``.
CLASS_RENAMES: dict[str, str] = {"Session": "CaseBrief"}

#: Files this script writes whole; no pattern touches them (they name the old names).
SHIM_TEST = "tests/test_deprecated_names.py"
NAMES_TEST = "tests/test_private_by_name.py"

#: Files that are not text, or that record history: never rewritten.
_SKIP_SUFFIXES = (".png", ".jpg", ".gif", ".ico", ".whl", ".gz", ".zip")

_DOTTED = re.compile(r"(?<![\w.\-/])conformance(?:\.\w+)+(?P<gap> *)")
_SLASHED = re.compile(r"(?<![\w.\-])conformance((?:/\w+)+)(\.\w+|/)?(?P<gap> *)")
_FROM_IMPORT = re.compile(
    r"^(?P<indent>[ \t]*)from[ \t]+(?P<module>\.*[\w.]*)[ \t]+import[ \t]+"
    r"(?P<names>\([^)]*\)|[^\n]*)",
    re.M,
)
#: ``conformance/wires/<wire>/``, ``wires.<wire>.realism``: a bundled wire's package is
#: ``_<wire>`` now.
_BUNDLED_WIRE_PLACEHOLDER = re.compile(r"(?<![\w./\-])((?:conformance[./])?wires[./])<")
_NAME = re.compile(r"\b(?P<name>\w+)(?P<alias>\s+as\s+\w+)?")


def map_dotted(name: str) -> str:
    """``name`` with its longest renamed prefix replaced (component-wise)."""
    parts = name.split(".")
    for cut in range(len(parts), 1, -1):
        new = RENAMES.get(".".join(parts[:cut]))
        if new is not None:
            return ".".join([new, *parts[cut:]])
    return name


def _renamed_prefix(parts: list[str]) -> tuple[int, str] | None:
    for cut in range(len(parts), 1, -1):
        new = RENAMES.get(".".join(parts[:cut]))
        if new is not None:
            return cut, new
    return None


# --- the moves ------------------------------------------------------------------------


def _tracked(root: Path, path: str) -> bool:
    out = subprocess.run(
        ["git", "ls-files", "--", path], cwd=root, capture_output=True, text=True, check=True
    )
    return bool(out.stdout.strip())


def _path_of(dotted: str) -> str:
    return dotted.replace(".", "/")


def planned_moves() -> list[tuple[str, str]]:
    """``(from, to)`` module paths without suffix, outer packages first, each ``from``
    where the earlier moves left it."""
    moves = []
    for old in sorted(RENAMES, key=lambda n: n.count(".")):
        parent, leaf = old.rsplit(".", 1)
        moves.append((_path_of(f"{map_dotted(parent)}.{leaf}"), _path_of(RENAMES[old])))
    return moves


def _remove_leftovers(directory: Path) -> None:
    """An old package folder git emptied can still hold ``__pycache__``, which would make
    the old name importable as a namespace package: remove it if nothing else is left."""
    if not directory.is_dir():
        return
    for cache in directory.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    for folder in sorted(directory.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    if not any(directory.iterdir()):
        directory.rmdir()


def move(root: Path, dry_run: bool, say: Callable[[str], None]) -> None:
    for source, target in planned_moves():
        for suffix in ("", ".py"):
            src, dst = root / f"{source}{suffix}", root / f"{target}{suffix}"
            if (src.is_dir() if suffix == "" else src.is_file()) and _tracked(root, str(src)):
                if dst.exists():
                    continue  # done by an earlier run (the old file is a shim now)
                say(f"git mv {source}{suffix} {target}{suffix}")
                if not dry_run:
                    subprocess.run(["git", "mv", str(src), str(dst)], cwd=root, check=True)
                    if suffix == "":
                        _remove_leftovers(src)


# --- the references -------------------------------------------------------------------


def _keep_columns(old: str, new: str, gap: str) -> str:
    """``new`` and the spaces after it: a name that grew eats into a run of padding (an
    aligned column, ``conformance.runner.plan         case × column``) that stays two
    spaces wide at least."""
    grown = len(new) - len(old)
    if grown > 0 and len(gap) >= grown + 2:
        return new + gap[grown:]
    return new + gap


def rewrite_dotted(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(0)[: match.start("gap") - match.start(0)]
        return _keep_columns(name, map_dotted(name), match.group("gap"))

    return _DOTTED.sub(one, text)


def _old_packages() -> set[str]:
    """Old names that are folders (a package row moves a folder)."""
    return {old for old in RENAMES if any(o.startswith(f"{old}.") for o in RENAMES)} | {
        f"conformance.{name}" for name in _TOP_LEVEL_INTERNALS
    }


def rewrite_slashed(text: str, packages: set[str]) -> str:
    def one(match: re.Match[str]) -> str:
        parts = ["conformance", *match.group(1).strip("/").split("/")]
        tail = match.group(2) or ""
        found = _renamed_prefix(parts)
        if found is None:
            return match.group(0)
        cut, new = found
        exact = cut == len(parts)
        old = ".".join(parts[:cut])
        if exact and tail not in ("/", ".py") and not (tail == "" and old in packages):
            return match.group(0)  # a data file (checks.yaml), or a name that is no path
        written = match.group(0)[: match.start("gap") - match.start(0)]
        renamed = "/".join([*new.split("."), *parts[cut:]]) + tail
        return _keep_columns(written, renamed, match.group("gap"))

    return _SLASHED.sub(one, text)


def _package_of_file(relative: str) -> list[str]:
    parts = relative[: -len(".py")].split("/")
    return parts[:-1]


def _split_names(names: str) -> list[str]:
    return [n.strip() for n in re.sub(r"#[^\n]*", "", names).strip("()").split(",") if n.strip()]


def rewrite_python_imports(text: str, relative: str) -> tuple[str, dict[str, str]]:
    """Rewrite ``from pkg import module`` and relative imports; return the local names of
    imported modules whose leaf was renamed for meaning (``base`` -> ``api``), which the
    caller renames in the file's code.  A module only underscored keeps its local name
    through ``as`` (``from conformance import _runner as runner``)."""
    local_renames: dict[str, str] = {}
    package = _package_of_file(relative)

    def one(match: re.Match[str]) -> str:
        module = match.group("module")
        level = len(module) - len(module.lstrip("."))
        if level:
            base = package[: len(package) - level + 1]
            if not base or base[0] != "conformance":
                return match.group(0)
            tail = module[level:]
            absolute = ".".join([*base, *([tail] if tail else [])])
            new_absolute = map_dotted(absolute)
            prefix = ".".join(base)
            if not (new_absolute == prefix or new_absolute.startswith(prefix + ".")):
                return match.group(0)
            new_module = "." * level + new_absolute[len(prefix) + 1 :]
        else:
            if not (module == "conformance" or module.startswith("conformance.")):
                return match.group(0)
            absolute = module
            new_absolute = map_dotted(module)
            new_module = module  # the dotted pass renames an absolute module later

        def name(found: re.Match[str]) -> str:
            leaf, alias = found.group("name"), found.group("alias")
            if leaf == "as" or leaf == "import":
                return found.group(0)
            old_full = f"{absolute}.{leaf}"
            new_full = map_dotted(old_full)
            if new_full == old_full or new_full.rsplit(".", 1)[0] != new_absolute:
                return found.group(0)
            new_leaf = new_full.rsplit(".", 1)[1]
            if new_leaf == leaf:
                return found.group(0)  # a name inside a moved module, not a module
            if alias:
                return new_leaf + alias
            if new_leaf == f"_{leaf}":
                return f"{new_leaf} as {leaf}"
            local_renames[leaf] = new_leaf
            return new_leaf

        names = match.group("names")
        head = match.group(0)[: match.start("names") - match.start(0)]
        head = head.replace(module, new_module, 1) if new_module != module else head
        inner = re.sub(
            r"(#[^\n]*)|" + _NAME.pattern, lambda f: f.group(0) if f.group(1) else name(f), names
        )
        return head + inner

    return _FROM_IMPORT.sub(one, text), local_renames


def rename_names(text: str, renames: dict[str, str], modules: frozenset[str] = frozenset()) -> str:
    """Rename NAME tokens (code only, never strings or comments), except attributes
    (``pytest.Session`` stays) and keyword arguments (``CommandKind(contract=2)``).  A
    name in ``modules`` is a module's local name: only its uses as ``name.attribute`` are
    renamed (and its uses as an argument), so a variable or parameter of the same name
    keeps its name."""
    if not renames:
        return text
    try:
        tokens = [
            t
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT)
        ]
    except (tokenize.TokenError, SyntaxError):
        return text
    offsets = [0]
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    edits: list[tuple[int, int, str]] = []
    depth = 0
    for index, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        if token.type != tokenize.NAME or token.string not in renames:
            continue
        before = tokens[index - 1].string if index else ""
        after = tokens[index + 1].string if index + 1 < len(tokens) else ""
        if before == "." or (after == "=" and depth > 0):
            continue
        if token.string in modules and after not in (".", ")", ","):
            continue  # a module is used as `module.name`, or passed (`vars(module)`)
        start = offsets[token.start[0] - 1] + token.start[1]
        edits.append((start, start + len(token.string), renames[token.string]))
    for start, end, new in reversed(edits):
        text = text[:start] + new + text[end:]
    return text


def rename_classes_in_prose(text: str) -> str:
    """``Session`` in backticks, ``Session.wire``, ``Session(`` in docs and docstrings;
    prose ("Session targets") stays."""
    for old, new in CLASS_RENAMES.items():
        text = re.sub(rf"(?<=`){old}(?=`)", new, text)
        text = re.sub(rf"(?<![\w.]){old}(?=\.[a-z_]\w*|\()", new, text)
    return text


# --- the edits a pattern cannot make ----------------------------------------------------


@dataclass(frozen=True)
class Fixup:
    """One idempotent regex edit of one file (skipped when the file is absent, or when it
    already holds ``unless``)."""

    path: str
    pattern: str
    replacement: str
    unless: str | None = None


FIXUPS: tuple[Fixup, ...] = (
    # The bundled wire packages are underscored now: the scan takes `_name` packages.
    Fixup(
        "conformance/wires/_registry.py",
        r'if info\.ispkg and not info\.name\.startswith\("_"\)',
        'if info.ispkg and info.name.startswith("_") and not info.name.startswith("__")',
    ),
    Fixup(
        "tests/wires/test_contract.py",
        r"f\"conformance\.wires\.\{name\.replace",
        'f"conformance.wires._{name.replace',
    ),
    # The checklist test: a bundled wire's package is `_<module>` now.
    Fixup(
        "tests/wires/test_adding_a_wire.py",
        r'/ "wires" / module / "wire\.py"',
        '/ "wires" / f"_{module}" / "wire.py"',
    ),
    Fixup("tests/wires/test_adding_a_wire.py", r"wires/\{module\}/", "wires/_{module}/"),
    Fixup(
        "tests/wires/test_adding_a_wire.py",
        r'f"conformance\.wires\.\{module\}"',
        'f"conformance.wires._{module}"',
    ),
    Fixup("tests/wires/test_adding_a_wire.py", r"wires/fake_wire/", "wires/_fake_wire/"),
    Fixup(
        "tests/wires/test_adding_a_wire.py",
        r'path\.parent\.name\n(\s+)for path in (.*)\.glob\("\*/wire\.py"\)\n'
        r'(\s+)if not path\.parent\.name\.startswith\("_"\)',
        'path.parent.name[1:]\n\\1for path in \\2.glob("_*/wire.py")\n'
        '\\3if not path.parent.name.startswith("__")',
    ),
    Fixup(
        "tests/test_architecture.py",
        r'\(PACKAGE / "wires" / parts\[2\]\)\.is_dir\(\)',
        '(PACKAGE / "wires" / parts[2]).is_dir() and parts[2].startswith("_")',
        unless='.is_dir() and parts[2].startswith("_")',
    ),
    # A relative import inside a string (the scan's own example): no pattern resolves it.
    Fixup(
        "tests/test_architecture.py", r'"from \.\.\.cli import main', '"from ..._cli import main'
    ),
)


#: ``conformance.Session`` (the case brief's old name) keeps working one release, warning.
_INIT_FIXUPS = (
    Fixup("conformance/__init__.py", r'(?m)^    "Session": "', '    "CaseBrief": "'),
    Fixup("conformance/__init__.py", r'\n    "Session",\n', "\n"),
    Fixup(
        "conformance/__init__.py",
        r'\n    "Case",\n',
        '\n    "Case",\n    "CaseBrief",\n',
        unless='    "CaseBrief",\n',
    ),
    Fixup(
        "conformance/__init__.py",
        r"Client, ConformanceSuite, Session\b",
        "CaseBrief, Client, ConformanceSuite",
    ),
    Fixup(
        "conformance/__init__.py",
        r"\nimport importlib\n",
        "\nimport importlib\nimport warnings\n",
        unless="import warnings",
    ),
    Fixup(
        "conformance/__init__.py",
        r"\n__all__ = \[",
        "\n#: Old public name -> its new one: still importable for one release, with a warning.\n"
        '_DEPRECATED: dict[str, str] = {"Session": "CaseBrief"}\n\n__all__ = [',
        unless="_DEPRECATED",
    ),
    Fixup(
        "conformance/__init__.py",
        r"(def __getattr__\(name: str\) -> Any:\n)",
        "\\1    if name in _DEPRECATED:\n"
        "        new = _DEPRECATED[name]\n"
        "        warnings.warn(\n"
        '            f"conformance.{name} is deprecated: use conformance.{new}",\n'
        "            DeprecationWarning,\n"
        "            stacklevel=2,\n"
        "        )\n"
        "        return __getattr__(new)\n",
        unless="if name in _DEPRECATED",
    ),
)

#: docs/api.md: the pytest plugin's modules and the version are public too.
_API_ROWS = (
    "| `conformance.pytest`, `conformance.pytest.plugin`, `conformance.pytest.conformance_test` "
    "| the pytest plugin (the `pytest11` entry point) and the bundled suite "
    "(`pytest --pyargs conformance.pytest.conformance_test`) | [pytest.md](pytest.md) |\n"
    "| `conformance.version` | `__version__` | packagers |\n"
)
_API_FIXUPS = (
    Fixup(
        "docs/api.md",
        r"(\| `conformance\.catalogue\.book` \|[^\n]*\n)",
        "\\1" + _API_ROWS.replace("\\", "\\\\"),
        unless="`conformance.pytest.plugin`",
    ),
)


#: The renamed overloaded modules, for the table docs/architecture.md gets: new name ->
#: (its old leaf, what it holds).  Old names are written as bare leaves, which no pattern
#: of this script rewrites.
RENAMED_FOR_MEANING: dict[str, tuple[str, str]] = {
    "conformance.vocabulary": ("model", "the neutral vocabulary: blocks, messages, scripts"),
    "conformance.wires.context": (
        "base",
        "what a wire module is handed: request view, render and validation contexts",
    ),
    "conformance.wires._assembly": ("contract", "the wire package contract; builds a `Wire`"),
    "conformance.wires._reframe": ("framing", "SSE line endings and read cuts of a body"),
    "conformance._targets.api": ("base", "the target API: `Adapter`, `CaseBrief`, `Client`…"),
    "conformance._targets.command_contract": (
        "contract",
        "the command contract: output file, exit codes",
    ),
    "conformance._commands.command": ("base", "what a subcommand is: `Command`"),
    "conformance._provider.request_body": ("framing", "an HTTP/1.1 request body off a socket"),
    "conformance.catalogue._entries": ("model", "the catalogue's entry schema and lookup"),
    "conformance._recording.file_format": ("model", "the recording file format"),
    "conformance._report.report_schema": ("model", "the JSON report's schema and summary"),
}

_NAMES_SECTION = (
    "\n## Public and private names\n\n"
    "A module with no underscore on its path is public and listed in [api.md](api.md);"
    " every other module has one on its top-most private component (`conformance._runner`,"
    " `conformance._cases.loader`, `conformance.wires._gemini.parse`), so a reader tells"
    " them apart by the name alone (`tests/test_private_by_name.py`). The modules once"
    " called `model`, `base`, `contract` or `framing` are named for what they hold (the"
    " two public ones keep their old name one release, as a module that warns and"
    " forwards); the case brief a target is handed is `CaseBrief`"
    " (`conformance.Session` warns and forwards too):\n\n"
    "| module | was | holds |\n|---|---|---|\n"
    + "".join(
        f"| `{new}` | `{old}` | {holds} |\n" for new, (old, holds) in RENAMED_FOR_MEANING.items()
    )
)
_ARCHITECTURE_FIXUPS = (
    Fixup(
        "docs/architecture.md",
        r"(\n## One source for each check\n)",
        _NAMES_SECTION.replace("\\", "\\\\") + "\\1",
        unless="## Public and private names",
    ),
)


def apply_fixups(root: Path, dry_run: bool, say: Callable[[str], None]) -> list[str]:
    touched: list[str] = []
    for fix in (*FIXUPS, *_INIT_FIXUPS, *_API_FIXUPS, *_ARCHITECTURE_FIXUPS):
        path = root / fix.path
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        if fix.unless is not None and fix.unless in text:
            continue
        new = re.sub(fix.pattern, fix.replacement, text)
        if new != text:
            say(f"fixup {fix.path}")
            touched.append(fix.path)
            if not dry_run:
                path.write_text(new, encoding="utf-8")
    return touched


# --- the layer table --------------------------------------------------------------------


def _unit(unit: str) -> str:
    """A top-level unit's new name (``runner`` -> ``_runner``, ``model`` -> ``vocabulary``)."""
    return map_dotted(f"conformance.{unit}").split(".")[1]


#: Top-level units whose old name stays (a deprecation shim): old -> new.
_SHIM_UNITS = {
    old.split(".")[1]: new.split(".")[1] for old, new in SHIMS.items() if old.count(".") == 1
}


def rename_layers_in_test(text: str) -> str:
    """``LAYERS`` of tests/test_architecture.py, and the unit names its examples expect."""

    def entry(match: re.Match[str]) -> str:
        unit, layer = match.group(2), match.group(3)
        if unit in _SHIM_UNITS:
            new = _SHIM_UNITS[unit]
            if f'"{new}": ' in text:
                return match.group(0)
            return f'{match.group(1)}"{new}": {layer},\n{match.group(1)}"{unit}": {layer},'
        return f'{match.group(1)}"{_unit(unit)}": {layer},'

    text = re.sub(r'^( {4})"(\w+)": (\d+),$', entry, text, flags=re.M)
    text = re.sub(
        r'(?<=")(\w+) -> (\w+) \(',
        lambda m: f"{_unit(m.group(1))} -> {_unit(m.group(2))} (",
        text,
    )
    return re.sub(
        r"\bwires\.(\w+) -> wires\.(\w+)\b",
        lambda m: "wires.{} -> wires.{}".format(
            *(map_dotted(f"conformance.wires.{w}").split(".")[2] for w in m.groups())
        ),
        text,
    )


def rename_layers_in_doc(text: str) -> str:
    """The units column of docs/architecture.md's layer table."""

    def row(match: re.Match[str]) -> str:
        def unit(found: re.Match[str]) -> str:
            name = found.group(1)
            if name in _SHIM_UNITS:
                new = _SHIM_UNITS[name]
                return found.group(0) if f"`{new}`" in text else f"`{new}`, `{name}`"
            return f"`{_unit(name)}`"

        return match.group(1) + re.sub(r"`(\w+)`", unit, match.group(2)) + "|"

    return re.sub(r"^(\|\s*\d+\s*\|)([^|]*)\|", row, text, flags=re.M)


_DATA_SUFFIXES = ("md", "yaml", "yml", "json", "toml", "py", "txt", "html", "j2", "mjs", "diff")


def rename_unit_names(text: str) -> str:
    """Names written from the unit down (``runner.plan``, ``cases.realism``,
    ``wires.contract.assemble``), as docs/architecture.md writes them."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.rsplit(".", 1)[1] in _DATA_SUFFIXES:
            return match.group(0)
        renamed = map_dotted(f"conformance.{name}")
        return renamed.split(".", 1)[1] if renamed != f"conformance.{name}" else name

    return re.sub(r"(?<![\w./\-])([a-z]\w*(?:\.[a-z_]\w*)+)", one, text)


def rewrite_architecture_doc(text: str) -> str:
    return rename_unit_names(rename_layers_in_doc(text))


_LAYER_FILES: dict[str, Callable[[str], str]] = {
    "tests/test_architecture.py": rename_layers_in_test,
    "docs/architecture.md": rewrite_architecture_doc,
}


# --- the files this script writes whole -----------------------------------------------


def _shim_source(old: str, new: str) -> str:
    return f'''"""Deprecated: ``{old}`` is ``{new}`` now.

The module was renamed for what it holds; this name forwards to the new one, with one
``DeprecationWarning``, for one release, so an outside wire written against it keeps
working while it moves.  Nothing in the suite imports it.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_NEW = "{new}"
_warned: list[bool] = []


def __getattr__(name: str) -> Any:
    if not _warned:
        _warned.append(True)
        warnings.warn(f"{{__name__}} is deprecated: use {{_NEW}}", DeprecationWarning, stacklevel=2)
    return getattr(importlib.import_module(_NEW), name)
'''


_SHIM_TEST_SOURCE = '''"""The public names renamed in this release still work for one release, with
a ``DeprecationWarning`` that names the new one (the shims that keep them are the only
place the old names exist)."""

from __future__ import annotations

import importlib
import warnings

import pytest

import conformance
from conformance import vocabulary
from conformance.wires import context

SHIMS = [
    ("conformance.model", vocabulary, "Message"),
    ("conformance.wires.base", context, "RenderContext"),
]


@pytest.mark.parametrize(("old", "new", "name"), SHIMS, ids=[s[0] for s in SHIMS])
def test_an_old_module_name_warns_once_and_forwards(old: str, new: object, name: str) -> None:
    shim = importlib.reload(importlib.import_module(old))
    with pytest.warns(DeprecationWarning, match=getattr(new, "__name__", "")):
        forwarded = getattr(shim, name)
    assert forwarded is getattr(new, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(shim, name) is forwarded


def test_the_old_case_brief_name_warns_and_is_the_case_brief() -> None:
    with pytest.warns(DeprecationWarning, match="CaseBrief"):
        old = conformance.Session
    assert old is conformance.CaseBrief


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = conformance.NoSuchName
'''


_NAMES_TEST_SOURCE = '''"""A user tells public from private by the name alone: every module of
``conformance`` with no underscore on its path (``conformance._runner`` and
``conformance.wires._gemini.parse`` are private) is listed in docs/api.md, sits in a
package whose modules are all public (``OPEN_PACKAGES``), or is a package that only
houses listed modules.  The renamed
public modules kept one release as shims are the one exception."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import conformance
from tests.test_public_surface import OPEN_PACKAGES, public_modules

PACKAGE = Path(conformance.__file__).parent
#: Renamed public modules that forward to their new name for one release.
DEPRECATED = frozenset({"conformance.model", "conformance.wires.base"})


def module_names() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def unlisted_public(modules: Iterable[str], listed: set[str]) -> list[str]:
    """The modules named as public (no ``_`` on their path) that the list does not hold."""
    houses = {".".join(m.split(".")[:cut]) for m in listed for cut in range(1, m.count(".") + 1)}
    found = []
    for module in modules:
        parts = module.split(".")
        if any(p.startswith("_") and p != "__main__" for p in parts[1:]):
            continue
        if parts[-1] == "__main__":  # what `python -m` runs: its package decides
            module = ".".join(parts[:-1])
        if module in listed or module in houses or module in DEPRECATED:
            continue
        if module.startswith(tuple(f"{p}." for p in OPEN_PACKAGES)):
            continue
        found.append(module)
    return found


def test_every_module_without_an_underscore_is_in_the_public_list() -> None:
    assert unlisted_public(module_names(), public_modules()) == []


def test_the_check_flags_a_public_looking_module_the_list_lacks() -> None:
    modules = [
        "conformance.wires",
        "conformance.wires.roles",
        "conformance.wires.helpers",
        "conformance._runner",
        "conformance.wires._gemini.parse",
        "conformance.catalogue.__main__",
        "conformance.generate.anything",
        "conformance.tools.__main__",
    ]
    listed = {"conformance.wires.roles", "conformance.catalogue.book", "conformance.generate"}
    assert unlisted_public(modules, listed) == ["conformance.wires.helpers", "conformance.tools"]
'''


def write_whole_files(root: Path, dry_run: bool, say: Callable[[str], None]) -> None:
    files = {_path_of(old) + ".py": _shim_source(old, new) for old, new in SHIMS.items()}
    files[SHIM_TEST] = _SHIM_TEST_SOURCE
    files[NAMES_TEST] = _NAMES_TEST_SOURCE
    for relative, source in files.items():
        path = root / relative
        if path.is_file() and path.read_text(encoding="utf-8") == source:
            continue
        say(f"write {relative}")
        if not dry_run:
            path.write_text(source, encoding="utf-8")
            subprocess.run(["git", "add", relative], cwd=root, check=True)


#: The generated documents, written again from the renamed tree.
REGENERATE: tuple[tuple[tuple[str, ...], str | None], ...] = (
    (("-m", "conformance.catalogue"), None),
    (("-m", "harness.coverage_doc"), "docs/coverage.md"),
    (("-m", "harness.probe_table", "--write"), None),
    (("-m", "harness.guard_table"), "docs/reference-adapter.md"),
)


def regenerate(root: Path, say: Callable[[str], None]) -> None:
    env = {**__import__("os").environ, "PYTHONPATH": str(root)}
    for arguments, output in REGENERATE:
        say("python " + " ".join(arguments) + (f" > {output}" if output else ""))
        done = subprocess.run(
            [sys.executable, *arguments], cwd=root, env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(arguments)} failed:\n{done.stderr}")
        if output is not None:
            (root / output).write_text(done.stdout, encoding="utf-8")


# --- driving it ---------------------------------------------------------------------


def tracked_files(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True, check=True
    )
    return [p for p in out.stdout.split("\0") if p]


def rewrite_text(text: str, relative: str, packages: set[str]) -> str:
    if relative.endswith((".py", ".pyi")):
        text, locals_ = rewrite_python_imports(text, relative)
        text = rename_names(text, {**locals_, **CLASS_RENAMES}, frozenset(locals_))
    text = rewrite_dotted(text)
    text = rewrite_slashed(text, packages)
    text = _BUNDLED_WIRE_PLACEHOLDER.sub(r"\1_<", text)
    return rename_classes_in_prose(text)


def rewrite(root: Path, dry_run: bool, say: Callable[[str], None]) -> list[str]:
    packages = _old_packages()
    shim_files = {_path_of(old) + ".py" for old in SHIMS} | {SHIM_TEST, NAMES_TEST}
    changed: list[str] = []
    for relative in tracked_files(root):
        path = root / relative
        if relative in shim_files or relative.endswith(_SKIP_SUFFIXES) or not path.is_file():
            continue
        if relative == "harness/rename_internals.py":
            continue
        raw = path.read_bytes()
        if b"\0" in raw:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite_text(text, relative, packages)
        if relative in _LAYER_FILES:
            new = _LAYER_FILES[relative](new)
        if new != text:
            changed.append(relative)
            if not dry_run:
                path.write_bytes(new.encode("utf-8"))
    say(f"rewrote {len(changed)} file(s)")
    return changed


def tidy(root: Path, files: list[str]) -> None:
    """Sort the imports the rewrite touched and format the touched Python files."""
    python = [f for f in files if f.endswith(".py") and (root / f).is_file()]
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    for chunk in range(0, len(python), 200):
        part = python[chunk : chunk + 200]
        subprocess.run([ruff, "check", "--select", "I", "--fix", "-q", *part], cwd=root)
        subprocess.run([ruff, "format", "-q", *part], cwd=root, check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd())
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--no-regenerate", action="store_true")
    options = parser.parse_args(argv)
    root: Path = options.root.resolve()
    say = print
    if options.dry_run:
        for old, new in RENAMES.items():
            print(f"{old:45} -> {new}")
    move(root, options.dry_run, say)
    changed = rewrite(root, options.dry_run, say)
    changed += apply_fixups(root, options.dry_run, say)
    write_whole_files(root, options.dry_run, say)
    if options.dry_run:
        return 0
    tidy(root, [*changed, "conformance/__init__.py", SHIM_TEST, NAMES_TEST])
    if not options.no_regenerate:
        regenerate(root, say)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
