"""The static web leaderboard, opened in a real headless Chromium (Selenium + the system's chromedriver) at
1440 px: the overview ranks the models with every task of the benchmark (here: a two-task one), the trade-off
scatter shows each model and an arrow from a method card's base, what the tables show is checked against the
result JSONs, a column is sorted, the filters hide what they should and re-rank what is left, the page fits the
window with the model column pinned, the figure is embedded with its caption, a model's page is opened from the
overview and a score's link leads to its result JSON, and the site copied elsewhere has no broken link.
Screenshots go to $SENTIBENCH_ARTIFACTS, else in CI to artifacts/ (kept as CI artifacts), else to the test's
temporary folder."""

import json
import os
import shutil
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest

from sentibench.report.leaderboard import build
from sentibench.report.leaderboard_html import write_site
from sentibench.results.task_result import read_result, result_path, task_result, write_result
from sentibench.tasks.registry import all_tasks

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
REQUIRED = os.environ.get("SENTIBENCH_REQUIRE_BROWSER") == "1"  # set by .ci/run: a missing browser fails
MISSING = ("no Chromium and chromedriver on PATH (apt-get install chromium chromium-driver); .ci/run installs them"
           if not (CHROMIUM and DRIVER) else None)
in_a_browser = pytest.mark.skipif(MISSING is not None and not REQUIRED, reason=str(MISSING))
"""The browser tests: skipped where no browser is installed, unless CI requires one (then they fail)."""

MODELS = {  # name -> (provenance model block, kind the page should show)
    "minilm": ({"name": "minilm", "loader": "sentence-transformers"}, "pretrained"),
    "tuned": ({"name": "tuned", "loader": "trained", "base": "minilm", "recipe": {"steps": 10}}, "trained here"),
    "random": ({"name": "random", "loader": "random"}, "baseline"),
}
SCORES = {("minilm", "sgts-mr"): 0.021, ("tuned", "sgts-mr"): 0.365, ("random", "sgts-mr"): -0.016,
          ("minilm", "probe-mr"): 0.7677, ("tuned", "probe-mr"): 0.8136, ("random", "probe-mr"): 0.4914,
          ("minilm", "sts-stsb"): 0.82, ("tuned", "sts-stsb"): 0.74}
SUITE = {"sgts": ["sgts-mr"], "probe": ["probe-mr"]}  # the required suite these tests use
METRICS = {"sgts": "cosine_spearman", "probe": "accuracy", "sts": "cosine_spearman"}


@pytest.fixture(autouse=True)
def small_suite(monkeypatch):
    """A one-axis benchmark of the two tasks, as the current one."""
    from sentibench.tasks import benchmarks

    tasks = [name for names in SUITE.values() for name in names]
    saved = benchmarks.BENCHMARKS.snapshot()
    benchmarks.register_benchmark(benchmarks.Benchmark(
        name="html-v1", description="A two-task test benchmark.", released="2026-11-27", citation="test",
        tasks=tuple(benchmarks.BenchmarkTask(t, all_tasks()[t].metadata.version, "mr", "data") for t in tasks),
        axes=(benchmarks.Axis("Sentiment", "polarity", tuple(tasks)),), diagnostics=()))
    monkeypatch.setattr(benchmarks, "CURRENT", "html-v1")
    yield
    benchmarks.BENCHMARKS.restore(saved)


def _artifacts(tmp_path: Path) -> Path:
    """Where screenshots go: $SENTIBENCH_ARTIFACTS; in CI (a browser required) the checkout's artifacts/,
    which .ci/run keeps; else the test's temporary folder."""
    default = Path(__file__).resolve().parent.parent / "artifacts" if REQUIRED else tmp_path / "artifacts"
    folder = Path(os.environ.get("SENTIBENCH_ARTIFACTS") or default)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _results(root: Path) -> None:
    for (model, task), score in SCORES.items():
        group = task.split("-")[0]
        metric = METRICS[group]
        version = all_tasks()[task].metadata.version  # the registry's current version: older ones are left out
        provenance = {"model": MODELS[model][0], "task": {"name": task, "groups": [group], "main_score": metric,
                                                                 "version": version},
                      "main_split": "test", "limit": None,
                      "trained_on_eval_dataset": model == "tuned" and task == "sgts-mr",
                      "details": {"confidence_interval": {"low": score - 0.01, "high": score + 0.02}}}
        write_result(result_path(root, model, "r1", task),
                     task_result(task, "data", {"test": {metric: score, "main_score": score}}, 0.1, provenance))


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


