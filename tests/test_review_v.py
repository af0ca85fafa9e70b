"""A review of two speed changes: dates read once per mask still follow each text's
horizon (and one mask's reading never reaches another's), and an ``ExchangeStep`` handed
its adapter at each call counts each adapter's answers on that adapter."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from mask_routes import DATES

from workbench.engine.textmask import TextMask
from workbench.errors import ReplayMiss
from workbench.evaluation import evaluate
from workbench.integrations import CallableAgentAdapter, callable_agent
from workbench.transcript import Transcript

# far back, not a calendar date, an era's day, a day before the holiday, two after it
# (within a year of a mid-year horizon, and not), and two dates years past the last bar
TEXT = (
    "Seen 1990-01-05, 2016-02-31, 平成28年3月4日, 2016-12-20, 2017-01-10, "
    "2017-02-20, 2019-06-03 and 2031-01-02."
)
HOLIDAY = "2016-12-26"  # a weekday the bars skip: counted by a horizon before it
CALENDAR = [d for d in DATES if d != HOLIDAY]
MARKET: dict[str, Any] = {"seed": 11, "universe": 4, "days": 3}


def _mask(dates: list[str], *, counterfactual: bool = False) -> TextMask:
    return TextMask({"ACME": "ASSET1"}, {"ACME": 2.0}, dates, 20, counterfactual=counterfactual)


def _under(mask: TextMask, row: int) -> str:
    with mask.known_until(row):
        return mask.texts([(TEXT, ["ACME"])])[0]


def _fresh(dates: list[str], row: int, **kind: bool) -> str:
    """What a mask that has read nothing yet writes under ``row``."""
    mask = _mask(dates, **kind)
    with mask.known_until(row):
        assert mask.text_by_pattern(TEXT, ["ACME"]) == mask.text(TEXT, ["ACME"])
        return mask.text(TEXT, ["ACME"])


def test_dates_read_late_are_written_early_as_a_fresh_mask_writes_them() -> None:
    mask, horizons = _mask(CALENDAR), [298, 30, 150, 298, 150, 30]
    written = [_under(mask, row) for row in horizons]
    assert written == [_fresh(CALENDAR, row) for row in horizons]
    late, early, middle = written[:3]
    position = CALENDAR.index("2017-01-10") - 20
    assert f"day {position}," in late  # the trading date itself, once the bars hold it
    assert f"day {position + 1}," in middle  # the holiday counted: not yet known then
    assert "[over 1 year after day 10]" in early and "after day 278]" not in early


def test_two_masks_with_their_own_calendars_never_read_each_others_dates() -> None:
    later = CALENDAR[100:]  # another first date, so every day number moves
    real, other, bootstrap = _mask(CALENDAR), _mask(later), _mask(CALENDAR, counterfactual=True)
    for row in (150, 40, 150):
        assert _under(real, row) == _fresh(CALENDAR, row)
        assert _under(other, row) == _fresh(later, row)
        assert _under(bootstrap, row) == _fresh(CALENDAR, row, counterfactual=True)
    assert _under(bootstrap, 150).count("[date]") == 8


def _buys(payload: dict[str, Any]) -> dict[str, Any]:
    symbol = sorted(payload["symbols"])[payload["day"] % 4]
    return {"actions": [{"symbol": symbol, "side": "buy", "quantity": 2.0}]}


def _replaying(transcript: Transcript, kind: type[CallableAgentAdapter]) -> CallableAgentAdapter:
    return kind(None, name="buyer", mode="replay", transcript=transcript)


def test_a_copy_of_a_replaying_adapter_counts_its_answers_on_itself() -> None:
    live = callable_agent(_buys, name="buyer", mode="record")
    recorded = evaluate([live], **MARKET)
    assert live.recorder is not None
    original = _replaying(live.recorder, CallableAgentAdapter)
    twin = copy.copy(original)  # shares the ExchangeStep, not the account of its answers
    assert evaluate([twin], **MARKET).digest() == recorded.digest()
    assert twin.usage.model_calls == len(twin.decision_log) == 3
    assert original.usage.model_calls == 0 and original.decision_log == []


class _AskedByTask(CallableAgentAdapter):
    in_turn = False  # the coroutine path


def _refusal(transcript: Transcript, kind: type[CallableAgentAdapter]) -> tuple[str, Any]:
    """The refusal's message and the arm's log (its last entry holds the refusal)."""
    arm = _replaying(transcript, kind)
    with pytest.raises(ReplayMiss) as refused:
        evaluate([arm], **MARKET)
    return str(refused.value), arm.decision_log


def test_a_missing_answer_is_refused_by_its_day_and_step_in_turn_as_by_task() -> None:
    live = callable_agent(_buys, name="buyer", mode="record")
    evaluate([live], **MARKET)
    assert live.recorder is not None
    saved = json.loads(live.recorder.to_json())
    del saved["exchanges"][1]
    short = Transcript.from_json(json.dumps(saved))
    in_turn, by_task = _refusal(short, CallableAgentAdapter), _refusal(short, _AskedByTask)
    assert in_turn == by_task
    message, log = in_turn
    assert "no recorded answer for day 1, step 0" in message
    assert len(log) == 2 and log[-1]["error"] == f"ReplayMiss: {message}"
