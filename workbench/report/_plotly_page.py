"""Interactive charts inside one self-contained HTML file that opens offline.

plotly.js (from the installed ``plotly`` package, never a CDN) is embedded once per
page, gzipped and base64-encoded: 4.8 MB of JavaScript becomes about 2 MB of text,
which the browser inflates with its built-in ``DecompressionStream`` before drawing.
Compressing costs about 0.2 CPU-s, so the packed text is kept in a cache folder
(``$WORKBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/workbench`` or ``~/.cache/workbench``)
under a name made of plotly's version, the bundle's size and modification time and
zlib's version: every later process reads it instead and serves it only when it inflates
to exactly the installed plotly.js (about 25 ms in all). Any other file, damaged or
edited, is compressed anew and replaced, so what a report runs is plotly's code, never a
cache file's; a cache that cannot be read or written is passed by, never an error.
Writing a new file removes what this module wrote there that no one will read: the
files of other plotly versions and temporary files a stopped writer left.
Each chart is an empty ``div`` followed by its spec as JSON; one script at the end of
the page draws them all. Without ``plotly`` installed, ``plotly_js()`` is None and the
report falls back to its static charts.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import gzip
import hashlib
import html
import json
import os
import pkgutil
import re
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

PLOTLY_CONFIG = {"displaylogo": False, "responsive": True, "scrollZoom": False}

# The names this module gives files in the cache folder; nothing else there is touched.
_KEPT_NAME = re.compile(r"plotly-(?P<version>.+)-[0-9a-f]{16}\.b64")
_TEMPORARY_NAME = re.compile(r"\.plotly-[A-Za-z0-9_]+\.tmp")
# A temporary file is written and renamed within a second; one this old lost its writer.
_LEFTOVER_AFTER_S = 3600.0

_LOADER = """<script>
window.workbenchPlotly = (async () => {
  const packed = document.getElementById("workbench-plotly-js").textContent.trim();
  const bytes = Uint8Array.from(atob(packed), c => c.charCodeAt(0));
  const inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const code = document.createElement("script");
  code.textContent = await new Response(inflated).text();
  document.head.appendChild(code);
  return window.Plotly;
})();
</script>"""

_DRAW = """<script>
window.workbenchPlotly.then(Plotly => {
  for (const box of document.querySelectorAll("div.plotly-chart")) {
    const spec = JSON.parse(document.getElementById(box.id + "-spec").textContent);
    Plotly.newPlot(box, spec.data, spec.layout, CONFIG).then(() => box.dataset.drawn = "1");
  }
}).catch(error => {
  for (const box of document.querySelectorAll("div.plotly-chart"))
    box.textContent = "This browser could not load the interactive charts: " + error;
});
</script>"""

CSS = """
div.plotly-chart { width: 100%; min-height: 300px; }
@media print { div.plotly-chart { page-break-inside: avoid; } }
"""


@functools.cache
def plotly_js() -> str | None:
    """plotly.js gzipped (fixed mtime: the same bytes in any process) and base64-encoded,
    or None when the ``plotly`` package is not installed."""
    try:
        import plotly
    except ImportError:
        return None
    # what plotly.offline.get_plotlyjs() reads and decodes, kept as bytes (14 ms less)
    code = pkgutil.get_data("plotly", "package_data/plotly.min.js")
    if code is None:
        return None
    cached = _cache_file(plotly.__version__, Path(plotly.__file__))
    kept = _read_kept(cached, code) if cached else None
    if kept is not None:
        return kept
    text = base64.b64encode(_pack(code)).decode("ascii")
    if cached:
        _keep(cached, text)
    return text


def _pack(code: bytes) -> bytes:
    return gzip.compress(code, compresslevel=6, mtime=0)


_HEADER = _pack(b"")[:10]  # no name, no comment, mtime 0: the same in every process


def cache_folder() -> Path | None:
    """Where costs paid once per machine are kept (the packed plotly.js), or None when
    the environment names no folder and there is no home folder to hold one."""
    named = os.environ.get("WORKBENCH_CACHE_DIR")
    if named:
        return Path(named).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(base):  # the XDG rule: a relative path is ignored
        return Path(base) / "workbench"
    try:
        return Path.home() / ".cache" / "workbench"
    except RuntimeError:  # no HOME and a user id without a passwd entry
        return None


def _cache_file(version: str, package: Path) -> Path | None:
    folder = cache_folder()
    if folder is None:
        return None
    try:
        seen = (package.with_name("package_data") / "plotly.min.js").stat()
        stamp = f"{version}|{seen.st_size}|{seen.st_mtime_ns}|{zlib.ZLIB_RUNTIME_VERSION}"
    except OSError:
        stamp = f"{version}|unreadable"
    key = hashlib.sha256(stamp.encode()).hexdigest()[:16]
    return folder / f"plotly-{version}-{key}.b64"  # a _KEPT_NAME


def _keep(path: Path, text: str) -> None:
    """``text`` into ``path`` whole or not at all: a temporary file beside it, then
    renamed over it, so a process reading meanwhile sees the old file or this one."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".plotly-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(handle, "w", encoding="ascii") as sink:
            sink.write(text)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
    else:
        _prune(path)


