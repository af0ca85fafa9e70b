"""The panel's live equity chart: a plotly ``FigureWidget`` kept for the whole run.

Why plotly's FigureWidget: the report's charts and ``workbench.plot`` are
plotly already, so the panel's chart hovers, zooms and toggles its legend the
same way; it is an ordinary Jupyter widget (through ``anywidget``), so it works
in JupyterLab and under Voilà, and its plotly.js comes from the installed
package with the widget, never from the network. What made the old PNG chart
lag was rendering a whole picture per frame. Here the traces are made once per
arm and a redraw only replaces their points (one ``plotly_update`` message per
frame, see ``_Update``), so a draw is cheap and its cost is bounded by arms x
``MAX_POINTS``, never by the length of the run. A redraw sets data, not view:
what the reader zoomed into and the arms they hid in the legend stay as they were.

Each arm is a line (hover names the arm, the day and the value) and, with
several seeds shown at once, a shaded min-max range in its legend group, so one
legend click hides both. On a market that publishes information the items
released so far sit along the foot of the chart (``_news``): ticks coloured by
the move the simulator knows each carried, triangles for earnings, crosses for
injected instructions; hovering one says what it was and when.

Without plotly (or anywidget) the chart is a matplotlib PNG (``_chart_png``).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from workbench.report._spec import day_labels
from workbench.report.svg import COLOURS
from workbench.widgets._curves import Curve, Frame, LiveChart
from workbench.widgets._news import EARNINGS_MARKER, LOOKS, NewsMarks

_SYMBOLS = {"|": "line-ns-open", "x": "x-thin-open", EARNINGS_MARKER: "triangle-up"}
_FOOT = {False: 0.03, True: 0.08}  # height of a mark on the chart's foot: plain, earnings
NEWS_TRACES = len(LOOKS) + 1  # the first traces: one per look, then earnings (any look)
_HOVER = "<b>%{fullData.name}</b><br>%{text}<br>%{meta} %{y:.2f}<extra></extra>"
_NONE = np.zeros(0)
_NEWS_HOVER = "%{hovertext}<br>%{text}<extra>%{fullData.name}</extra>"


def live_chart(steps_per_day: int, title: str) -> LiveChart:
    """The interactive chart, or the PNG one where plotly or anywidget is missing."""
    try:
        import anywidget  # noqa: F401
        import plotly.graph_objects  # noqa: F401
    except ImportError:
        from workbench.widgets._chart_png import PngChart

        return PngChart(steps_per_day, title)
    return PlotlyChart(steps_per_day, title)


class PlotlyChart(LiveChart):
    """Arms' lines and ranges, and the news marks, updated in place (see the module doc)."""

    def __init__(self, steps_per_day: int, title: str) -> None:
        self.widget = _figure_class()(layout=_layout(title))
        for look, (label, colour, marker) in LOOKS.items():
            self.widget.add_scatter(**_news_trace(label, colour, marker), uid=f"news-{look}")
        earnings = _news_trace("earnings", "#555555", EARNINGS_MARKER)
        self.widget.add_scatter(**earnings, uid="news-earnings")
        self.traces: dict[str, tuple[int, int, int]] = {}  # arm -> (low, high, line)
        super().__init__(steps_per_day, title)

    def reset(self, steps_per_day: int, title: str) -> None:
        """Empty the chart for a new run: no arms, no marks, the view back to its start."""
        super().reset(steps_per_day, title)
        self.x_end: float | None = None
        self.widget.data = self.widget.data[:NEWS_TRACES]
        self.traces = {}
        update = _Update(len(self.widget.data))
        _news(update, None, self.steps_per_day)
        update.relayout = {"title.text": title, "yaxis.autorange": True}
        update.send(self.widget)

    def show(self, frame: Frame) -> None:
        for curve in frame.curves:
            if curve.arm not in self.traces:
                self._add_arm(curve.arm)
        shown = {curve.arm: curve for curve in frame.curves}
        update = _Update(len(self.widget.data))
        for arm, indexes in self.traces.items():
            _curve(update, indexes, shown.get(arm), self.steps_per_day)
        _news(update, frame.news, self.steps_per_day)
        update.relayout["title.text"] = frame.title
        if frame.x_end != self.x_end:  # a new run's length; later the reader's zoom stays
            update.relayout["xaxis.range"] = [0, frame.x_end]
            self.x_end = frame.x_end
        update.send(self.widget)
        self.drawn = frame.drawn

    def _add_arm(self, arm: str) -> None:
        colour = COLOURS[len(self.traces) % len(COLOURS)]
        first = len(self.widget.data)
        edge = {"mode": "lines", "legendgroup": arm, "showlegend": False, "hoverinfo": "skip"}
        self.widget.add_scatter(name=arm, line={"width": 0, "color": colour}, **edge)
        self.widget.add_scatter(
            name=arm, line={"width": 0, "color": colour}, fill="tonexty",
            fillcolor=_faded(colour), **edge,
        )  # fmt: skip
        self.widget.add_scatter(
            name=arm, mode="lines", legendgroup=arm, line={"width": 1.8, "color": colour},
            hovertemplate=_HOVER, meta="equity",
        )  # fmt: skip
        self.traces[arm] = (first, first + 1, first + 2)