@in_a_browser
def test_the_page_in_a_real_browser(tmp_path, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    root, site, figures = tmp_path / "results", tmp_path / "site", tmp_path / "figures"
    _results(root)
    figures.mkdir()
    shutil.copy(Path(__file__).resolve().parent.parent / "docs" / "figures" / "sgts_vs_fewshot.png", figures)
    page = write_site(build(root), site, figures)
    browser.get(page.as_uri())

    # What the page shows is what the JSON says (score x 100, interval, link to the file itself).
    for (model, task), _ in SCORES.items():
        cell = browser.find_element(By.CSS_SELECTOR, f'tr[data-model="{model}"] td[data-task="{task}"]')
        link = cell.find_element(By.TAG_NAME, "a")
        target = Path(link.get_attribute("href").removeprefix("file://"))
        stored = read_result(target)
        score = stored.main_score()
        assert stored.task_name == task and target.parent.parent.name == model
        assert link.text.startswith(f"{100 * score:.2f}")
        interval = stored.confidence_interval()
        assert f"[{100 * interval.low:.2f}, {100 * interval.high:.2f}]" in cell.text
    kinds = {r.get_attribute("data-model"): r.get_attribute("data-kind")
             for r in browser.find_elements(By.CSS_SELECTOR, "#table-sgts tbody tr")}
    assert kinds == {m: kind for m, (_, kind) in MODELS.items()}
    assert "*" in browser.find_element(By.CSS_SELECTOR, 'tr[data-model="tuned"] td[data-task="sgts-mr"]').text

    def column(table: str) -> list[str]:
        return [r.get_attribute("data-model") for r in browser.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr")
                if r.is_displayed()]

    # Sorting: a click sorts a score column high to low, a second click low to high; a rank column best first.
    header = browser.find_element(By.XPATH, '//table[@id="table-sgts"]//th[text()="sgts-mr"]')
    assert "Spearman rho x 100, higher is better" in header.get_attribute("title")
    header.click()
    assert column("table-sgts") == ["tuned", "minilm", "random"]
    header.click()
    assert column("table-sgts") == ["random", "minilm", "tuned"]
    browser.find_element(By.XPATH, '//table[@id="table-probe"]//th[text()="rank"]').click()
    assert column("table-probe") == ["tuned", "minilm", "random"], "first click on rank: the best first"

    # Filters: one task group hides the others; unticking a model kind hides its rows.
    Select(browser.find_element(By.ID, "group-filter")).select_by_value("probe")
    assert not browser.find_element(By.ID, "table-sgts").is_displayed()
    assert browser.find_element(By.ID, "table-probe").is_displayed()
    browser.find_element(By.CSS_SELECTOR, 'input.kind[value="baseline"]').click()
    assert column("table-probe") and "random" not in column("table-probe")
    Select(browser.find_element(By.ID, "group-filter")).select_by_value("all")

    image = browser.find_element(By.CSS_SELECTOR, "figure img")
    assert "SgTS (Spearman x 100" in browser.find_element(By.CSS_SELECTOR, "figure figcaption").text
    assert image.size["width"] > 1000, "a figure is shown at the page's width"
    assert image.get_attribute("src").startswith("data:image/png;base64,")
    assert browser.execute_script("return arguments[0].naturalWidth", image) > 100, "the figure decodes"
    assert not any(e.get_attribute("src") and e.get_attribute("src").startswith("http")
                   for e in browser.find_elements(By.CSS_SELECTOR, "[src]")), "nothing fetched at view time"

    assert browser.save_screenshot(str(_artifacts(tmp_path) / "leaderboard.png"))


@in_a_browser
def test_overview_scatter_and_a_model_page_in_a_real_browser(tmp_path, browser):
    from selenium.webdriver.common.by import By

    root, site = tmp_path / "results", tmp_path / "site"
    _results(root)
    browser.get(write_site(build(root), site).as_uri())

    # The overview comes first and ranks the three models that have every task of the benchmark on its one axis,
    # in-domain results left out: tuned 81.36 (probe only; it trained on sgts-mr's data), minilm
    # (2.10 + 76.77) / 2 = 39.44, random (-1.60 + 49.14) / 2 = 23.77.
    overview = browser.find_element(By.ID, "overview")
    assert overview.location["y"] < browser.find_element(By.ID, "table-sgts").location["y"]
    ranked = browser.find_elements(By.CSS_SELECTOR, "#overview-ranked tbody tr")
    assert [r.get_attribute("data-model") for r in ranked] == ["tuned", "minilm", "random"]
    assert [r.find_elements(By.TAG_NAME, "td")[1].text.split(" ")[0] for r in ranked] == ["1", "2", "3"]
    assert ranked[0].find_element(By.CSS_SELECTOR, 'td[data-axis="Sentiment"]').text.startswith("81.36 [")
    headers = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#overview-ranked th")]
    assert headers[0] == "model" and headers[3].startswith("Sentiment") and headers[4].startswith("sgts")
    sgts = ranked[0].find_element(By.CSS_SELECTOR, 'td[data-group="sgts"]')
    assert sgts.text.startswith("36.50 [") and sgts.is_displayed()

    # The scatter: the two models with STS-B are points, the method card has an arrow from its base.
    scatter = browser.find_element(By.CSS_SELECTOR, "#tradeoff svg")
    assert scatter.is_displayed() and scatter.size["width"] > 400
    for gid in ("point:sgts:tuned", "point:sgts:minilm", "arrow:sgts:tuned"):
        assert browser.find_element(By.CSS_SELECTOR, f'#tradeoff [id="{gid}"]').is_displayed()
    assert not browser.find_elements(By.CSS_SELECTOR, '#tradeoff [id="point:sgts:random"]'), "no STS-B, no point"
    assert browser.save_screenshot(str(_artifacts(tmp_path) / "leaderboard-overview.png"))

    # A model's page, opened from the overview: its card, its scores linking to their JSON, its base's page.
    ranked[0].find_element(By.CSS_SELECTOR, "a.model-link").click()
    assert browser.find_element(By.TAG_NAME, "h1").text == "tuned"
    link = browser.find_element(By.CSS_SELECTOR, '#scores tr[data-task="sgts-mr"] a.result')
    assert link.text == "36.50*", "score x 100 and the in-domain mark"
    assert browser.save_screenshot(str(_artifacts(tmp_path) / "leaderboard-model.png"))
    link.click()
    stored = read_result(Path(browser.current_url.removeprefix("file://")))
    assert stored.task_name == "sgts-mr" and stored.main_score() == SCORES[("tuned", "sgts-mr")]
    assert '"main_score": 0.365' in browser.find_element(By.TAG_NAME, "body").text
    browser.back()
    browser.find_element(By.CSS_SELECTOR, "a.base").click()
    assert browser.find_element(By.TAG_NAME, "h1").text == "minilm"


def _mine(root: Path) -> None:
    """A researcher's own run of one committed model on one task, in a folder of its own."""
    provenance = {"model": MODELS["minilm"][0], "main_split": "test", "limit": None,
                  "task": {"name": "sgts-mr", "groups": ["sgts"], "main_score": "cosine_spearman",
                           "version": all_tasks()["sgts-mr"].metadata.version},
                  "details": {"confidence_interval": {"low": 0.01, "high": 0.03}}}
    write_result(result_path(root, "minilm", "r1", "sgts-mr"),
                 task_result("sgts-mr", "data", {"test": {"cosine_spearman": 0.02, "main_score": 0.02}}, 0.1,
                             provenance))


def _links(browser) -> list[str]:
    from selenium.webdriver.common.by import By

    return [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "a[href]")]


