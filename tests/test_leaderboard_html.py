"""The static web leaderboard, opened in a real headless Chromium (Selenium + the system's chromedriver):
what it shows is checked against the result JSONs, a column is sorted, the filters hide what they should,
the figure is embedded, and a screenshot goes to artifacts/ (kept by CI)."""

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from sentibench.report.leaderboard_html import write_html
from sentibench.results.task_result import read_result, result_path, task_result, write_result
from sentibench.tasks.registry import all_tasks

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
REQUIRED = os.environ.get("SENTIBENCH_REQUIRE_BROWSER") == "1"  # set by .ci/run: a missing browser fails

MODELS = {  # name -> (provenance model block, kind the page should show)
    "minilm": ({"name": "minilm", "loader": "sentence-transformers"}, "pretrained"),
    "tuned": ({"name": "tuned", "loader": "trained", "base": "minilm", "recipe": {"steps": 10}}, "trained here"),
    "random": ({"name": "random", "loader": "random"}, "baseline"),
}
SCORES = {("minilm", "sgts-mr"): 0.021, ("tuned", "sgts-mr"): 0.365, ("random", "sgts-mr"): -0.016,
          ("minilm", "probe-mr"): 0.7677, ("tuned", "probe-mr"): 0.8136, ("random", "probe-mr"): 0.4914}


def _results(root: Path) -> None:
    for (model, task), score in SCORES.items():
        group, metric = ("sgts", "cosine_spearman") if task.startswith("sgts") else ("probe", "accuracy")
        version = all_tasks()[task].metadata.version  # the registry's current version: older ones are left out
        provenance = {"model": MODELS[model][0], "task": {"name": task, "groups": [group], "main_score": metric,
                                                                 "version": version},
                      "main_split": "test", "limit": None, "trained_on_eval_dataset": model == "tuned",
                      "details": {"confidence_interval": {"low": score - 0.01, "high": score + 0.02}}}
        write_result(result_path(root, model, "r1", task),
                     task_result(task, "data", {"test": {metric: score, "main_score": score}}, 0.1, provenance))


@pytest.fixture
def browser():
    if not (CHROMIUM and DRIVER):
        missing = ("no Chromium and chromedriver on PATH (apt-get install chromium chromium-driver); "
                   ".ci/run installs them")
        if REQUIRED:
            pytest.fail(missing)  # CI must run the browser test, never skip it
        pytest.skip(missing)
    if REQUIRED:
        from selenium import webdriver
    else:
        webdriver = pytest.importorskip("selenium.webdriver", reason="pip install -e '.[browser]'")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    yield driver
    driver.quit()


def test_the_page_in_a_real_browser(tmp_path, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    root, site, figures = tmp_path / "results", tmp_path / "site", tmp_path / "figures"
    _results(root)
    figures.mkdir()
    shutil.copy(Path(__file__).resolve().parent.parent / "docs" / "figures" / "sgts_vs_fewshot.png", figures)
    page = write_html(root, site, figures)
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

    # Sorting: a click sorts a score column high to low, a second click low to high.
    header = browser.find_element(By.XPATH, '//table[@id="table-sgts"]//th[text()="sgts-mr"]')
    header.click()
    assert column("table-sgts") == ["tuned", "minilm", "random"]
    header.click()
    assert column("table-sgts") == ["random", "minilm", "tuned"]

    # Filters: one task group hides the others; unticking a model kind hides its rows.
    Select(browser.find_element(By.ID, "group-filter")).select_by_value("probe")
    assert not browser.find_element(By.ID, "table-sgts").is_displayed()
    assert browser.find_element(By.ID, "table-probe").is_displayed()
    browser.find_element(By.CSS_SELECTOR, 'input.kind[value="baseline"]').click()
    assert column("table-probe") and "random" not in column("table-probe")
    Select(browser.find_element(By.ID, "group-filter")).select_by_value("all")

    image = browser.find_element(By.CSS_SELECTOR, "figure img")
    assert image.get_attribute("src").startswith("data:image/png;base64,")
    assert browser.execute_script("return arguments[0].naturalWidth", image) > 100, "the figure decodes"
    assert not any(e.get_attribute("src") and e.get_attribute("src").startswith("http")
                   for e in browser.find_elements(By.CSS_SELECTOR, "[src]")), "nothing fetched at view time"

    ARTIFACTS.mkdir(exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / "leaderboard.png"))


def test_page_is_deterministic_and_links_are_relative(tmp_path):
    root, site = tmp_path / "results", tmp_path / "site"
    _results(root)
    first = write_html(root, site).read_text()
    assert first == write_html(root, site).read_text()
    assert 'href="../results/minilm/r1/sgts-mr.json"' in first
    first_row = first.split('<tr data-model="')[1]
    assert first_row.startswith("tuned"), "rows start in rank order"
    assert np.isclose(float(first_row.split('data-task="probe-mr" data-value="')[1].split('"')[0]),
                      SCORES[("tuned", "probe-mr")])
