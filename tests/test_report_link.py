"""The panel's report link: relative in JupyterLab, under Voilà's file route in Voilà."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.widgets._views import report_href


@pytest.fixture
def report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "out" / "run-1" / "report.html"
    path.parent.mkdir(parents=True)
    path.write_text("<html></html>")
    return path


def test_in_jupyterlab_the_link_is_relative_to_the_notebook(report: Path) -> None:
    assert report_href(report, {}) == "out/run-1/report.html"


def test_voila_serving_one_notebook_links_under_its_files_route(report: Path) -> None:
    environ = {"VOILA_SERVER_URL": "/", "VOILA_REQUEST_URL": "http://127.0.0.1:8866/"}
    assert report_href(report, environ) == "/voila/files/out/run-1/report.html"


def test_voila_serving_a_folder_adds_the_notebook_s_folder(report: Path) -> None:
    page = "http://host:8866/base/voila/render/notebooks/explore.ipynb?x=1"
    environ = {"VOILA_SERVER_URL": "/base", "VOILA_REQUEST_URL": page}
    assert report_href(report, environ) == "/base/voila/files/notebooks/out/run-1/report.html"
