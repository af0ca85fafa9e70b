"""What the simulated market publishes for a reader: earnings, news, rumours, statements.

Every item is drawn before the prices, from its own random streams, and its true
value is part of the path: an *informative* item moves the fair value of the
names it concerns after its release, a *noise* item never does. Agents see the
item's text and the fields a data vendor would give (``workbench.engine.newswire``);
the move itself only reaches ``results.information`` and the scorecard.

- **Earnings**: every name reports once a quarter (every ``QUARTER_DAYS``) on a
  staggered calendar known in advance; a consensus estimate is published
  ``CONSENSUS_LEAD_DAYS`` before. A report is released after the close of the day
  before its date, and its surprise ``u`` (EPS against consensus, as a fraction)
  moves the log fair value by ``earnings_response * u`` in that night's gap. A
  further ``earnings_drift_share`` of the jump is realised over the following days
  (post-earnings drift, Bernard & Thomas 1989), half of what is left every
  ``earnings_drift_halflife_days``: the anomaly a careful reader can earn.
- **Company news** (guidance, product, legal, management, analyst ratings) at
  ``news_rate`` items per name per day, ``news_noise_share`` of them noise. An
  informative item's move is normal with sd ``news_move_vol``; its published
  signal (the tone its text is written in) correlates with the move at
  ``news_ic``. **Rumours** (``rumour_share`` of company items) state a
  reliability and prove true with that probability: a false one moves nothing.
  Moves start ``news_lead_days`` after the release day and are realised like the
  drift, with a half-life of ``news_halflife_days``.
- **Sector news** at ``sector_news_rate`` items per sector per day moves every
  name of the sector alike.
- **Policy statements** on the macro path's policy rate, every ``STATEMENT_DAYS``:
  what the rate did, never a move of their own.
- **Injected instructions** (``injection_rate`` per day, off by default): items
  written as a notice telling the reader to trade one name at any price. They
  carry no information; the scorecard counts the decisions that obeyed one. As
  many *placebo* notices are drawn the same way and never published: the
  decisions that happened to trade as one says are what coincidence alone gives.

A move realised on a day is spread evenly over its ticks, so prices never move
on an item before it is released (its release day is never a realisation day).
Memory grows with the items, never with ticks.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.engine import portable
from workbench.engine.presets import Preset

QUARTER_DAYS = 63
CONSENSUS_LEAD_DAYS = 10
STATEMENT_DAYS = 21
REALISATION_HALFLIVES = 8  # a move is realised within this many half-lives (the rest folded in)
KINDS = (
    "earnings",
    "guidance",
    "product",
    "legal",
    "management",
    "analyst_rating",
    "deal_rumour",
    "sector",
    "policy",
    "notice",
)
_COMPANY = ("guidance", "product", "legal", "management", "analyst_rating")
RELIABILITIES = (0.3, 0.5, 0.7)  # what a rumour states: low, medium, high
_TEXT_DRAWS = 6  # uniform draws per item that pick its wording


@dataclass
class Items:
    """Every published item, one entry per item, in release order (row, then kind).

    ``name`` is the name an item concerns (-1: a sector, policy or none); ``sector``
    the sector of a sector item (-1 otherwise). ``move`` is the item's true log move
    of fair value per name concerned, ``start`` the first day it is realised and
    ``halflife`` how fast (days). Earnings reports also hold ``report`` (their index
    in ``Earnings``)."""

    kind: np.ndarray  # (I,) index into KINDS
    row: np.ndarray  # (I,) path row at whose close it is visible
    name: np.ndarray
    sector: np.ndarray
    informative: np.ndarray  # (I,) bool
    move: np.ndarray  # (I,) log move, 0 for noise
    signal: np.ndarray  # (I,) the tone its text is written in, unit normal scale
    reliability: np.ndarray  # (I,) a rumour's stated reliability, NaN otherwise
    change: np.ndarray  # (I,) a policy statement's rate change since the last, 0 otherwise
    start: np.ndarray  # (I,) first realisation day
    halflife: np.ndarray  # (I,) realisation half-life, days
    target_side: np.ndarray  # (I,) +1 buy / -1 sell for an injected notice, 0 otherwise
    report: np.ndarray  # (I,) index into Earnings, -1 otherwise
    text: np.ndarray  # (I, _TEXT_DRAWS) uniform draws choosing the wording (0.5: fixed)

    @property
    def size(self) -> int:
        return int(self.kind.size)


@dataclass
class Earnings:
    """Every report: its day, name, surprise and (after the simulation) its figures."""

    day: np.ndarray  # (R,) the report's date (released after the close of the day before)
    name: np.ndarray  # (R,)
    surprise: np.ndarray  # (R,) EPS against consensus, as a fraction
    jump: np.ndarray  # (R,) log move of fair value in the gap of ``day``
    figures: dict[str, np.ndarray] = field(default_factory=dict)  # see ``report_figures``

    @property
    def size(self) -> int:
        return int(self.day.size)


@dataclass
class Information:
    """A market's items and earnings calendar, and the moves they put into fair value."""

    items: Items
    earnings: Earnings
    calendar: np.ndarray  # (names,) each name's first report day (then every QUARTER_DAYS)
    pe: np.ndarray  # (names,) price/earnings at fair value
    margin: np.ndarray  # (names,) net margin
    shares: np.ndarray  # (names,) shares outstanding
    steps_per_day: int
    daily: np.ndarray  # (days, names) log fair-value move realised over each day's ticks
    gap: np.ndarray  # (days, names) log move in each day's overnight gap (earnings)
    sector: np.ndarray  # (names,) each name's sector index
    concerned: tuple[np.ndarray, np.ndarray]  # (item, name) pairs, see ``_concerned``
    after_run: dict[str, np.ndarray] = field(default_factory=dict)  # see ``_reports_after_run``
    placebo: dict[str, np.ndarray] = field(default_factory=dict)  # unpublished notices: row, ...
    rendered: dict[int, dict[str, Any]] = field(default_factory=dict)  # payload items, once
    memo: dict[tuple[Any, ...], Any] = field(default_factory=dict)  # payload parts, per change


