"""Checks for notebook parameters: each failure names the parameter and the fix.

A notebook calls these in the cell right after its ``parameters`` cell, before
it creates ``out_dir``, so a bad parameter stops the run there and leaves
nothing in the output folder that could be mistaken for a result. The first
call, ``refuse_unknown_parameters()``, stops a run given a parameter the
notebook does not declare (papermill itself only warns and goes on with the
default), however the notebook was started.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench._checks import did_you_mean, is_whole, renamed_keyword
from workbench.errors import ConfigError
from workbench.services.agents import SCRIPTED_ARMS, baseline_names, scripted_arm

MODES = ("live", "record", "replay")
INJECTED = "# Parameters"  # the first line of the cell papermill injects after `parameters`


def _bad(param: str, problem: str, fix: str) -> ConfigError:
    return ConfigError(f"parameter {param!r}: {problem}; {fix}")


def refuse_unknown_parameters(cells: Sequence[str] | None = None) -> None:
    """Stop if papermill injected a parameter this notebook's ``parameters`` cell lacks.

    ``cells`` are the sources run so far, oldest first (default: the kernel's input
    history). Papermill runs the ``parameters`` cell, then the one it injects (whose
    first line is ``INJECTED``), then this check; a notebook run by hand has no
    injected cell, and nothing is checked.
    """
    history = _kernel_history() if cells is None else list(cells)
    injected = [i for i, cell in enumerate(history) if cell.lstrip().startswith(INJECTED)]
    if not injected or injected[-1] == 0:
        return
    last = injected[-1]
    declared = assigned_names(history[last - 1])
    for name in assigned_names(history[last]):
        if name not in declared:
            raise ConfigError(
                f"parameter {name!r}: this notebook has no such parameter, so it would run with "
                f"the defaults.{did_you_mean(name, declared)} Its parameters: "
                f"{', '.join(declared)}."
            )


def assigned_names(source: str) -> list[str]:
    """The names a cell assigns at top level, in order (``x = 1`` and ``x: int = 1``)."""
    names: list[str] = []
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names += [t.id for t in targets if isinstance(t, ast.Name) and t.id not in names]
    return names


def given_parameters(cells: Sequence[str] | None = None) -> list[str]:
    """The parameters papermill injected (none when the notebook is run by hand)."""
    history = _kernel_history() if cells is None else list(cells)
    injected = [cell for cell in history if cell.lstrip().startswith(INJECTED)]
    return assigned_names(injected[-1]) if injected else []


def universe(value: Any, names: Any, *, cells: Sequence[str] | None = None) -> int:
    """``universe``, or the deprecated ``names`` (a warning naming ``universe``); both
    given is refused. A ``names`` of None or 0 is not given (a notebook declares
    ``names: int = 0``: papermill reads no optional types). ``cells`` as for
    ``refuse_unknown_parameters``."""
    if names is None or names == 0:
        return whole_number("universe", value, maximum=5000)
    if "universe" in given_parameters(cells):
        raise _bad("names", "is the old name of universe, and both were given", "pass universe")
    warnings.warn(
        "parameter 'names' is deprecated: pass universe; names goes in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return whole_number("names", names, maximum=5000)


def _kernel_history() -> list[str]:
    try:
        from IPython import get_ipython
    except ImportError:
        return []
    shell = get_ipython()
    if shell is None:
        return []
    return [str(cell) for cell in shell.history_manager.input_hist_parsed]


def whole_number(param: str, value: Any, *, minimum: int = 1, maximum: int = 100_000) -> int:
    if not is_whole(value):
        raise _bad(param, f"must be a whole number, got {value!r}", f"pass e.g. -p {param} 5")
    if not minimum <= value <= maximum:
        raise _bad(
            param, f"must be between {minimum} and {maximum}, got {value}", "pass one in range"
        )
    return value


def name_list(param: str, value: str | Sequence[str]) -> list[str]:
    """A comma-separated string or a list, as a list of stripped non-empty names."""
    items = value.split(",") if isinstance(value, str) else list(value)
    names = [str(item).strip() for item in items if str(item).strip()]
    if not names:
        raise _bad(param, "is empty", "name at least one, e.g. 'buy_and_hold,momentum'")
    return names


def arm_names(param: str, value: str | Sequence[str], *, extra: Sequence[str] = ()) -> list[str]:
    """Baseline names, ``baselines`` (all of them), scripted arms and ``extra`` names."""
    baselines = baseline_names()
    known = [*baselines, *SCRIPTED_ARMS, *extra]
    arms: list[str] = []
    for name in name_list(param, value):
        expanded = baselines if name == "baselines" else [name]
        for arm in expanded:
            if arm not in known:
                raise _bad(
                    param,
                    f"unknown arm {arm!r}",
                    f"choose from 'baselines', {', '.join(map(repr, known))}",
                )
            if arm not in arms:
                arms.append(arm)
    return arms


def seed_list(param: str, value: str | int | Sequence[int]) -> list[int]:
    if isinstance(value, int):
        value = [value]
    items = value if isinstance(value, str) else [str(v) for v in value]
    seeds = []
    for item in name_list(param, items):
        if not item.isdigit():
            raise _bad(param, f"seed {item!r} is not a whole number >= 0", "e.g. '1,2,3'")
        seeds.append(int(item))
    if len(set(seeds)) != len(seeds):
        raise _bad(param, f"repeats a seed in {seeds}", "list each seed once")
    return seeds


def preset_name(param: str, value: str) -> str:
    """A shipped preset's name, or "" for the default (the market's own: see ``market``)."""
    from workbench.services.presets import preset_names

    if value and value not in preset_names():
        raise _bad(param, f"unknown preset {value!r}", f"choose from {', '.join(preset_names())}")
    return value


def choice(param: str, value: str, options: Sequence[str]) -> str:
    if value not in options:
        raise _bad(param, f"must be one of {', '.join(options)}, got {value!r}", "pick one")
    return value


def recording_folder(param: str, value: str) -> Path:
    """An existing recording folder (with its manifest)."""
    from workbench.services.recorded import manifest_of

    if not value:
        raise _bad(param, "is empty", "pass the path of a recording folder")
    folder = Path(value)
    manifest = manifest_of(folder)
    if not manifest.is_file():
        raise _bad(
            param,
            f"no recording at {str(folder)!r} (no {manifest.name} there)",
            "record one with mode='record' or pass the path of an existing recording folder",
        )
    return folder


def output_folder(param: str, value: str) -> Path:
    if not str(value).strip():
        raise _bad(param, "is empty", "pass a folder for the results, e.g. out/run1")
    folder = Path(value)
    if folder.exists() and not folder.is_dir():
        raise _bad(param, f"{str(folder)!r} is a file, not a folder", "pass a folder path")
    return folder


def shipped_recordings(root: str = "") -> list[Path]:
    """Every recording under ``root`` (default: the repository's ``recordings/``)."""
    from workbench.services.recorded import recordings_under

    base = Path(root) if root else repository_root() / "recordings"
    return recordings_under(base) if base.is_dir() else []


def repository_root() -> Path:
    """The checkout the package runs from (editable install), else the working directory."""
    here = Path(__file__).resolve().parents[2]
    return here if (here / "pyproject.toml").is_file() else Path.cwd()


def build_arms(names: Sequence[str], prices: Path | None = None) -> list[Any]:
    """Agents for live runs: baseline names stay names, scripted arm names become adapters
    (priced by the YAML table ``prices`` when given)."""
    priced = {} if prices is None else {"prices": prices}
    return [scripted_arm(n, **priced) if n in SCRIPTED_ARMS else n for n in names]


def price_file(param: str, value: str) -> Path | None:
    """An existing YAML price table, or None when the parameter is empty."""
    if not str(value).strip():
        return None
    path = Path(value)
    if path.suffix.lower() not in (".yaml", ".yml") or not path.is_file():
        raise _bad(
            param,
            f"no YAML file at {str(path)!r}",
            "pass a price table (model: {input, output, cached_input} in US dollars per "
            "million tokens) as a .yaml file, or '' to leave the model arms' cost unknown",
        )
    return path


def recording_roster(names: Sequence[str]) -> dict[str, str]:
    """Arms for ``recordings.record`` by name: scripted arms by factory, so a replay
    rebuilds them, baselines by their own name."""
    return {n: SCRIPTED_ARMS.get(n, n) for n in names}


def bars_file(param: str, value: str) -> Path | None:
    """An existing .csv or .parquet file of historical bars, or None for the simulator."""
    if not str(value).strip():
        return None
    path = Path(value)
    if path.suffix.lower() not in (".csv", ".parquet", ".pq"):
        raise _bad(param, f"{str(path)!r} is not a .csv or .parquet file", "pass a bars file")
    if not path.is_file():
        raise _bad(
            param,
            f"no file at {str(path)!r}",
            "pass the path of a bars file, e.g. notebooks/data/example_bars.csv, or '' to simulate",
        )
    return path


def text_file(param: str, value: str) -> Path | None:
    """An existing .csv or .parquet file of news or fundamentals, or None when empty."""
    if not str(value).strip():
        return None
    path = Path(value)
    if path.suffix.lower() not in (".csv", ".parquet", ".pq") or not path.is_file():
        raise _bad(
            param,
            f"no .csv or .parquet file at {str(path)!r}",
            f"pass your {param} file, e.g. notebooks/data/example_{param}.csv, or '' for none",
        )
    return path


def text_options(
    *, company_names: str, embargo: str, canaries: int, close_time: str, timezone: str
) -> dict[str, Any]:
    """``load_bars``'s text options (the CLI's ``--company-names`` ... ``--timezone``) from
    the notebook's parameters; an empty one (or ``canaries=0``) is left out. Each is
    checked with the bars and the text, in ``market``."""
    given = {"embargo": embargo, "close_time": close_time, "timezone": timezone}
    chosen: dict[str, Any] = {k: str(v).strip() for k, v in given.items() if str(v).strip()}
    if whole_number("canaries", canaries, minimum=0):
        chosen["canaries"] = canaries
    if str(company_names).strip():
        chosen["company_names"] = _names_file(Path(company_names))
    return chosen


def _names_file(path: Path) -> Path:
    if path.suffix.lower() not in (".csv", ".parquet", ".pq") or not path.is_file():
        raise _bad(
            "company_names",
            f"no .csv or .parquet file at {str(path)!r}",
            "pass a symbol,name file, e.g. notebooks/data/example_names.csv, or '' for none",
        )
    return path


def model_cutoff(param: str, value: str, arms: Sequence[str]) -> dict[str, str]:
    """``"arm=YYYY-MM-DD,..."`` as each arm's training cutoff, checked as the CLI checks
    ``--model-cutoff``; every arm named must be among ``arms``. Empty: no cutoff."""
    from workbench.services.evaluation import cutoffs_from

    example = f"{param}='momentum=2016-09-01'"
    cutoffs = cutoffs_from([str(value)], where=f"parameter {param!r}: item", example=example)
    unknown = sorted(set(cutoffs) - set(arms))
    if unknown:
        problem = f"names {unknown}, which are not among the arms {list(arms)}"
        raise _bad(param, problem, "key each cutoff by one of the arms")
    return cutoffs


def market(
    data: Path | None,
    *,
    universe: int | None = None,
    days: int,
    preset: str,
    steps_per_day: int | None = None,
    seed: int | None = None,
    news: Path | None = None,
    fundamentals: Path | None = None,
    text: Mapping[str, Any] | None = None,
    cutoffs: Mapping[str, str] | None = None,
    names: int | None = None,
) -> dict[str, Any]:
    """The market keywords of ``evaluate``: the simulator's, or the bars' (which bring their
    own names and trade one step a date, so ``universe`` and ``steps_per_day`` do not apply),
    loaded with the ``news`` and ``fundamentals`` joined to them point in time under the
    ``text`` options (``text_options``), and each arm's training cutoff (``cutoffs``).
    ``names`` is the deprecated name of ``universe`` (a warning; both given is refused)."""
    sizes: dict[str, Any] = {"universe": universe, "names": names}
    renamed_keyword(sizes, "names", "universe", caller="market")
    chosen: dict[str, Any] = {"days": days, "preset": preset or None}  # "": the default
    if seed is not None:
        chosen["seed"] = seed
    given = {"news": news, "fundamentals": fundamentals, **(text or {})}
    given = {k: v for k, v in given.items() if v is not None}
    if data is None:
        if given:
            raise _bad(next(iter(given)), "joins text to historical bars", "pass data= too")
        if cutoffs:
            from workbench.services.evaluation import MODEL_CUTOFF_NEEDS_DATES

            raise ConfigError(f"parameter 'model_cutoff': {MODEL_CUTOFF_NEEDS_DATES}")
        if sizes["universe"] is not None:
            chosen["universe"] = sizes["universe"]
        if steps_per_day is not None:
            chosen["steps_per_day"] = steps_per_day
        return chosen
    from workbench.services.evaluation import load_bars

    # the bars and the text are checked here, before anything is written
    chosen["data"] = load_bars(data, **given)
    return {**chosen, **({"model_cutoff": dict(cutoffs)} if cutoffs else {})}


def seed_runs(agents: Any, seeds: Sequence[int], market: dict[str, Any]) -> list[Any]:
    """One run per seed. On bars, seed ``s`` trades bootstrap variant ``s`` of them, all
    under the bars' one mask (the same aliases, so one leak report speaks of every seed):
    one real path is one observation, so the seeds sample paths like it."""
    from workbench.evaluation import evaluate
    from workbench.evaluation.compare import run_seeds

    if "data" not in market:
        return run_seeds(agents, seeds, **market)
    options = {k: v for k, v in market.items() if k != "data"}
    real = market["data"]
    return [
        evaluate(agents, seed=s, data=real.with_variant(f"bootstrap:{s}"), **options) for s in seeds
    ]


def real_path_run(agents: Any, seed: int, market: dict[str, Any]) -> Any:
    """The arms once on the real path of the bars (no variant): the run a date can split at
    the model cutoff, when the seeds trade bootstrap variants (``seed_runs``)."""
    from workbench.evaluation import evaluate

    return evaluate(agents, seed=seed, **market)


def refuse_canaries_on_variants(text: Mapping[str, Any]) -> None:
    """compare.ipynb's seeds trade bootstrap variants of the bars, and canaries are planted
    on the real path only, so ``canaries`` is refused there before anything is written."""
    if text.get("canaries"):
        raise _bad(
            "canaries",
            "canaries are planted on the real path only, and each seed here trades a bootstrap "
            "variant of the bars",
            "set canaries=0 here and audit for look-ahead with evaluate.ipynb (or workbench "
            "evaluate --canaries), which trades the real path",
        )


def refuse_other_cutoffs(cutoffs: Mapping[str, str], meta: Mapping[str, Any]) -> None:
    """A replay keeps the cutoffs it was recorded with: a ``model_cutoff`` given in replay
    mode must name those, as ``evaluate`` refuses a replayed arm another cutoff."""
    recorded = meta.get("model_cutoff") or {}
    for arm, cutoff in cutoffs.items():
        if recorded.get(arm) != cutoff:
            was = recorded.get(arm) or "no cutoff"
            raise _bad(
                "model_cutoff",
                f"{arm!r} was recorded with {was}, not {cutoff}",
                "give the recorded cutoff, or leave model_cutoff empty to use it",
            )


def leak_table(market: Mapping[str, Any], runs: Sequence[Any] = ()) -> Any:
    """The text leak report (``text_leaks``) of what the arms saw, or None without news:
    the news of the market's ``days`` on the bars' path, or on the paths ``runs`` traded
    (compare.ipynb's bootstrap variants, ``seed_runs``)."""
    from workbench.services.evaluation import carries_news, text_leaks

    data = market.get("data")
    if not carries_news(data):
        return None
    labels = [run.meta["data"]["variant"]["label"] for run in runs]
    return text_leaks(data, days=market.get("days"), variants=list(dict.fromkeys(labels)))
