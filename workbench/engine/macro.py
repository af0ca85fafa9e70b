"""The daily macro path: business cycle, growth, inflation, policy rate and yields.

A two-state business cycle (a Markov chain) sets the mean of AR(1) growth;
inflation is AR(1); the policy rate follows a smoothed Taylor rule (Taylor 1993)
floored at zero; the 2y and 10y yields sit on the policy rate with a term premium.
"""

from __future__ import annotations

import numpy as np

from workbench.engine.presets import Preset


def macro_path(
    p: Preset, days: int, rng: np.random.Generator, regime_rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """One value per day of each macro reading; ``vix`` is left for the market to fill."""
    out = {k: np.empty(days) for k in ("regime", "growth", "inflation", "policy_rate")}
    out.update(yield_2y=np.empty(days), yield_10y=np.empty(days), vix=np.empty(days))
    regime, growth, inflation = 0, p["growth_expansion"], p["inflation_mean"]
    rate = p["policy_neutral"] + p["inflation_mean"]
    shocks = rng.standard_normal((days, 4))
    switches = regime_rng.random(days)
    for day in range(days):
        stay = p["regime_stay_expansion"] if regime == 0 else p["regime_stay_contraction"]
        regime = regime if switches[day] < stay else 1 - regime
        target = p["growth_expansion"] if regime == 0 else p["growth_contraction"]
        phi = p["growth_persistence"]
        growth = target + phi * (growth - target) + p["growth_vol"] * shocks[day, 0]
        psi = p["inflation_persistence"]
        inflation = (
            p["inflation_mean"]
            + psi * (inflation - p["inflation_mean"])
            + p["inflation_vol"] * shocks[day, 1]
        )
        taylor = (
            p["policy_neutral"]
            + inflation
            + p["policy_inflation_weight"] * (inflation - p["inflation_mean"])
            + p["policy_growth_weight"] * (growth - p["growth_expansion"])
        )
        rate = max(0.0, p["policy_smoothing"] * rate + (1 - p["policy_smoothing"]) * taylor)
        y2 = rate + 0.25 * p["term_premium"] + p["yield_noise"] * shocks[day, 2]
        out["regime"][day], out["growth"][day] = regime, growth
        out["inflation"][day], out["policy_rate"][day] = inflation, rate
        out["yield_2y"][day] = y2
        out["yield_10y"][day] = y2 + p["term_premium"] + p["yield_noise"] * shocks[day, 3]
    return out
