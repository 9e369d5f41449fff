"""A device's sample 0 from when its deliveries came: the lowest value, but not from the
stream's first deliveries; and every stream's lowest over one look, to tell one that fell
behind the others."""

from __future__ import annotations

from referee.audio.delivery import INF, KEPT, LOOK, SKIP, Lows, Zero


def deliveries(zero: float, pattern: list[float], n: int = 40) -> list[float]:
    """``t - samples_so_far / rate`` of ``n`` deliveries of a stream whose sample 0 was
    captured at ``zero``, each this many seconds late, the pattern repeated (bursts)."""
    return [zero + pattern[k % len(pattern)] for k in range(n)]


def test_one_early_first_delivery_does_not_move_the_estimate():
    values = deliveries(10.0, [0.05, 0.0])   # two at a time: one late, one on time
    values[1] = 10.0 - 0.046                 # the first burst carried older samples
    zero = Zero()
    got = [zero.add(v) for v in values]
    assert abs(got[-1] - 10.0) < 1e-9 and zero.value == got[-1]
    # with the lowest value of all it would have been 46 ms early all along
    assert min(values) < 10.0 - 0.04


def test_the_first_deliveries_early_together_do_not_move_the_estimate():
    # Seen on PulseAudio under load (session 64): a stream's first four deliveries, two
    # bursts of two, 5 ms lower than any later one (likely 49 ms in a CI run); 49 here.
    values = deliveries(10.0, [0.05, 0.0])
    for k in range(4):
        values[k] -= 0.049
    zero = Zero()
    got = [zero.add(v) for v in values]
    assert all(abs(g - 10.0) < 1e-9 for g in got[SKIP + 2:])   # right within a burst
    assert got[3] < 10.0 - 0.04   # early only while the first deliveries were all there was


def test_the_lowest_is_found_where_it_recurs_seldom():
    # A busy test server (session 64): the value creeps up 10 ms every burst of two and
    # falls back every ten callbacks, so in a second the lowest comes only once or twice.
    creep = [0.01 * (k // 2 % 5) + (0.05 if k % 2 == 0 else 0.0) for k in range(10)]
    values = deliveries(10.0, creep, 20)
    zero = Zero()
    got = [zero.add(v) for v in values]
    assert abs(got[-1] - 10.0) < 1e-9


def test_the_estimate_only_falls_once_enough_came():
    zero = Zero()
    assert zero.value == INF
    values = [5.0, 3.0, 4.0, 2.0, 6.0, 1.0, 7.0, 8.0, 4.5, 9.0, 3.5, 0.5]
    got = [zero.add(v) for v in values]
    assert got[:SKIP] == [sorted(values[:k + 1])[min(k + 1, KEPT) - 1] for k in range(SKIP)]
    n = SKIP + KEPT
    assert all(b <= a for a, b in zip(got[n - 1:], got[n:]))
    assert got[-1] == sorted(values[SKIP:])[KEPT - 1] == zero.value


def test_an_anchored_estimate_falls_only_when_later_ones_are_lower():
    zero = Zero(2.0)
    assert zero.value == 2.0
    assert [zero.add(1.0) for _ in range(SKIP)][-1] == 2.0   # a reopened stream's first
    assert zero.add(3.0) == 2.0
    assert [zero.add(1.5) for _ in range(KEPT)][-1] == 1.5
    assert Zero(INF).value == INF


def test_a_look_gives_each_stream_s_lowest_once_every_stream_had_its_window():
    # three streams on a busy machine, each delivering in bursts and later than usual by
    # its own few milliseconds; stream 1 lost 50 ms of samples, so its values rose by that
    creep = [0.01 * (k // 2 % 5) + (0.05 if k % 2 == 0 else 0.0) for k in range(10)]
    late = {0: 0.004, 1: 0.053, 2: 0.006}
    look = Lows([0, 1, 2])
    assert look.streams == [0, 1, 2]
    got = []
    for k in range(LOOK):
        for j in (2, 0, 1):
            got.append(look.add(j, late[j] + creep[k % len(creep)]))
    assert got[:-1] == [None] * (len(got) - 1)     # not before every stream had its window
    assert {j: round(v, 9) for j, v in got[-1].items()} == late
    # deliveries of a stream not looked at, or after the look ended, change nothing
    assert look.add(3, 9.0) == got[-1] and look.add(0, -9.0) == got[-1]


def test_a_look_spans_one_time_for_every_stream():
    # stream 1's deliveries come in bursts of four, so it has its window later than stream 0;
    # meanwhile the server's buffering drops every stream's values by 50 ms: stream 0's
    # lowest must cover that time too, or stream 1 would seem 50 ms late
    look = Lows([0, 1], window=8)
    for k in range(8):
        assert look.add(0, 0.05) is None
    assert look.add(0, 0.0) is None         # past its window: still in the look
    got = [look.add(1, v) for v in [0.05] * 4 + [0.0] * 4]
    assert got[:-1] == [None] * 7 and got[-1] == {0: 0.0, 1: 0.0}