class _Update:
    """One plotly update of the whole figure: properties per trace, and of the layout.

    Sent with ``plotly_update``, which stores the values as they are (the traces were
    validated when made; these are plain arrays and strings) and sends what changed
    in one message. Setting them one by one on the traces would validate every array
    again, which costs more than everything else in a redraw.
    """

    def __init__(self, traces: int) -> None:
        self.traces = traces
        self.restyle: dict[str, list[Any]] = {}
        self.relayout: dict[str, Any] = {}

    def put(self, index: int, values: dict[str, Any]) -> None:
        from plotly.basedatatypes import Undefined  # what a trace left as it is gets

        for key, value in values.items():
            self.restyle.setdefault(key, [Undefined] * self.traces)[index] = value

    def send(self, figure: Any) -> None:
        every = list(range(self.traces))
        figure.plotly_update(restyle_data=self.restyle, relayout_data=self.relayout,
                             trace_indexes=every)  # fmt: skip


def _curve(
    update: _Update, indexes: tuple[int, int, int], curve: Curve | None, steps_per_day: int
) -> None:
    """An arm's line and its shaded range (empty where the frame has no such arm); hover
    names each point's trading day, and its step on intraday cadences, as the report does."""
    low, high, line = indexes
    x, y = (_NONE, _NONE) if curve is None else (curve.x, curve.y)
    edge, bottom, top = _range(curve)
    meta = "mean equity" if edge.size else "equity"
    update.put(line, {"x": x, "y": y, "text": day_labels(x, steps_per_day), "meta": meta})
    update.put(low, {"x": edge, "y": bottom})
    update.put(high, {"x": edge, "y": top})


def _news(update: _Update, news: NewsMarks | None, steps_per_day: int) -> None:
    """The items released so far, one trace per look and one for earnings reports."""
    for index in range(NEWS_TRACES):
        update.put(index, {"showlegend": news is not None})
    if news is None:
        for index in range(NEWS_TRACES):
            update.put(index, {"x": _NONE, "y": _NONE, "hovertext": [], "text": []})
        return
    for index, look in enumerate(LOOKS):
        _marks(update, index, news, (news.look == look) & ~news.earnings, steps_per_day)
    _marks(update, NEWS_TRACES - 1, news, news.earnings, steps_per_day)
    colours = [LOOKS[int(look)][1] for look in news.look[news.earnings]]
    update.put(NEWS_TRACES - 1, {"marker.color": colours, "marker.line.color": colours})


@functools.cache
def _figure_class() -> type:
    """plotly's FigureWidget, whose state is the figure as it is now (see ``get_state``)."""
    from copy import deepcopy

    import plotly.graph_objects as go

    class LiveFigure(go.FigureWidget):
        def get_state(self, key: Any = None, drop_defaults: bool = False) -> Any:
            """A front end that connects after the figure changed (a page opened under
            Voilà after its notebook ran, a reloaded JupyterLab tab) gets the figure as it
            is now. plotly keeps the synced copy as it was when the widget was made or
            displayed and sends changes as messages, which a late front end never saw;
            the copy is refreshed here, silently (it is sent with this state)."""
            if key is None and hasattr(self, "_layout_obj"):  # whole state, figure made
                self._trait_values["_widget_data"] = deepcopy(self._data)
                self._trait_values["_widget_layout"] = deepcopy(self._layout_obj._props)
            return super().get_state(key, drop_defaults)

    return LiveFigure


def _range(curve: Curve | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, low, high) of ``curve``'s shaded range; empty when it has none."""
    if curve is None or curve.low is None or curve.high is None:
        return _NONE, _NONE, _NONE
    return curve.x, curve.low, curve.high


def _marks(
    update: _Update, index: int, news: NewsMarks, picked: np.ndarray, steps_per_day: int
) -> None:
    """Trace ``index`` shows the ``picked`` items of ``news``, along the chart's foot."""
    height = _FOOT[index == NEWS_TRACES - 1]
    x = news.x[picked]
    update.put(index, {"x": x, "y": np.full(int(picked.sum()), height),
                       "hovertext": news.about[picked].tolist(),
                       "text": day_labels(x, steps_per_day)})  # fmt: skip


def _news_trace(label: str, colour: str, marker: str) -> dict[str, Any]:
    return {
        "name": label, "mode": "markers", "yaxis": "y2", "showlegend": False,
        "marker": {"color": colour, "size": 9, "symbol": _SYMBOLS[marker],
                   "line": {"width": 1.5, "color": colour}},
        "hovertemplate": _NEWS_HOVER, "x": [], "y": [],
    }  # fmt: skip


def _layout(title: str) -> dict[str, Any]:
    return {
        "title": {"text": title, "font": {"size": 13}, "x": 0.02},
        "width": 820, "height": 340, "template": "plotly_white", "hovermode": "closest",
        "margin": {"l": 55, "r": 10, "t": 40, "b": 40},
        "xaxis": {"title": {"text": "trading day"}, "range": (0, 1)},
        "yaxis": {"title": {"text": "equity (start = 100)"}},
        "yaxis2": {"overlaying": "y", "range": (0, 1), "visible": False, "fixedrange": True},
        "legend": {"x": 1.02, "y": 1.0, "font": {"size": 11}},
    }  # fmt: skip


def _faded(colour: str) -> str:
    red, green, blue = (int(colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgba({red},{green},{blue},0.15)"
