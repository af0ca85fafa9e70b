"""The tools: one typed method per service, each calling that service and logging the call.

No business logic lives here. A method names its parameters and types (that is
the tool's schema), passes every argument to its service, fills in the
server-bound ones (the run store, the recordings folder) and writes its audit
lines (one when the call starts, one when it ends). The SDK is not imported: the
server module registers these methods.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from workbench._checks import OUR_DEPRECATION
from workbench.errors import ConfigError
from workbench.mcp.audit import AuditLog
from workbench.mcp.surface import DEFERRED_PARAMS
from workbench.redaction import redact_error
from workbench.services import MARKET_DEFAULTS
from workbench.services.store import RunStore

Arms = Annotated[
    list[str],
    Field(
        description="Arm names: baselines such as 'buy_and_hold', or offline committees such "
        "as 'committee:tradingagents' (see list_agents)."
    ),
]
Seed = Annotated[
    int, Field(strict=True, ge=0, description="Market seed: one seed is one market path.")
]
Preset = Annotated[
    str | None, Field(description="Market preset name (see list_presets); null = default.")
]
Count = Annotated[int, Field(strict=True, ge=1, le=5000)]
Universe = Annotated[
    Count | None,
    Field(
        description="Number of synthetic names traded; null = "
        f"{MARKET_DEFAULTS.universe} (the default)."
    ),
]
Names = Annotated[
    Count | None,
    Field(description="Deprecated: the old name of universe; pass universe instead."),
]
Days = Annotated[int, Field(strict=True, ge=1, le=10_000, description="Trading days simulated.")]
StepsPerDay = Annotated[
    int, Field(strict=True, ge=1, le=1000, description="Decision steps per day.")
]
TicksPerStep = Annotated[
    int, Field(strict=True, ge=1, le=10_000, description="Market ticks per step.")
]
# Numbers are strict everywhere: true is not 1, "1e6" is not a million, 2.0 is not a count.
Capital = Annotated[
    float, Field(strict=True, gt=0, allow_inf_nan=False, description="Starting cash per arm.")
]
LeverageCap = Annotated[
    float, Field(strict=True, gt=0, allow_inf_nan=False, description="Max gross / equity.")
]
FeeBps = Annotated[
    float, Field(strict=True, ge=0, allow_inf_nan=False, description="Fee in basis points.")
]
Seeds = Annotated[
    list[Annotated[int, Field(strict=True, ge=0)]],
    Field(min_length=1, max_length=200, description="Seeds, one market path each."),
]
Confidence = Annotated[
    float, Field(strict=True, gt=0, lt=1, allow_inf_nan=False, description="Interval level.")
]
Limit = Annotated[int, Field(strict=True, ge=1, le=500, description="At most this many runs.")]
RunId = Annotated[str, Field(description="A run id from list_runs or a previous tool result.")]


class Toolbox:
    """The tool methods, bound to one run store and one audit log.

    ``services`` maps a service name to the function called; it defaults to
    ``workbench.services.SERVICES`` and tests pass spies to check what arrives.
    """

    def __init__(
        self,
        store: RunStore,
        audit: AuditLog,
        *,
        recordings: Path | None = None,
        services: Mapping[str, Callable[..., dict[str, Any]]] | None = None,
    ) -> None:
        from workbench.services import SERVICES

        self.store, self.audit, self.recordings = store, audit, recordings
        self.services = dict(SERVICES if services is None else services)

    def _call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        server_side = {"store": self.store, "recordings": self.recordings}
        bound = {k: v for k, v in server_side.items() if k in DEFERRED_PARAMS.get(tool, {})}
        where = {
            k: str(v.root if isinstance(v, RunStore) else v)
            for k, v in bound.items()
            if v is not None
        }
        call = self.audit.start(tool, arguments, bound=where)
        try:
            _refuse_both_sizes(arguments)
            with _deprecations() as notes:
                result = self.services[tool](**bound, **arguments)
            if notes:
                result = {**result, "deprecated": notes}
        except Exception as exc:
            error = redact_error(exc)
            self.audit.write(tool, arguments, outcome="error", error=error, bound=where, call=call)
            raise
        self.audit.write(tool, arguments, outcome="ok", result=result, bound=where, call=call)
        return result

    # --- discovery --------------------------------------------------------------------
    def list_presets(self) -> dict[str, Any]:
        """List the shipped market presets: name, fingerprint, which dials each moves from the
        default, which one is the default, and for a preset a newer version replaces, that
        version (superseded_by) and what is wrong with the old one (why): choose the newer for
        new work; the old one still runs unchanged so what was made on it replays."""
        return self._call("list_presets")

    def describe_preset(
        self, name: Annotated[str | None, Field(description="Preset name; null = default.")] = None
    ) -> dict[str, Any]:
        """Every dial of one market preset (macro, volatility, mispricing and liquidity
        coefficients) and its fingerprint: the name for a shipped preset; superseded_by and
        why name the newer version of a superseded one (null for a current preset)."""
        return self._call("describe_preset", name=name)

    def diff_presets(
        self,
        a: Annotated[str, Field(description="First preset name.")],
        b: Annotated[str, Field(description="Second preset name.")],
    ) -> dict[str, Any]:
        """The dials that differ between two presets, with the value in each; same is true when
        none differ. Read it before comparing results across presets: it says what moved."""
        return self._call("diff_presets", a=a, b=b)

    def list_agents(self) -> dict[str, Any]:
        """The arms these tools can run without calling a model: rule-based baselines, packaged
        committees whose every role is scripted (offline), and the recordings (seed, preset,
        days and arms of each) whose model-backed arms replay through replay_recording."""
        return self._call("list_agents")

    def metrics_glossary(self) -> dict[str, Any]:
        """The definition and pitfall of every scorecard metric and comparison column, and the
        caveats every ranking carries. The single source of the metric wording in these tools."""
        return self._call("metrics_glossary")

    # --- analysis ---------------------------------------------------------------------
    def run_evaluation(
        self,
        arms: Arms,
        seed: Seed = 7,
        preset: Preset = None,
        universe: Universe = None,
        days: Days = MARKET_DEFAULTS.days,
        steps_per_day: StepsPerDay = MARKET_DEFAULTS.steps_per_day,
        ticks_per_step: TicksPerStep = MARKET_DEFAULTS.ticks_per_step,
        names: Names = None,
        capital: Capital = 1e6,
        leverage_cap: LeverageCap = 2.0,
        fee_bps: FeeBps = 0.5,
    ) -> dict[str, Any]:
        """Run the arms on one simulated market path (all arms see the same path; each pays
        its own costs). Returns the scorecard, a ranking with its caveats as data, and the
        paths of the artefacts (results.json, orders and equity as Parquet) relative to
        store_root. The same request returns the same run (reused) instead of a second copy."""
        return self._call(
            "run_evaluation",
            arms=arms,
            seed=seed,
            preset=preset,
            universe=universe,
            days=days,
            steps_per_day=steps_per_day,
            ticks_per_step=ticks_per_step,
            names=names,
            capital=capital,
            leverage_cap=leverage_cap,
            fee_bps=fee_bps,
        )

    def compare_runs(
        self,
        arms: Arms,
        benchmark: Annotated[str, Field(description="The arm every other arm is compared to.")],
        seeds: Seeds,
        metric: Annotated[str, Field(description="Scorecard column to compare.")] = "return_pct",
        confidence: Confidence = 0.95,
        method: Annotated[Literal["t", "bootstrap"], Field(description="Interval method.")] = "t",
        preset: Preset = None,
        universe: Universe = None,
        days: Days = MARKET_DEFAULTS.days,
        steps_per_day: StepsPerDay = MARKET_DEFAULTS.steps_per_day,
        ticks_per_step: TicksPerStep = MARKET_DEFAULTS.ticks_per_step,
        names: Names = None,
    ) -> dict[str, Any]:
        """Run every arm on every seed (one evaluation run per seed, reused when it exists) and
        compare each arm with the benchmark, paired by seed: mean difference, interval, p-value
        and the Holm-adjusted p-value over the arms compared, and each arm's probabilistic and
        deflated Sharpe ratio; the trials the DSR deflates by are a column. Beside each row:
        the seeds needed to detect its difference and its minimum track-record length. Across
        all arms at once (paired day returns, stationary bootstrap, from arch): Hansen's SPA
        and White's Reality Check p-values, StepM's superior arms and the model confidence set
        ('snooping' holds the settings). 'overfitting' is the probability of backtest
        overfitting (CSCV) over every configuration this store ran on these seeds and market,
        with the logit quantiles and the performance-degradation slope. The ranking carries
        trials_in_store: every evaluation and comparison this store has run."""
        return self._call(
            "compare_runs",
            arms=arms,
            benchmark=benchmark,
            seeds=seeds,
            metric=metric,
            confidence=confidence,
            method=method,
            preset=preset,
            universe=universe,
            days=days,
            steps_per_day=steps_per_day,
            ticks_per_step=ticks_per_step,
            names=names,
        )

    def replay_recording(
        self,
        name: Annotated[str, Field(description="Recording name, as listed by list_agents.")],
    ) -> dict[str, Any]:
        """Re-execute a recording offline (model-backed arms answer from their transcripts; a
        question they were never asked stops the replay, naming the step) into a new run, and
        report every difference from the results it recorded: matched is true only when the
        results digest is identical. The recording itself is only read, never changed."""
        return self._call("replay_recording", name=name)

    # --- artefacts and past runs ----------------------------------------------------------
    def render_report(self, run_id: RunId) -> dict[str, Any]:
        """Write one self-contained HTML report of a stored run (tables and plots inline) into
        its run directory and return its path relative to store_root."""
        return self._call("render_report", run_id=run_id)

    def list_runs(
        self,
        kind: Annotated[
            Literal["evaluation", "replay", "comparison"] | None,
            Field(description="Only runs of this kind; null = all."),
        ] = None,
        limit: Limit = 20,
    ) -> dict[str, Any]:
        """Past runs in the run store, newest first: id, kind, request and results digest.
        Capped at limit; 'truncated' says how many were left off."""
        return self._call("list_runs", kind=kind, limit=limit)

    def get_run(self, run_id: RunId) -> dict[str, Any]:
        """One stored run: its request, summary (scorecard or comparison, ranking and caveats)
        and the files in its directory, by path relative to store_root."""
        return self._call("get_run", run_id=run_id)

    def compare_stored_runs(
        self,
        a: Annotated[str, Field(description="The first run id (from list_runs).")],
        b: Annotated[str, Field(description="The second run id (from list_runs).")],
    ) -> dict[str, Any]:
        """Two stored runs side by side, read only: provenance rows (kind, time, version,
        market, trial family, seeds, arms, results digest, then every request field) and
        each arm's key metrics, each row as field, a, b and differs (true where they differ;
        an arm only one run has is null on the other side)."""
        return self._call("compare_stored_runs", a=a, b=b)


TOOL_METRICS: dict[str, tuple[str, ...]] = {
    "run_evaluation": ("return_pct", "sharpe", "max_drawdown_pct", "turnover", "errors"),
    "get_run": ("return_pct", "sharpe", "max_drawdown_pct"),
    "replay_recording": ("return_pct", "sharpe", "model_calls", "tokens"),
    "compare_runs": (
        "mean_diff",
        "ci_low",
        "ci_high",
        "p_value",
        "p_holm",
        "significant",
        "psr",
        "dsr",
        "trials",
        "seeds_needed",
        "min_track_record_days",
        "spa_p",
        "reality_check_p",
        "stepm_superior",
        "mcs_p",
        "in_mcs",
        "pbo",
        "degradation_slope",
    ),
}


SIZED_TOOLS = frozenset({"run_evaluation", "compare_runs"})


def limits_text(*, many_seeds: bool) -> str:
    """The service limits, from ``workbench.services.limits``, as a tool description says them."""
    from workbench.services import limits

    text = (
        "Limits (a request over one is refused before any work, with the numbers): per run "
        f"{limits.MAX_NAME_TICKS:,} name-ticks, counting the warm-up days the market simulates "
        f"before day 0 (20 at one step a day); {limits.MAX_ARM_NAME_STEPS:,} arm name-steps "
        f"(arms x names x trading steps); about {limits.MAX_MEMORY_BYTES // 2**20:,} MiB of "
        "memory."
    )
    if many_seeds:
        text += (
            f" Over all seeds: {limits.MAX_TOTAL_NAME_TICKS:,} name-ticks and "
            f"{limits.MAX_TOTAL_ARM_NAME_STEPS:,} arm name-steps."
        )
    return text


def describe(tool: str, method: Callable[..., Any]) -> str:
    """A tool's description: its docstring, the glossary entries of what it reports, and the
    parameters withheld from it with the reason."""
    from inspect import cleandoc

    from workbench.services.glossary import definitions_for

    parts = [cleandoc(method.__doc__ or "")]
    if tool in TOOL_METRICS:
        parts.append("Metrics (from metrics_glossary):\n" + definitions_for(TOOL_METRICS[tool]))
    if tool in SIZED_TOOLS:
        parts.append(limits_text(many_seeds=tool == "compare_runs"))
    withheld = DEFERRED_PARAMS.get(tool, {})
    if withheld:
        parts.append(
            "Not a parameter here: "
            + "; ".join(f"{name} ({reason})" for name, reason in sorted(withheld.items()))
            + "."
        )
    parts.append("Unknown arguments are refused, never ignored. Deterministic: no model is called.")
    return "\n\n".join(parts)


@contextlib.contextmanager
def _deprecations() -> Iterator[list[str]]:
    """The workbench's own deprecation warnings a service raises, as notes for the tool's
    result (and so its audit line); any other warning, a library's deprecation included,
    goes on as it came."""
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DeprecationWarning)
        yield notes
    for warning in caught:
        if _ours(warning):
            notes.append(str(warning.message))
        else:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )


def _ours(warning: warnings.WarningMessage) -> bool:
    """A deprecation the workbench raised: each of them says when the old name goes."""
    ours = OUR_DEPRECATION in str(warning.message)
    return issubclass(warning.category, DeprecationWarning) and ours


def _refuse_both_sizes(arguments: Mapping[str, Any]) -> None:
    """``universe`` and its old name ``names`` both given, refused in the tool's own words."""
    if arguments.get("universe") is not None and arguments.get("names") is not None:
        raise ConfigError(
            "universe and names both given: pass universe only; names is its old name"
        )