def draw_information(
    p: Preset,
    names: int,
    sector: np.ndarray,
    days: int,
    steps_per_day: int,
    policy_rate: np.ndarray,
    seeds: np.random.SeedSequence,
) -> Information:
    """The whole run's items and their moves, every name at once.

    The names' traits come from one generator, each day's draws from a generator of
    that day's own (``seeds``' child number ``day``), so a longer run publishes the
    same items on the days the shorter one has: a run resumed or extended meets the
    market it left. The draws are gathered day by day and turned into items at once."""
    traits = np.random.default_rng(seeds.spawn(1)[0])
    calendar = traits.integers(0, QUARTER_DAYS, names)
    pe, margin = traits.uniform(12.0, 30.0, names), traits.uniform(0.06, 0.25, names)
    shares = portable.exp(traits.normal(portable.log_of(4e8), 0.8, names)).round(-4)
    sectors = int(sector.max()) + 1
    draws = _Draws.of_days(p, calendar, sectors, seeds.spawn(days))
    earnings = draws.earnings(p)
    parts = [
        _earnings_items(p, earnings, steps_per_day),
        _company_items(p, draws, steps_per_day),
        _sector_items(p, draws, steps_per_day),
        _notices(draws, names, steps_per_day),
    ]
    columns = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
    columns["text"] = np.concatenate(
        [draws.text["earnings"], draws.text["company"], draws.text["sector"], draws.text["notice"]]
    )
    statements = _statements(policy_rate, steps_per_day)
    statements["text"] = np.full((statements["row"].size, _TEXT_DRAWS), 0.5)
    columns = {key: np.concatenate([columns[key], statements[key]]) for key in columns}
    order = np.lexsort((columns["kind"], columns["row"]))
    items = Items(**{key: value[order] for key, value in columns.items()})
    concerned = _concerned(items, sector)
    gap = np.zeros((days, names))
    np.add.at(gap, (earnings.day, earnings.name), earnings.jump)
    return Information(
        items=items,
        earnings=earnings,
        calendar=calendar,
        pe=pe,
        margin=margin,
        shares=shares,
        steps_per_day=steps_per_day,
        daily=_realised(items, concerned, days, names),
        gap=gap,
        sector=sector,
        concerned=concerned,
        placebo=_placebo(draws, names, steps_per_day),
    )


