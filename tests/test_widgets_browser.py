"""The experiment panel driven in a real browser: JupyterLab on 127.0.0.1, headless Chromium.

The test starts its own JupyterLab server on a free loopback port with a private
token and workspace, opens a copy of ``notebooks/explore.ipynb``, runs every
cell, waits for the kernel to be idle and every cell to have run, then clicks
the panel: a two-seed run (scorecard checked in the page) and a long run that
is stopped. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import os
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
def page(lab):
    from playwright.sync_api import sync_playwright

    base, token, _ = lab
    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 1100})
            workspace = f"test-{secrets.token_hex(6)}"
            tab.goto(f"{base}/lab/workspaces/{workspace}/tree/explore.ipynb?reset&token={token}")
            _wait_for_idle_kernel(tab)
            _run_all_cells(tab)
            _wait_for_every_cell(tab)
            yield tab
        finally:
            browser.close()


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
        "() => /done in .*2 seed\\(s\\).*report/.test("
        "document.querySelector('.workbench-status').textContent)",
        timeout=90_000,
    )
    table = page.locator(".workbench-scorecard table.workbench-scorecard-table")
    text = table.inner_text()
    for arm in ("slow_trend", "buy_and_hold", "momentum"):
        assert text.count(arm) == 2, f"{arm} once per seed in:\n{text}"
    seeds = page.locator(".workbench-scorecard tbody th").all_inner_texts()
    assert "3" in seeds and "4" in seeds
    progress = page.locator(".workbench-progress")
    assert progress.count() == 1
    assert page.locator("img.workbench-chart").get_attribute("src")
    ARTIFACTS.mkdir(exist_ok=True)
    panel.screenshot(path=str(ARTIFACTS / "widgets-panel-run.png"))


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
        "() => /^stopped at step/.test(document.querySelector('.workbench-status').textContent)",
        timeout=30_000,
    )
    status = _status(page)
    assert "partial transcripts kept in" in status
    step = int(status.split("at step ")[1].split("/")[0])
    assert 0 < step < 400 * 6
    _, _, root = lab
    kept = list((root / "out" / "notebooks" / "explore").rglob("seed-5/trend.json"))
    assert kept and kept[0].stat().st_size > 0
    assert page.locator(".workbench-run").is_enabled()
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".workbench-panel").screenshot(path=str(ARTIFACTS / "widgets-panel-stopped.png"))