@in_a_browser
def test_two_folders_a_copied_site_fits_the_window_filters_re_rank_and_no_link_breaks(tmp_path, browser):
    from selenium.webdriver.common.by import By

    ours, mine, site = tmp_path / "results", tmp_path / "mine", tmp_path / "site"
    _results(ours)
    _mine(mine)
    write_site(build([ours, mine]), site)
    copied = tmp_path / "elsewhere" / "copy"
    shutil.copytree(site, copied)
    shutil.rmtree(site)
    shutil.rmtree(ours)  # the copy needs neither the site it came from nor the results folders
    shutil.rmtree(mine)
    browser.get((copied / "index.html").as_uri())

    # Both folders in one board: the researcher's run is a row of its own, beside the committed one.
    partial = browser.find_element(By.CSS_SELECTOR, '#overview-partial tr[data-model="minilm [mine]"]')
    assert "1/2" in partial.text and "2.00" in partial.text and "[1/1]" not in partial.text
    sentiment = partial.find_element(By.CSS_SELECTOR, 'td[data-axis="Sentiment"]').text
    assert sentiment.startswith("2.00 [") and sentiment.endswith("[1/2]"), "its mean over the task it has"

    # The page fits a 1440 px window; a wide table scrolls inside it with the model column pinned.
    assert browser.execute_script("return document.documentElement.scrollWidth") <= browser.execute_script(
        "return window.innerWidth")
    model_cell = browser.find_element(By.CSS_SELECTOR, '#overview-ranked td.model')
    assert model_cell.value_of_css_property("position") == "sticky"
    controls = browser.find_element(By.CSS_SELECTOR, ".controls")
    assert controls.location["y"] < browser.find_element(By.ID, "overview").location["y"], "filters at the top"
    assert browser.save_screenshot(str(_artifacts(tmp_path) / "leaderboard-two-folders.png"))

    def ranks() -> dict[str, str]:
        return {r.get_attribute("data-model"): r.find_elements(By.TAG_NAME, "td")[1].text
                for r in browser.find_elements(By.CSS_SELECTOR, "#overview-ranked tbody tr") if r.is_displayed()}

    # Filtering re-ranks: without the trained model, minilm is first, on the same replicates; back, as before.
    before = ranks()
    assert [v.split(" ")[0] for v in before.values()] == ["1", "2", "3"]
    browser.find_element(By.CSS_SELECTOR, 'input.kind[value="trained here"]').click()
    assert [k for k in ranks()] == ["minilm", "random"] and ranks()["minilm"].split(" ")[0] == "1"
    assert browser.find_element(By.ID, "shown-count").text == "2 ranked model(s) shown"
    probe = {r.get_attribute("data-model"): r.find_element(By.CSS_SELECTOR, "td.rank").text
             for r in browser.find_elements(By.CSS_SELECTOR, "#table-probe tbody tr") if r.is_displayed()}
    assert probe == {"minilm": "1.00", "random": "2.00"}, "a group's ranks among the rows shown"
    browser.find_element(By.CSS_SELECTOR, 'input.kind[value="trained here"]').click()
    assert ranks() == before, "the page's own ranks come back: the script ranks as the board does"
    search = browser.find_element(By.ID, "search")
    search.send_keys("rand")
    assert list(ranks()) == ["random"]
    search.clear()
    search.send_keys(" ")  # an input event with an empty query
    browser.find_element(By.CSS_SELECTOR, 'input.folder[value="results"]').click()
    shown = [r.get_attribute("data-model") for r in browser.find_elements(By.CSS_SELECTOR, "#table-sgts tbody tr")
             if r.is_displayed()]
    assert shown == ["minilm [mine]"], "the folder filter"

    # Every link of the index and of every model page leads to a file inside the copy.
    pages = [copied / "index.html", *sorted((copied / "models").glob("*.html"))]
    checked = 0
    for page in pages:
        browser.get(page.as_uri())
        for href in _links(browser):
            assert href.startswith("file://"), href
            target = Path(unquote(href.removeprefix("file://").split("#")[0]))
            assert target.is_file() and target.resolve().is_relative_to(copied.resolve()), (page.name, href)
            checked += 1
    assert checked > 20


