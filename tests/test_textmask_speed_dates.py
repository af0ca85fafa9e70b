"""A date written the same way is read once per run and placed under each horizon: what
it reads as still follows the close its text is first seen at, never a later one."""

from __future__ import annotations

from mask_routes import DATES

from workbench.engine.textmask import TextMask

TEXT = "Filed March 4, 2016, due 2016-03-04; not 2016-02-31."


def _written(horizons: list[int]) -> list[tuple[str, str]]:
    """The text masked under each horizon in turn (one mask, so each date is read once),
    beside what the pattern alone writes under that horizon; the bars miss a weekday
    before 2016-03-04 (a holiday), so a horizon before it counts that day and a later one
    does not."""
    dates = [d for d in DATES if d != "2016-02-29"]
    mask = TextMask({"ACME": "ASSET1"}, {"ACME": 2.0}, dates, warmup_days=20)
    out = []
    for row in horizons:
        with mask.known_until(row):
            out.append((mask.texts([(TEXT, ["ACME"])])[0], mask.text_by_pattern(TEXT, ["ACME"])))
    return out


def test_a_date_read_before_is_placed_under_the_horizon_of_its_text() -> None:
    written = _written([250, 30, 45, 250, 30])
    assert [mine for mine, _ in written] == [reference for _, reference in written]
    late, early, known = (mine for mine, _ in written[:3])
    assert late == known == "Filed day 23, due day 23; not [date]."
    assert early == "Filed day 24, due day 24; not [date]."  # counted from the close seen
    assert [mine for mine, _ in written[3:]] == [late, early]


def test_the_order_the_horizons_come_in_changes_nothing() -> None:
    forward, backward = _written([30, 45, 250]), _written([250, 45, 30])
    assert forward == backward[::-1]
