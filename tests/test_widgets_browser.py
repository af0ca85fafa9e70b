"""The experiment panel driven in a real browser: JupyterLab on 127.0.0.1, headless Chromium.

The test starts its own JupyterLab server on a free loopback port with a private
token and workspace, opens a copy of ``notebooks/explore.ipynb``, runs every
cell, waits for the kernel to be idle and every cell to have run, then clicks
the panel: a two-seed run (scorecard checked in the page) and a long run that
is stopped. A second notebook, opened in the same JupyterLab page once the first
is closed, holds a panel with an agent that raises: its error shows in the panel,
a three-seed run shows every seed, and Stop during the last seed keeps the
finished ones. Finally two tearsheets (three seeds; historical bars) are opened
in Chromium and every section is checked on screen and in print. Screenshots go
to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"
    ),
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_up(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"jupyter lab exited:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"jupyter lab did not come up:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Iterator[tuple[str, str, Path]]:
    """A JupyterLab server of our own: (base URL, token, its root folder)."""
    root = tmp_path_factory.mktemp("lab")
    shutil.copy(ROOT / "notebooks" / "explore.ipynb", root / "explore.ipynb")
    (root / "checks.ipynb").write_text(json.dumps(_checks_notebook()))
    token, port = secrets.token_hex(16), _free_port()
    env = {
        **os.environ,
        "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
        "JUPYTER_CONFIG_DIR": str(root / ".config"),
        "JUPYTERLAB_SETTINGS_DIR": str(root / ".settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / ".workspaces"),
    }
    command = [
        sys.executable, "-m", "jupyterlab", "--allow-root", "--no-browser",
        "--ip=127.0.0.1", f"--port={port}", f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}", "--LabApp.news_url=None",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: open a second notebook
    ]  # fmt: skip
    log = root / "lab.log"
    with log.open("w") as sink:
        server = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(f"{base}/api/status?token={token}", server, log)
        yield base, token, root
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        chromium = driver.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


def _open_notebook(browser, lab, name: str):
    base, token, _ = lab
    tab = browser.new_page(viewport={"width": 1400, "height": 1100})
    workspace = f"test-{secrets.token_hex(6)}"
    tab.goto(f"{base}/lab/workspaces/{workspace}/tree/{name}?reset&token={token}")
    _run_every_cell(tab)
    return tab


def _run_every_cell(tab) -> None:
    _wait_for_idle_kernel(tab)
    _run_all_cells(tab)
    _wait_for_every_cell(tab)


@pytest.fixture(scope="module")
def page(browser, lab):
    tab = _open_notebook(browser, lab, "explore.ipynb")
    yield tab
    tab.close()


@pytest.fixture(scope="module")
def checks(page):  # after the explore tests: one kernel busy at a time
    """checks.ipynb in the same JupyterLab page, which loads the application once: the
    explore notebook's panel is taken off the page (its widgets with it), then JupyterLab
    opens checks.ipynb as a user's File > Open would."""
    page.evaluate(
        """async () => {
            const app = window.jupyterapp;
            for (const widget of [...app.shell.widgets('main')]) widget.dispose();
            await app.commands.execute('docmanager:open', {path: 'checks.ipynb'});
        }"""
    )
    page.wait_for_function(  # only the checks notebook's cells are on the page
        "() => document.querySelectorAll('.jp-Notebook').length === 1 && "
        "document.querySelector('.jp-Notebook .jp-Cell .jp-InputArea')?.textContent"
        ".includes('def broken')",
        timeout=90_000,
    )
    _run_every_cell(page)
    return page


