"""The HTML report (`run --html`, `report html`): one self-contained page with the
matrix, filters, each failing cell's violations with the rule's statement and source,
and the requests it sent with the violation's place marked.  Checked as markup here, and
in a real headless browser where one is installed (Chromium from the distribution's
packages): the page loads with no console error and its filters work."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conformance._cli import main
from conformance._report.ab import ABTable, Cell
from conformance._report.html import json_path, marked_json, to_html
from conformance._report.reading import read_report
from conformance._report.report_schema import build_report
from conformance.verdict import Result, Violation

#: One worker holds the module, so its module fixture is built once (``--dist loadgroup``).
pytestmark = pytest.mark.xdist_group("html-report")

BROKEN = "harness.broken.merge_episodes:MergeEpisodesAdapter"
#: Two cases the merge-episodes variant fails, on two columns, and one it passes.
CASES = (
    "interleaved-two-episodes-one-response",
    "gemini-thought-after-call-stays-after-it",
    "back-to-back-consecutive-redacted",
)


@pytest.fixture(scope="module")
def run_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A run of the broken variant on ``CASES``: its HTML page and JSON report."""
    folder = tmp_path_factory.mktemp("html")
    page, report = folder / "run.html", folder / "run.json"
    selection = [arg for case in CASES for arg in ("--case", case)]
    code = main(
        [
            "run",
            "--target",
            BROKEN,
            *selection,
            "--quiet",
            "--html",
            str(page),
            "--json",
            str(report),
        ]
    )
    assert code == 1  # the variant fails: the page is written all the same
    return page, report


def test_json_paths_read_both_spellings() -> None:
    assert json_path("messages.1.content.0") == ("messages", 1, "content", 0)
    assert json_path("contents[1].parts[0]") == ("contents", 1, "parts", 0)
    assert json_path(None) is None


def test_the_named_subtree_is_marked_and_nothing_else() -> None:
    body = {"messages": [{"content": [{"type": "text", "text": "a"}, {"type": "x"}]}]}
    shown = str(marked_json(body, frozenset({("messages", 0, "content", 1)})))
    assert shown.count('<mark class="at">') == 1
    marked = shown.split('<mark class="at">')[1].split("</mark>")[0]
    assert "&#34;x&#34;" in marked  # the JSON's quotes, escaped for HTML
    assert "&#34;text&#34;" not in marked
    assert '<mark class="at">' not in str(marked_json(body, frozenset({("other",)})))


def test_every_value_is_escaped() -> None:
    hostile = "</pre><script>alert(1)</script>"
    violation = Violation(check="expect", message=hostile, severity="must", evidence="observed")
    result = Result(case="c", wire="anthropic-messages", verdict="fail", violations=(violation,))
    page = to_html(build_report(hostile, "adapter", [result]))
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    body = str(marked_json({"k": hostile}, frozenset()))
    assert "<script>" not in body


def test_a_failing_cell_shows_its_rule_and_the_marked_request(run_page: tuple[Path, Path]) -> None:
    page = run_page[0].read_text(encoding="utf-8")
    report = json.loads(run_page[1].read_text(encoding="utf-8"))
    failed = [r for r in report["results"] if r["verdict"] == "fail"]
    assert {r["case"] for r in failed} >= {CASES[0], CASES[1]}
    for result in failed:
        assert f"{result['case']} [{result['wire']}]" in page
        for violation in result["violations"]:
            assert str(violation["check"]) in page
    assert '<mark class="at">' in page  # a violation's place in the body sent
    assert 'class="statement"' in page
    assert 'class="source"' in page


def test_the_page_needs_no_network(run_page: tuple[Path, Path]) -> None:
    page = run_page[0].read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<link" not in page


def test_the_same_report_gives_the_same_bytes(run_page: tuple[Path, Path], tmp_path: Path) -> None:
    """`report html` from the JSON report, twice: identical pages."""
    one, two = tmp_path / "one.html", tmp_path / "two.html"
    assert main(["report", "html", str(run_page[1]), "-o", str(one)]) == 0
    assert main(["report", "html", str(run_page[1]), "-o", str(two)]) == 0
    assert one.read_bytes() == two.read_bytes()


