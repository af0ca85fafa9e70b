"""Interactive charts inside one self-contained HTML file that opens offline.

plotly.js (from the installed ``plotly`` package, never a CDN) is embedded once per
page, gzipped and base64-encoded: 4.8 MB of JavaScript becomes about 2 MB of text,
which the browser inflates with its built-in ``DecompressionStream`` before drawing.
Compressing costs about 0.2 CPU-s, so the packed text is kept in a cache folder
(``$WORKBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/workbench`` or ``~/.cache/workbench``)
under a name made of plotly's version, the bundle's size and modification time and
zlib's version, with the text's SHA-256: every later process reads it instead (about
7 ms). A damaged cache file is written again; one that cannot be read or written is
passed by, never an error.
Each chart is an empty ``div`` followed by its spec as JSON; one script at the end of
the page draws them all. Without ``plotly`` installed, ``plotly_js()`` is None and the
report falls back to its static charts.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import html
import json
import os
import tempfile
import zlib
from pathlib import Path
from typing import Any

PLOTLY_CONFIG = {"displaylogo": False, "responsive": True, "scrollZoom": False}

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
    bundle = Path(plotly.__file__).with_name("package_data") / "plotly.min.js"
    cached = _cache_file(plotly.__version__, bundle)
    kept = _read_kept(cached)
    if kept is not None:
        return kept
    from plotly.offline import get_plotlyjs

    packed = gzip.compress(get_plotlyjs().encode("utf-8"), compresslevel=6, mtime=0)
    text = base64.b64encode(packed).decode("ascii")
    _keep(cached, text)
    return text


def cache_folder() -> Path:
    """Where costs paid once per machine are kept (the packed plotly.js)."""
    named = os.environ.get("WORKBENCH_CACHE_DIR")
    if named:
        return Path(named).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "workbench"


def _cache_file(version: str, bundle: Path) -> Path:
    try:
        seen = bundle.stat()
        stamp = f"{version}|{seen.st_size}|{seen.st_mtime_ns}|{zlib.ZLIB_RUNTIME_VERSION}"
    except OSError:
        stamp = f"{version}|unreadable"
    key = hashlib.sha256(stamp.encode()).hexdigest()[:16]
    return cache_folder() / f"plotly-{version}-{key}.b64"


def _keep(path: Path, text: str) -> None:
    """``text`` and its digest into ``path`` whole or not at all: a temporary file beside
    it, then renamed over it, so a process reading meanwhile sees the old file or this one."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".plotly-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(handle, "w", encoding="ascii") as sink:
            sink.write(f"{_digest(text)}\n{text}")
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)


def _read_kept(path: Path) -> str | None:
    """The text ``_keep`` wrote into ``path``, or None when it is missing or damaged."""
    try:
        digest, _, text = path.read_text(encoding="ascii").partition("\n")
    except (OSError, UnicodeDecodeError):
        return None
    return text if text and digest == _digest(text) else None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()


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
