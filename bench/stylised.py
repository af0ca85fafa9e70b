"""Stylised facts of every shipped preset, each against its target band, and the engine speed.

    python bench/stylised.py [--names 50] [--days 500] [--seeds 3] [--groups N] [--first-seed S]

Daily statistics from the simulator's own columns only (no outside data), per name
and summarised by the median over names and seeds (workbench.engine.stylised says
how each is computed and where it comes from). The bands are the targets for
standard-v1; calm-v1 should sit on the quiet side of it and the crisis presets on
the stressed side, and the stressed presets with downward jumps (crisis-v2/-v3,
turbulent-v2/-v3) must have negatively skewed days and move no name by more than the
band's largest move in a day; standard-v3 and standard-v4 must meet every band with
negative skew and an ACF of |r| at lag 10 of at least 0.10; and standard-v1 with
uniform tick shocks (column "v1 uniform", the dial ``uniform_tick_shocks`` at 1) must
meet every band as standard-v1 does, being the same market in law; the last lines
check these. Beside each preset: name-ticks per CPU-second of the simulation at 200
names, best of three (target >= 20M on an idle machine), and its ratio to a floor
measured in the same run, the bare NumPy cost of drawing and summing as many normal
shocks (the engine before these dynamics measured 0.31 of it).
A column marked * is a superseded preset (`workbench presets list`), kept frozen
so the runs and recordings made on it replay.

With ``--groups N`` the table is measured N times, on seeds 1-3, 4-6, ... (each group
``--seeds`` seeds; ``--first-seed S`` starts them at S, not 1), and each band's row
says in how many groups each preset meets it (the stressed presets are held to every
band but the pairwise correlation's, which they must exceed, and to skew < 0;
standard-v3/-v4 to every band, lag-10 clustering of 0.10 and skew < 0); no speed is
measured then.

For reference, real daily bars (six large US stocks and two US indices,
2013-2023, median across names) measure: excess kurtosis 7.9 / 6.8; ACF of |r|
at lag 1, 5, 10 0.19, 0.14, 0.13 / 0.26, 0.33, 0.30; overnight share 0.44 / 0.13;
corr(r_t, |r_t+1|) -0.03 / -0.13; corr(|r|, log volume) 0.45 / 0.09; skewness
of simple daily returns -0.17 / -0.11; largest one-day move of any name 0.42;
mean pairwise correlation 0.49 / 0.89. The real largest move is the largest over
about 15,000 name-days (6 stocks x 10 years); a maximum grows with its sample, so
the table compares like with like: its largest move is the median, over blocks of
15,000 name-days (whole names: 30 names of 500 days, five blocks by default), of
each block's largest move (``stylised_facts(..., block_name_days=15_000)``); the
largest of all name-days (75,000 by default) is the row below it, for context.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from workbench.engine import Universe, list_presets, preset, simulate
from workbench.engine.presets import SUPERSEDED
from workbench.engine.stylised import FACTS, daily_bars, stylised_facts

# (low, high) for standard-v1; None is an open side
BANDS: dict[str, tuple[float | None, float | None]] = {
    "excess_kurtosis": (3.0, None),
    "acf_abs_1": (0.10, None),
    "acf_abs_5": (None, None),
    "acf_abs_10": (0.05, None),
    "overnight_share": (0.15, 0.5),
    "leverage": (None, -0.02),
    "abs_volume_corr": (0.3, None),
    "skew": (None, None),
    "max_move": (None, 0.42),
    "pairwise_corr": (0.2, 0.5),
}
# the presets whose skew must be negative
STRESSED = ("turbulent-v2", "crisis-v2", "turbulent-v3", "crisis-v3")
NEXT_STANDARDS, CLUSTERING_10 = ("standard-v3", "standard-v4"), 0.10  # real stocks: 0.13
REAL_NAME_DAYS = 15_000  # the real table's sample: 6 stocks x 10 years
# standard-v1 with uniform tick shocks (a dial only the -v3/-v4 presets turn on): the same bands
UNIFORM_TICKS = "v1 uniform"
MARKETS: dict[str, str | dict] = {
    **{name: name for name in list_presets()},
    UNIFORM_TICKS: {"base": "standard-v1", "uniform_tick_shocks": 1},
}
LABELS = {
    "excess_kurtosis": "excess kurtosis",
    "acf_abs_1": "ACF |r| lag 1",
    "acf_abs_5": "ACF |r| lag 5",
    "acf_abs_10": "ACF |r| lag 10",
    "overnight_share": "overnight share of variance",
    "leverage": "corr(r_t, |r_t+1|)",
    "abs_volume_corr": "corr(|r|, log volume)",
    "skew": "skewness (simple returns)",
    "max_move": "largest one-day move",
    "max_move_all": "  largest of all name-days",
    "pairwise_corr": "mean pairwise correlation",
    "annual_vol": "annualised vol (context)",
}
STEPS, TICKS, WARMUP = 6, 65, 4


def paths(name: str | dict, names: int, days: int, seeds: range) -> list:
    universe = Universe.synthetic(names)
    return [
        simulate(
            preset(name),
            universe,
            seed=seed,
            days=days,
            steps_per_day=STEPS,
            ticks_per_step=TICKS,
            warmup_days=WARMUP,
        )
        for seed in seeds
    ]


def annual_vol(runs: list) -> float:
    vols = [daily_bars(p).close_to_close.std(axis=0) for p in runs]
    return float(np.median(np.concatenate(vols)) * np.sqrt(252))


def name_ticks_per_cpu_second(name: str | dict, names: int = 200, days: int = 20) -> float:
    universe, best = Universe.synthetic(names), float("inf")
    for _ in range(3):
        started = time.process_time()
        simulate(
            preset(name),
            universe,
            seed=1,
            days=days,
            steps_per_day=STEPS,
            ticks_per_step=TICKS,
            warmup_days=WARMUP,
        )
        best = min(best, time.process_time() - started)
    return names * (days + WARMUP) * STEPS * TICKS / best


def floor_name_ticks_per_cpu_second(names: int = 200, days: int = 20) -> float:
    best = float("inf")
    for _ in range(3):
        rng = np.random.default_rng(1)
        started = time.process_time()
        for _ in range(days + WARMUP):
            np.cumsum(rng.standard_normal((STEPS * TICKS, names)), axis=0)
        best = min(best, time.process_time() - started)
    return names * (days + WARMUP) * STEPS * TICKS / best


def band_text(fact: str) -> str:
    low, high = BANDS.get(fact, (None, None))
    if low is None and high is None:
        return "-"
    if high is None:
        return f">= {low:g}"
    if low is None:
        return f"<= {high:g}"
    return f"{low:g}-{high:g}"


def within(fact: str, value: float) -> bool:
    low, high = BANDS.get(fact, (None, None))
    return (low is None or value >= low) and (high is None or value <= high)


def measure(names: int, days: int, seeds: range, speed: bool = True) -> dict[str, dict[str, float]]:
    table = {}
    for label, market in MARKETS.items():
        runs = paths(market, names, days, seeds)
        facts = stylised_facts(runs, block_name_days=REAL_NAME_DAYS)
        table[label] = {**facts, "annual_vol": annual_vol(runs)}
        if speed:
            table[label]["speed"] = name_ticks_per_cpu_second(market)
    return table


# the table's rows: the largest move of all name-days (context, no band) under the per-block one
_BELOW_MAX = FACTS.index("max_move") + 1
ROWS = (*FACTS[:_BELOW_MAX], "max_move_all", *FACTS[_BELOW_MAX:], "annual_vol")


def print_table(table: dict[str, dict[str, float]]) -> bool:
    presets = list(table)
    heads = "".join(f"{p + '*' * (p in SUPERSEDED):>14}" for p in presets)
    print(f"{'':30}{heads}{'band (standard-v1)':>20}")
    met = True
    for fact in ROWS:
        cells = "".join(f"{table[p][fact]:>14.3f}" for p in presets)
        status = ""
        if fact in BANDS and band_text(fact) != "-":
            ok = within(fact, table["standard-v1"][fact])
            met &= ok
            status = "  ok" if ok else "  MISS"
        print(f"{LABELS[fact]:30}{cells}{band_text(fact):>20}{status}")
    speeds = "".join(f"{table[p]['speed'] / 1e6:>13.1f}M" for p in presets)
    print(f"{'name-ticks/CPU-s, 200 names':30}{speeds}{'>= 20M idle':>20}")
    floor = floor_name_ticks_per_cpu_second()
    ratios = "".join(f"{table[p]['speed'] / floor:>14.2f}" for p in presets)
    print(f"{'  ratio to floor ' + f'{floor / 1e6:.0f}M':30}{ratios}")
    print("* superseded, kept frozen so what was made on it replays: " + superseded_text())
    return met


def superseded_text() -> str:
    return "; ".join(f"{old} by {new}" for old, (new, _) in sorted(SUPERSEDED.items()))


def print_order(table: dict[str, dict[str, float]]) -> bool:
    """calm-v1 on the quiet side of standard-v1, the crisis presets on the stressed side;
    the newer presets' own requirements (their bands on one line)."""
    ok_all = True
    for name, required in requirements(table).items():
        if name == "standard-v1":  # its bands are the table's
            continue
        for text, ok in _with_every_band(required).items():
            if not text.startswith(BAND):
                print(f"  {name}: {text}: {'ok' if ok else 'MISS'}")
                ok_all &= ok
        missed = [text[len(BAND) :] for text, ok in required.items() if BAND in text and not ok]
        if missed:
            print(f"    {name} misses: {'; '.join(missed)}")
    return ok_all


