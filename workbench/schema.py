"""What an agent sees and what it may answer: the two versioned schemas.

The observation payload is an allowlist serialised to plain JSON (see
``workbench.evaluation.observation``); the decision is validated in two stages:

1. structure (this module): ``parse_decision`` turns whatever the agent returned
   into a ``Decision`` or raises ``DecisionError`` naming the field at fault. A
   ``Decision`` that ``parse_decision`` or ``Decision.of`` returned carries what it
   was validated as, and is taken as it is while that is unchanged (one built with
   ``Decision(...)`` or ``model_construct``, or changed by ``model_copy(update=...)``
   or on its action list, is validated again). An answer of plain data whose every
   value is plainly valid is built without pydantic, as the same decision;
2. market (``workbench.engine.execution``): each action is checked against the
   book and the portfolio, and an action the market cannot take is refused with
   a reason while the rest of the decision still trades.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from itertools import accumulate
from typing import Any, Literal, TypeVar

import pydantic
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from workbench.errors import DecisionError

OBSERVABLE_MACRO: tuple[str, ...] = (
    "regime",
    "growth",
    "inflation",
    "policy_rate",
    "yield_2y",
    "yield_10y",
    "vix",
)
SIDES: tuple[str, ...] = ("buy", "sell")
ORDER_TYPES: tuple[str, ...] = ("market", "limit")
HISTORY_STEPS = 20
MAX_PARTICIPATION = 0.10
DECISION_SCHEMA_VERSION = "2"
# 1: prices, book, macro and portfolio. 2: adds news, fundamentals and calendar, on a
# market that publishes information; a market that publishes none serves 1, unchanged.
OBSERVATION_SCHEMA_VERSION = "2"
PRICE_ONLY_SCHEMA_VERSION = "1"
OBSERVATION_SCHEMA_VERSIONS: tuple[str, ...] = (
    PRICE_ONLY_SCHEMA_VERSION,
    OBSERVATION_SCHEMA_VERSION,
)
NEWS_CAP = 20  # items in one payload's news, newest first; the count left out beside them
# A decision is three levels deep; anything far deeper or larger is not an answer.
MAX_ANSWER_DEPTH = 32
MAX_ANSWER_CHARS = 1_000_000
MAX_ANSWER_ITEMS = 100_000


class Action(BaseModel):
    """One order: whole shares of one symbol, at market or with a limit price."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    symbol: str = Field(min_length=1, description="A symbol from the observation payload.")
    side: Literal["buy", "sell"]
    # The schema a model sees says integer (whole shares); validation still takes 10.0.
    quantity: float = Field(
        ge=0,
        allow_inf_nan=False,
        description="Whole shares, >= 0.",
        json_schema_extra={"type": "integer"},
    )
    order_type: Literal["market", "limit"] = "market"
    limit_price: float | None = Field(
        default=None, gt=0, allow_inf_nan=False, description="Required for limit orders."
    )

    @field_validator("quantity")
    @classmethod
    def _whole_shares(cls, value: float) -> float:
        if not float(value).is_integer():
            raise ValueError(f"quantity must be a whole number of shares, got {value}")
        return float(value)

    @model_validator(mode="after")
    def _limit_needs_price(self) -> Action:
        if self.order_type == "limit" and self.limit_price is None:
            raise ValueError("a limit order needs limit_price")
        if self.order_type == "market" and self.limit_price is not None:
            raise ValueError("a market order takes no limit_price; use order_type='limit'")
        return self

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class Decision(BaseModel):
    """What an agent answers at a decision point. An empty action list is a hold."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    actions: list[Action]
    rationale: str = ""
    # The actions and rationale this decision was validated with are kept in its private
    # attributes as "_validated_as" (see _private), absent until it was. The list is mutable
    # and model_copy(update=...) keeps the mark, so a change is validated.

    @classmethod
    def of(cls, actions: Iterable[Mapping[str, Any]], rationale: str = "") -> Decision:
        """A decision from plain action data that code built, validated once (the
        evaluation takes it as it is). A model's answer goes through ``parse_decision``,
        which first refuses oversized, too deep and non-finite data by name."""
        data = _plain_actions({"actions": list(actions), "rationale": rationale})
        return _accepted(_validated(data))

    @classmethod
    def of_market_orders(
        cls, orders: Iterable[tuple[str, str, float]], rationale: str = ""
    ) -> Decision:
        """``of`` for market orders given as ``(symbol, side, quantity)``: the same decision,
        built without pydantic's validators when every value is plainly valid and every text
        ASCII; anything else goes through ``of``, which names what is wrong."""
        orders = list(orders)
        plain = type(rationale) is str and rationale.isascii()
        if not plain or not all(map(_plain_market_order, orders)):
            return cls.of(
                [{"symbol": s, "side": side, "quantity": q} for s, side, q in orders], rationale
            )
        actions = [_market_action(*order) for order in orders]
        values = {"actions": actions, "rationale": rationale}
        # ASCII text holds no unpaired surrogate: marked as _accepted marks it
        return _built(cls, values, _DECISION_FIELDS, {"_validated_as": (tuple(actions), rationale)})

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def is_validated(self) -> bool:
        """Whether ``parse_decision`` or ``of`` returned this decision, unchanged since."""
        checked = _private(self).get("_validated_as")
        return checked is not None and checked == (tuple(self.actions), self.rationale)

    def __eq__(self, other: object) -> bool:  # the validation mark is not part of the value
        if not isinstance(other, Decision):
            return NotImplemented
        return self.actions == other.actions and self.rationale == other.rationale

    __hash__ = None  # type: ignore[assignment]


def parse_decision(raw: Any) -> Decision:
    """Stage one: structure. Accept a Decision, a mapping or a JSON string.

    Every malformed answer, whatever its shape (a number, NaN, ``{"actions": true}``,
    text nested thousands deep, an unpaired surrogate), is a ``DecisionError``.
    """
    if isinstance(raw, Decision) and raw.is_validated():
        return raw
    # any other Decision is validated again: it may have been built without validation
    if isinstance(raw, Decision):
        return _accepted(_validated(raw.model_dump()))
    return _structured(raw)


def _accepted(decision: Decision) -> Decision:
    _refuse_unpaired_surrogates(decision)
    _private(decision)["_validated_as"] = (tuple(decision.actions), decision.rationale)
    return decision


def _private(decision: Decision) -> dict[str, Any]:
    """The decision's private attributes, where pydantic keeps them (and copies them with
    the model). Not a declared ``PrivateAttr``: pydantic would set its default on every
    validation (some 2.5 us) and read it through ``BaseModel.__getattr__`` (2.5 us more),
    most of what taking a decision costs; this slot is read in 0.04 us."""
    private = decision.__pydantic_private__
    if private is None:  # not validated yet: pydantic leaves the slot empty
        private = {}
        object.__setattr__(decision, "__pydantic_private__", private)
    return private


def _plain_market_order(order: tuple[str, str, float]) -> bool:
    """Whether the model would accept ``order`` as a market action unchanged: a non-empty
    ASCII ``str``, a side, a finite whole ``float`` >= 0 (``is_integer`` is false for inf
    and nan)."""
    symbol, side, quantity = order
    return (
        type(symbol) is str
        and symbol != ""
        and symbol.isascii()
        and type(side) is str
        and (side == "buy" or side == "sell")
        and type(quantity) is float
        and quantity >= 0
        and quantity.is_integer()
    )


_Model = TypeVar("_Model", bound=BaseModel)
_MARKET_FIELDS = frozenset(("symbol", "side", "quantity"))
_DECISION_FIELDS = frozenset(("actions", "rationale"))
# a market action's values as validation leaves them, in the fields' order
_MARKET = {"symbol": "", "side": "", "quantity": 0.0, "order_type": "market", "limit_price": None}


def _built(
    kind: type[_Model],
    values: dict[str, Any],
    given: Iterable[str],
    private: dict[str, Any] | None = None,
) -> _Model:
    """A model holding ``values`` as validation would leave it, ``given`` its fields set
    (what ``model_construct`` does, without its per-field walk)."""
    model = kind.__new__(kind)
    object.__setattr__(model, "__dict__", values)
    _set_fields_set(model, set(given))
    _set_extra(model, None)
    _set_private(model, private)
    return model


def _market_action(symbol: str, side: str, quantity: float) -> Action:
    """``_built`` for a plain market order (``_plain_market_order``), its steps inline: a
    rebalance builds several per decision."""
    action = _new(Action)
    _setattr(
        action,
        "__dict__",
        {
            "symbol": symbol,
            "side": side,
            "quantity": quantity,
            "order_type": "market",
            "limit_price": None,
        },  # _MARKET's fields, in order
    )
    _set_fields_set(action, {"symbol", "side", "quantity"})  # _MARKET_FIELDS
    _set_extra(action, None)
    _set_private(action, None)
    return action


_new, _setattr = object.__new__, object.__setattr__
# BaseModel's slots, each set through its descriptor (a third quicker than object.__setattr__)
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def _structured(raw: Any) -> Decision:
    """``raw`` (a model, a JSON text or plain data) as an accepted decision."""
    if isinstance(raw, BaseModel):
        raw = raw.model_dump()
    if isinstance(raw, str | bytes):
        raw = _loads(raw)
    if not isinstance(raw, dict):
        raise DecisionError(
            f"a decision must be an object with 'actions' and 'rationale', got {type(raw).__name__}"
        )
    plain = _plain_decision(raw)
    return plain if plain is not None else _accepted(_checked(raw))


def _checked(raw: dict[str, Any]) -> Decision:
    """``raw`` validated by pydantic, after the refusals of what it must never be handed."""
    refuse_deep(raw)
    _refuse_non_finite(raw)
    return _validated(_plain_actions(raw))


def _plain_decision(raw: dict[str, Any]) -> Decision | None:
    """The decision ``_checked`` builds from ``raw``, marked as ``_accepted`` marks it,
    built without pydantic when every key is a ``str`` and every value plainly valid
    (ASCII text, a side, a finite whole ``float`` or an ``int`` quantity, an order type,
    a positive ``float`` or whole ``int`` limit price on a limit order only); None
    otherwise, for ``_checked`` to validate or name the fault. A model's JSON answer is
    such data."""
    if type(raw) is not dict or not _keys_are_strings(raw):  # a subclass may read otherwise
        return None
    actions = raw.get("actions")
    rationale = raw.get("rationale", "")
    if (
        type(actions) is not list
        or len(actions) > _MOST_PLAIN_ACTIONS
        or not raw.keys() <= _DECISION_FIELDS
        or type(rationale) is not str
        or not rationale.isascii()
    ):
        return None
    plain = []
    for action in actions:  # nothing built for an answer pydantic is to validate
        values = _plain_action(action)
        if values is None:
            return None
        plain.append(values)
    built = [_action(values, action.keys()) for values, action in zip(plain, actions, strict=True)]
    values = {"actions": built, "rationale": rationale}
    # ASCII text holds no unpaired surrogate: marked as _accepted marks it
    mark = {"_validated_as": (tuple(built), rationale)}
    return _built(Decision, values, raw.keys(), mark)


# at most 1 + 2 + 6 per action values: far inside MAX_ANSWER_ITEMS, never too deep
_MOST_PLAIN_ACTIONS = 10_000
_ACTION_FIELDS = frozenset(Action.model_fields)
_LARGEST_EXACT_INT = 2**53  # every int up to it is a float exactly


def _plain_action(action: Any) -> dict[str, Any] | None:
    """The values of the ``Action`` validation makes of ``action``, in the fields' order,
    when they are plainly valid (see ``_plain_decision``); None otherwise."""
    if (
        type(action) is not dict
        or not _MARKET_FIELDS <= action.keys() <= _ACTION_FIELDS
        or not _keys_are_strings(action)
    ):
        return None
    symbol, side, quantity = action["symbol"], action["side"], action["quantity"]
    order_type = action.get("order_type", "market")
    limit_price = action.get("limit_price")
    if type(quantity) is int and 0 <= quantity <= _LARGEST_EXACT_INT:
        quantity = float(quantity)
    if type(limit_price) is int and 0 < limit_price <= _LARGEST_EXACT_INT:
        limit_price = float(limit_price)  # a whole price, as models often write one
    plain = (
        type(symbol) is str
        and symbol != ""
        and symbol.isascii()
        and type(side) is str  # before comparing: an array compares to an array
        and (side == "buy" or side == "sell")
        and type(quantity) is float
        and quantity >= 0
        and quantity.is_integer()  # false for inf and nan
        and type(order_type) is str
        and (
            (order_type == "market" and limit_price is None)
            or (order_type == "limit" and type(limit_price) is float and _positive(limit_price))
        )
    )
    if not plain:
        return None
    return {
        "symbol": symbol,
        "side": side,
        "quantity": quantity,
        "order_type": order_type,
        "limit_price": limit_price,
    }


def _keys_are_strings(data: dict[Any, Any]) -> bool:
    """Whether every key is a ``str`` itself: pydantic refuses any other, and a key that
    only compares equal to a field's name would be read as that field here."""
    return _STR_ONLY.issuperset(map(type, data))


