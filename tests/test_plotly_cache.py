"""The packed plotly.js kept in the cache folder: the same text as compressing it anew,
read by later processes, replaced when damaged, and never an error when unwritable."""

from __future__ import annotations

import base64
import gzip
import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.report import _plotly_page

pytest.importorskip("plotly")


def _compressed_anew() -> str:
    from plotly.offline import get_plotlyjs

    packed = gzip.compress(get_plotlyjs().encode("utf-8"), compresslevel=6, mtime=0)
    return base64.b64encode(packed).decode("ascii")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "cache"
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(folder))
    _plotly_page.plotly_js.cache_clear()
    yield folder
    _plotly_page.plotly_js.cache_clear()


def _fresh() -> str | None:
    """plotly_js as a new process would answer: nothing kept in this one."""
    _plotly_page.plotly_js.cache_clear()
    return _plotly_page.plotly_js()


def _kept_text(kept: Path) -> str:
    digest, _, text = kept.read_text().partition("\n")
    assert digest == hashlib.sha256(text.encode()).hexdigest()
    return text


def test_the_cached_text_is_the_text_compressed_anew(cache: Path) -> None:
    first = _fresh()
    (kept,) = cache.glob("plotly-*.b64")
    assert first == _compressed_anew() == _kept_text(kept)
    assert _fresh() == first
    assert not list(cache.glob(".plotly-*")), "no temporary file left behind"


def test_a_later_process_reads_the_cache_rather_than_compressing(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fresh()
    (kept,) = cache.glob("plotly-*.b64")
    _plotly_page._keep(kept, "QUJD")  # what the cache holds is what is served

    def refuse(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("compressed again")

    monkeypatch.setattr(_plotly_page.gzip, "compress", refuse)
    assert _fresh() == "QUJD"


@pytest.mark.parametrize("damage", ["", "QUJ", "é", "cut short"])
def test_a_damaged_cache_file_is_compressed_again_and_replaced(cache: Path, damage: str) -> None:
    _fresh()
    (kept,) = cache.glob("plotly-*.b64")
    whole = kept.read_text()
    kept.write_text(whole[: len(whole) // 2] if damage == "cut short" else damage)
    assert _fresh() == _compressed_anew() == _kept_text(kept)


def test_another_plotly_bundle_is_another_cache_file(cache: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "plotly.min.js"
    bundle.write_text("x")
    one = _plotly_page._cache_file("7.0.0", bundle)
    assert _plotly_page._cache_file("7.0.1", bundle) != one
    bundle.write_text("xy")
    assert _plotly_page._cache_file("7.0.0", bundle) != one
    assert one.parent == cache


def test_a_cache_folder_that_is_a_file_still_gives_the_text(cache: Path) -> None:
    cache.write_text("not a folder")
    assert _fresh() == _compressed_anew()


def test_the_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", "/somewhere/cache")
    assert _plotly_page.cache_folder() == Path("/somewhere/cache")
    monkeypatch.delenv("WORKBENCH_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert _plotly_page.cache_folder() == Path("/xdg/workbench")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert _plotly_page.cache_folder() == Path.home() / ".cache" / "workbench"
