"""A device's sample 0 from when its deliveries came: the lowest values but one outlier."""

from __future__ import annotations

from referee.audio.delivery import INF, KEPT, Zero


def deliveries(zero: float, pattern: list[float], n: int = 40) -> list[float]:
    """``t - samples_so_far / rate`` of ``n`` deliveries of a stream whose sample 0 was
    captured at ``zero``, each this many seconds late, the pattern repeated (bursts)."""
    return [zero + pattern[k % len(pattern)] for k in range(n)]


def test_one_early_delivery_does_not_move_the_estimate():
    values = deliveries(10.0, [0.05, 0.0])   # two at a time: one late, one on time
    values[1] = 10.0 - 0.046                 # the first burst carried older samples
    zero = Zero()
    got = [zero.add(v) for v in values]
    assert abs(got[-1] - 10.0) < 1e-9 and zero.value == got[-1]
    # with the lowest value alone it would have been 46 ms early all along
    assert min(values) < 10.0 - 0.04


def test_the_estimate_only_falls_once_enough_came():
    zero = Zero()
    assert zero.value == INF
    values = [5.0, 3.0, 4.0, 2.0, 6.0, 1.0, 7.0]
    got = [zero.add(v) for v in values]
    assert got[:KEPT] == [max(values[:k + 1]) for k in range(KEPT)]  # the highest while fewer
    assert all(b <= a for a, b in zip(got[KEPT - 1:], got[KEPT:]))
    assert got[-1] == sorted(values)[KEPT - 1] == zero.value


def test_an_anchored_estimate_falls_only_when_enough_are_lower():
    zero = Zero(2.0)
    assert zero.value == 2.0
    assert zero.add(1.0) == 2.0 and zero.add(3.0) == 2.0
    assert [zero.add(1.5) for _ in range(KEPT)][-1] == 1.5
    assert Zero(INF).value == INF
