"""When a device's sample 0 was captured, estimated from when its deliveries came.

Every delivery of ``n`` samples in all, taken at time ``t``, says sample 0 was captured at
``t - n / rate`` or before; the lowest of those, over many deliveries, is that time plus the
smallest delivery delay. Not from a stream's first deliveries, though: its first bursts can
carry samples buffered before it started, as if they came early, and would number the device
early all game (placing again only moves a device earlier, so that is never mended). The
first ``SKIP`` deliveries count only until ``KEPT`` later ones came (figures:
docs/hearing-decisions.md, "The first deliveries set aside, and the lowest after them").
Whether a stream's count has fallen behind the others' (input lost, a slower clock):
:class:`Lows`."""

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


#: Deliveries of every stream one look at the streams' lowest values takes (50 ms callbacks:
#: 2 s); the lowest value recurs every ten or so (docs/hearing-decisions.md, "Kept on one clock").
LOOK = 40

#: The same, after input was lost on one stream: a second.
LOOK_AFTER_LOSS = 20


class Lows:
    """Each of ``streams``' (indices) lowest value from now until every one of them had
    ``window`` deliveries, so over one span of time for all: its ``t - samples_so_far / rate``
    less the time its sample 0 is numbered by, in seconds. A stream whose lowest stands over
    the others' is numbered early: samples were lost, or its clock runs slow. A busy machine,
    or the audio server's own buffering changing, raises every stream's alike."""

    __slots__ = ("_lowest", "_left")

    def __init__(self, streams: list[int], window: int = LOOK) -> None:
        self._lowest = {j: INF for j in streams}
        self._left = {j: window for j in streams}

    @property
    def streams(self) -> list[int]:
        return list(self._left)

    def add(self, j: int, value: float) -> dict[int, float] | None:
        """Take in one delivery of stream ``j``; every stream's lowest once each had its
        window, else None. Deliveries of streams not looked at, or after the look ended,
        count for nothing."""
        if j in self._left and any(self._left.values()):
            self._lowest[j] = min(self._lowest[j], value)
            self._left[j] = max(0, self._left[j] - 1)
        return None if any(self._left.values()) else dict(self._lowest)
