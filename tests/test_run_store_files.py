"""The run store's trial log met after a crash: a torn last line never hides the next trial."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.services.store import TRIALS, RunStore


def test_a_torn_last_line_is_ended_before_the_next_trial_which_is_counted(
    tmp_path: Path,
) -> None:
    store = RunStore.open(tmp_path)
    assert store.record_trial("evaluation", "evaluation-1", 2) == 1
    with (tmp_path / TRIALS).open("ab") as log:
        log.write(b'{"arms":3,"kind":"evaluation","run_id":"evalu')  # the writer died here
    assert store.trials() == 2, "the torn trial ran: it counts"
    assert store.record_trial("comparison", "comparison-1", 4) == 3
    assert store.trials() == 3
    lines = (tmp_path / TRIALS).read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 4, "every line ended, none glued"
    assert json.loads(lines[2]) == {**json.loads(lines[2]), "kind": "comparison", "arms": 4}


def test_an_intact_log_gains_exactly_one_line_per_trial(tmp_path: Path) -> None:
    store = RunStore.open(tmp_path)
    for count in (1, 2, 3):
        assert store.record_trial("evaluation", f"evaluation-{count}", 1) == count
    text = (tmp_path / TRIALS).read_text()
    assert text.count("\n") == 3 and "\n\n" not in text
