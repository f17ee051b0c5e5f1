"""JUnit XML, for CI dashboards: one testcase per case × wire."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from conformance.report.model import Report
from conformance.report.terminal import details


def to_junit(report: Report) -> str:
    # An interrupted run is one more erroring testcase: a dashboard must not show the
    # cells that finished as a green run.
    incomplete = report.incomplete is not None
    suite = ET.Element(
        "testsuite",
        name=f"wire-conformance[{report.target}]",
        tests=str(len(report.results) + incomplete),
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
    for result in report.results:
        case = ET.SubElement(suite, "testcase", classname=result.wire, name=result.case)
        text = "\n".join(details(result))
        if result.verdict == "fail":
            ET.SubElement(case, "failure", message=result.reason or "violations").text = text
        elif result.verdict == "error":
            ET.SubElement(case, "error", message=result.reason or "error").text = text
        elif result.verdict in ("n/a", "xfail"):
            ET.SubElement(case, "skipped", message=f"{result.verdict}: {result.reason or ''}")
        elif result.verdict == "pinned":
            ET.SubElement(case, "system-out").text = f"pinned: {result.reason or ''}"
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