def _checks_notebook() -> dict:
    """A panel with a slow agent and one that raises (its own code, so a traceback)."""
    source = """
import asyncio
from workbench.integrations import callable_agent
from workbench.testing.scripted import trend_follower
from workbench.widgets import panel

async def slow(payload):
    await asyncio.sleep(0.01)
    return trend_follower(payload)

def broken(payload):
    return look_up_the_price(payload)

def look_up_the_price(payload):
    return payload["prices"]["NO-SUCH-SYMBOL"]

checks = panel({"slow": callable_agent(slow, name="slow", every=1),
                "broken": callable_agent(broken, name="broken", every=1)},
               seeds="1,2", days=3, universe=6, out_dir="out/checks")
checks.arms.value = ("slow", "broken", "buy_and_hold")
checks
"""
    cell = {"cell_type": "code", "execution_count": None, "id": "checks-0", "metadata": {},
            "outputs": [], "source": source.strip()}  # fmt: skip
    kernel = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    return {"cells": [cell], "metadata": {"kernelspec": kernel}, "nbformat": 4,
            "nbformat_minor": 5}  # fmt: skip


def _wait_for_idle_kernel(tab) -> None:
    """The notebook is open and the status bar reports the kernel connected and Idle."""
    tab.wait_for_selector(".jp-Notebook", timeout=90_000)
    tab.wait_for_function(
        "() => /\\| Idle/.test(document.querySelector('.jp-StatusBar-Widget')?.textContent"
        " ?? document.body.innerText)",
        timeout=90_000,
    )


def _run_all_cells(tab) -> None:
    """Run > Run All Cells, again if the first cell has not started (kernel still connecting)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(4):
        tab.get_by_role("menuitem", name="Run", exact=True).click()
        tab.locator("li[data-command='runmenu:run-all']").click()
        try:
            tab.wait_for_function(
                "() => /\\[(\\d+|\\*)\\]/.test("
                "document.querySelector('.jp-CodeCell .jp-InputPrompt').textContent)",
                timeout=15_000,
            )
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError("the notebook never started running its cells")


def _wait_for_every_cell(tab) -> None:
    """Every code cell shows an execution count and the kernel is idle again."""
    tab.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
            return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
        }""",
        timeout=120_000,
    )
    tab.wait_for_selector(
        ".jp-Notebook-ExecutionIndicator[data-status='idle']", state="attached", timeout=60_000
    )
    tab.wait_for_selector(".workbench-run", timeout=30_000)


def _status(tab) -> str:
    return tab.locator(".workbench-status").inner_text()


def test_a_run_started_by_clicking_shows_its_scorecard(page):
    panel = page.locator(".workbench-panel")
    panel.scroll_into_view_if_needed()
    page.locator(".workbench-seeds input").fill("3,4")
    page.locator(".workbench-seeds input").press("Tab")
    page.locator(".workbench-run").click()
    page.wait_for_function(
        "() => /done in .*2 seed\\(s\\)/.test("
        "document.querySelector('.workbench-status').textContent)",
        timeout=90_000,
    )
    _ready_again(page)
    table = page.locator(".workbench-scorecard table.workbench-scorecard-table")
    text = table.inner_text()
    for arm in ("slow_trend", "buy_and_hold", "momentum"):
        assert text.count(arm) == 2, f"{arm} once per seed in:\n{text}"
    seeds = page.locator(".workbench-scorecard tbody th").all_inner_texts()
    assert "3" in seeds and "4" in seeds
    progress = page.locator(".workbench-progress")
    assert progress.count() == 1
    _wait_for_chart(page)
    ARTIFACTS.mkdir(exist_ok=True)
    panel.screenshot(path=str(ARTIFACTS / "widgets-panel-run.png"))


# --- the live chart: plotly in the panel ------------------------------------------------------
CHART = ".js-plotly-plot.workbench-chart"  # the widget's own element is the plotly graph


def _wait_for_chart(tab) -> None:
    """The panel's chart is a plotly graph with at least one arm's line drawn."""
    tab.wait_for_function(
        f"() => document.querySelector('{CHART}')?._fullData?.some("
        "t => t.hovertemplate && t.x.length > 1)",
        timeout=30_000,
    )


