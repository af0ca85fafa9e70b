"""A progress bar for one evaluation: step, arms waiting on a model, calls and tokens so far.

``evaluate(..., progress=True)`` draws it with ``tqdm.auto`` (a widget in a
notebook, text on a terminal). ``progress=None`` (the default) means "on in a
Jupyter kernel, off elsewhere", so plain scripts and tests print nothing. The
bar is refreshed by a small ticker task as well as after every step, so a step
that waits seconds on a live model still shows who it is waiting for.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import Any

from workbench.agents import Agent

_TICK_S = 0.5


def in_notebook() -> bool:
    """True inside a Jupyter kernel (where a bar is wanted by default)."""
    shell = sys.modules.get("IPython")
    if shell is None or "ipykernel" not in sys.modules:
        return False
    ip = shell.get_ipython()
    return ip is not None and hasattr(ip, "kernel")


class RunProgress:
    """Counts what the bar shows; every method is a no-op when the bar is off."""

    def __init__(self, enabled: bool | None, total: int, arms: Sequence[Agent]) -> None:
        self.enabled = in_notebook() if enabled is None else bool(enabled)
        self.arms, self.waiting = arms, 0
        self.bar: Any = None
        self.ticker: asyncio.Task[None] | None = None
        if self.enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc="evaluate", unit="step", file=sys.stderr)

    def start(self) -> None:
        if self.bar is not None:
            self.ticker = asyncio.get_running_loop().create_task(self._tick())

    def asking(self) -> _Asking:
        """Around one ask: the arm counts as waiting on its model until it answers."""
        return _Asking(self)

    def step(self) -> None:
        if self.bar is not None:
            self.bar.update(1)
            self._postfix(refresh=False)

    def close(self) -> None:
        if self.ticker is not None:
            self.ticker.cancel()
        if self.bar is not None:
            self._postfix(refresh=True)
            self.bar.close()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(_TICK_S)
            self._postfix(refresh=True)

    def _postfix(self, *, refresh: bool) -> None:
        calls = sum(arm.usage.model_calls for arm in self.arms)
        tokens = sum(arm.usage.input_tokens + arm.usage.output_tokens for arm in self.arms)
        text = f"waiting {self.waiting}/{len(self.arms)} · calls {calls:,} · tokens {tokens:,}"
        self.bar.set_postfix_str(text, refresh=refresh)


class _Asking:
    """``async with progress.asking()``: a plain class, as it runs around every ask."""

    __slots__ = ("progress",)

    def __init__(self, progress: RunProgress) -> None:
        self.progress = progress

    async def __aenter__(self) -> None:
        self.progress.waiting += 1

    async def __aexit__(self, *exc: object) -> None:
        self.progress.waiting -= 1
