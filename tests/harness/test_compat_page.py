"""The compatibility page (`python -m harness.targets.report --html`): the real
libraries of harness/targets/ against every cell of the suite, each pinned defect with
its severity and a link to its upstream report.  Rendered from the committed results;
checked as markup, and in headless Chromium where one is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.targets.compat import page_data, render_page
from harness.targets.libraries import LIBRARIES
from harness.targets.report import upstream_reports

#: One worker holds the module, so its module fixture is built once (``--dist loadgroup``).
pytestmark = pytest.mark.xdist_group("compat-page")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("compat") / "REPORT.html"
    path.write_text(render_page(), encoding="utf-8")
    return path


def test_every_library_run_has_its_column() -> None:
    data = page_data()
    names = {label.split(" ")[0] for label in data["libraries"]}
    assert names == set(LIBRARIES)
    assert all(re.fullmatch(r"\S+ \S+", label) for label in data["libraries"])


def test_every_upstream_report_is_on_the_page_and_its_cells_link_to_it(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for library in LIBRARIES:
        for key in upstream_reports(library):
            anchor = f"defect-{library}-{key}"
            assert f'id="{anchor}"' in text
            assert f'href="#{anchor}"' in text, anchor  # its minimal cell links to it


def test_a_pinned_cell_shows_its_severity() -> None:
    data = page_data()
    pinned = [
        shown for row in data["rows"] for shown in row.by_library.values()
        if shown.verdict == "xfail"
    ]  # fmt: skip
    assert pinned
    defects = [shown for shown in pinned if shown.kind == "defect"]
    assert defects
    assert all(shown.severity in data["severities"] for shown in defects)
    assert all(shown.kind in ("defect", "scope") for shown in pinned)


def test_the_page_is_the_same_twice_and_needs_no_network(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert render_page() == text
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)


CHROMIUM = next(
    (
        found
        for name in ("chromium", "chromium-browser", "google-chrome")
        if (found := shutil.which(name))
    ),
    None,
)


@pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium installed (Debian: apt-get install chromium)"
)
def test_the_filters_work_in_a_browser(page: Path) -> None:
    assert CHROMIUM is not None
    data = page_data()
    total = sum(len(row.by_library) for row in data["rows"])
    xfail = sum(
        1 for row in data["rows"] for shown in row.by_library.values() if shown.verdict == "xfail"
    )
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
         "--v=0", "--dump-dom", page.as_uri() + "#verdict=xfail"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert "CONSOLE" not in done.stderr, done.stderr
    status = re.search(r'id="status"[^>]*>([^<]*)<', done.stdout)
    assert status is not None
    assert status.group(1) == f"{xfail} of {total} cells shown"
