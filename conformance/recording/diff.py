"""``report diff``: the verdicts that changed between two JSON reports (of ``run`` or
of ``replay``), for a nightly job's trend."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance.wires.nesting import too_deep


class ReportReadError(Exception):
    """A report that cannot be read: ``path: problem``."""


def verdicts(path: Path) -> dict[str, str]:
    """``cell -> verdict`` of a run report (``case [wire]``) or a replay report (file)."""
    try:
        text = path.read_text(encoding="utf-8")
        deep = too_deep(text)
        if deep is not None:  # the parser would end in a RecursionError
            raise ReportReadError(f"{path}: {deep}")
        data: Any = json.loads(text)
    except OSError as error:
        raise ReportReadError(f"{path}: {error.strerror}") from None
    except ValueError as error:
        raise ReportReadError(f"{path}: not a JSON report ({error})") from None
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        return {f"{r['case']} [{r['wire']}]": str(r["verdict"]) for r in data["results"]}
    if isinstance(data, dict) and isinstance(data.get("recordings"), list):
        return {str(r["file"]): str(r["status"]) for r in data["recordings"]}
    raise ReportReadError(f"{path}: neither a run report nor a replay report")


def changed(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """One line per cell whose verdict changed, appeared or went away, sorted."""
    lines: list[str] = []
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key, "(absent)"), new.get(key, "(absent)")
        if before != after:
            lines.append(f"{key}: {before} -> {after}")
    return lines
