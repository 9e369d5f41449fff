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


def lower(kept: list[float], value: float) -> float:
    """Put ``value`` (seconds) among the ``KEPT`` lowest in ``kept`` (sorted, changed in
    place); the estimate they give: the ``KEPT``-th lowest, or the highest while fewer.
    Once ``KEPT`` values are in, it only falls."""
    insort(kept, value)
    del kept[KEPT:]
    return kept[-1]


def anchored(value: float) -> list[float]:
    """The kept values of an estimate set to ``value`` (inf: none): later values lower it
    only when ``KEPT`` of them are lower."""
    return [value] * KEPT if value != float("inf") else []
