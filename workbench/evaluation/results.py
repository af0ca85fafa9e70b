"""Results of an evaluation: pandas frames plus a byte-stable JSON form."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from workbench import _jsonio
from workbench.engine.execution import OrderRecord
from workbench.errors import ConfigError
from workbench.evaluation.columns import SCORECARD_COLUMNS as SCORECARD_COLUMNS  # its old home
from workbench.evaluation.columns import VOLATILE_COLUMNS
from workbench.evaluation.indented_json import indented

# One row per order: who decided it and when (the decision's day and step), then its record.
ORDER_COLUMNS = ("arm", "day", "step", *OrderRecord._fields)
ERROR_COLUMNS = ("arm", "day", "step", "kind", "message", "traceback")
# A traceback names files on this machine: shown to the user, left out of digests.
VOLATILE_ERROR_COLUMNS = ("traceback",)


def canonical_json(value: Any) -> str:
    """Results as JSON text: NaN and infinity become null (a metric with no value), then
    the one canonical form transcripts use, indented, with a final newline."""
    fast = _jsonio.json_by_orjson(value, indent=True)  # NaN and infinity as null already
    if fast is not None:
        return fast.decode("utf-8") + "\n"
    cleaned = _clean(value)
    text = indented(cleaned)  # the same bytes as json's own, a few times faster
    if text is None:
        text = _jsonio.canonical_json(cleaned, indent=2)
    return text + "\n"


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        if all(type(v) is float for v in value):  # an equity curve: the common, long case
            return [v if math.isfinite(v) else None for v in value]
        return [_clean(v) for v in value]
    if hasattr(value, "item"):  # numpy scalar
        return _clean(value.item())
    return value


def _records(frame: pd.DataFrame) -> list[dict[Any, Any]]:
    """``frame.to_dict(orient="records")``, the same values, from one list per column."""
    if frame.columns.empty or not frame.columns.is_unique:
        return frame.to_dict(orient="records")
    names = frame.columns.tolist()
    return _from_columns(names, [frame[name].tolist() for name in names])


def _card_records(card: pd.DataFrame) -> list[dict[Any, Any]]:
    """``to_dict``'s scorecard (volatile columns left out, the arm first), the same values."""
    kept = [name for name in card.columns if name not in VOLATILE_COLUMNS]
    arm = card.index.name
    plain = card.columns.is_unique and set(VOLATILE_COLUMNS) <= set(card.columns)
    # a column of pandas' own types (Int64 with NA...) is written as to_dict writes it
    if plain:  # the dtypes read once (a column each through card[n] costs some 8 us)
        dtypes = dict(zip(card.columns.tolist(), card.dtypes.tolist(), strict=True))
        plain = all(_listed_as_to_dict(dtypes[n]) for n in kept)
    if not plain or card.index.nlevels != 1 or not isinstance(arm, str) or arm in kept:
        return card.drop(columns=list(VOLATILE_COLUMNS)).reset_index().to_dict(orient="records")
    return _from_columns([arm, *kept], [card.index.tolist(), *(card[n].tolist() for n in kept)])


def _listed_as_to_dict(dtype: Any) -> bool:
    """Whether ``tolist`` gives a column of ``dtype`` as ``to_dict`` does: NumPy's types, and
    text whose missing value is NaN (pandas' ``str``; text missing as ``pd.NA`` is not)."""
    if isinstance(dtype, np.dtype):
        return True
    missing = getattr(dtype, "na_value", None) if isinstance(dtype, pd.StringDtype) else None
    return isinstance(missing, float) and math.isnan(missing)


def _records_without(frame: pd.DataFrame, left_out: tuple[str, ...]) -> list[dict[Any, Any]]:
    """``_records(frame.drop(columns=left_out))`` for the columns ``frame`` holds."""
    if len(frame) == 0 and frame.columns.is_unique:
        return []
    return _records(frame.drop(columns=[c for c in left_out if c in frame.columns]))


def _from_columns(names: list[Any], columns: list[list[Any]]) -> list[dict[Any, Any]]:
    """A dict per row of ``columns``, keyed by ``names`` (each row as long: one frame's)."""
    return list(map(dict, map(zip, repeat(names), zip(*columns, strict=True))))