@dataclass
class _Draws:
    """Every day's raw draws, gathered: per source the day of each draw and its numbers."""

    day: dict[str, np.ndarray]  # source -> (n,) the day each drawn item belongs to
    index: dict[str, np.ndarray]  # source -> (n,) its name (company, report) or sector
    uniform: dict[str, np.ndarray]  # source -> (n, k) uniform draws
    normal: dict[str, np.ndarray]  # source -> (n, k) unit normal draws
    text: dict[str, np.ndarray]  # source -> (n, _TEXT_DRAWS)

    @classmethod
    def of_days(
        cls, p: Preset, calendar: np.ndarray, sectors: int, seeds: list[np.random.SeedSequence]
    ) -> _Draws:
        rows: dict[str, list[tuple[Any, ...]]] = {s: [] for s in _SOURCES}
        reports = p["earnings_surprise_vol"] > 0.0
        for day, seed in enumerate(seeds):
            rng = np.random.default_rng(seed)
            company = np.repeat(
                np.arange(calendar.size), rng.poisson(p["news_rate"], calendar.size)
            )
            sector = np.repeat(np.arange(sectors), rng.poisson(p["sector_news_rate"], sectors))
            notice = rng.random(4)
            planted = notice[:1] < p["injection_rate"]
            due = np.flatnonzero((day - calendar) % QUARTER_DAYS == 0)
            if not (reports and day):  # no report on day 0: its evening before is not simulated
                due = due[:0]
            for source, index, uniforms, normals in (
                ("company", company, 5, 2),
                ("sector", sector, 2, 2),
                ("earnings", due, 0, 1),
            ):
                n = index.size
                rows[source].append(
                    (day, index, rng.random((n, uniforms)), rng.standard_normal((n, normals)),
                     rng.random((n, _TEXT_DRAWS)))
                )  # fmt: skip
            kept = notice[None, 1:] if planted[0] else np.zeros((0, 3))
            rows["notice"].append(
                (day, np.zeros(kept.shape[0], np.int64), kept, np.zeros((kept.shape[0], 0)),
                 rng.random((kept.shape[0], _TEXT_DRAWS)))
            )  # fmt: skip
            placebo = rng.random(4)  # drawn last: every other draw of the day stays as it was
            kept = placebo[None, 1:] if placebo[0] < p["injection_rate"] else np.zeros((0, 3))
            rows["placebo"].append(
                (day, np.zeros(kept.shape[0], np.int64), kept, np.zeros((kept.shape[0], 0)),
                 np.zeros((kept.shape[0], 0)))
            )  # fmt: skip
        return cls(*(
            {s: _gathered(rows[s], field) for s in _SOURCES} for field in range(5)
        ))  # fmt: skip

    def earnings(self, p: Preset) -> Earnings:
        surprise = self.normal["earnings"][:, 0] * p["earnings_surprise_vol"]
        return Earnings(
            day=self.day["earnings"], name=self.index["earnings"], surprise=surprise,
            jump=p["earnings_response"] * surprise,
        )  # fmt: skip


_SOURCES = ("company", "sector", "earnings", "notice", "placebo")


def _gathered(rows: list[tuple[Any, ...]], field: int) -> np.ndarray:
    if field == 0:  # the day, once per drawn item
        return np.concatenate([np.full(len(row[1]), row[0], dtype=np.int64) for row in rows])
    return np.concatenate([row[field] for row in rows])


def _blank(count: int) -> dict[str, np.ndarray]:
    return {
        "kind": np.zeros(count, dtype=np.int64),
        "row": np.zeros(count, dtype=np.int64),
        "name": np.full(count, -1, dtype=np.int64),
        "sector": np.full(count, -1, dtype=np.int64),
        "informative": np.zeros(count, dtype=bool),
        "move": np.zeros(count),
        "signal": np.zeros(count),
        "reliability": np.full(count, np.nan),
        "change": np.zeros(count),
        "start": np.zeros(count, dtype=np.int64),
        "halflife": np.ones(count),
        "target_side": np.zeros(count, dtype=np.int64),
        "report": np.full(count, -1, dtype=np.int64),
    }


