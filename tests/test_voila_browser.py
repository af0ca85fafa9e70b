"""The experiment panel served by Voilà and driven in headless Chromium.

Voilà runs a copy of ``notebooks/explore.ipynb`` top to bottom on a free loopback
port, with the code hidden; the test opens the page, waits for the panel, runs a
seed by clicking **Run**, reads the scorecard in the page, hovers the live chart
(plotly, every arm in its legend) and follows the status line's report link,
which Voilà serves (``.html`` added to its file allowlist, as docs/jupyter.md
says). A screenshot goes to ``test-artifacts/``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip

SERVED = r".*\.(png|jpg|gif|svg|html)"  # Voilà's default allowlist, and the report
pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"
    ),
]


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_up(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"voila exited:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/voila/static/", timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answers: up
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"voila did not come up:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def voila(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """Voilà serving a copy of explore.ipynb: (base URL, its folder)."""
    pytest.importorskip("voila", reason='the jupyter extra: pip install "workbench[jupyter]"')
    root = tmp_path_factory.mktemp("voila")
    shutil.copy(ROOT / "notebooks" / "explore.ipynb", root / "explore.ipynb")
    port = free_port()
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
           "JUPYTER_CONFIG_DIR": str(root / ".config")}  # fmt: skip
    command = [sys.executable, "-m", "voila", "explore.ipynb", "--no-browser",
               f"--port={port}", "--Voila.ip=127.0.0.1",
               f"--VoilaConfiguration.file_allowlist={SERVED}"]  # fmt: skip
    log = root / "voila.log"
    with log.open("w") as sink:
        server = subprocess.Popen(command, cwd=root, stdout=sink, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, server, log)
        yield base, root
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_the_panel_runs_a_seed_under_voila(voila: tuple[str, Path]) -> None:
    from playwright.sync_api import sync_playwright

    base, root = voila
    with sync_playwright() as driver:
        chromium = driver.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = chromium.new_page(viewport={"width": 1400, "height": 1100})
            page.goto(base, timeout=180_000)
            page.wait_for_selector(".workbench-run", timeout=180_000)
            page.wait_for_function(
                "() => !document.querySelector('.workbench-run').disabled", timeout=120_000
            )
            seeds = page.locator(".workbench-seeds input")
            seeds.fill("11")
            seeds.press("Tab")
            page.locator(".workbench-run").click()
            # the notebook's own run (seed 7) already says "done": wait for this run's seed
            page.wait_for_function(
                "() => [...document.querySelectorAll('.workbench-scorecard tbody th')]"
                ".some(th => th.textContent.trim() === '11')",
                timeout=120_000,
            )
            page.wait_for_function(
                "() => /done in .*1 seed\\(s\\)/.test("
                "document.querySelector('.workbench-status').textContent)",
                timeout=120_000,
            )
            page.wait_for_selector(".workbench-status a", timeout=180_000)  # the report, written
            href = page.locator(".workbench-status a").get_attribute("href") or ""
            assert href.startswith("/voila/files/out/"), href
            report = page.request.get(urllib.parse.urljoin(base + "/", href))
            assert report.status == 200 and "<html" in report.text()[:500].lower()
            text = page.locator(".workbench-scorecard table").inner_text()
            for arm in ("slow_trend", "buy_and_hold", "momentum"):
                assert arm in text, f"{arm} missing from the scorecard:\n{text}"
            assert "async def slow_trend" not in page.inner_text("body")  # the code is hidden
            _the_live_chart_is_interactive(page)
            ARTIFACTS.mkdir(exist_ok=True)
            page.locator(".workbench-panel").screenshot(path=str(ARTIFACTS / "voila-panel.png"))
        finally:
            chromium.close()
    assert list((root / "out").rglob("report.html")), "the run's report was written"


CHART = ".js-plotly-plot.workbench-chart"  # the widget's own element is the plotly graph


def _the_live_chart_is_interactive(page) -> None:
    """The panel's plotly chart is drawn from the widget (plotly.js served with it, not from
    the network): every arm in its legend, and hovering it names an arm."""
    page.wait_for_function(
        f"() => document.querySelector('{CHART}')?._fullData?.some("
        "t => t.hovertemplate && t.x.length > 1)",
        timeout=60_000,
    )
    legend = page.locator(f"{CHART} .legend").text_content() or ""
    for arm in ("slow_trend", "buy_and_hold", "momentum"):
        assert arm in legend, f"{arm} missing from the chart's legend:\n{legend}"
    chart = page.locator(CHART)
    chart.scroll_into_view_if_needed()
    point = page.evaluate(  # a point of the arm farthest from the others there, on screen
        f"""() => {{
            const gd = document.querySelector('{CHART}');
            const lines = gd._fullData.filter(t => t.hovertemplate && t.legendgroup);
            const i = Math.floor(lines[0].x.length * 0.7);
            const gap = t => Math.min(...lines.filter(o => o !== t).map(
                o => Math.abs(o.y[i] - t.y[i])), Infinity);
            const line = lines.reduce((a, b) => gap(b) > gap(a) ? b : a);
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
            const box = gd.getBoundingClientRect();
            return [line.name, box.left + xa._offset + xa.l2p(line.x[i]),
                    box.top + ya._offset + ya.l2p(line.y[i])];
        }}"""
    )
    name, x, y = point
    page.mouse.move(x - 30, y - 30)
    page.mouse.move(x, y, steps=4)
    page.wait_for_function(
        f"() => document.querySelector('{CHART} .hoverlayer').textContent.length > 0"
    )
    label = chart.locator(".hoverlayer").text_content() or ""
    assert "day " in label and "equity" in label and name in label, label
    page.mouse.move(0, 0)
