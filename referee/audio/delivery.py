"""When a device's sample 0 was captured, estimated from when its deliveries came.

Every delivery of ``n`` samples in all, taken at time ``t``, says sample 0 was captured at
``t - n / rate`` or before; the lowest of those, over many deliveries, is that time plus the
smallest delivery delay. Not from a stream's first deliveries, though: its first bursts can
carry samples buffered before it started, as if they came early, and would number the device
early all game (placing again only moves a device earlier, so that is never mended). The
first ``SKIP`` deliveries count only until ``KEPT`` later ones came (figures:
docs/hearing-decisions.md, "The first deliveries set aside, and the lowest after them")."""

from __future__ import annotations

from bisect import insort

#: How many of the lowest values are kept; the estimate is the highest of them. One: on a
#: busy machine the lowest may come only once in the first second (docs, as above).
KEPT = 1

#: A stream's first deliveries, set aside once ``KEPT`` later ones came (50 ms callbacks:
#: its first 0.3 s).
SKIP = 6

INF = float("inf")


class Zero:
    """One stream's estimate of when its sample 0 was captured, in seconds on one clock
    (``value``: inf until a delivery came)."""

    __slots__ = ("_kept", "_first", "_seen")

    def __init__(self, at: float = INF) -> None:
        # set to ``at``: later deliveries lower it only when KEPT of them are lower
        self._kept: list[float] = [at] * KEPT if at != INF else []
        self._first: list[float] = []   # the lowest of the first SKIP deliveries
        self._seen = 0

    def add(self, value: float) -> float:
        """Take in one delivery's ``t - samples_so_far / rate``; the estimate: the ``KEPT``-th
        lowest value after the first ``SKIP`` deliveries, or while fewer than ``KEPT`` came
        after them, of all so far. Once ``SKIP + KEPT`` came, it only falls."""
        self._seen += 1
        kept = self._first if self._seen <= SKIP else self._kept
        insort(kept, value)
        del kept[KEPT:]
        return self.value

    @property
    def value(self) -> float:
        if len(self._kept) < KEPT:
            lowest = sorted(self._kept + self._first)[:KEPT]
            return lowest[-1] if lowest else INF
        return self._kept[-1]