def _point_of_an_arm(tab) -> dict:
    """Where on screen a point of the arm farthest from the others is, its name and points."""
    return tab.evaluate(
        f"""() => {{
            const gd = document.querySelector('{CHART}');
            const lines = gd._fullData.filter(t => t.hovertemplate && t.visible === true
                                                   && t.x.length > 1 && t.legendgroup);
            const i = Math.floor(Math.min(...lines.map(t => t.x.length)) * 0.7);
            const gap = t => Math.min(...lines.filter(o => o !== t).map(
                o => Math.abs(o.y[i] - t.y[i])), Infinity);
            const line = lines.reduce((a, b) => gap(b) > gap(a) ? b : a);
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
            const box = gd.getBoundingClientRect();
            return {{name: line.name, xs: [...line.x], ys: [...line.y],
                     x: box.left + xa._offset + xa.l2p(line.x[i]),
                     y: box.top + ya._offset + ya.l2p(line.y[i])}};
        }}"""
    )


def test_hovering_the_live_chart_names_the_arm_and_its_value(page):
    chart = page.locator(CHART)
    chart.scroll_into_view_if_needed()
    point = _point_of_an_arm(page)
    page.mouse.move(point["x"] - 30, point["y"] - 30)
    page.mouse.move(point["x"], point["y"], steps=4)
    page.wait_for_function(
        f"() => document.querySelector('{CHART} .hoverlayer').textContent.length > 0"
    )
    label = chart.locator(".hoverlayer").text_content() or ""
    read = re.search(r"trading day (\d+)(?:, step (\d+) of (\d+))?(?:mean )?equity ([\d.]+)", label)
    assert read and label.startswith(point["name"]), label
    day, value = _x_of(read.group(1), read.group(2), read.group(3)), read.group(4)
    near = min(range(len(point["xs"])), key=lambda k: abs(point["xs"][k] - day))
    assert f"{point['ys'][near]:.2f}" == value, (label, point["xs"][near], point["ys"][near])
    ARTIFACTS.mkdir(exist_ok=True)
    chart.screenshot(path=str(ARTIFACTS / "widgets-panel-chart-hover.png"))
    page.mouse.move(0, 0)


def test_a_legend_click_hides_an_arm_and_a_redraw_keeps_it_hidden(page):
    chart = page.locator(CHART)
    chart.scroll_into_view_if_needed()
    chart.locator(".legend .traces").filter(has_text="buy_and_hold").click()
    hidden = (
        f"() => document.querySelector('{CHART}').data.filter(t => t.legendgroup === "
        "'buy_and_hold').every(t => t.visible === 'legendonly')"
    )
    page.wait_for_function(hidden)  # the line and its range, one legend group
    ARTIFACTS.mkdir(exist_ok=True)
    chart.screenshot(path=str(ARTIFACTS / "widgets-panel-chart-legend.png"))
    title = chart.locator(".gtitle").text_content()
    page.locator(".workbench-seed-view select").select_option("4")  # a redraw of seed 4
    page.wait_for_function(
        f"old => document.querySelector('{CHART} .gtitle').textContent !== old", arg=title
    )
    assert "seed 4" in (chart.locator(".gtitle").text_content() or "")
    page.wait_for_function(hidden)  # the reader's choice survives the redraw
    chart.locator(".legend .traces").filter(has_text="buy_and_hold").click()
    page.locator(".workbench-seed-view select").select_option("all seeds")


