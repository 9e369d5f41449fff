"""When a device's sample 0 was captured, estimated from when its deliveries came.

Every delivery of ``n`` samples in all, taken at time ``t``, says sample 0 was captured at
``t - n / rate`` or before; the lowest of those, over many deliveries, is that time plus the
smallest delivery delay. Not the lowest, though: the second lowest. A stream's first burst
of deliveries can carry samples buffered before it started, as if they came early, and that
one outlier would number the device tens of ms early all game (seen on PulseAudio, session
62: docs/hearing-decisions.md, "One early delivery"). Deliveries come in bursts, so the
lowest value recurs every few callbacks and the second lowest is as low within a second.
"""

from __future__ import annotations

from bisect import insort

#: How many of the lowest values are kept; the estimate is the highest of them.
KEPT = 2

INF = float("inf")


class Zero:
    """One stream's estimate of when its sample 0 was captured, in seconds on one clock
    (``value``: inf until a delivery came)."""

    __slots__ = ("_kept",)

    def __init__(self, at: float = INF) -> None:
        # set to ``at``: later deliveries lower it only when KEPT of them are lower
        self._kept: list[float] = [at] * KEPT if at != INF else []

    def add(self, value: float) -> float:
        """Take in one delivery's ``t - samples_so_far / rate``; the estimate: the ``KEPT``-th
        lowest value so far, or the highest while fewer came. Once ``KEPT`` came, it only
        falls."""
        insort(self._kept, value)
        del self._kept[KEPT:]
        return self._kept[-1]

    @property
    def value(self) -> float:
        return self._kept[-1] if self._kept else INF
