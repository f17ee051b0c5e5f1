"""The transcript is what the provider records and the checks judge: it sits below the
provider and the targets and imports neither (nor anything above them)."""

from __future__ import annotations

import ast
import inspect

from conformance import _transcript as transcript

#: The layers under the transcript (docs/architecture.md).
BELOW = (
    "conformance.vocabulary",
    "conformance.http",
    "conformance.verdict",
    "conformance.wires",
    "conformance._cases",
)


def test_the_transcript_imports_only_lower_layers() -> None:
    tree = ast.parse(inspect.getsource(transcript))
    imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    ours = {m for m in imported if m.startswith("conformance")}
    assert ours, "the scan found no imports of the package at all"
    assert {m for m in ours if not m.startswith(BELOW)} == set()