def _prune(kept: Path) -> None:
    """Remove from ``kept``'s folder the files this module wrote that no one will read:
    the packed plotly.js of other plotly versions, and temporary files older than
    ``_LEFTOVER_AFTER_S`` (a writer at work now keeps its own). Only regular files with
    this module's names go, never a link or what it points to; one that cannot be
    removed stays, as the cache is no one's error."""
    own = _KEPT_NAME.fullmatch(kept.name)
    if own is None:
        return
    try:
        with os.scandir(kept.parent) as listing:
            entries = list(listing)
    except OSError:
        return
    now = time.time()
    for entry in entries:
        if _unread(entry, own["version"], now):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def _unread(entry: os.DirEntry[str], version: str, now: float) -> bool:
    """Whether ``entry`` is this module's file of another version or a leftover one."""
    kept = _KEPT_NAME.fullmatch(entry.name)
    if kept is None and _TEMPORARY_NAME.fullmatch(entry.name) is None:
        return False
    try:
        if not entry.is_file(follow_symlinks=False):
            return False
        if kept is not None:
            return kept["version"] != version
        return now - entry.stat(follow_symlinks=False).st_mtime > _LEFTOVER_AFTER_S
    except OSError:
        return False


def _read_kept(path: Path, code: bytes) -> str | None:
    """The text kept in ``path`` when it packs exactly ``code``, else None: a file cut
    short, damaged, edited or holding anything else is never served (no script from a
    cache file), nor is one that is not a regular file (a FIFO would block the read)."""
    try:
        if not path.is_file():
            return None
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None
    return text if _packs(text, code) else None


def _packs(text: str, code: bytes) -> bool:
    """Whether ``text`` is the base64 (in its one canonical spelling) of one gzip member
    with ``_pack``'s header whose content is exactly ``code`` (about 20 ms, against about
    150 ms to compress). What this cannot tell apart is another deflate encoding of the
    same code: the same script, bytes no writer but a hand would produce."""
    try:
        packed = base64.b64decode(text, validate=True)
        inflater = zlib.decompressobj(wbits=31)  # gzip: header, then checks CRC-32 and size
        inflated = inflater.decompress(packed)
    except (ValueError, zlib.error):
        return False
    return (
        inflater.eof
        and not inflater.unused_data
        and packed[:10] == _HEADER
        and inflated == code
        and base64.b64encode(packed) == text.encode("ascii")
    )


_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def chart_div(name: str, spec: dict[str, Any]) -> str:
    """One chart: its box and its spec, with ``<``, ``>`` and ``&`` written as JSON
    escapes (the same data) so no text in a spec can end or confuse its script."""
    text = json.dumps(spec, separators=(",", ":"), allow_nan=False).translate(_SCRIPT_SAFE)
    box = f"chart-{html.escape(name)}"
    return (
        f'<div class="plotly-chart" id="{box}"></div>'
        f'<script type="application/json" id="{box}-spec">{text}</script>'
    )


def page_scripts(packed: str) -> str:
    """What a page with ``chart_div``s needs once, at the end of its body."""
    config = json.dumps(PLOTLY_CONFIG)
    return (
        f'<script type="application/octet-stream" id="workbench-plotly-js">{packed}</script>\n'
        f"{_LOADER}\n{_DRAW.replace('CONFIG', config)}"
    )


__all__ = ["CSS", "chart_div", "page_scripts", "plotly_js"]
