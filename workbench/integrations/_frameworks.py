"""What the framework adapters share: error tables, the rendered payload, plain output.

Error mapping happens at one boundary per adapter. Each framework gets an
``ErrorTable`` naming every exception class its exceptions module defines and
what that class means for a run:

- ``"decision"``  the agent's own bad outcome        -> ``DecisionError``
- ``"budget"``    a deliberate budget stop            -> ``UsageLimitReached``
- ``"framework"`` the framework failed around it      -> ``FrameworkError``

Anything the table does not name (a ``KeyError`` in a graph node, an ``httpx``
error) is a ``FrameworkError``. The tests enumerate each exceptions module and
fail when the framework adds a class the table does not name.

The payload is rendered into a prompt as one header line followed by its
canonical JSON, so a scripted test model can read it back exactly.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from workbench._checks import is_whole
from workbench._jsonio import canonical_json, plain_answer
from workbench.errors import (
    ConfigError,
    DecisionError,
    FrameworkError,
    RunError,
    UsageLimitReached,
)

Category = Literal["decision", "budget", "framework"]

PAYLOAD_HEADER = "Observation (JSON):"

TASK = (
    "You manage a trading account in a simulated market. At each decision point you "
    "receive an observation as JSON: macro indicators, recent history, prices, bid/ask, "
    "volume, your position, cash, buying power and the largest order the market accepts. "
    "Answer with a decision: a list of actions (symbol, side 'buy' or 'sell', a whole "
    "number of shares, order_type 'market' or 'limit', and limit_price for limit orders "
    "only) and a short rationale. An empty list of actions holds. Use only symbols from "
    "the observation and never invent data it does not contain."
)


@dataclass(frozen=True)
class ErrorTable:
    """Every exception class of one framework's exceptions module, by category."""

    framework: str
    module: str
    categories: Mapping[str, Category]

    def classify(self, error: BaseException) -> Category:
        """The category of the nearest class in ``error``'s MRO that the table names."""
        try:
            namespace = vars(importlib.import_module(self.module))
        except ImportError:
            return "framework"
        for cls in type(error).__mro__:
            if namespace.get(cls.__name__) is cls and cls.__name__ in self.categories:
                return self.categories[cls.__name__]
        return "framework"

    def unclassified(self) -> list[str]:
        """The installed module's exception classes that neither the table names nor derive
        from a class it names: ``classify`` would call them framework failures blindly. A
        class the framework added under a named one takes that one's category; a name the
        installed version lacks (an older or newer release's) is no error."""
        found = exception_classes(self.module)
        named = {cls for name, cls in found.items() if name in self.categories}
        return sorted(name for name, cls in found.items() if not named.intersection(cls.__mro__))

    def translate(self, error: BaseException, *, where: str = "") -> RunError:
        """Our error for ``error``; the caller raises it ``from error`` to keep the chain."""
        category = self.classify(error)
        at = f" at {where}" if where else ""
        text = f"{self.framework} raised {type(error).__name__}{at}: {error}"
        if category == "decision":
            return DecisionError(f"the agent answered badly: {text}")
        if category == "budget":
            return UsageLimitReached(
                f"the run reached its request budget: {text}. Raise the limit or catch "
                "UsageLimitReached to treat it as a deliberate stop."
            )
        return FrameworkError(f"the framework failed around the agent: {text}")


def exception_classes(module: str) -> dict[str, type[BaseException]]:
    """Every exception class reachable by name in ``module`` (builtins left out)."""
    namespace = vars(importlib.import_module(module))
    return {
        name: value
        for name, value in namespace.items()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ != "builtins"
    }


def installed_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, read from metadata (nothing is imported)."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def at_least_one(value: Any, what: str) -> int:
    """``value`` if it is a whole number >= 1; otherwise a ``ConfigError`` naming ``what``."""
    if not is_whole(value) or value < 1:
        raise ConfigError(f"{what} must be a whole number >= 1, got {value!r}")
    return value


def render_payload(payload: Mapping[str, Any]) -> str:
    """The observation as prompt text: a header line, then its canonical JSON."""
    return f"{PAYLOAD_HEADER}\n{canonical_json(payload)}"


def payload_from_text(text: str) -> dict[str, Any]:
    """Read back a payload written by ``render_payload`` (anywhere in ``text``)."""
    start = text.rfind(PAYLOAD_HEADER)
    if start < 0:
        raise ValueError(f"no rendered observation in the prompt (no {PAYLOAD_HEADER!r} line)")
    body = text[start + len(PAYLOAD_HEADER) :].strip()
    payload = json.loads(body)
    if not isinstance(payload, dict):
        raise ValueError("the rendered observation is not a JSON object")
    return payload


def plain_output(output: Any) -> Any:
    """A framework's final output as plain JSON data (or the text it was)."""
    if output is None or isinstance(output, str | bool | int | float):
        return output
    if hasattr(output, "model_dump"):
        return output.model_dump(mode="json")
    if dataclasses.is_dataclass(output) and not isinstance(output, type):
        return dataclasses.asdict(output)
    try:
        return plain_answer(output)  # NaN and surrogates kept: validation judges them
    except (ValueError, TypeError, RecursionError) as exc:
        raise DecisionError(
            f"the agent's output ({type(output).__name__}) cannot be read as a decision: {exc}"
        ) from exc


__all__ = [
    "PAYLOAD_HEADER",
    "TASK",
    "Category",
    "ErrorTable",
    "at_least_one",
    "exception_classes",
    "installed_version",
    "payload_from_text",
    "plain_output",
    "render_payload",
]