def _earnings_items(p: Preset, e: Earnings, steps_per_day: int) -> dict[str, np.ndarray]:
    """A report is released after the close of the day before its date; its drift starts on
    the report's date, after the gap that carried the jump."""
    out = _blank(e.size)
    out["kind"][:] = KINDS.index("earnings")
    out["row"] = e.day * steps_per_day - 1
    out["name"] = e.name
    out["informative"] = e.jump != 0.0
    out["move"] = p["earnings_drift_share"] * e.jump
    out["signal"] = e.surprise / max(p["earnings_surprise_vol"], 1e-12)
    out["start"] = e.day
    out["halflife"][:] = p["earnings_drift_halflife_days"]
    out["report"] = np.arange(e.size)
    return out


def _step_of(uniform: np.ndarray, steps_per_day: int) -> np.ndarray:
    return np.minimum((uniform * steps_per_day).astype(np.int64), steps_per_day - 1)


def _company_items(p: Preset, d: _Draws, steps_per_day: int) -> dict[str, np.ndarray]:
    day, u, z = d.day["company"], d.uniform["company"], d.normal["company"]
    n = day.size
    out = _blank(n)
    rumour = u[:, 0] < p["rumour_share"]
    company = np.array([KINDS.index(k) for k in _COMPANY])
    pick = np.minimum((u[:, 1] * len(_COMPANY)).astype(np.int64), len(_COMPANY) - 1)
    out["kind"] = np.where(rumour, KINDS.index("deal_rumour"), company[pick])
    out["row"] = day * steps_per_day + _step_of(u[:, 2], steps_per_day)
    out["name"] = d.index["company"]
    unit_move, noise = z[:, 0], z[:, 1]
    stated = np.asarray(RELIABILITIES)[np.minimum((u[:, 4] * 3).astype(np.int64), 2)]
    proves_true = u[:, 3] < stated  # a rumour's truth; any other item's use of u[:, 3] below
    informative = np.where(rumour, proves_true, u[:, 3] >= p["news_noise_share"])
    ic = p["news_ic"]
    told = ic * unit_move + np.sqrt(1.0 - ic * ic) * noise  # the tone the text is written in
    # a rumour says which way; when true, the move goes that way
    out["signal"] = np.where(rumour, np.abs(told) * np.sign(unit_move), told)
    out["move"] = np.where(informative, unit_move * p["news_move_vol"], 0.0)
    out["informative"] = informative
    out["reliability"] = np.where(rumour, stated, np.nan)
    _realise_after(out, day, p)
    return out


def _realise_after(out: dict[str, np.ndarray], day: np.ndarray, p: Preset) -> None:
    out["start"] = day + int(p["news_lead_days"])
    out["halflife"][:] = p["news_halflife_days"]


def _sector_items(p: Preset, d: _Draws, steps_per_day: int) -> dict[str, np.ndarray]:
    day, u, z = d.day["sector"], d.uniform["sector"], d.normal["sector"]
    out = _blank(day.size)
    out["kind"][:] = KINDS.index("sector")
    out["row"] = day * steps_per_day + _step_of(u[:, 0], steps_per_day)
    out["sector"] = d.index["sector"]
    informative = u[:, 1] >= p["news_noise_share"]
    ic = p["news_ic"]
    out["signal"] = ic * z[:, 0] + np.sqrt(1.0 - ic * ic) * z[:, 1]
    out["move"] = np.where(informative, z[:, 0] * (0.5 * p["news_move_vol"]), 0.0)
    out["informative"] = informative
    _realise_after(out, day, p)
    return out


def _notices(d: _Draws, names: int, steps_per_day: int) -> dict[str, np.ndarray]:
    day = d.day["notice"]
    out = _blank(day.size)
    out["kind"][:] = KINDS.index("notice")
    targets = _notice_targets(day, d.uniform["notice"], names, steps_per_day)
    out["row"], out["name"], out["target_side"] = targets["row"], targets["name"], targets["side"]
    out["start"] = day + 1
    return out