BAND = "band: "  # the prefix of a requirement that is one of BANDS


def _with_every_band(required: dict[str, bool]) -> dict[str, bool]:
    """The requirements with, first, whether every band among them is met at once."""
    bands = [ok for text, ok in required.items() if text.startswith(BAND)]
    return {"every band": all(bands), **required} if bands else required


def requirements(table: dict[str, dict[str, float]]) -> dict[str, dict[str, bool]]:
    """Per preset (and "order", the presets against each other): each requirement, met or not."""
    required = {name: _bands(table[name]) for name in ("standard-v1", UNIFORM_TICKS)}
    for name in NEXT_STANDARDS:
        facts = table[name]
        required[name] = {
            **_bands(facts),
            f"ACF |r| lag 10 >= {CLUSTERING_10:g}": facts["acf_abs_10"] >= CLUSTERING_10,
            "skew < 0": facts["skew"] < 0,
        }
    for name in STRESSED:
        required[name] = _stressed(table, name)
    required["order"] = _order(table)
    return required


def _bands(facts: dict[str, float], skip: tuple[str, ...] = ()) -> dict[str, bool]:
    return {
        f"{BAND}{LABELS[fact]} {band_text(fact)}": within(fact, facts[fact])
        for fact in BANDS
        if band_text(fact) != "-" and fact not in skip
    }


