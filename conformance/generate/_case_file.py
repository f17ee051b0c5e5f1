"""A counterexample as a ready-to-commit case file: the shrunk conversation in the case
language, citing the failing check's rules, its notes naming the seed and the check,
and a first comment line that says how it was found.

``case_yaml`` never returns a file the loader or the lint would refuse: it loads its
own output back and compares.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from conformance._cases.library import vocabulary
from conformance._cases.lint import lint_case
from conformance._cases.loader import load_text
from conformance._cases.schema import Case, RuleRef, SeedRef
from conformance._checks.registry import all_checks
from conformance.catalogue import resolve
from conformance.catalogue._entries import Seed
from conformance.generate.conversations import GENERATED_PROVENANCE, build_case

_CITED = re.compile(r"\b(?:rule|§)\s*([A-F]?\d+)|seed\s+§(\d+)")


class CaseFileError(Exception):
    """The generated file did not load back as the same lint-clean case (a bug)."""


def citations(check_id: str) -> list[RuleRef | SeedRef]:
    """The catalogue entries the check cites (its ref, then its source's rules and
    seed behaviours), at most four; the ledger's rules when it cites none."""
    check = next((c for c in all_checks() if c.id == check_id), None)
    found: list[RuleRef | SeedRef] = []
    texts = [] if check is None else [check.ref or "", check.source]
    for text in texts:
        for match in _CITED.finditer(text):
            rule, seed = match.groups()
            entry = resolve(f"seed {seed}") if seed else resolve(rule)
            if entry is None:
                continue
            cite: RuleRef | SeedRef = (
                SeedRef(seed=int(seed)) if isinstance(entry, Seed) and seed else RuleRef(rule=rule)
            )
            if not isinstance(entry, Seed) or seed:
                found.append(cite)
    unique = list(dict.fromkeys(found))[:4]
    return unique or list(GENERATED_PROVENANCE)


def counterexample_case(case: Case, column: str, check: str, seed: int, target: str) -> Case:
    """``case`` re-cited for its failure: the check's rules, notes naming seed and check."""
    notes = (
        f"Found by generation: `wire-conformance generate --target {target} --wire {column} "
        f"--seed={seed}`; the failing check was {check}. The conversation is the shrunk "
        "counterexample; the invariants and the wire's rules judge it."
    )
    return build_case(column, case.given, citations(check), notes=notes, case_id_=case.id)


def _block(block: Any) -> dict[str, Any]:
    fields: dict[str, Any] = block.model_dump(mode="json", exclude_defaults=True)
    fields.pop("kind", None)
    return {"kind": block.kind, **fields}


def _document(case: Case) -> dict[str, Any]:
    data: dict[str, Any] = case.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    for t, turn in enumerate(case.given.turns):
        for r, response in enumerate(turn.responses):
            written = data["given"]["turns"][t]["responses"][r]
            written["stop"] = response.stop
            if response.blocks:
                written["blocks"] = [_block(b) for b in response.blocks]
    ordered = ("id", "title", "provenance", "features", "wires", "notes", "given", "expect")
    return {key: data[key] for key in ordered if key in data}


class _Dumper(yaml.SafeDumper):
    """Blocks and small mappings in flow style, as the library writes them."""


def _represent_dict(dumper: yaml.SafeDumper, value: dict[str, Any]) -> yaml.Node:
    flow = "kind" in value or "seed" in value or "rule" in value or "request" in value
    return dumper.represent_mapping("tag:yaml.org,2002:map", value, flow_style=flow)


_Dumper.add_representer(dict, _represent_dict)


def case_yaml(case: Case, header: str) -> str:
    """The case file text, ``header`` as its first (comment) line."""
    body = yaml.dump(
        _document(case), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100
    )
    text = f"# {header}\n{body}"
    file = f"{case.features[0]}/{case.id}.yaml"
    loaded, errors = load_text(text, file, vocabulary())
    if loaded is None or errors or loaded != case:
        raise CaseFileError(f"{file}: does not load back as the same case: {errors}")
    problems = lint_case(loaded, file)
    if problems:
        raise CaseFileError(f"{file}: lint: {'; '.join(problems)}")
    return text


def save_case(directory: Path, case: Case, text: str) -> Path:
    """Write the case file under ``directory/<family>/<id>.yaml``; returns its path."""
    path = directory / case.features[0] / f"{case.id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
