"""The web leaderboard shows exactly what Python computed: on a site built from the committed `results/` by `bench
leaderboard --results results --site DIR` (the current benchmark, sentibench-v2, then the default board's other
sections), a real headless Chromium shows, in every overview, Python's ranks, 95% rank ranges, Pareto marks and
order for every ranked row, and in every task group Python's mean ranks, both on the page as built and after each
combination of the kind filters the page offers. "Python's" for a filtered view is `build_overview` of a board of
the shown models alone (the page's numbers come from `report.page_views`, a different path). The browser test is
skipped without Chromium and chromedriver unless SENTIBENCH_REQUIRE_BROWSER=1 (then it fails), as
tests/test_leaderboard_html.py's are. The packaging check runs everywhere."""

import json
import os
import shutil
import tomllib
from fnmatch import fnmatch
from itertools import combinations
from pathlib import Path

import pytest

from sentibench.report.leaderboard import KINDS, Row, build, rank_full_rows, rank_text
from sentibench.report.overview import build_overview

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
REQUIRED = os.environ.get("SENTIBENCH_REQUIRE_BROWSER") == "1"  # set by .ci/run: a missing browser fails
MISSING = ("no Chromium and chromedriver on PATH (apt-get install chromium chromium-driver); .ci/run installs them"
           if not (CHROMIUM and DRIVER) else None)
in_a_browser = pytest.mark.skipif(MISSING is not None and not REQUIRED, reason=str(MISSING))

READ = """
const out = {overviews: {}, groups: {}};
document.querySelectorAll('table.overview-ranked').forEach(table => {
  out.overviews[table.dataset.benchmark] = {
    count: document.getElementById(table.dataset.count).textContent,
    rows: Array.from(table.tBodies[0].rows).filter(r => r.style.display !== 'none').map(r => ({
      model: r.dataset.model, pareto: r.querySelector('td.pareto').textContent,
      ranks: Object.fromEntries(Array.from(r.querySelectorAll('td[data-rank]'))
                                .map(c => [c.dataset.rank, c.textContent]))}))};
});
document.querySelectorAll('section.group').forEach(s => {
  out.groups[s.dataset.group] = Object.fromEntries(Array.from(s.querySelectorAll('tbody tr'))
    .filter(r => r.style.display !== 'none').map(r => [r.dataset.model, r.querySelector('td.rank').textContent]));
});
return JSON.stringify(out);
"""


@pytest.fixture
def browser():
    if MISSING is not None:
        pytest.fail(MISSING)  # reached only when CI requires the browser: it must run, never skip
    if REQUIRED:
        from selenium import webdriver
    else:
        webdriver = pytest.importorskip("selenium.webdriver", reason="pip install -e '.[browser]'")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    yield driver
    driver.quit()


def _expected(board, kinds: tuple[str, ...], memo: dict) -> dict:
    """What Python gives a board of the models of `kinds` alone: each overview's rows and each group's ranks."""
    shown = frozenset(model for model in board.by_model if board.kinds[model] in kinds)
    if shown not in memo:
        overviews = {}
        for overview in [board.overview, *board.sections]:
            if shown == frozenset(board.by_model):
                found = overview  # the board as built
            else:
                found = build_overview({m: board.by_model[m] for m in sorted(shown)}, board.kinds,
                                       overview.benchmark, overview.include_in_domain)
            overviews[overview.benchmark.name] = found
        groups = {}
        for group in board.groups:
            rows = [Row(row.model, row.kind, row.cells) for row in group.rows if row.model in shown]
            if not group.diagnostic:
                rank_full_rows(rows, group.tasks)
            groups[group.name] = {row.model: "" if row.rank is None else f"{row.rank:.2f}" for row in rows}
        memo[shown] = {"overviews": overviews, "groups": groups}
    return memo[shown]


def _check(page: dict, expected: dict, board, kinds: tuple[str, ...]) -> int:
    """Compare what the page shows with Python's; the number of ranked rows compared."""
    compared = 0
    for overview in [board.overview, *board.sections]:
        name, python = overview.benchmark.name, expected["overviews"][overview.benchmark.name]
        shown = page["overviews"][name]["rows"]
        in_table = [row.model for row in overview.ranked if row.kind in kinds]  # the table's rows these kinds show
        assert sorted(r["model"] for r in shown) == sorted(in_table), (kinds, name)
        assert page["overviews"][name]["count"] == f"{len(in_table)} ranked model(s) shown"
        if python.ranked:
            assert [r["model"] for r in shown] == [row.model for row in python.ranked], (kinds, name, "order")
        by_model = {row.model: row for row in python.ranked}
        for row in shown:
            mine = by_model.get(row["model"])
            want = {axis.name: rank_text(mine.axes.get(axis.name)) if mine else "" for axis in overview.benchmark.axes}
            assert row["ranks"] == want, (kinds, name, row["model"])
            assert row["pareto"] == ("P" if mine is not None and mine.pareto else ""), (kinds, name, row["model"])
            compared += mine is not None
    assert page["groups"] == expected["groups"], kinds
    return compared


@in_a_browser
def test_the_committed_board_shows_pythons_ranks_rank_ranges_and_pareto_marks_in_every_view(tmp_path, browser):
    from selenium.webdriver.common.by import By

    from sentibench.cli import main

    site = tmp_path / "site"
    assert main(["leaderboard", "--results", str(ROOT / "results"), "--site", str(site)]) == 0
    board = build(ROOT / "results")
    assert board.overview.benchmark.name == "sentibench-v2" and board.overview.ranked, "the current benchmark ranks"
    assert board.overview.benchmark.chance, "a chance-normalised (format-2) benchmark"
    browser.get((site / "index.html").as_uri())
    assert not browser.find_elements(By.CSS_SELECTOR, "input.folder"), "one results folder: no folder filter"

    memo, compared, everything = {}, 0, tuple(KINDS)
    compared += _check(json.loads(browser.execute_script(READ)), _expected(board, everything, memo), board, everything)
    views = [kinds for n in range(len(KINDS)) for kinds in combinations(KINDS, n)] + [everything]  # all, last
    for kinds in views:
        for box in browser.find_elements(By.CSS_SELECTOR, "input.kind"):
            if box.is_selected() != (box.get_attribute("value") in kinds):
                box.click()
        compared += _check(json.loads(browser.execute_script(READ)), _expected(board, kinds, memo), board, kinds)
    assert compared > 2 * (len(board.overview.ranked) + sum(len(s.ranked) for s in board.sections))
    assert any(len(e["overviews"]["sentibench-v2"].ranked) not in (0, len(board.overview.ranked))
               for e in memo.values()), "some view re-ranks a subset of the ranked models"


def test_the_wheel_carries_every_template_and_asset():
    """pyproject's package-data names every file of report/templates/ and report/static/ (the wheel carries them)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = data["sentibench.report"]
    files = [p.relative_to(ROOT / "bench" / "report").as_posix()
             for folder in ("templates", "static") for p in (ROOT / "bench" / "report" / folder).iterdir()]
    assert files and all(any(fnmatch(f, pattern) for pattern in patterns) for f in files), files
