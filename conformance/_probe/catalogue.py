"""Probe catalogues: YAML files (strict schema) or one unified diff per probe.

A probe names the source it mutates (a Python ``module``, or a ``path`` relative to the
catalogue's root), the mutation (``find``/``replace``, or a unified ``diff``), the cases
expected to kill it and a note saying which guard it removes.  Unknown keys, a probe
with two mutations or none, or two probes with one id are located errors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from conformance.errors import ProbeCatalogueError

#: The catalogue format version this runner reads.
CATALOGUE_VERSION = 1
_ID = r"^[a-z0-9][a-z0-9._-]*$"


class Probe(BaseModel):
    """One mutant: where, what, who must kill it, and why it exists."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=_ID, description="stable id, unique in the catalogue")
    module: str | None = Field(
        default=None, description="the Python module to mutate (in-process targets)"
    )
    path: str | None = Field(
        default=None, description="the file to mutate, relative to the catalogue's root"
    )
    find: str | None = Field(default=None, description="text that must occur exactly once")
    replace: str | None = Field(default=None, description="what replaces `find`")
    diff: str | None = Field(
        default=None,
        description="a unified diff file (relative to the catalogue) instead of find/replace",
    )
    expect_killed_by: tuple[str, ...] = Field(
        default=(), description="case ids or globs; each must match a case that kills by a check"
    )
    accepted: str | None = Field(
        default=None, description="why this mutant may survive (a known, explained survivor)"
    )
    note: str = Field(
        min_length=1, description="which guard the mutant removes, which behaviour it re-creates"
    )
    #: The diff's text, read when the catalogue is loaded (never from the user's YAML).
    diff_text: str | None = Field(default=None, exclude=True)
    #: The folder ``path`` is relative to, set when the catalogue is loaded.
    root_dir: str = Field(default="", exclude=True)

    @model_validator(mode="after")
    def _one_mutation(self) -> Probe:
        if (self.module is None) == (self.path is None):
            raise ValueError("give exactly one of `module` or `path`")
        pair = self.find is not None or self.replace is not None
        if pair == (self.diff is not None or self.diff_text is not None):
            raise ValueError("give either `find` and `replace`, or `diff`")
        if pair and (self.find is None or self.replace is None):
            raise ValueError("`find` needs `replace` (and the other way round)")
        if self.find == "":
            raise ValueError("`find` is empty")
        return self

    @property
    def where(self) -> str:
        """The module or path the probe mutates, as reports show it."""
        return self.module or self.path or "?"


class Catalogue(BaseModel):
    """A probe catalogue file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = Field(default=CATALOGUE_VERSION, description="the catalogue format version")
    root: str = Field(
        default=".", description="the folder `path` probes are relative to (from the catalogue)"
    )
    strict: bool = Field(default=False, description="`should` violations kill too (as --strict)")
    cases: tuple[str, ...] = Field(
        default=(), description="only cases whose id matches one of these globs"
    )
    probes: tuple[Probe, ...] = Field(min_length=1)
    #: Where the catalogue was read from (not part of the file).
    source: str = Field(default="", exclude=True)
    base: str = Field(default=".", exclude=True)

    @model_validator(mode="after")
    def _unique_and_known(self) -> Catalogue:
        if self.version != CATALOGUE_VERSION:
            raise ValueError(f"version {self.version}: this runner reads {CATALOGUE_VERSION}")
        seen: set[str] = set()
        for probe in self.probes:
            if probe.id in seen:
                raise ValueError(f"two probes have the id {probe.id!r}")
            seen.add(probe.id)
        return self

    @property
    def root_dir(self) -> Path:
        return (Path(self.base) / self.root).resolve()


def catalogue_schema() -> dict[str, Any]:
    """The JSON Schema of a catalogue file (``wire-conformance probe --schema``)."""
    schema = Catalogue.model_json_schema()
    probe = schema["$defs"]["Probe"]["properties"]
    probe.pop("diff_text", None)
    probe.pop("root_dir", None)
    schema["properties"].pop("source", None)
    schema["properties"].pop("base", None)
    schema["title"] = "wire-conformance probe catalogue"
    return schema


def _locate(error: ValidationError, data: Any) -> str:
    lines = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"])
        if item["loc"][:1] == ("probes",) and len(item["loc"]) > 1:
            index = item["loc"][1]
            if isinstance(index, int) and isinstance(data, dict):
                probes = data.get("probes") or []
                if index < len(probes) and isinstance(probes[index], dict):
                    where += f" (probe {probes[index].get('id', '?')!r})"
        message = item["msg"].removeprefix("Value error, ")
        lines.append(f"{where or 'top level'}: {message}")
    return "; ".join(lines)


_DIFF_TARGET = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.MULTILINE)


def _diff_probe(path: Path) -> Catalogue:
    """A catalogue of one probe from a unified diff: the file is its ``+++`` path,
    relative to the current folder; the id is the diff's file name."""
    text = path.read_text(encoding="utf-8")
    target = _DIFF_TARGET.search(text)
    if target is None:
        raise ProbeCatalogueError(f"{path}: not a unified diff (no '+++ ' line)")
    ident = re.sub(r"[^a-z0-9._-]+", "-", path.stem.lower()).strip("-") or "diff"
    probe = Probe(
        id=ident,
        path=target.group(1),
        diff=path.name,
        diff_text=text,
        note=f"the mutant in {path.name}",
        root_dir=str(Path.cwd()),
    )
    return Catalogue(probes=(probe,), source=str(path), base=str(Path.cwd()))


