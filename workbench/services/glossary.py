"""One definition per metric, read by the scorecard's readers: tool descriptions, reports, docs.

The definitions restate the conventions fixed in ``workbench.evaluation.metrics``
(simple returns of marked-to-mid equity; Sharpe from daily returns, ddof=1, times
sqrt(252), zero risk-free rate, 0.0 when undefined; drawdown as a positive
percentage of the peak; one-way turnover over mean equity). A test checks that
every scorecard column has exactly one entry here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from workbench.errors import ConfigError
from workbench.evaluation.results import SCORECARD_COLUMNS

# metric -> (definition, pitfall)
METRICS: dict[str, tuple[str, str]] = {
    "return_pct": (
        "Total simple return of the arm's equity, marked to mid, from the starting capital to "
        "the last step's close, in percent.",
        "One market path: a return is an outcome, not a skill estimate; compare across seeds.",
    ),
    "pnl": (
        "Final equity minus starting capital, in currency units, marked to mid.",
        "Scales with capital; compare return_pct across runs of different capital.",
    ),
    "sharpe": (
        "Mean of daily simple returns over their sample standard deviation (ddof=1), times "
        "sqrt(252), zero risk-free rate. 0.0 when there are fewer than two days or no variation.",
        "Few days make it noisy; the best of many arms or runs is biased upward (multiple "
        "testing), so an in-sample winner needs confirming on fresh seeds.",
    ),
    "max_drawdown_pct": (
        "Largest peak-to-trough fall of step equity, as a positive percentage of the peak.",
        "Measured at step closes, so a deeper intraday dip is not seen.",
    ),
    "turnover": (
        "Traded notional divided by mean equity over the run; one-way, not annualised.",
        "Depends on run length; divide by days to compare runs of different length.",
    ),
    "trades": (
        "Orders that filled in full or in part, forced liquidation orders included.",
        "A clipped order still counts once; see clips. Liquidation orders carry the reason "
        "'liquidation' in the orders.",
    ),
    "clips": (
        "Orders cut down to the participation cap (a share of the symbol's volume in the step).",
        "Many clips mean the arm wanted more size than the market could take.",
    ),
    "refusals": (
        "Actions the market refused with a reason (leverage cap, unknown symbol, zero shares); "
        "the rest of the decision still traded.",
        "A refusal is the market's answer to a valid decision, not an agent failure.",
    ),
    "bust": (
        "True when the arm's equity reached zero or below at a step close: from that step it "
        "is not asked again, its equity is 0, and its positions are closed by liquidation "
        "orders. Its Sharpe is computed up to the close of the day it went bust.",
        "A bust arm's return is -100 % whatever the market did later; compare bust arms by "
        "when they went bust (bust_step). Its Sharpe, a ratio of arithmetic daily returns, "
        "can stay positive when large gains came before the ruin: read bust first.",
    ),
    "bust_step": (
        "Index of the trading step (0-based, as in the equity frame) at whose close the arm "
        "went bust, or null.",
        "A step, not a day: divide by steps_per_day for the day.",
    ),
    "errors": (
        "Decisions that failed: an invalid answer (DecisionError) or a framework or network "
        "failure (FrameworkError). The arm holds for that step.",
        "A failed arm and a declining arm are never the same: holding by choice is not an error.",
    ),
    "last_error": (
        "Type and message of the arm's most recent failed decision, or null.",
        "Only the last one; the full list is in the run's errors.",
    ),
    "decisions": (
        "Times the arm was asked for a decision. Every arm is asked once per trading day "
        "unless its every says 'step' or a number of steps.",
        "Arms with another cadence (every) are asked more or less often; an arm under a "
        "margin call or bust is not asked.",
    ),
    "model_calls": (
        "Model requests the arm made (recorded calls when replayed).",
        "Zero for rule-based baselines.",
    ),
    "tokens": (
        "Input plus output tokens reported by the framework (as recorded when replayed).",
        "Provider counts differ; compare within one provider.",
    ),
    "latency_s": (
        "Wall-clock seconds spent waiting for the arm's decisions.",
        "Varies between runs; it is left out of result digests and audit summaries.",
    ),
}

# columns of a paired comparison across seeds (workbench.evaluation.compare)
COMPARISON: dict[str, tuple[str, str]] = {
    "mean_diff": (
        "Mean over seeds of the arm's metric minus the benchmark's on the same seed (paired).",
        "Paired on identical market paths, so market luck cancels; strategy luck does not.",
    ),
    "ci_low": (
        "Lower end of the confidence interval of mean_diff (Student t on the per-seed "
        "differences, or a percentile bootstrap over seeds).",
        "Null with one seed: there is no spread to estimate.",
    ),
    "ci_high": (
        "Upper end of the confidence interval of mean_diff.",
        "An interval that excludes zero is not yet corrected for the number of arms; read p_holm.",
    ),
    "p_value": (
        "Two-sided p-value of the paired t-test of the per-seed differences against zero.",
        "Uncorrected: with several arms, one small p-value is expected by chance.",
    ),
    "p_holm": (
        "p_value adjusted for the number of arms compared with Holm's step-down method.",
        "Corrects within one comparison only, not for every comparison you have run.",
    ),
    "significant": (
        "True when p_holm is below 1 - confidence.",
        "Significance is not size: read mean_diff and its interval too.",
    ),
    "failed_decisions": (
        "Decisions the arm failed to make (DecisionError or FrameworkError), summed over seeds.",
        "A failed decision holds the book unchanged, so an arm that failed often can score "
        "like one that chose to wait: a non-zero count means its mean_diff measures failures.",
    ),
}

CAVEATS: dict[str, str] = {
    "single_path": (
        "One seed is one market path. A ranking from one path is an anecdote; use "
        "compare_runs over several seeds before believing an ordering."
    ),
    "multiple_testing": (
        "Every extra arm, preset or run tried is another look at noise: the best of many is "
        "expected to look good by luck. Count the trials and confirm on seeds not used to choose."
    ),
    "replayed": (
        "A replayed arm re-executes recorded model answers on the market they were recorded on; "
        "it shows the recording is reproducible, not that the agent generalises (in-sample)."
    ),
    "marked_to_mid": (
        "Equity is marked to mid; an arm holding a large position would realise less when "
        "it crossed the spread to close it."
    ),
}


def metrics_glossary() -> dict[str, Any]:
    """Every scorecard metric and comparison column with its definition and pitfall, plus
    the caveats every ranking carries."""
    return {
        "metrics": {
            name: {"definition": METRICS[name][0], "pitfall": METRICS[name][1]}
            for name in SCORECARD_COLUMNS
        },
        "comparison": {
            name: {"definition": text, "pitfall": pitfall}
            for name, (text, pitfall) in COMPARISON.items()
        },
        "caveats": dict(CAVEATS),
    }


def definitions_for(names: Iterable[str]) -> str:
    """Glossary text for ``names``, one line each, for appending to a tool description."""
    entries = {**METRICS, **COMPARISON}
    lines = []
    for name in names:
        if name not in entries:
            raise ConfigError(f"no glossary entry for {name!r}; add one to METRICS or COMPARISON")
        definition, pitfall = entries[name]
        lines.append(f"- {name}: {definition} Pitfall: {pitfall}")
    return "\n".join(lines)