def _lists(frame: pd.DataFrame) -> dict[Any, list[Any]]:
    """``{name: frame[name].tolist()}`` for each column; a frame of floats alone (equity,
    exposure) from one array, the same floats."""
    if frame.columns.is_unique and all(d == np.float64 for d in frame.dtypes.tolist()):
        return dict(zip(frame.columns.tolist(), frame.to_numpy().T.tolist(), strict=True))
    return {name: frame[name].tolist() for name in frame.columns}


def _redacted(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """``frame`` with secrets in ``column`` replaced by the redaction marker (a copy if any)."""
    from workbench.redaction import redact_texts

    if column not in frame.columns:
        return frame
    cleaned = redact_texts(frame[column].tolist())
    if cleaned is None:
        return frame
    frame = frame.copy()
    frame[column] = cleaned
    return frame


@dataclass
class Results:
    """What ``evaluate`` returns.

    - ``scorecard``: one row per arm (see ``workbench.evaluation.columns``);
    - ``equity``: marked-to-mid equity per arm at the close of every step (0 from
      the step an arm went bust on, never below);
    - ``exposure``: the same shape, each arm's gross exposure (sum of absolute
      position values at mid, in currency) at the close of every step;
    - ``orders``: one row per action, with fills, clips and refusals;
    - ``errors``: one row per failed decision (arm, day, step, kind, message, and the
      traceback of the agent's own code when it raised);
    - ``meta``: the experiment (seed, preset, universe, cadence, roster);
    - ``attribution``: one row per arm and step, the P&L split into market, sector,
      selection, timing and costs (``workbench.evaluation.attribution``). It is
      derived from the rest and the market, so it is not part of ``to_dict``, the
      JSON form or the digest; the scorecard carries its two shares.
    - ``information``: on a market that publishes items, one row per item with its
      ground truth (``workbench.evaluation.capture``), derived like attribution; the
      scorecard then carries ``news_pnl``, ``info_capture``, ``injected_followed`` and
      ``injected_placebo``.
    - ``closes``: every name's close at each trading step of the run (one column per
      symbol), kept for the report's price plots; derived from the market like
      attribution, so not part of ``to_dict`` or the digest (empty when read back).
    """

    scorecard: pd.DataFrame
    equity: pd.DataFrame
    orders: pd.DataFrame
    errors: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)
    exposure: pd.DataFrame = field(default_factory=pd.DataFrame)
    attribution: pd.DataFrame = field(default_factory=pd.DataFrame)
    information: pd.DataFrame = field(default_factory=pd.DataFrame)
    closes: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)

    def __post_init__(self) -> None:
        # exception messages reach these columns; no secret in them is shown or written
        self.scorecard = _redacted(self.scorecard, "last_error")
        self.errors = _redacted(_redacted(self.errors, "message"), "traceback")
        self.orders = _redacted(self.orders, "reason")

    def tearsheet(
        self, benchmark: str | None = None, *, split: Literal["cutoff"] | None = None
    ) -> pd.DataFrame:
        """Annualised return and volatility, Sortino, Calmar, hit rate, best and worst day,
        historical VaR and CVaR at 95 %, skew, excess kurtosis, gross exposure and,
        against ``benchmark`` (default ``buy_and_hold`` when it is an arm), beta, alpha,
        tracking error and information ratio: one row per arm (see ``tearsheet``).

        ``split="cutoff"`` adds a ``period`` level to the index: ``all`` (the row above)
        for every arm, then ``before``, ``after`` and ``gap`` (after - before) for each
        arm with a ``model_cutoff`` (``workbench.evaluation.cutoff``);
        ``.xs("all", level="period")`` is the table without it."""
        from workbench.evaluation.tearsheet import tearsheet

        steps = int(self.meta.get("steps_per_day") or 1)
        exposure = getattr(self, "exposure", None)
        whole = tearsheet(self.equity, steps, exposure=exposure, benchmark=benchmark)
        if split is None:
            return whole
        if split != "cutoff":
            raise ConfigError(f"split must be None or 'cutoff', got {split!r}")
        from workbench.evaluation.cutoff import split_tearsheet

        return split_tearsheet(self, whole)

    def calendar_returns(self, arm: str) -> pd.DataFrame:
        """``arm``'s compounded return % by month and year (calendar months on historical
        bars, trading months of 21 days otherwise); see ``tearsheet_frames``."""
        from workbench.evaluation.tearsheet_frames import calendar_returns

        return calendar_returns(self, self._arm(arm))

    def worst_drawdowns(self, arm: str, top: int = 5) -> pd.DataFrame:
        """``arm``'s ``top`` deepest drawdowns with their peak, trough and recovery."""
        from workbench.evaluation.tearsheet_frames import worst_drawdowns

        return worst_drawdowns(self, self._arm(arm), top)

    def rolling(self, window: int = 20, benchmark: str | None = None) -> pd.DataFrame:
        """Per day, each arm's rolling volatility %, Sortino and beta over ``window`` days."""
        from workbench.evaluation.tearsheet_frames import rolling_risk

        return rolling_risk(self, window, benchmark)

    def activity(self) -> pd.DataFrame:
        """Per day close, each arm's gross exposure, names held and the day's turnover."""
        from workbench.evaluation.tearsheet_frames import activity

        return activity(self)

    def _arm(self, arm: str) -> str:
        if arm not in self.equity.columns:
            raise ConfigError(f"no arm {arm!r} in these results; arms are {list(self.equity)}")
        return arm

    def to_dict(self, *, include_volatile: bool = False) -> dict[str, Any]:
        card = self.scorecard
        if not include_volatile:
            card = card.drop(columns=list(VOLATILE_COLUMNS))
        return {
            "meta": self.meta,
            "scorecard": card.reset_index().to_dict(orient="records"),
            "equity": {arm: self.equity[arm].tolist() for arm in self.equity.columns},
            "exposure": {arm: self.exposure[arm].tolist() for arm in self.exposure.columns},
            "orders": _records(self.orders),
            "errors": _records(self._stable_errors()),
        }

    def _stable_errors(self) -> pd.DataFrame:
        volatile = [c for c in VOLATILE_ERROR_COLUMNS if c in self.errors.columns]
        return self.errors.drop(columns=volatile)

    def to_json(self, *, include_volatile: bool = False) -> str:
        return canonical_json(self.to_dict(include_volatile=include_volatile))

    def digest(self) -> str:
        """SHA-256 of the deterministic part (everything but wall-clock latency): of
        ``to_json()``, its tables taken one list per column rather than through pandas."""
        stable = {
            "meta": self.meta,
            "scorecard": _card_records(self.scorecard),
            "equity": _lists(self.equity),
            "exposure": _lists(self.exposure),
            "orders": _records(self.orders),
            "errors": _records_without(self.errors, VOLATILE_ERROR_COLUMNS),
        }
        return hashlib.sha256(canonical_json(stable).encode()).hexdigest()

    def scorecard_json(self) -> str:
        card = self.scorecard.drop(columns=list(VOLATILE_COLUMNS)).reset_index()
        return canonical_json(card.to_dict(orient="records"))

    def save(self, out_dir: str | Path) -> dict[str, Path]:
        """Write scorecard (CSV + JSON), equity, exposure, orders and attribution (Parquet),
        results.json and timing.json; on a market that publishes items, its ground truth
        too (information.parquet, ``results.information``).

        Every file but timing.json (wall-clock latency) is byte-identical across runs.
        """
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {
            "scorecard_csv": out / "scorecard.csv",
            "scorecard_json": out / "scorecard.json",
            "equity": out / "equity.parquet",
            "exposure": out / "exposure.parquet",
            "orders": out / "orders.parquet",
            "attribution": out / "attribution.parquet",
            "results": out / "results.json",
            "timing": out / "timing.json",
        }
        stable = self.scorecard.drop(columns=list(VOLATILE_COLUMNS))
        stable.to_csv(paths["scorecard_csv"], lineterminator="\n")
        paths["timing"].write_text(canonical_json(self.scorecard[list(VOLATILE_COLUMNS)].to_dict()))
        paths["scorecard_json"].write_text(self.scorecard_json())
        self.equity.to_parquet(paths["equity"])
        self.exposure.to_parquet(paths["exposure"])
        self.orders.to_parquet(paths["orders"])
        self.attribution.to_parquet(paths["attribution"])
        paths["results"].write_text(self.to_json(), encoding="utf-8")
        if len(self.information):
            paths["information"] = out / "information.parquet"
            self.information.to_parquet(paths["information"])
        return paths

    def __repr__(self) -> str:
        return f"Results(arms={list(self.scorecard.index)}, meta={self.meta.get('preset')!r})"
