"""Interactive charts inside one self-contained HTML file that opens offline.

plotly.js (from the installed ``plotly`` package, never a CDN) is embedded once per
page, gzipped and base64-encoded: 4.8 MB of JavaScript becomes about 2 MB of text,
which the browser inflates with its built-in ``DecompressionStream`` before drawing.
Each chart is an empty ``div`` followed by its spec as JSON; one script at the end of
the page draws them all. Without ``plotly`` installed, ``plotly_js()`` is None and the
report falls back to its static charts.
"""

from __future__ import annotations

import base64
import functools
import gzip
import html
import json
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
        from plotly.offline import get_plotlyjs
    except ImportError:
        return None
    packed = gzip.compress(get_plotlyjs().encode("utf-8"), compresslevel=6, mtime=0)
    return base64.b64encode(packed).decode("ascii")


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
