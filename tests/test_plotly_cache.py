"""The packed plotly.js kept in the cache folder: the same text as compressing it anew,
read by later processes, served only when it packs the installed plotly.js exactly
(never a script from a damaged or edited file), and never an error when unusable. Writing
one removes this module's files of other plotly versions and its stale temporary files,
nothing else."""

from __future__ import annotations

import base64
import gzip
import os
import pwd
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from workbench.report import _plotly_page

pytest.importorskip("plotly")


def _code() -> bytes:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs().encode("utf-8")


def _compressed_anew() -> str:
    packed = gzip.compress(_code(), compresslevel=6, mtime=0)
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


def _kept(cache: Path) -> Path:
    (kept,) = cache.glob("plotly-*.b64")
    return kept


def test_the_cached_text_is_the_text_compressed_anew(cache: Path) -> None:
    first = _fresh()
    assert first == _compressed_anew() == _kept(cache).read_text()
    assert _fresh() == first
    assert not list(cache.glob(".plotly-*")), "no temporary file left behind"


def test_a_later_process_reads_the_cache_rather_than_compressing(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _fresh()

    def refuse(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("compressed again")

    monkeypatch.setattr(_plotly_page.gzip, "compress", refuse)
    assert _fresh() == first


def _other_code(text: str) -> str:
    """A cache file that packs a script of someone else's: valid base64 of valid gzip."""
    packed = gzip.compress(b"alert('not plotly')", compresslevel=6, mtime=0)
    return base64.b64encode(packed).decode("ascii")


def _cut_at_a_multiple_of_four(text: str) -> str:
    return text[: len(text) // 8 * 4]


def _markup_inside(text: str) -> str:
    """Characters base64 decoding would skip unless it validates: the same bytes decoded."""
    return text[:100] + "</script><script>alert(1)</script>" + text[100:]


def _two_members(text: str) -> str:
    packed = base64.b64decode(text) + gzip.compress(b"", mtime=0)
    return base64.b64encode(packed).decode("ascii")


def _another_header(text: str) -> str:
    packed = bytearray(base64.b64decode(text))
    packed[4] = 1  # an mtime of 1 s: the same code inflated, other bytes in the report
    return base64.b64encode(bytes(packed)).decode("ascii")


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: "",
        lambda text: "QUJ",
        lambda text: "é",
        lambda text: text[: len(text) // 2],
        _cut_at_a_multiple_of_four,
        _other_code,
        _markup_inside,
        _two_members,
        _another_header,
        lambda text: text + "\n",
    ],
    ids=[
        "empty",
        "not-base64",
        "not-ascii",
        "cut-in-half",
        "cut-at-4n",
        "other-code",
        "markup-inside",
        "two-members",
        "other-header",
        "newline",
    ],
)
def test_a_damaged_or_edited_cache_file_is_compressed_again_and_replaced(
    cache: Path, damage: Callable[[str], str]
) -> None:
    whole = _fresh()
    assert whole is not None
    edited = damage(whole)
    assert edited != whole
    _kept(cache).write_text(edited, encoding="utf-8")
    assert _fresh() == _compressed_anew() == _kept(cache).read_text()


def test_only_the_one_canonical_packing_of_the_code_passes() -> None:
    code = next(b"x" * n for n in range(100) if len(_plotly_page._pack(b"x" * n)) % 3)
    text = base64.b64encode(_plotly_page._pack(code)).decode("ascii")
    assert _plotly_page._packs(text, code)
    assert not _plotly_page._packs(text, code + b" ")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    body = text.rstrip("=")
    respelt = body[:-1] + alphabet[alphabet.index(body[-1]) | 1] + text[len(body) :]
    assert respelt != text
    assert base64.b64decode(respelt) == base64.b64decode(text), "the same bytes, spelt otherwise"
    assert not _plotly_page._packs(respelt, code)


def test_a_cache_file_that_is_no_regular_file_is_passed_by(cache: Path) -> None:
    _fresh()
    kept = _kept(cache)
    kept.unlink()
    os.mkfifo(kept)  # reading it would wait for a writer forever
    assert _fresh() == _compressed_anew()
    assert kept.is_file(), "replaced by the packed text"


def test_a_cache_file_that_is_a_folder_is_passed_by(cache: Path) -> None:
    _fresh()
    kept = _kept(cache)
    kept.unlink()
    kept.mkdir()
    assert _fresh() == _compressed_anew()


def test_another_plotly_bundle_is_another_cache_file(cache: Path, tmp_path: Path) -> None:
    package = tmp_path / "plotly" / "__init__.py"
    bundle = package.with_name("package_data") / "plotly.min.js"
    bundle.parent.mkdir(parents=True)
    bundle.write_text("x")
    one = _plotly_page._cache_file("7.0.0", package)
    assert one is not None
    assert _plotly_page._cache_file("7.0.1", package) != one
    bundle.write_text("xy")
    assert _plotly_page._cache_file("7.0.0", package) != one
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
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # ignored, as the XDG rule says
    assert _plotly_page.cache_folder() == Path.home() / ".cache" / "workbench"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert _plotly_page.cache_folder() == Path.home() / ".cache" / "workbench"


def test_without_a_home_folder_there_is_no_cache_and_still_the_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unknown(uid: int) -> pwd.struct_passwd:
        raise KeyError(uid)

    for name in ("WORKBENCH_CACHE_DIR", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(pwd, "getpwuid", unknown)
    monkeypatch.chdir(tmp_path)
    assert _plotly_page.cache_folder() is None
    assert _fresh() == _compressed_anew()
    assert list(tmp_path.iterdir()) == [], "nothing written where the process runs"
    _plotly_page.plotly_js.cache_clear()


_KEY = "0123456789abcdef"


def _this_versions() -> Path:
    """The cache file of the installed plotly."""
    import plotly

    path = _plotly_page._cache_file(plotly.__version__, Path(plotly.__file__))
    assert path is not None
    return path


def _hours_old(path: Path, hours: float) -> Path:
    then = path.lstat().st_mtime - hours * 3600
    os.utime(path, (then, then), follow_symlinks=False)
    return path


def test_writing_a_new_file_removes_this_modules_files_of_other_plotly_versions(
    cache: Path, tmp_path: Path
) -> None:
    cache.mkdir()
    (cache / f"plotly-5.24.1-{_KEY}.b64").write_text("old")
    (cache / "plotly-6.0.0rc1-fedcba9876543210.b64").write_text("old")
    others = ["notes.txt", "plotly-5.24.1.b64", f"plotly-5.24.1-{_KEY}.b64.bak", "plotly.b64"]
    for name in others:
        (cache / name).write_text("not ours")
    outside = tmp_path / "outside.b64"
    outside.write_text("someone else's")
    (cache / f"plotly-4.0.0-{_KEY}.b64").symlink_to(outside)
    (cache / f"plotly-3.0.0-{_KEY}.b64").mkdir()
    _fresh()
    kept = _this_versions()
    left = sorted(p.name for p in cache.iterdir())
    assert left == sorted(
        [kept.name, *others, f"plotly-4.0.0-{_KEY}.b64", f"plotly-3.0.0-{_KEY}.b64"]
    )
    assert outside.read_text() == "someone else's"  # a link is never followed nor removed


def test_this_versions_other_bundles_stay(cache: Path) -> None:
    import plotly

    cache.mkdir()
    same_version = cache / f"plotly-{plotly.__version__}-{_KEY}.b64"
    same_version.write_text("another environment's plotly of this version")
    _fresh()
    assert same_version.exists()


def test_temporary_files_left_over_an_hour_ago_go_and_fresh_ones_stay(
    cache: Path, tmp_path: Path
) -> None:
    cache.mkdir()
    left_over, writing = cache / ".plotly-ab12_xyz.tmp", cache / ".plotly-cd34_uvw.tmp"
    not_ours, link = cache / ".other-ab12_xyz.tmp", cache / ".plotly-ef56_rst.tmp"
    for path in (left_over, writing, not_ours):
        path.write_text("cut short")
    outside = tmp_path / "outside.tmp"
    outside.write_text("someone else's")
    link.symlink_to(outside)
    for path in (left_over, not_ours, link, outside):
        _hours_old(path, 2)
    _fresh()
    assert not left_over.exists()
    assert writing.exists(), "another process may be writing it right now"
    assert not_ours.exists() and link.is_symlink() and outside.exists()


def test_files_are_pruned_only_when_a_new_one_is_written(cache: Path) -> None:
    _fresh()
    older = cache / f"plotly-5.24.1-{_KEY}.b64"
    older.write_text("old")
    _fresh()  # read from the cache: nothing written, nothing removed
    assert older.exists()
    _this_versions().write_text("damaged")
    _fresh()
    assert not older.exists()


def test_a_file_that_cannot_be_removed_is_no_error(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.mkdir()
    older = cache / f"plotly-5.24.1-{_KEY}.b64"
    older.write_text("old")

    def refuse(path: object) -> None:
        raise PermissionError(f"cannot remove {path}")

    monkeypatch.setattr(_plotly_page.os, "unlink", refuse)
    assert _fresh() == _compressed_anew()
    assert older.exists()