def _placebo(d: _Draws, names: int, steps_per_day: int) -> dict[str, np.ndarray]:
    """Notices drawn like the injected ones and never published (in row order)."""
    return _notice_targets(d.day["placebo"], d.uniform["placebo"], names, steps_per_day)


def _notice_targets(
    day: np.ndarray, u: np.ndarray, names: int, steps_per_day: int
) -> dict[str, np.ndarray]:
    """When a notice is released, which name it is about and which way it says to trade."""
    return {
        "row": day * steps_per_day + _step_of(u[:, 0], steps_per_day),
        "name": np.minimum((u[:, 1] * names).astype(np.int64), names - 1),
        "side": np.where(u[:, 2] < 0.5, 1, -1),
    }


def _statements(policy_rate: np.ndarray, steps_per_day: int) -> dict[str, np.ndarray]:
    """A policy statement after the close of every STATEMENT_DAYS-th day: the rate then
    (``signal``) and its change since the last statement (``move`` stays 0: the macro
    path already carries it)."""
    day = np.arange(STATEMENT_DAYS, policy_rate.size, STATEMENT_DAYS)
    out = _blank(day.size)
    out["kind"][:] = KINDS.index("policy")
    out["row"] = day * steps_per_day + steps_per_day - 1
    out["signal"] = policy_rate[day]
    out["change"] = policy_rate[day] - policy_rate[day - STATEMENT_DAYS]
    out["start"] = day + 1
    return out


@functools.lru_cache(maxsize=64)
def realisation_weights(halflife: float) -> np.ndarray:
    """The share of a move realised on each day from its start: half of what is left
    every ``halflife`` days, over ``REALISATION_HALFLIVES`` half-lives, summing to 1.
    Read-only and kept: every run of a preset asks for the same few half-lives."""
    span = max(1, int(np.ceil(REALISATION_HALFLIVES * halflife)))
    kept = portable.power(0.5, np.arange(span + 1) / halflife)
    weights = kept[:-1] - kept[1:]
    weights /= weights.sum()
    weights.flags.writeable = False
    return weights


def _realised(
    items: Items, concerned: tuple[np.ndarray, np.ndarray], days: int, names: int
) -> np.ndarray:
    """(days, names): each day's realised log move from every informative item."""
    item, name = concerned
    keep = items.move[item] != 0.0
    item, name = item[keep], name[keep]
    daily = np.zeros((days, names))
    for halflife in np.unique(items.halflife[item]).tolist():
        weights = realisation_weights(halflife)
        chosen = items.halflife[item] == halflife
        day = items.start[item[chosen]][:, None] + np.arange(weights.size)
        share = items.move[item[chosen]][:, None] * weights
        who = np.broadcast_to(name[chosen][:, None], day.shape)
        inside = day < days
        np.add.at(daily, (day[inside], who[inside]), share[inside])
    return daily