def test_stop_cancels_a_long_run_and_keeps_the_partial_transcript(page, lab):
    page.locator(".workbench-arms select").select_option(["slow_trend", "trend", "buy_and_hold"])
    page.locator(".workbench-seeds input").fill("5")
    page.locator(".workbench-days input").fill("400")
    page.locator(".workbench-days input").press("Tab")
    page.locator(".workbench-run").click()
    page.wait_for_function(
        "() => /running: seed 5 .*step [1-9]/.test("
        "document.querySelector('.workbench-status').textContent)",
        timeout=60_000,
    )
    page.locator(".workbench-stop").click()
    page.wait_for_function(
        "() => /^stopped after/.test(document.querySelector('.workbench-status').textContent)",
        timeout=30_000,
    )
    status = _status(page)
    assert "partial transcripts kept in" in status
    done = re.match(r"stopped after ([\d,]+)/", status)
    assert done, status
    step = int(done.group(1).replace(",", ""))
    assert 0 < step < 400 * 6
    _, _, root = lab
    kept = list((root / "out" / "notebooks" / "explore").rglob("seed-5/trend.json"))
    assert kept and kept[0].stat().st_size > 0
    _ready_again(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".workbench-panel").screenshot(path=str(ARTIFACTS / "widgets-panel-stopped.png"))


def _run_and_chart(tab) -> tuple[int, int]:
    """(the run's step in the status, the step the chart's frame shows), read at once."""
    return tab.evaluate(
        """() => {
            const status = document.querySelector('.workbench-status').textContent;
            const step = /step ([\\d,]+)\\//.exec(status);
            const at = document.querySelector('.workbench-chart-at');
            return [step ? +step[1].replace(/,/g, '') : -1, at ? +at.dataset.step : -1];
        }"""
    )


def test_the_live_chart_keeps_within_one_redraw_of_the_run(page):
    """Each new frame shows at least the step the run had reached when the frame before it
    was on screen: no frame is stale, so the chart lags the run by one redraw at most."""
    page.locator(".workbench-arms select").select_option(["slow_trend", "trend", "buy_and_hold"])
    _set(page, "seeds", "6")
    _set(page, "days", "400")
    page.locator(".workbench-run").click()
    _wait_status(page, "running: seed 6 .*step [1-9]", timeout=60_000)
    frames = []
    for _ in range(4):
        run, shown = _run_and_chart(page)
        page.wait_for_function(
            "old => +(document.querySelector('.workbench-chart-at')?.dataset.step ?? -1) > old",
            arg=shown,
            timeout=30_000,
        )
        _, newer = _run_and_chart(page)
        frames.append((run, newer))
        assert newer >= run, f"a stale frame: the run was at step {run}, the chart drew {newer}"
        day = _chart_day(page)  # what the plotly chart itself shows on screen
        assert day >= round((run - 1) / 6, 1), f"the run was at step {run}, the chart at {day}"
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".workbench-panel").screenshot(path=str(ARTIFACTS / "widgets-panel-live.png"))
    page.locator(".workbench-stop").click()
    _wait_status(page, "^stopped after", timeout=30_000)
    _ready_again(page)
    assert len({shown for _, shown in frames}) == len(frames)  # a new frame each time


def _chart_day(tab) -> float:
    """The day the live chart's title says its frame is at."""
    title = tab.locator(f"{CHART} .gtitle").text_content() or ""
    found = re.search(r"at trading day ([\d,]+)(?:, step (\d+) of (\d+))?", title)
    assert found, title
    return _x_of(found.group(1).replace(",", ""), found.group(2), found.group(3))


def _x_of(day: str, step: str | None, steps: str | None) -> float:
    """The chart's x of a label: day d's close at d + 1, step s of S at d + s/S (the
    panel runs six steps a day)."""
    per_day = int(steps or 6)
    return int(day) + int(step or per_day) / per_day


# --- errors, every seed, Stop in the last seed ---------------------------------------------
def _set(tab, name: str, value: str) -> None:
    box = tab.locator(f".workbench-{name} input")
    box.fill(value)
    box.press("Tab")


def _wait_status(tab, pattern: str, timeout: int = 90_000) -> None:
    tab.wait_for_function(
        f"() => /{pattern}/.test(document.querySelector('.workbench-status').textContent)",
        timeout=timeout,
    )


def _ready_again(tab) -> None:
    """The report of the stopped run is written and linked; Run can be pressed again."""
    tab.wait_for_selector(".workbench-status a", timeout=180_000)
    tab.wait_for_function(
        "() => !document.querySelector('.workbench-run').disabled", timeout=30_000
    )