def test_a_site_replaces_an_earlier_site_but_never_another_folder(tmp_path):
    from sentibench.core.errors import BenchError

    root, site = tmp_path / "results", tmp_path / "site"
    _results(root)
    write_site(build(root), site)
    (site / "models" / "stale.html").write_text("a model no longer on the board")  # as an earlier site wrote it:
    marker = json.loads((site / ".sentibench-site").read_text())
    (site / ".sentibench-site").write_text(json.dumps({"written": [*marker["written"], "models/stale.html"]}))
    (site / "CNAME").write_text("bench.example.org\n")  # and a file the user added
    write_site(build(root), site)
    assert not (site / "models" / "stale.html").exists(), "the earlier site's own files are replaced whole"
    assert (site / "CNAME").read_text() == "bench.example.org\n", "the user's are kept"
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "mine.txt").write_text("precious")
    with pytest.raises(BenchError, match="is not a site"):
        write_site(build(root), notes)
    assert (notes / "mine.txt").read_text() == "precious" and not (notes / "index.html").exists()


def test_page_is_deterministic_and_links_are_relative(tmp_path):
    root, site = tmp_path / "results", tmp_path / "site"
    _results(root)
    first = write_site(build(root), site).read_text()
    assert first == write_site(build(root), site).read_text()
    assert 'href="results/results/minilm/r1/sgts-mr.json"' in first
    first_row = first.split('id="table-probe"')[1].split('<tr data-model="')[1]
    assert first_row.startswith("tuned"), "rows start in rank order"
    assert np.isclose(float(first_row.split('data-task="probe-mr" data-value="')[1].split('"')[0]),
                      SCORES[("tuned", "probe-mr")])
