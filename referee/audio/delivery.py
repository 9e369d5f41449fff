"""When a device's sample 0 was captured, estimated from when its deliveries came.

Every delivery of ``n`` samples in all, taken at time ``t``, says sample 0 was captured at
``t - n / rate`` or before; the lowest of those, over many deliveries, is that time plus the
smallest delivery delay. Not from a stream's first deliveries, though: its first bursts can
carry samples buffered before it started, as if they came early, and would number the device
early all game (placing again only moves a device earlier, so that is never mended). The
first ``SKIP`` deliveries count only until ``KEPT`` later ones came (figures:
docs/hearing-decisions.md, "The first deliveries set aside, and the lowest after them").
After input was lost on one stream, :class:`Rise` measures how many samples it lost."""

from __future__ import annotations

from bisect import insort
from statistics import median

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


#: Deliveries of every stream a rise is measured over (50 ms callbacks: a second): the lowest
#: value recurs every ten or so (docs/hearing-decisions.md, "Input lost").
RISE_WINDOW = 20


class Rise:
    """After input was lost on stream ``lossy``, how much later its deliveries now come than
    the other ``streams``' (indices; ``lossy`` among them), in seconds: each stream's lowest
    ``t - samples_so_far / rate`` over its next ``window`` deliveries, less the time its
    sample 0 is numbered by. The lost samples raise the lossy stream's by their length; a busy
    machine raises every stream's, so the lossy one is measured against the others' median."""

    __slots__ = ("lossy", "_lowest", "_left")

    def __init__(self, lossy: int, streams: list[int], window: int = RISE_WINDOW) -> None:
        self.lossy = lossy
        self._lowest = {j: INF for j in streams}
        self._left = {j: window for j in streams}

    def add(self, j: int, value: float) -> float | None:
        """Take in one delivery of stream ``j`` (its value less its numbered sample 0); the
        lossy stream's rise once every stream had its window, else None."""
        if self._left.get(j, 0) > 0:
            self._lowest[j] = min(self._lowest[j], value)
            self._left[j] -= 1
        if any(self._left.values()):
            return None
        return self._lowest[self.lossy] - median(
            v for k, v in self._lowest.items() if k != self.lossy)