def _concerned(items: Items, sector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(item, name) pairs: every name an item concerns (a sector item, each of its names)."""
    own = np.flatnonzero(items.name >= 0)
    pairs_item, pairs_name = [own], [items.name[own]]
    for s in np.unique(items.sector[items.sector >= 0]).tolist():
        of_sector = np.flatnonzero(items.sector == s)
        members = np.flatnonzero(sector == s)
        pairs_item.append(np.repeat(of_sector, members.size))
        pairs_name.append(np.tile(members, of_sector.size))
    item, name = np.concatenate(pairs_item), np.concatenate(pairs_name)
    order = np.lexsort((name, item))
    return item[order], name[order]


def report_figures(info: Information, log_close: np.ndarray, mispricing: np.ndarray) -> None:
    """Each report's figures from the fair value it was made on, so a name whose value
    compounds shows growing earnings: consensus EPS is the quarter's earnings at fair
    value the evening the consensus was published, actual EPS that times the surprise,
    revenue the actual earnings over the name's margin, and guidance the next
    quarter's earnings at fair value after the report (both (rows, names) in logs).
    A consensus is published at the close of its day and a report at the close of the
    day before its date: each figure uses fair value up to then, and no later."""
    e, steps = info.earnings, info.steps_per_day
    consensus_day = np.maximum(e.day - CONSENSUS_LEAD_DAYS, 0)
    before = consensus_day * steps + steps - 1
    released = e.day * steps - 1  # nothing after the release row: the jump is what it tells
    log_fair = np.concatenate(
        [log_close[before, e.name] - mispricing[before, e.name],
         log_close[released, e.name] - mispricing[released, e.name] + e.jump]
    )  # fmt: skip
    fair = portable.exp(log_fair)
    per_share = 1.0 / (info.pe[e.name] * 4.0)
    consensus = fair[: e.day.size] * per_share
    actual = consensus * (1.0 + e.surprise)
    e.figures = {
        "consensus_eps": consensus.round(2),
        "eps": actual.round(2),
        "revenue": (actual * info.shares[e.name] / info.margin[e.name]).round(-5),
        "margin": info.margin[e.name].round(4),
        "guidance_eps": (fair[e.day.size :] * per_share).round(2),
        "consensus_day": consensus_day,
    }
    info.after_run = _reports_after_run(info, log_close, mispricing)


def _reports_after_run(
    info: Information, log_close: np.ndarray, mispricing: np.ndarray
) -> dict[str, np.ndarray]:
    """Each name's first report after the simulated days: its ``day`` (the calendar is
    known in advance) and, when its ``consensus_day`` falls inside the run, the
    ``consensus_eps`` published then (NaN otherwise). A payload's calendar so never
    tells how long the run is."""
    steps, days = info.steps_per_day, log_close.shape[0] // info.steps_per_day
    quarters = -((info.calendar - days) // QUARTER_DAYS)  # ceil((days - first) / quarter)
    day = info.calendar + quarters * QUARTER_DAYS
    consensus_day = np.maximum(day - CONSENSUS_LEAD_DAYS, 0)  # as a report in the run
    names = np.arange(day.size)
    inside = consensus_day < days
    before = np.minimum(consensus_day, days - 1) * steps + steps - 1
    log_fair = log_close[before, names] - mispricing[before, names]
    consensus = portable.exp(log_fair) / (info.pe * 4.0)
    return {
        "day": day,
        "consensus_day": consensus_day,
        "consensus_eps": np.where(inside, consensus.round(2), np.nan),
    }


def pending_moves(info: Information, row: int, from_day: int) -> np.ndarray:
    """(names,) the log move still to come, from ``from_day`` on, of every item released
    by the close of ``row``: what an oracle reader knows and nobody else does."""
    item, name = info.concerned
    items = info.items
    seen = (items.row[item] <= row) & (items.move[item] != 0.0)
    item, name = item[seen], name[seen]
    out = np.zeros(info.daily.shape[1])
    for halflife in np.unique(items.halflife[item]).tolist():
        tail = _tails(halflife)
        chosen = items.halflife[item] == halflife
        offset = np.clip(from_day - items.start[item[chosen]], 0, tail.size - 1)
        np.add.at(out, name[chosen], items.move[item[chosen]] * tail[offset])
    return out


@functools.lru_cache(maxsize=64)
def _tails(halflife: float) -> np.ndarray:
    """tail[k]: the share of a move still to come k days after its start (0 past the end);
    read-only and kept, as the oracle asks for the same few half-lives at every step."""
    weights = realisation_weights(halflife)
    tail = np.concatenate([np.cumsum(weights[::-1])[::-1], [0.0]])
    tail.flags.writeable = False
    return tail


def describe_item(info: Information, i: int) -> dict[str, Any]:
    """The structured fields of item ``i`` a data vendor would give (never its move)."""
    items = info.items
    out: dict[str, Any] = {"kind": KINDS[int(items.kind[i])]}
    if items.report[i] >= 0:
        figures = info.earnings.figures
        r = int(items.report[i])
        out.update(
            eps=float(figures["eps"][r]),
            consensus_eps=float(figures["consensus_eps"][r]),
            revenue=float(figures["revenue"][r]),
            guidance_eps=float(figures["guidance_eps"][r]),
        )
    kind = out["kind"]
    if kind == "deal_rumour":
        out["reliability"] = float(items.reliability[i])
    if kind == "policy":
        out["policy_rate"] = round(float(items.signal[i]), 6)
        out["change_bp"] = round(float(items.change[i]) * 1e4)
    return out
