"""JUnit XML, for CI dashboards: one testcase per case × wire."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from conformance.report.model import Report
from conformance.report.terminal import details


def to_junit(report: Report) -> str:
    suite = ET.Element(
        "testsuite",
        name=f"wire-conformance[{report.target}]",
        tests=str(len(report.results)),
        failures=str(report.summary["fail"]),
        errors=str(report.summary["error"]),
        skipped=str(report.summary["n/a"] + report.summary["xfail"]),
    )
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