def test_an_ab_table_is_added() -> None:
    table = ABTable(
        target="new",
        baseline="old",
        cells=(Cell(case="c", wire="gemini", target="pass", baseline="fail", flip="fixed"),),
    )
    result = Result(case="c", wire="gemini", verdict="pass")
    page = to_html(build_report("new", "adapter", [result]), ab=table)
    assert "A/B: new against old" in page
    assert "fixed 1" in page


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "No such file"),
        ("{", "not a run report"),
        ('{"results": []}', "target: Field required"),
        ("[" * 3000 + "]" * 3000, "nests 3000 levels deep"),
    ],
)
def test_a_file_that_is_not_a_report_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, said: str
) -> None:
    path = tmp_path / "r.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["report", "html", str(path)]) == 2
    out = capsys.readouterr().out
    assert str(path) in out
    assert said in out
    assert not (tmp_path / "r.html").exists()


def test_read_report_round_trips(run_page: tuple[Path, Path]) -> None:
    assert read_report(run_page[1]).target == "broken-merge-episodes"


# --- in a real browser -----------------------------------------------------------------

CHROMIUM = next(
    (
        found
        for name in ("chromium", "chromium-browser", "google-chrome")
        if (found := shutil.which(name))
    ),
    None,
)
needs_browser = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium installed (Debian: apt-get install chromium)"
)


def _browse(page: Path, fragment: str) -> tuple[str, str]:
    """The DOM after the page's script ran, and the browser's log."""
    assert CHROMIUM is not None
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            page.as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.stdout, done.stderr


def _status(dom: str) -> str:
    match = re.search(r'id="status"[^>]*>([^<]*)<', dom)
    assert match is not None
    return match.group(1)


@needs_browser
def test_the_page_loads_without_a_console_message(run_page: tuple[Path, Path]) -> None:
    dom, log = _browse(run_page[0], "")
    assert "CONSOLE" not in log, log
    report = json.loads(run_page[1].read_text(encoding="utf-8"))
    total = len(report["results"])
    assert _status(dom) == f"{total} of {total} cells shown"


@needs_browser
def test_the_filters_from_the_address_work(run_page: tuple[Path, Path]) -> None:
    report = json.loads(run_page[1].read_text(encoding="utf-8"))
    total = len(report["results"])
    failed = [r for r in report["results"] if r["verdict"] == "fail"]
    dom, log = _browse(run_page[0], "#verdict=fail")
    assert "CONSOLE" not in log, log
    assert _status(dom) == f"{len(failed)} of {total} cells shown"
    gemini = [r for r in failed if r["wire"] == "gemini"]
    assert gemini
    dom, _ = _browse(run_page[0], "#verdict=fail&column=gemini")
    assert _status(dom) == f"{len(gemini)} of {total} cells shown"
    # Hidden rows are the ones without a failing gemini cell.
    visible = re.findall(r'<tr data-family="[^"]*">\s*<td class="case"[^>]*>([^<]+)<', dom)
    assert set(visible) == {r["case"] for r in gemini}


@needs_browser
def test_a_screenshot_of_the_failing_cells(run_page: tuple[Path, Path], tmp_path: Path) -> None:
    """The picture the docs show: the page filtered to the failures."""
    assert CHROMIUM is not None
    shot = tmp_path / "report.png"
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1400,1000",
            f"--screenshot={shot}",
            run_page[0].as_uri() + "#verdict=fail",
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ('{"exchanges": []}', {"exchanges": []}),
        ('{"exchanges": ' + "[" * 200_000 + "]" * 200_000 + "}", {}),
        ("not json", {}),
        ("[1]", {}),
    ],
    ids=["saved", "nested-past-the-parser", "not-json", "not-a-document"],
)
def test_saved_exchanges_are_read_as_every_saved_document(
    text: str, kept: dict[str, object], tmp_path: Path
) -> None:
    """A cell's saved exchanges go through the one reader: a file nested deeper than the
    parser can go, or not a document, leaves the cell without exchanges (as one never
    saved) and the page is still written."""
    from conformance._exchanges import exchanges_path
    from conformance._report.html import _saved

    path = exchanges_path(tmp_path, "t", "gemini", "c")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    assert _saved(tmp_path, "t", "gemini", "c") == kept
    assert _saved(tmp_path, "t", "gemini", "missing") == {}