def test_an_agent_that_raises_shows_its_error_in_the_panel(checks):
    checks.locator(".workbench-run").click()
    _wait_status(checks, "done in .*2 seed\\(s\\).*FAILED")
    _ready_again(checks)
    colour = checks.locator(".workbench-status span").first.evaluate("e => e.style.color")
    assert colour in ("rgb(176, 0, 32)", "#b00020")
    table = checks.locator(".workbench-scorecard table").inner_text()
    assert "last_error" in table and "FrameworkError" in table
    failures = checks.locator(".workbench-failures details.workbench-failure-list")
    failures.locator("summary").first.click()
    first = failures.locator("details.workbench-failure").first
    first.locator("summary").click()
    trace = first.locator("pre").inner_text()
    assert "in look_up_the_price" in trace and "KeyError" in trace, trace
    assert "workbench/evaluation" not in trace
    ARTIFACTS.mkdir(exist_ok=True)
    checks.locator(".workbench-panel").screenshot(path=str(ARTIFACTS / "widgets-panel-errors.png"))


def test_a_multi_seed_run_shows_every_seed(checks):
    _set(checks, "seeds", "1,2,3")
    checks.locator(".workbench-run").click()
    _wait_status(checks, "done in .*3 seed\\(s\\)")
    _ready_again(checks)
    seeds = checks.locator(".workbench-scorecard tbody tr th:first-child").all_inner_texts()
    assert {"1", "2", "3"} <= set(seeds)
    picker = checks.locator(".workbench-seed-view select")
    options = [o.replace("\xa0", " ") for o in picker.locator("option").all_inner_texts()]
    assert options == ["all seeds", "1", "2", "3"]
    _wait_for_chart(checks)
    title = checks.locator(f"{CHART} .gtitle").text_content() or ""
    assert "all seeds: mean and range" in title, title
    ARTIFACTS.mkdir(exist_ok=True)
    checks.locator(".workbench-panel").screenshot(path=str(ARTIFACTS / "widgets-panel-seeds.png"))
    picker.select_option("2")
    checks.wait_for_function(
        f"() => /seed 2 at trading day/.test(document.querySelector('{CHART} .gtitle').textContent)"
    )


def test_stop_during_the_last_seed_keeps_the_finished_seeds(checks):
    _set(checks, "seeds", "1,2,3")
    _set(checks, "days", "40")
    checks.locator(".workbench-run").click()
    _wait_status(checks, "running: seed 3 \\(3\\/3\\), step [1-9]", timeout=180_000)
    checks.locator(".workbench-stop").click()
    _wait_status(checks, "^stopped after", timeout=60_000)
    status = _status(checks)
    assert "kept 2 finished seed(s) and seed 3 (partial: " in status, status
    checks.wait_for_function(
        "() => /partial: /.test(document.querySelector('.workbench-scorecard').textContent)",
        timeout=30_000,
    )
    table = checks.locator(".workbench-scorecard table").inner_text()
    # 3 arms per finished seed: "broken" fails every decision, so it shows failed, not complete
    assert table.count("complete") == 2 * 2 and table.count("failed: ") >= 2
    assert "partial: " in table
    _ready_again(checks)
    ARTIFACTS.mkdir(exist_ok=True)
    checks.locator(".workbench-panel").screenshot(path=str(ARTIFACTS / "widgets-panel-stop.png"))