def _read_diffs(catalogue: Catalogue, folder: Path) -> Catalogue:
    probes = []
    for probe in catalogue.probes:
        probe = probe.model_copy(update={"root_dir": str(catalogue.root_dir)})
        if probe.diff is not None and probe.diff_text is None:
            diff_path = folder / probe.diff
            try:
                text = diff_path.read_text(encoding="utf-8")
            except OSError as error:
                raise ProbeCatalogueError(
                    f"{catalogue.source}: probe {probe.id!r}: cannot read diff {probe.diff}: "
                    f"{error.strerror}"
                ) from None
            probe = probe.model_copy(update={"diff_text": text})
        probes.append(probe)
    return catalogue.model_copy(update={"probes": tuple(probes)})


def load_catalogue(path: Path) -> Catalogue:
    """Read a catalogue (``*.yaml``/``*.yml``) or a single-probe diff (``*.diff``,
    ``*.patch``); raises ``ProbeCatalogueError`` with the file and the place."""
    if path.suffix in {".diff", ".patch"}:
        try:
            return _diff_probe(path)
        except OSError as error:
            raise ProbeCatalogueError(f"{path}: {error.strerror}") from None
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ProbeCatalogueError(f"{path}: {error.strerror}") from None
    return parse_catalogue(text, str(path), path.parent)


def parse_catalogue(text: str, source: str, folder: Path) -> Catalogue:
    """A catalogue from YAML text; ``folder`` is where ``root`` and diffs are relative to."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ProbeCatalogueError(f"{source}: not YAML: {error}") from None
    if not isinstance(data, dict):
        raise ProbeCatalogueError(f"{source}: a catalogue is a mapping with `probes`")
    try:
        catalogue = Catalogue.model_validate(
            {**data, "source": source, "base": str(folder.resolve())}
        )
    except ValidationError as error:
        raise ProbeCatalogueError(f"{source}: {_locate(error, data)}") from None
    return _read_diffs(catalogue, folder)


#: The reference adapter's catalogue, shipped in the package.
REFERENCE_CATALOGUE = "reference.yaml"


def reference_catalogue() -> Catalogue:
    """The catalogue ``wire-conformance probe --target reference`` runs by default."""
    text = resources.files("conformance._probe").joinpath(REFERENCE_CATALOGUE).read_text("utf-8")
    folder = Path(str(resources.files("conformance._probe")))
    return parse_catalogue(text, f"conformance/_probe/{REFERENCE_CATALOGUE}", folder)


def merge(catalogues: Sequence[Catalogue]) -> Catalogue:
    """Several catalogues as one run (ids must stay unique)."""
    if len(catalogues) == 1:
        return catalogues[0]
    probes = tuple(p for c in catalogues for p in c.probes)
    ids = [p.id for p in probes]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ProbeCatalogueError(f"probe id {', '.join(twice)} appears in two catalogues")
    return catalogues[0].model_copy(
        update={
            "probes": probes,
            "strict": any(c.strict for c in catalogues),
            "cases": tuple(g for c in catalogues for g in c.cases),
        }
    )


def schema_json() -> str:
    return json.dumps(catalogue_schema(), indent=2, sort_keys=True)