_STR_ONLY = frozenset((str,))


def _action(values: dict[str, Any], given: Iterable[str]) -> Action:
    """``_built(Action, values, given)``, its steps inline: an answer builds several."""
    action = _new(Action)
    _setattr(action, "__dict__", values)
    _set_fields_set(action, set(given))
    _set_extra(action, None)
    _set_private(action, None)
    return action


def _positive(price: float) -> bool:
    return 0.0 < price < math.inf  # false for nan


def _plain_actions(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` with any Action (or other model) in its actions as plain data: pydantic
    takes a model instance as it is, and every action is to be validated here."""
    actions = raw.get("actions")
    if not isinstance(actions, list) or not any(issubclass(t, BaseModel) for t in _kinds(actions)):
        return raw
    plain = [a.model_dump() if isinstance(a, BaseModel) else a for a in actions]
    return {**raw, "actions": plain}


def _kinds(values: list[Any]) -> set[type]:
    """The types among ``values``: one or two for any list of actions, found at C speed."""
    return set(map(type, values))


def _validated(raw: dict[str, Any]) -> Decision:
    try:
        return Decision.model_validate(raw)
    except pydantic.ValidationError as exc:
        raise DecisionError(f"invalid decision: {_summarise(exc)}") from exc


def _loads(text: str | bytes) -> Any:
    if len(text) > MAX_ANSWER_CHARS:
        raise DecisionError(
            f"the decision is {len(text):,} characters long; an answer may be at most "
            f"{MAX_ANSWER_CHARS:,}"
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecisionError(f"the decision is not UTF-8 text: {exc.reason}") from exc
    _refuse_deep_text(text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DecisionError(f"the decision is not valid JSON: {exc.msg} at {exc.pos}") from exc


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")
_LEVEL_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _refuse_deep_text(text: str) -> None:
    """Measure bracket nesting outside strings before parsing (json recurses per level)."""
    if text.count("[") + text.count("{") <= MAX_ANSWER_DEPTH:
        return
    brackets = _BRACKET.findall(_STRING.sub('""', text))
    deepest = max(accumulate(map(_LEVEL_STEP.__getitem__, brackets), initial=0))
    if deepest > MAX_ANSWER_DEPTH:
        raise _too_deep(deepest)


def refuse_deep(value: Any) -> None:
    """Refuse plain data nested deeper than MAX_ANSWER_DEPTH or holding more than
    MAX_ANSWER_ITEMS values (walked without recursion, so no depth can overflow it).

    The walk visits values depth first, last child first; a run of values that hold
    no others is counted in one step, in its place in that order.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]  # a container and its level, or a run
    seen = 0
    while stack:
        item, level = stack.pop()
        seen += level if item is _RUN else 1
        if seen > MAX_ANSWER_ITEMS:
            raise DecisionError(
                f"the decision holds more than {MAX_ANSWER_ITEMS:,} values; that is not an answer"
            )
        if item is _RUN or not isinstance(item, _CONTAINERS):
            continue
        if level > MAX_ANSWER_DEPTH:
            raise _too_deep(level)
        run = 0
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, _CONTAINERS):
                if run:
                    stack.append((_RUN, run))
                    run = 0
                stack.append((child, level + 1))
            else:
                run += 1
        if run:
            stack.append((_RUN, run))


_RUN = object()  # on refuse_deep's stack: a run of that many values holding no others
_CONTAINERS = (dict, list, tuple)


def _too_deep(level: int) -> DecisionError:
    return DecisionError(
        f"the decision is nested {level} levels deep; an answer may nest at most "
        f"{MAX_ANSWER_DEPTH} (a decision needs 3)"
    )


def _refuse_non_finite(raw: dict[str, Any]) -> None:
    actions = raw.get("actions")
    if not isinstance(actions, list):
        return  # the model check names the wrong shape
    for index, action in enumerate(actions):
        if not isinstance(action, dict):
            continue
        for key in ("quantity", "limit_price"):
            value = action.get(key)
            if isinstance(value, float) and not math.isfinite(value):
                raise DecisionError(f"invalid decision: actions.{index}.{key} must be finite")


def _refuse_unpaired_surrogates(decision: Decision) -> None:
    symbols = "".join([a.symbol for a in decision.actions])  # ASCII if and only if each is
    if decision.rationale.isascii() and symbols.isascii():
        return  # no surrogate in ASCII
    texts = {"rationale": decision.rationale}
    texts.update({f"actions.{i}.symbol": a.symbol for i, a in enumerate(decision.actions)})
    for where, text in texts.items():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise DecisionError(
                f"invalid decision: {where} holds an unpaired surrogate at character "
                f"{exc.start}; answer in valid Unicode text"
            ) from None


def _summarise(exc: pydantic.ValidationError) -> str:
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error["loc"]) or "decision"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def decision_json_schema() -> dict[str, Any]:
    """The JSON schema a provider sees when the decision is bound as output type."""
    return Decision.model_json_schema()


HOLD = Decision.of([], rationale="hold")

__all__ = [
    "DECISION_SCHEMA_VERSION",
    "HISTORY_STEPS",
    "HOLD",
    "MAX_ANSWER_CHARS",
    "MAX_ANSWER_DEPTH",
    "MAX_ANSWER_ITEMS",
    "MAX_PARTICIPATION",
    "NEWS_CAP",
    "OBSERVABLE_MACRO",
    "OBSERVATION_SCHEMA_VERSION",
    "OBSERVATION_SCHEMA_VERSIONS",
    "ORDER_TYPES",
    "PRICE_ONLY_SCHEMA_VERSION",
    "SIDES",
    "Action",
    "Decision",
    "decision_json_schema",
    "parse_decision",
]
