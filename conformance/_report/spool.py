"""A run's results written out as each cell finishes, so a run holds the cells in
flight, not the library's results (issue 26: 20 000 cases).

Each finished cell's JSON result and JUnit testcase are appended to a scratch file,
and the cell leaves memory; the spool keeps per cell only its key and where its text
lies, and the run's counts (``report_schema.Tally``).  At the end the reports are
written from the scratch file in report order (sorted by case and wire, as
``build_report`` sorts), piece by piece: the same bytes as the whole-report writers
(``report_schema.to_json``, ``junit.to_junit``), never one string of the whole run.
What needs every cell at once (the terminal matrix, Markdown, HTML, ``--baseline``)
reads the results back from the scratch file (``results``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from conformance._report.junit import junit_document, testcase_xml
from conformance._report.report_schema import (
    Report,
    Tally,
    json_document,
    result_json,
    unmachined_result,
)
from conformance.verdict import Result


@dataclass(frozen=True, slots=True)
class _Spooled:
    """Where one cell's texts lie in the scratch file (byte offsets and lengths)."""

    key: tuple[str, str]
    json_at: int
    json_size: int
    junit_at: int
    junit_size: int


class ReportSpool:
    """The finished cells of a run, on disk; ``junit``: keep their JUnit testcases too
    (the JSON results are always kept: every other reader reads them back)."""

    def __init__(self, junit: bool = False) -> None:
        self._junit = junit
        # Closed (and so deleted) by ``close``, at the end of the ``with`` block.
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="wire-conformance-cells-")  # noqa: SIM115
        self._cells: list[_Spooled] = []
        self.counted = Tally()

    def __len__(self) -> int:
        return len(self._cells)

    def add(self, result: Result) -> None:
        """Write one finished cell out; nothing of it stays but where it lies."""
        result = unmachined_result(result)
        self.counted.add(result)
        json_text = result_json(result).encode("utf-8")
        junit_text = testcase_xml(result).encode("utf-8") if self._junit else b""
        at = self._file.seek(0, 2)
        self._file.write(json_text)
        self._file.write(junit_text)
        self._cells.append(
            _Spooled(result.key, at, len(json_text), at + len(json_text), len(junit_text))
        )

    def header(self, report: Report) -> Report:
        """``report`` (a header: no results) with the spooled cells' summary."""
        return report.model_copy(update={"results": (), "summary": self.counted.summary})

    def _texts(self, junit: bool) -> Iterator[str]:
        """Each cell's JSON result (or JUnit testcase) in report order, read back one
        at a time."""
        for cell in sorted(self._cells, key=lambda cell: cell.key):
            at, size = (cell.junit_at, cell.junit_size) if junit else (cell.json_at, cell.json_size)
            self._file.seek(at)
            yield self._file.read(size).decode("utf-8")

    def json(self, header: Report) -> Iterator[str]:
        """The JSON report of ``header`` and the spooled cells, piece by piece."""
        return json_document(self.header(header), self._texts(junit=False))

    def junit(self, header: Report) -> Iterator[str]:
        """The JUnit report of ``header`` and the spooled cells, piece by piece."""
        if not self._junit:
            raise ValueError("the spool keeps no JUnit testcases (ReportSpool(junit=True))")
        return junit_document(self.header(header), len(self._cells), self._texts(junit=True))

    def results(self) -> Iterator[Result]:
        """The spooled cells' results (machine paths already left out), in report order."""
        for text in self._texts(junit=False):
            yield Result.model_validate_json(text)

    def report(self, header: Report) -> Report:
        """The whole report, every result read back: for the readers that need every
        cell at once."""
        return self.header(header).model_copy(update={"results": tuple(self.results())})

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> ReportSpool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