# --- the tearsheet in Chromium ---------------------------------------------------------------
def _hover_and_toggle_an_arm(tab, which: str) -> None:
    """Hovering the equity chart shows every arm's value on that day (or date); clicking an
    arm in the legend hides it in the chart (plotly's 'legendonly')."""
    chart = tab.locator("#chart-equity")
    chart.scroll_into_view_if_needed()
    box = chart.locator(".nsewdrag").first.bounding_box()
    assert box is not None
    tab.mouse.move(box["x"] + 5, box["y"] + 5)
    tab.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.5, steps=4)
    tab.wait_for_function(
        "() => document.querySelector('#chart-equity .hoverlayer').textContent.length > 0"
    )
    label = chart.locator(".hoverlayer").text_content() or ""
    for arm in ("buy_and_hold", "momentum", "random"):
        assert f"{arm}: " in label, label
    if which == "seeds":  # six steps a day: the day and step, never a fractional day
        assert re.search(r"trading day \d+(, step [1-5] of 6)?", label), label
        assert not re.search(r"day \d+\.\d", label) and "(seeds " in label, label
    else:
        assert re.search(r"20\d\d-\d\d-\d\d", label), label
    ARTIFACTS.mkdir(exist_ok=True)
    chart.screenshot(path=str(ARTIFACTS / f"report-{which}-hover.png"))
    tab.mouse.move(0, 0)  # the hover label (a legend of its own) goes away
    chart.locator(".infolayer .legend .traces").filter(has_text="momentum").click()
    tab.wait_for_function(
        "() => document.querySelector('#chart-equity').data.some("
        "t => t.name === 'momentum' && t.visible === 'legendonly')"
    )


# the pictures drawn with plotly beside the charts over time, and what their hover names
PICTURES = {
    "return_distribution": r"daily return about -?\d+\.\d\d%.*: \d+ days",
    "orders": r"(buy|sell) [\d,]+ at \d+\.\d\d",
    "attribution": r"P&L: -?[\d,]+",
    "returns_by_seed": r", seed \d: -?\d+\.\d\d%",
    "news": r"trading day \d+",
}


