"""Measuring an answer's bracket nesting before it is parsed: the loop it replaced and now.

    python bench/text_depth.py

1,500 answers as a fuzzing agent sends them (nested 33 to 3,000 deep, string literals
holding brackets, quotes and backslashes), each measured by the loop that walked the
brackets one at a time and by ``workbench.schema``'s measure today, timed in turn (best
CPU of seven). Both must find the same depth for every answer; the ratio is now / before.
"""

from __future__ import annotations

import json
import random
import re

from _timing import best_of_interleaved

from workbench import schema

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def previous_depth(text: str) -> int:
    """The measure as it was: one bracket at a time in Python."""
    level = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub('""', text)):
        level += 1 if bracket in "[{" else -1
        deepest = max(deepest, level)
    return deepest


def current_depth(text: str) -> int:
    try:
        schema._refuse_deep_text(text)
    except schema.DecisionError as exc:
        return int(str(exc).split()[4])
    return 0


def answers(count: int = 1_500) -> list[str]:
    rng = random.Random(5)
    made = []
    for _ in range(count):
        depth = rng.randrange(schema.MAX_ANSWER_DEPTH + 1, 3_000)
        opens = "".join(rng.choice("[{") for _ in range(depth))
        inner = json.dumps("".join(rng.choice('[]{}"\\ab') for _ in range(40)))
        made.append(opens + inner + "]" * depth)
    return made


def main() -> None:
    texts = answers()
    assert [previous_depth(t) for t in texts] == [current_depth(t) for t in texts]
    before, now = best_of_interleaved(
        lambda: [previous_depth(t) for t in texts], lambda: [current_depth(t) for t in texts], 7
    )
    print(f"{len(texts):,} answers: before {before:.3f} s CPU, now {now:.3f} s")
    print(f"now / before: {now / before:.2f}")


if __name__ == "__main__":
    main()
