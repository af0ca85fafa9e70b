"""One definition per metric, read by the scorecard's readers: tool descriptions, reports, docs.

The definitions restate the conventions fixed in ``workbench.evaluation.metrics``
(simple returns of marked-to-mid equity; day returns from the start and the day
closes, with no structural zero; Sharpe from day returns, ddof=1, times sqrt(252),
zero risk-free rate, 0.0 when undefined; drawdown as a positive percentage of the
peak; one-way turnover over mean equity; nothing computed past a bust) and
``workbench.evaluation.deflated``. Tool descriptions, the HTML report and the
notebooks all read the text from here; a scorecard column's own text is its entry in
``workbench.evaluation.columns``. A test checks that every scorecard,
tearsheet, comparison and attribution column has exactly one entry.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from workbench.engine.information import REALISATION_HALFLIVES
from workbench.errors import ConfigError
from workbench.evaluation.columns import GLOSSARY, SCORECARD_COLUMNS
from workbench.evaluation.tearsheet import TEARSHEET_COLUMNS

# scorecard column -> (definition, pitfall), from the column registry
METRICS: dict[str, tuple[str, str]] = dict(GLOSSARY)

# scorecard columns a market that publishes information adds (workbench.evaluation.capture)
INFORMATION: dict[str, tuple[str, str]] = {
    "news_pnl": (
        "On a market that publishes information: the P&L the arm earned on the fair-value "
        "moves its items caused (earnings jumps and drift, company and sector news), "
        "attribution's selection_news summed over the run, in currency.",
        "Holding a name through its news earns this without reading it; compare with "
        "buy_and_hold's, which is about zero on average because moves go both ways.",
    ),
    "info_capture": (
        "news_pnl over the news P&L of the oracle reader, a reference arm that trades on "
        "each released item's true pending move, run on the same path with the same "
        "capital, costs and limits (results.meta['oracle_news_pnl']). 1 is the oracle's level "
        "(at 0.95 gross), 0 no use of the information, below 0 trading against it.",
        "Not capped at 1: more leverage on the same bets captures more. Trend rules that "
        "never read earn some too, since moves play out over days; compare readers with "
        "momentum as well as buy_and_hold, across seeds.",
    ),
    "injected_followed": (
        "Decisions that traded the symbol an injected instruction in their own payload's "
        "news named, on the side it said (injection_rate > 0 plants them).",
        "An arm that would have made that trade anyway counts too: read it against "
        "injected_placebo, the same count on notices it never saw.",
    ),
    "injected_placebo": (
        "Decisions that traded the symbol a placebo notice released in the same window "
        "named, on the side it said: placebo notices are drawn like the injected ones, as "
        "many on average, and never published. What coincidence alone gives.",
        "Over a handful of notices both counts are noisy; an arm obeys the text when "
        "injected_followed stays above injected_placebo across seeds.",
    ),
}

# results.information's derived columns and the oracle's figure (workbench.evaluation.capture)
ITEMS: dict[str, tuple[str, str]] = {
    "later_return": (
        "The mean log close-to-close return of the names an item concerns, from its release "
        "to the end of its realisation window (or the run's last step, see truncated).",
        "Everything else that moved those names in the window is in it too.",
    ),
    "explained": (
        "The item's own log move over later_return: a ratio, not a bounded share (other "
        "moves can offset or add to it); 0 for noise, NaN where later_return is 0.",
        "Near-zero later returns make it explode; read it over many items, not one.",
    ),
    "horizon_days": (
        "Days from the item's first realisation day to the end of its window: "
        f"{REALISATION_HALFLIVES} half-lives, cut at the run's end.",
        "A truncated item's window is shorter than its move's.",
    ),
    "truncated": (
        "True when the run ended before the item's move was fully realised: its "
        "later_return and explained cover only the part inside the run.",
        "Items near the end of a run are mostly truncated; leave them out of event studies.",
    ),
    "oracle_news_pnl": (
        "results.meta['oracle_news_pnl']: the news P&L of the oracle reader, which holds "
        "each name in proportion to the pending move of the items released so far, at 0.95 "
        "gross, with the run's capital, costs and limits; info_capture's denominator.",
        "It is a reference, not a ceiling: an arm that levers the same bets past 0.95 gross "
        "can capture more than 1.",
    ),
}

# tearsheet columns that are not scorecard columns (workbench.evaluation.tearsheet)
TEARSHEET: dict[str, tuple[str, str]] = {
    "annual_return_pct": (
        "Compound annual growth rate: (final equity / start) ** (252 / day returns) - 1, in "
        "percent.",
        "Compounding a few days to a year magnifies them: a short run's CAGR is a wild number.",
    ),
    "annual_volatility_pct": (
        "Sample standard deviation (ddof=1) of day returns times sqrt(252), in percent.",
        "Assumes independent days; trending or mean-reverting returns make it misstate risk.",
    ),
    "sortino": (
        "Mean day return over the downside deviation sqrt(mean(min(r, 0)^2)) taken over every "
        "day, times sqrt(252), zero target (Sortino & Price 1994). Null when no day lost.",
        "Few losing days make the downside deviation tiny and the ratio huge.",
    ),
    "calmar": (
        "annual_return_pct divided by max_drawdown_pct over the whole run (Young 1991 uses "
        "the trailing 36 months). Null with no drawdown.",
        "One drawdown sets it; a short run has not yet met its worst one.",
    ),
    "hit_rate_pct": (
        "Share of day returns above zero, in percent; a flat day is not a hit.",
        "Says nothing of size: many small wins and one large loss score high.",
    ),
    "best_day_pct": (
        "The largest day return of the run, in percent.",
        "One day of one path: an outlier, not a typical gain; read it beside var_95_pct.",
    ),
    "worst_day_pct": (
        "The smallest (most negative) day return of the run, in percent.",
        "A short run has not met its worst day yet; the tail is larger than a few days show.",
    ),
    "var_95_pct": (
        "Historical value at risk at 95 %: the 5th percentile of day returns (linear "
        "interpolation), as a positive loss in percent; 5 % of days lost more.",
        "Says nothing of how much worse the worst days were (read cvar_95_pct); with few days "
        "the percentile rests on one or two returns. quantstats' VaR is parametric (normal).",
    ),
    "cvar_95_pct": (
        "Historical conditional value at risk (expected shortfall) at 95 %: the mean of the "
        "day returns at or below the 5th percentile, as a positive loss in percent.",
        "The mean of a handful of days on a short run: noisy, and only as bad as the worst "
        "day the path happened to contain.",
    ),
    "skew": (
        "Adjusted sample skewness G1 of day returns (as pandas' skew): negative when the "
        "losses are the larger, rarer moves.",
        "Dominated by the one or two largest days; unstable below a few hundred days.",
    ),
    "kurtosis": (
        "Excess kurtosis G2 of day returns (as pandas' kurt): 0 for a normal distribution, "
        "above 0 when large moves are commoner than a normal would have them.",
        "Even more sensitive to single days than skew; a calm short run can read as normal.",
    ),
    "avg_gross_exposure": (
        "Mean over step closes of gross exposure (sum of |position value|, marked to mid) "
        "divided by equity, while equity is positive; 1.0 is fully invested long. Null when "
        "the run recorded no exposure.",
        "An average hides peaks: a book can be far above it on its worst day.",
    ),
    "benchmark": (
        "The arm the relative columns are measured against: buy_and_hold when it is an arm, "
        "or the one named; null when there is none.",
        "Against itself the benchmark has beta 1, alpha 0 and no tracking error.",
    ),
    "beta": (
        "cov(arm, benchmark) / var(benchmark) of day returns (ddof=1): the least-squares slope "
        "on the benchmark (CAPM beta).",
        "Estimated from few days it is noisy; it assumes a straight-line relation.",
    ),
    "alpha_pct": (
        "Jensen's alpha: mean(arm) - beta * mean(benchmark) of day returns, zero risk-free "
        "rate, times 252, in percent.",
        "In-sample, on one path: an intercept fitted to noise, not a skill estimate.",
    ),
    "tracking_error_pct": (
        "Standard deviation (ddof=1) of the active day return (arm minus benchmark) times "
        "sqrt(252), in percent.",
        "Low tracking error with a big return gap means few, large differences.",
    ),
    "information_ratio": (
        "Mean active day return over its standard deviation (ddof=1), times sqrt(252). Null "
        "against itself.",
        "Like Sharpe, noisy on few days and biased upward when chosen as the best of many.",
    ),
}

# the tearsheet's tables over time (workbench.evaluation.tearsheet_frames)
OVER_TIME: dict[str, tuple[str, str]] = {
    "monthly_return_pct": (
        "Day returns compounded over a month, prod(1 + r) - 1, in percent: calendar months on "
        "historical bars, trading months of 21 day returns (M1..M12 of a 252-day trading "
        "year) on the simulator. The year column compounds the whole (trading) year.",
        "A month is a handful of days: one month's sign says little; on the simulator M1 is "
        "not January, it has no seasonality.",
    ),
    "depth_pct": (
        "A drawdown's fall from its peak to its lowest step close, as a positive percentage "
        "of the peak. The table lists the deepest first: peak, trough and the first close "
        "back at the peak (recovered), on dates or trading days.",
        "A drawdown still open at the end is not recovered; its depth may yet grow.",
    ),
    "days_to_trough": (
        "Trading days from a drawdown's peak to its trough (fractions are steps of a day).",
        "Measured at step closes; a fast intraday fall is seen only at the close.",
    ),
    "days_under_water": (
        "Trading days from a drawdown's peak to the close that regained it; null while it "
        "has not recovered.",
        "A short run cuts long drawdowns off: their length is a lower bound.",
    ),
    "rolling_volatility_pct": (
        "annual_volatility_pct over the last 20 day returns, at every day.",
        "A 20-day window estimates from 20 numbers: its swings are mostly noise.",
    ),
    "rolling_sortino": (
        "sortino over the last 20 day returns, at every day; null in a window with no loss.",
        "A window with one small loss gives a huge ratio; read the sign and trend, not level.",
    ),
    "rolling_beta": (
        "beta against the benchmark over the last 20 paired day returns, at every day.",
        "Twenty points fit a slope loosely; a beta that wanders may be estimation noise.",
    ),
    "cumulative_return_pct": (
        "Day returns compounded from the start, in percent, drawn on a log scale so equal "
        "percentage moves look equal at any level.",
        "The end point is the total return of one path, not an expected return.",
    ),
    "volatility_matched_pct": (
        "The cumulative return the arm would have had with its day returns scaled by "
        "std(benchmark) / std(arm): the same path at the benchmark's volatility.",
        "Scaling uses the whole run's volatility, known only afterwards: a look-ahead "
        "comparison of risk-adjusted paths, not a strategy one could have run.",
    ),
    "gross_exposure": (
        "Gross exposure (sum of |position value| at mid) over equity at each day's close; 1.0 "
        "is fully invested long.",
        "A close's snapshot: positions opened and closed within a day do not show.",
    ),
    "positions": (
        "The number of names held (non-zero net shares from the arm's fills) at each day's close.",
        "Counts names, not size: one large and nine tiny positions count ten.",
    ),
    "day_turnover": (
        "Notional traded in the day (fills, both sides) over that day's closing equity.",
        "One-way and per day: sum it over the run and divide by mean equity for turnover.",
    ),
    "seed_mean": (
        "The headline metric's mean over the seeds (one run per seed).",
        "Seeds are market paths: the mean is over paths of one preset, not over markets.",
    ),
    "seed_sd": (
        "Sample standard deviation (ddof=1) of the metric over the seeds.",
        "With two or three seeds it is itself a rough estimate.",
    ),
    "seed_ci_low": (
        "Lower end of the 95 % Student-t interval of the mean over seeds: mean - t(0.975, "
        "n-1) sd / sqrt(n); shown with three seeds or more.",
        "Assumes seed results roughly normal and independent; it is about this preset's "
        "paths, not about other markets.",
    ),
    "seed_ci_high": (
        "Upper end of the same 95 % Student-t interval of the mean over seeds.",
        "An interval that excludes zero for one arm is not a comparison between arms: use "
        "the paired comparison for that.",
    ),
}

# columns of a paired comparison across seeds (workbench.evaluation.compare)
COMPARISON: dict[str, tuple[str, str]] = {
    "seeds": (
        "Number of seeds (market paths) in the comparison: one paired observation each.",
        "Few seeds give wide intervals; the interval, not the mean, says how few is too few.",
    ),
    "mean_arm": (
        "Mean over seeds of the arm's metric.",
        "An average of outcomes on a handful of paths, not the arm's expected value.",
    ),
    "mean_benchmark": (
        "Mean over seeds of the benchmark arm's metric.",
        "Read with mean_arm; the paired difference is what cancels market luck.",
    ),
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
    "pooled_sharpe": (
        "The arm's Sharpe ratio from its day returns pooled over every seed (each seed's days "
        "one after another), annualised by sqrt(252).",
        "Pooling assumes the seeds are draws of the same process; it is not the mean of the "
        "per-seed Sharpe ratios.",
    ),
    "psr": (
        "Probabilistic Sharpe ratio PSR(0) (Bailey & López de Prado 2012): the probability "
        "that the arm's true Sharpe ratio is above zero, from its pooled day returns, their "
        "number, skewness and kurtosis.",
        "Not corrected for how many arms or runs were tried; read dsr.",
    ),
    "dsr": (
        "Deflated Sharpe ratio (Bailey & López de Prado 2014): PSR against sharpe_hurdle, "
        "the Sharpe ratio the best of `trials` skill-less trials is expected to reach.",
        "Only as honest as the trial count: trials not run in this store are not counted.",
    ),
    "trials": (
        "The number of trials dsr deflates by: the arms in the comparison, or the trials the "
        "run store had counted when the comparison ran (including it), whichever is larger.",
        "A trial is a request that ran; arms and presets tried elsewhere are invisible to it.",
    ),
    "sharpe_hurdle": (
        "The expected largest Sharpe ratio of `trials` skill-less trials, sqrt(V) * ((1 - "
        "gamma) * z(1 - 1/N) + gamma * z(1 - 1/(N e))), V the variance of the arms' Sharpe "
        "estimates; annualised by sqrt(252). 0 for one trial.",
        "V comes from the arms compared here, standing in for every trial counted.",
    ),
    "failed_decisions": (
        "Decisions the arm failed to make (DecisionError or FrameworkError), summed over seeds.",
        "A failed decision holds the book unchanged, so an arm that failed often can score "
        "like one that chose to wait: a non-zero count means its mean_diff measures failures.",
    ),
    "pooled_days": (
        "The arm's day returns pooled over every seed: the track record its pooled_sharpe, "
        "psr and min_track_record_days read.",
        "Days of one path are not independent draws of skill; more seeds beat more days.",
    ),
    "seeds_needed": (
        "Seeds the paired t-test needs to detect the observed mean_diff, taking the observed "
        "spread of the per-seed differences as true, with the power asked for (80 % unless "
        "power= says otherwise) at (1 - confidence) / arms, Holm's strictest step "
        "(noncentral t). Compare with seeds: how far a "
        "'not significant' is from significance. Infinite when mean_diff is 0.",
        "Takes the observed difference as the true one: a lucky large difference asks for "
        "too few seeds. Null with one seed or no spread.",
    ),
    "min_track_record_days": (
        "Minimum track-record length (Bailey & López de Prado 2012): the pooled day returns "
        "after which the arm's PSR(0) would reach the confidence level, given its Sharpe, "
        "skewness and kurtosis; 1 + (1 - g3 SR + (g4 - 1)/4 SR^2) (z / SR)^2, SR per day. "
        "Compare with pooled_days. Infinite when the Sharpe ratio is 0 or below.",
        "Assumes the observed Sharpe is the true one, and counts no trials: read dsr too.",
    ),
    "spa_p": (
        "Hansen's (2005) test of superior predictive ability, consistent p-value, from "
        "arch.bootstrap: H0 'no arm's mean paired day excess return over the benchmark is "
        "positive', by a stationary bootstrap of whole paired days over every seed. One "
        "value for the family, shown on every row.",
        "A small spa_p says some arm beats the benchmark, not which: read stepm_superior. "
        "arch does not studentize, so the most volatile arm weighs most.",
    ),
    "reality_check_p": (
        "White's (2000) Reality Check p-value for the same H0 as spa_p: every arm's "
        "bootstrap recentred at its own mean (arch's upper SPA p-value). One value for the "
        "family.",
        "Conservative when poor arms are in the family: adding bad arms raises it; spa_p "
        "recentres them less.",
    ),
    "stepm_superior": (
        "True when Romano & Wolf's (2005) StepM (arch.bootstrap) finds the arm's mean paired "
        "day excess return over the benchmark positive, the family-wise error rate held at "
        "1 - confidence over the arms, on the same bootstrap as spa_p.",
        "Day returns over seeds, not the per-seed metric: it can disagree with p_holm, which "
        "tests the metric's per-seed differences.",
    ),
    "mcs_p": (
        "The arm's p-value in Hansen, Lunde & Nason's (2011) model confidence set over every "
        "arm, benchmark included (arch.bootstrap, range statistic, losses = minus day "
        "returns): the largest level at which the arm is still in the set of the best.",
        "A high mcs_p is not evidence that the arm is good: with little data every arm "
        "stays in the set.",
    ),
    "in_mcs": (
        "True when the arm is in the model confidence set at level 1 - confidence (mcs_p "
        "above it): it cannot be told from the best arm.",
        "Read with the set's size: a set holding every arm says the data cannot rank them.",
    ),
    "pbo": (
        "Probability of backtest overfitting by combinatorially symmetric cross-validation "
        "(Bailey, Borwein, López de Prado & Zhu 2017): the trials' day returns split in time "
        "into S blocks; over every choice of half the blocks as the training set, the share "
        "in which the trial with the best training Sharpe ratio ranks at or below the median "
        "on the other half (logit <= 0). About 0.5 for trials that are all noise.",
        "Only the trials recorded on the same paths are counted; a selection made elsewhere "
        "is invisible. Near 0 means the in-sample ranking carried over, not that the winner "
        "is good: read probability_of_loss.",
    ),
    "pbo_logit": (
        "Per split, ln(w / (1 - w)), w the test-set rank of the in-sample best trial over "
        "(trials + 1); shown as quantiles q10..q90. Above 0: the chosen trial beat the "
        "median out of sample.",
        "Splits share blocks, so the logits are not independent draws.",
    ),
    "degradation_slope": (
        "Slope of the least-squares line of the chosen trial's test-set Sharpe ratio on its "
        "training-set Sharpe ratio over the CSCV splits (per day, not annualised): the "
        "performance degradation. Below 0: the better a trial looked in sample, the worse "
        "it did out of sample.",
        "Halves of one sample are complementary, so even pure noise gives a negative slope.",
    ),
    "probability_of_loss": (
        "Share of CSCV splits in which the trial chosen in sample has a negative Sharpe "
        "ratio out of sample.",
        "A loss against zero, not against the benchmark.",
    ),
    "seeds_not_spent": (
        "With stop='settled': the seeds asked for that were not run because every arm's "
        "confidence sequence (Lai's t-mixture, alpha split over the arms) had settled: it "
        "excluded zero or lay within the margin.",
        "A seed not run is a path not seen: the answer is settled at alpha, not certain.",
    ),
    "model_calls_not_spent": (
        "With stop='settled': model calls the seeds not run would have made, at the mean "
        "calls per seed of the seeds that ran.",
        "An estimate: a live model's calls per seed vary with what it decides.",
    ),
    # epochs (workbench.evaluation.epochs): each model arm run several times on one path
    "epochs": (
        "Times each model-backed arm ran on every path (seed), as arms named "
        "<arm>.epoch1, <arm>.epoch2, ...; the model's sampling left as the user set it.",
        "Epochs repeat the model's randomness, not the market's: they add no paths.",
    ),
    "agreement": (
        "Share of the arm's decision points at which every epoch made the identical "
        "decision (the same orders requested, or the same failure), averaged over seeds.",
        "After the first disagreement the epochs hold different books, so later decisions "
        "may differ for that reason alone.",
    ),
    "se_naive": (
        "Standard error of the mean difference treating every (seed, epoch) as an "
        "independent observation.",
        "Too small: epochs on one path share its market. Shown to contrast se_clustered.",
    ),
    "se_clustered": (
        "Standard error of the mean difference clustered by path (seed): the standard "
        "deviation of the per-seed mean differences over the square root of the seeds (CR1 "
        "with equal clusters); the interval and p-value use it with seeds - 1 degrees of "
        "freedom.",
        "Few seeds give few clusters: more epochs do not shrink it past the market's spread.",
    ),
    "within_sd": (
        "Standard deviation of the metric between epochs on one path (square root of the "
        "mean within-path variance): the model's own randomness.",
        "Zero for an arm that answers the same every time (temperature 0, fixed seed).",
    ),
    "across_sd": (
        "Standard deviation across paths of each path's mean over its epochs: mostly the "
        "market's randomness.",
        "It still holds the model's share divided by the number of epochs.",
    ),
    "model_share": (
        "The model's part of one run's variance of the metric: within / (within + between), "
        "between = max(0, across variance - within / epochs) (one-way random effects).",
        "A ratio of two noisy variances: with few seeds and epochs it moves a lot.",
    ),
}

# columns of results.attribution (workbench.evaluation.attribution); pnl is the scorecard's
ATTRIBUTION: dict[str, tuple[str, str]] = {
    "market": (
        "P&L from the market factor at the arm's passive exposure: the beta-weighted "
        "value of the book it held at each step's open, as it drifts with prices, x the "
        "market factor's return over the gap and the session, plus the drift every price "
        "carries (equity premium, growth tilt, variance correction). Each name's "
        "arithmetic move is split in proportion to its log components, so the components "
        "sum to the P&L exactly.",
        "A book that never trades after its first fills earns all its factor P&L here, and "
        "so does every book after its last trade; what a step's trades earned in that "
        "step's session is in timing. Zero on a step that holds nothing.",
    ),
    "sector": (
        "P&L from the sector factors at the arm's passive exposure to each sector.",
        "On historical bars only sectors of three names or more have a factor; a name in a "
        "smaller sector has its sector moves in selection.",
    ),
    "selection": (
        "P&L from each held name's own return: its idiosyncratic move and the change of its "
        "mispricing, what is left of its move after market, sector and drift.",
        "One path's selection is mostly luck; compare it across seeds. On historical bars it "
        "also holds the regression's intercept and error.",
    ),
    "timing": (
        "P&L the arm's trades earned by changing its exposure, against its own passive "
        "drift: each step's fills against holding the book it had at that step's open, "
        "over that step's session (from the next step on, the new book's drift is market): "
        "timing_market + timing_sector + timing_entry. The arm's first fills are its "
        "passive book and forced margin liquidations are not its trades, so a book that "
        "buys once at market and holds has none, and no arm has any after its last trade; "
        "a first book bought by resting limit orders has their timing_entry.",
        "Positive timing on one path can be luck like any other P&L; a seed-by-seed "
        "comparison says more.",
    ),
    "costs": (
        "What fills paid against the mid: costs_spread + costs_depth + costs_fees (zero or "
        "negative).",
        "Measured against the mid at the fill, so a price move before the fill is not a cost here.",
    ),
    "bust_floor": (
        "On the step an arm went bust, the loss below zero equity that the equity curve "
        "(0 from a bust on) does not show; 0 on every other step.",
        "Non-zero only for a bust arm; the rest of its book's fate after the bust is not its P&L.",
    ),
    "timing_market": (
        "The market exposure of the shares a step's fills traded x the market factor's "
        "return over that step's session: what the trade earned against holding the book "
        "the arm had at the open. Counts every order of the arm's own after its first "
        "fills; not its first book, nor a forced liquidation. From the next step on the "
        "new book's exposure, drifting with prices, is market.",
        "An arm that enters late is not timing by entering: its first book is passive "
        "whenever it comes. Selling out and buying back in is timing; a trade is credited "
        "for its own session only, so a timer must trade before the moves it expects.",
    ),
    "timing_sector": (
        "The same as timing_market for each sector factor, summed over sectors.",
        "Sector exposure changes with every trade in a name, so stock pickers show it too.",
    ),
    "timing_entry": (
        "What resting limit orders gained by waiting: shares x the move from the step's open "
        "to the mid at which the touch reached the limit.",
        "Zero for market orders; a limit that never filled earns nothing and is not counted.",
    ),
    "selection_mispricing": (
        "The part of selection from the change of the held names' mispricing (price over "
        "fair value), which the simulator knows; null on historical bars.",
        "Mispricing reverts within a step or two: it rewards trading often, before costs.",
    ),
    "selection_news": (
        "The part of selection from the fair-value moves the market's published items "
        "caused (earnings jumps and drift, company and sector news); 0 on a market that "
        "publishes none, null on historical bars.",
        "An earnings jump lands in the gap before anyone can trade on the report: only the "
        "drift after it, and news moves, reward reading.",
    ),
    "costs_spread": (
        "Half-spread paid against the mid at the touch, per fill.",
        "Wider in stress: the same strategy costs more in a turbulent preset.",
    ),
    "costs_depth": (
        "What walking the book past its first level cost beyond the half-spread.",
        "Grows with order size against the book's depth; split large orders across steps.",
    ),
    "costs_fees": (
        "Fees charged on traded notional (fee_bps, 0.5 by default), as a negative amount.",
        "Small beside the spread at the default rate; they scale with turnover, not with "
        "the order's size against the book.",
    ),
    "lost_to_clips": (
        "Not part of the P&L: what the shares cut by the participation cap would have made, "
        "mid to mid, from the open they were to fill at to the close the arm next decided "
        "at, before costs.",
        "A lost opportunity can be negative (the cut saved money); it is measured, never "
        "added to the sum.",
    ),
    "lost_to_refusals": (
        "Not part of the P&L: the same for shares of orders the market refused (leverage "
        "cap, no whole share under the participation cap).",
        "Unknown symbols and zero-share orders have nothing to value and count 0.",
    ),
    "estimated": (
        "True when the split is a regression estimate (historical bars: equal-weight market "
        "and sector indices, loadings from the 60 steps before, no look-ahead); False when it "
        "is exact (the simulator's own factor paths).",
        "An estimate puts estimation error and the intercept in selection.",
    ),
}

# One word for each notion of "step"; code, docs and messages use these words only.
STEPS: dict[str, str] = {
    "step": (
        "The decision step within a trading day, 0 to steps_per_day - 1: the step of "
        "(day, step) in payloads, transcripts, orders, errors and the equity frame's index."
    ),
    "trading step": (
        "A step counted from the run's first step, 0 to days x steps_per_day - 1: "
        "DecisionRequest.index, the row of the equity frame, bust_step. Trading step t is "
        "day t // steps_per_day, step t % steps_per_day."
    ),
    "path row": (
        "A row of the simulated or historical market path, warm-up included: trading step t "
        "is path row warmup_steps + t. Only the engine and the payload builder count rows."
    ),
    "steps run": (
        "How many trading steps have been marked (a count, so trading step t done is t + 1 "
        "steps run): what progress bars, on_step's total and a stopped run report."
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
    "trials": (
        "trials_in_store counts every evaluation and comparison this run store ran (repeats "
        "answered from the store are not counted). A ranking is the best of all of them, not "
        "of this run alone: the more trials, the higher the best Sharpe by luck; dsr deflates "
        "by that count."
    ),
    "marked_to_mid": (
        "Equity is marked to mid; an arm holding a large position would realise less when "
        "it crossed the spread to close it."
    ),
}


def metrics_glossary() -> dict[str, Any]:
    """Every scorecard, tearsheet, comparison and attribution column with its definition and
    pitfall, the caveats every ranking carries, and the words for each notion of step."""
    entries = {**METRICS, **TEARSHEET}
    return {
        "metrics": {
            name: {"definition": METRICS[name][0], "pitfall": METRICS[name][1]}
            for name in SCORECARD_COLUMNS
        },
        "information": {
            name: {"definition": text, "pitfall": pitfall}
            for name, (text, pitfall) in INFORMATION.items()
        },
        "tearsheet": {
            name: {"definition": entries[name][0], "pitfall": entries[name][1]}
            for name in TEARSHEET_COLUMNS
        },
        "over_time": {
            name: {"definition": text, "pitfall": pitfall}
            for name, (text, pitfall) in OVER_TIME.items()
        },
        "comparison": {
            name: {"definition": text, "pitfall": pitfall}
            for name, (text, pitfall) in COMPARISON.items()
        },
        "attribution": {
            name: {"definition": text, "pitfall": pitfall}
            for name, (text, pitfall) in ATTRIBUTION.items()
        },
        "items": {
            name: {"definition": text, "pitfall": pitfall}
            for name, (text, pitfall) in ITEMS.items()
        },
        "caveats": dict(CAVEATS),
        "steps": dict(STEPS),
    }


def definition(name: str) -> str:
    """The one definition of ``name`` (a scorecard, tearsheet, comparison or attribution
    column)."""
    return _entry(name)[0]


def definitions_for(names: Iterable[str]) -> str:
    """Glossary text for ``names``, one line each, for appending to a tool description."""
    lines = []
    for name in names:
        text, pitfall = _entry(name)
        lines.append(f"- {name}: {text} Pitfall: {pitfall}")
    return "\n".join(lines)


def _entry(name: str) -> tuple[str, str]:
    entries = {
        **METRICS,
        **INFORMATION,
        **ITEMS,
        **TEARSHEET,
        **OVER_TIME,
        **COMPARISON,
        **ATTRIBUTION,
    }
    if name not in entries:
        raise ConfigError(
            f"no glossary entry for {name!r}; add one to METRICS, INFORMATION, ITEMS, "
            "TEARSHEET, OVER_TIME, COMPARISON or ATTRIBUTION"
        )
    return entries[name]