def _hover_a_picture(tab, name: str, which: str) -> None:
    """Hover a point of a converted picture (a marker when it has any, else its middle):
    its label names what is there and, on a historical run, the date."""
    chart = tab.locator(f"#chart-{name}")
    chart.scroll_into_view_if_needed()
    box = chart.locator(".nsewdrag").first.bounding_box()
    assert box is not None
    points = chart.locator(".points path")
    count = points.count()
    # a marker drawn over a line can tie with the line's point under the cursor: try a few
    spots = [points.nth((count // 2 + k) % count).bounding_box() for k in range(min(count, 6))]
    if not spots:
        spots = [{"x": box["x"] + box["width"] * 0.3, "y": box["y"] + box["height"] * 0.5,
                  "width": 0, "height": 0}]  # fmt: skip
    for spot in spots:
        assert spot is not None
        label = _hover_at(tab, chart, name, box, spot)
        if re.search(PICTURES[name], label):
            break
    assert re.search(PICTURES[name], label), (name, label)
    if which == "historical" and name in ("orders", "attribution"):
        assert re.search(r"20\d\d-\d\d-\d\d", label), (name, label)
    chart.screenshot(path=str(ARTIFACTS / f"report-{which}-{name}-hover.png"))
    tab.mouse.move(0, 0)


def _hover_at(tab, chart, name: str, box: dict, spot: dict) -> str:
    """The hover label shown with the cursor at the middle of ``spot``."""
    tab.mouse.move(0, 0)  # the last label goes away before the next is read
    tab.wait_for_function(
        f"() => document.querySelector('#chart-{name} .hoverlayer').textContent.length === 0"
    )
    tab.mouse.move(box["x"] + 5, box["y"] + 5)
    tab.mouse.move(spot["x"] + spot["width"] / 2, spot["y"] + spot["height"] / 2, steps=4)
    tab.wait_for_function(
        f"() => document.querySelector('#chart-{name} .hoverlayer').textContent.length > 0"
    )
    return chart.locator(".hoverlayer").text_content() or ""


SECTIONS = (
    "key-metrics", "returns-by-month-and-year", "worst-drawdowns", "equity", "underwater",
    "return-distribution", "cumulative-returns", "rolling-risk", "activity", "orders",
    "trades", "errors-per-arm", "committee-memos",
)  # fmt: skip


def _reports(folder: Path) -> dict[str, Path]:
    import numpy as np
    import pandas as pd

    from workbench import evaluate
    from workbench.integrations import callable_agent
    from workbench.report import render_report

    def broken(payload):
        raise RuntimeError("the model timed out")

    arms = ["buy_and_hold", "momentum", "random", callable_agent(broken, name="flaky", every=6)]
    runs = [evaluate(arms, seed=s, universe=8, days=45) for s in (1, 2, 3)]
    memos = {"committee": [{"day": 0, "step": 0, "memo": "analyst: trend up\ntrader: buy"}]}
    dates = pd.bdate_range("2020-01-01", periods=140).strftime("%Y-%m-%d")
    rng = np.random.default_rng(1)
    bars = pd.DataFrame(
        [
            {
                "date": d,
                "symbol": f"S{s}",
                "open": c,
                "high": c,
                "low": c,
                "close": c,
                "volume": 1e6,
            }
            for s in range(4)
            for d, c in zip(dates, 100 * np.exp(np.cumsum(rng.normal(0, 0.01, 140))), strict=True)
        ]
    )
    historical = evaluate(arms, data=bars, seed=1)
    return {
        "seeds": render_report(runs, folder / "seeds.html", memos=memos, title="three seeds"),
        "historical": render_report(historical, folder / "hist.html", memos=memos),
    }


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """Both tearsheets, made once for the two cases that open them."""
    return _reports(tmp_path_factory.mktemp("reports"))


@pytest.mark.parametrize("which", ["seeds", "historical"])
def test_a_tearsheet_shows_every_item_in_chromium(browser, reports, which):
    path = reports[which]
    tab = browser.new_page(viewport={"width": 1200, "height": 900})
    try:
        tab.goto(path.as_uri())
        tab.wait_for_function(  # plotly.js inflated from the page itself, every chart drawn
            "() => [...document.querySelectorAll('div.plotly-chart')].every("
            "d => d.dataset.drawn === '1')",
            timeout=60_000,
        )
        assert tab.locator("div.plotly-chart").count() == (10 if which == "seeds" else 8)
        assert tab.locator("img").count() == 0  # no picture left as a PNG
        header = tab.locator("table.provenance").inner_text()
        for fact in ("workbench", "seeds", "cadence", "mode", "results digest"):
            assert fact in header, fact
        assert ("data fingerprint" in header) == (which == "historical")
        for anchor in SECTIONS:
            assert tab.locator(f"h2#{anchor}").is_visible(), anchor
        assert tab.locator("table.key-metrics th[title]").count() >= 5  # hover definitions
        hidden = tab.evaluate(  # every key-metrics table fits its box: no column off-screen
            "() => [...document.querySelectorAll('table.key-metrics')].filter("
            "t => t.parentElement.scrollWidth > t.parentElement.clientWidth + 1).length"
        )
        assert hidden == 0
        assert (which == "seeds") == tab.locator("h2#headline-metrics").is_visible()
        _hover_and_toggle_an_arm(tab, which)
        for name in PICTURES:
            if which == "seeds" or name not in ("news", "returns_by_seed"):
                _hover_a_picture(tab, name, which)
        assert tab.locator("ol.definitions li").count() >= 5
        ARTIFACTS.mkdir(exist_ok=True)
        tab.screenshot(path=str(ARTIFACTS / f"report-{which}.png"), full_page=True)
        tab.emulate_media(media="print")
        overflow = tab.evaluate(
            "() => [...document.querySelectorAll('table')].filter("
            "t => t.getBoundingClientRect().right > document.body.getBoundingClientRect().right"
            " + 1).length"
        )
        assert overflow == 0, "a table is cut off when printed"
        tab.pdf(path=str(ARTIFACTS / f"report-{which}.pdf"))
    finally:
        tab.close()
