"""A recording's own copy of the news and fundamentals a historical run was given.

The checked tables are written into the recording (``news.parquet``,
``fundamentals.parquet``; publication times as UTC timestamps, symbols as lists)
with the timing rules, the company names and the canary count in the manifest's
``data.text``, so that a replay joins exactly the same text, plants the same
canaries and names no file outside its folder. A table edited since is refused by
its digest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from workbench.engine.textfeed import TextData
from workbench.recordings import manifest as mf

NEWS_FILE, FUNDAMENTALS_FILE = "news.parquet", "fundamentals.parquet"


def save_text(text: TextData, folder: Path) -> dict[str, Any]:
    """Write the tables into ``folder``; what the manifest keeps to load them again."""
    folder.mkdir(parents=True, exist_ok=True)
    kept: dict[str, Any] = {"names": {s: list(n) for s, n in text.names.items()}}
    if text.news is not None:
        news = _zoned(text.news)
        news["symbols"] = news["symbols"].map(list)
        news.to_parquet(folder / NEWS_FILE, index=False)
        kept["news_path"] = NEWS_FILE
    if text.fundamentals is not None:
        _zoned(text.fundamentals).to_parquet(folder / FUNDAMENTALS_FILE, index=False)
        kept["fundamentals_path"] = FUNDAMENTALS_FILE
    return kept


def _zoned(table: pd.DataFrame) -> pd.DataFrame:
    return table.assign(published=pd.to_datetime(table["published"], unit="ns", utc=True))


def replayed_text(spec: dict[str, Any], folder: Path) -> dict[str, Any]:
    """``Historical.load``'s text keywords for the recorded text."""
    out: dict[str, Any] = {
        "names": spec.get("names") or None,
        "embargo": spec["embargo"],
        "close_time": spec["close_time"],
        "timezone": spec["timezone"],
        "canaries": spec.get("canaries", 0),
    }
    for key, what in (("news", "news file"), ("fundamentals", "fundamentals file")):
        if f"{key}_path" in spec:
            out[key] = mf.recording_file(folder, spec[f"{key}_path"], what)
    return out