def _stressed(table: dict[str, dict[str, float]], name: str) -> dict[str, bool]:
    """Every band but the pairwise correlation's, which a stressed market must exceed."""
    calm, standard, stressed = table["calm-v1"], table["standard-v1"], table[name]
    return {
        **_bands(stressed, skip=("pairwise_corr",)),
        "skew < 0": stressed["skew"] < 0,
        "vol and correlation above standard-v1, leverage no weaker than calm-v1": (
            stressed["annual_vol"] > standard["annual_vol"]
            and stressed["pairwise_corr"] > standard["pairwise_corr"]
            and stressed["leverage"] <= calm["leverage"]
        ),
    }


def _order(table: dict[str, dict[str, float]]) -> dict[str, bool]:
    calm, standard, crisis = (table[p] for p in ("calm-v1", "standard-v1", "crisis-v1"))
    return {
        "annualised vol: calm < standard < crisis": (
            calm["annual_vol"] < standard["annual_vol"] < crisis["annual_vol"]
        ),
        "pairwise correlation: calm < standard < crisis": (
            calm["pairwise_corr"] < standard["pairwise_corr"] < crisis["pairwise_corr"]
        ),
        "leverage effect no weaker in crisis than in calm": crisis["leverage"] <= calm["leverage"],
    }


def print_groups(names: int, days: int, seeds: int, groups: int, first_seed: int = 1) -> bool:
    """Each requirement of each preset: in how many of ``groups`` seed groups it is met,
    and the seeds of the groups that miss it."""
    missed: dict[str, dict[str, list[str]]] = {}
    for group in range(groups):
        start = first_seed + group * seeds
        chosen = range(start, start + seeds)
        table = measure(names, days, chosen, speed=False)
        for name, required in requirements(table).items():
            misses = missed.setdefault(name, {})
            for text, ok in _with_every_band(required).items():
                misses.setdefault(text, [])
                if not ok:
                    misses[text].append(f"{chosen[0]}-{chosen[-1]}")
    for name, misses in missed.items():
        print(f"{name}:")
        for text, seeds_missed in misses.items():
            where = f"   missed at seeds {', '.join(seeds_missed)}" if seeds_missed else ""
            print(f"  {text:72}{groups - len(seeds_missed):>3}/{groups}{where}")
    return not any(seeds for misses in missed.values() for seeds in misses.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=50)
    parser.add_argument("--days", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--groups", type=int, default=0, help="seed groups to count bands over")
    parser.add_argument("--first-seed", type=int, default=1, help="the first (group's) first seed")
    args = parser.parse_args()
    if args.groups:
        print(
            f"groups meeting each requirement: {args.groups} groups of {args.seeds} seeds, "
            f"{args.names} names x {args.days} days each, from seed {args.first_seed}"
        )
        every = print_groups(args.names, args.days, args.seeds, args.groups, args.first_seed)
        print("every requirement met in every group" if every else "some requirement missed")
        return
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    print(
        f"daily stylised facts, median over {args.names} names x {args.seeds} seeds "
        f"({seeds.start}-{seeds.stop - 1}), {args.days} days each"
    )
    table = measure(args.names, args.days, seeds)
    met = print_table(table)
    print("either side of standard-v1:")
    ordered = print_order(table)
    print("every band met" if met and ordered else "some band missed")


if __name__ == "__main__":
    main()
