"""NumPy ``Generator`` draws of small whole numbers, without a NumPy call per draw.

``Draws(seed)`` gives the numbers ``np.random.default_rng(seed)`` gives for
``integers(0, high)`` (one or ``size`` of them) and ``choice(n, size, replace=False)``,
in the same order and to the same value, from the generator's raw 64-bit words read
in blocks. It follows NumPy's own algorithms for an ``int64`` draw below 2**32:

- PCG64 hands out a 64-bit word as two 32-bit ones, the low half first;
- a number in ``[0, high)`` is Lemire's multiply-and-shift of one 32-bit word, drawn
  again while the product's low half falls below ``2**32 mod high`` (a range of one
  draws nothing);
- ``choice`` without replacement is Floyd's sample (for ``j`` from ``n - size`` to
  ``n - 1``, a number in ``[0, j]``, or ``j`` itself when that number was picked)
  shuffled in place by Fisher-Yates, or, for more than 10,000 names when ``size``
  exceeds a fiftieth of them, a Fisher-Yates tail of ``range(n)``.

A NumPy call costs microseconds whatever it draws; the random baseline draws a handful
of numbers a decision, so its draws cost a tenth of a historical run through NumPy and
a fraction of that here. ``tests/test_draws.py`` holds every draw to NumPy's.
"""

from __future__ import annotations

import numpy as np

_BLOCK = 256  # 64-bit words read at once
_WORD = 0xFFFFFFFF
_FLOYD_NAMES = 10_000  # above this many names NumPy may shuffle a tail instead


class Draws:
    """The draws of ``np.random.default_rng(seed)``, read from its raw words."""

    def __init__(self, seed: int | None) -> None:
        self._bits = np.random.default_rng(seed).bit_generator
        self._words: list[int] = []
        self._next = 0

    def _word(self) -> int:
        """The generator's next 32-bit word."""
        if self._next == len(self._words):
            raw = self._bits.random_raw(_BLOCK)
            self._words = np.stack((raw & _WORD, raw >> 32), axis=1).ravel().tolist()
            self._next = 0
        word = self._words[self._next]
        self._next += 1
        return word

    def below(self, high: int) -> int:
        """``integers(0, high)``: a whole number in ``[0, high)``, ``1 <= high <= 2**32 - 1``."""
        if high == 1:
            return 0
        product = self._word() * high
        if product & _WORD < high:
            threshold = (_WORD - high + 1) % high
            while product & _WORD < threshold:
                product = self._word() * high
        return product >> 32

    def many_below(self, high: int, size: int) -> list[int]:
        """``integers(0, high, size=size).tolist()``."""
        return [self.below(high) for _ in range(size)]

    def sample(self, n: int, size: int) -> list[int]:
        """``choice(n, size=size, replace=False).tolist()``, ``size <= n``."""
        if n > _FLOYD_NAMES and size > n // 50:
            order = list(range(n))
            for i in range(n - 1, max(n - size, 1) - 1, -1):
                j = self.below(i + 1)
                order[i], order[j] = order[j], order[i]
            return order[n - size :]
        picked: list[int] = []
        for j in range(n - size, n):
            value = self.below(j + 1)
            picked.append(j if value in picked else value)
        for i in range(size - 1, 0, -1):
            j = self.below(i + 1)
            picked[i], picked[j] = picked[j], picked[i]
        return picked
