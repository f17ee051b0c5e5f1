"""JUnit XML, for CI dashboards: one testcase per case × wire.

A CI UI shows a failure's ``message`` attribute as its one-line title and the element's
text as the detail: the message is the first violation (or the reason, else the case's
title), one line; the body holds everything ``details`` prints (reason, traceback,
violations, output tails); the ``type`` attribute is the verdict's cause
(``verdict.Cause``: ``crash``, ``timeout``, ``violations``, ...), which a dashboard
can group by.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator

from conformance._report.report_schema import Report
from conformance._report.terminal import details
from conformance.verdict import Result

#: The longest ``message`` attribute: a title, not the detail.
MESSAGE_CHARS = 300


def headline(result: Result) -> str:
    """What a failed or errored cell's ``message`` says: its first violation (check and
    message), else the first line of its reason, else the case's title."""
    if result.violations:
        first = result.violations[0]
        text = f"{first.check}: {first.message}"
    elif result.reason:
        text = result.reason
    else:
        text = result.title or f"{result.case} [{result.wire}]: {result.verdict}"
    line = text.strip().splitlines()[0] if text.strip() else result.verdict
    return line if len(line) <= MESSAGE_CHARS else line[: MESSAGE_CHARS - 1] + "…"


def suite_element(report: Report, cells: int) -> ET.Element:
    """The ``testsuite`` of a run of ``cells`` cells, with the testcases that are not
    cells (an interrupted run, the case files that did not load) but none of the cells:
    the counts are the report's summary."""
    # An interrupted run is one more erroring testcase: a dashboard must not show the
    # cells that finished as a green run.
    incomplete = report.incomplete is not None
    suite = ET.Element(
        "testsuite",
        name=f"wire-conformance[{report.target}]",
        tests=str(cells + incomplete),
        failures=str(report.summary["fail"]),
        errors=str(report.summary["error"] + incomplete),
        skipped=str(report.summary["n/a"] + report.summary["xfail"]),
    )
    if report.incomplete is not None:
        case = ET.SubElement(suite, "testcase", classname="run", name="incomplete")
        ET.SubElement(case, "error", message=report.incomplete).text = report.incomplete
    for error in report.load_errors:
        case = ET.SubElement(suite, "testcase", classname="case-files", name=error.file)
        ET.SubElement(case, "error", message=error.message).text = str(error.line or "")
    return suite


def testcase_element(result: Result) -> ET.Element:
    """One cell's ``testcase``: what a CI dashboard shows of it."""
    case = ET.Element("testcase", classname=result.wire, name=result.case)
    text = "\n".join(details(result))
    kind = {"type": str(result.cause)} if result.cause is not None else {}
    if result.verdict == "fail":
        ET.SubElement(case, "failure", kind, message=headline(result)).text = text
    elif result.verdict == "error":
        ET.SubElement(case, "error", kind, message=headline(result)).text = text
    elif result.verdict in ("n/a", "xfail"):
        cause = f" ({result.not_applicable})" if result.not_applicable else ""
        ET.SubElement(
            case, "skipped", kind, message=f"{result.verdict}{cause}: {result.reason or ''}"
        )
    elif result.verdict == "pinned":
        ET.SubElement(case, "system-out").text = f"pinned: {result.reason or ''}"
    return case


def to_junit(report: Report) -> str:
    """The JUnit document of a whole report, built as one tree (``spool`` writes the same
    bytes a cell at a time)."""
    suite = suite_element(report, len(report.results))
    suite.extend(testcase_element(result) for result in report.results)
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


#: Where the cells go in a suite written a cell at a time: an element no report holds
#: (any ``<`` in a name or a message is escaped), replaced by the cells' testcases.
_CELLS_GO_HERE = "spooled-cells"


def testcase_xml(result: Result) -> str:
    """One cell's ``testcase`` as it sits in the indented document, without the
    indentation before it: what ``junit_document`` joins."""
    case = testcase_element(result)
    ET.indent(case, level=1)
    return ET.tostring(case, encoding="unicode")


def junit_document(report: Report, cells: int, testcases: Iterable[str]) -> Iterator[str]:
    """The JUnit document of ``report``'s header and ``cells`` testcases given one at a
    time (``testcase_xml``, in report order): the bytes ``to_junit`` writes for the
    whole report, with no cell's text held longer than it is written."""
    suite = suite_element(report, cells)
    if not cells:
        ET.indent(suite)
        yield ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
        return
    ET.SubElement(suite, _CELLS_GO_HERE)
    ET.indent(suite)
    text = ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
    before, after = text.split(f"<{_CELLS_GO_HERE} />")
    yield before
    for n, testcase in enumerate(testcases):
        yield ("\n  " if n else "") + testcase
    yield after
