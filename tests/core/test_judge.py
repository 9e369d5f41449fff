"""The judge decides by the calls' times, never by the order of reports."""

from dataclasses import dataclass

import pytest
from hypothesis import given, settings, strategies as st

from referee.core.cards import Card, full_deck
from referee.core.events import Call, Deal
from referee.core.judge import Judge, LateReport, first_to_finish
from referee.core.games import make_game
from referee.core.journal import encode_verdict, parse_lines
from referee.core.replay import replay, replay_lines
from referee.core.games.stroop import RoundOver, StroopGame, qualifies
from stroop_logs import call, deal, game, lines


@dataclass
class E:
    start: float
    end: float
    name: str = ""


def test_first_to_finish_rule():
    assert first_to_finish([E(0, 1, "a")], 0.04).decided_by == "alone"
    r = first_to_finish([E(0, 1.0, "a"), E(0, 1.1, "b")], 0.04)
    assert (r.winners[0].name, r.decided_by) == ("a", "completion")
    r = first_to_finish([E(0.2, 1.0, "a"), E(0.0, 1.03, "b")], 0.04)
    assert (r.winners[0].name, r.decided_by) == ("b", "beginning")
    r = first_to_finish([E(0.0, 1.0, "a"), E(0.01, 1.03, "b"), E(0.5, 1.02, "c")], 0.04)
    assert r.decided_by == "draw" and {w.name for w in r.winners} == {"a", "b"}
    # Exactly the window apart is "at the same time", despite float rounding.
    r = first_to_finish([E(0.0, 13.56, "a"), E(0.1, 13.6, "b")], 0.04)
    assert r.decided_by == "beginning" and r.winners[0].name == "a"


def test_a_race_is_not_settled_until_every_stream_has_heard_past_the_window():
    judge = Judge(StroopGame(["ann", "bob"]), ["dealer", "ann", "bob"])
    out = judge.push("dealer", Deal(Card.parse("3S"), 0.0))
    out += judge.heard("dealer", 5.0)
    out += judge.push("ann", Call("ann", "four of hearts", 1.0, 1.5))
    out += judge.heard("ann", 5.0)
    assert not [v for v in out if isinstance(v, RoundOver)]
    out += judge.heard("bob", 1.40)          # bob's recogniser is still decoding from 1.4 s on
    assert not [v for v in out if isinstance(v, RoundOver)]
    # bob's call ended earlier but is reported later: it is honoured
    out += judge.push("bob", Call("bob", "five of hearts", 0.9, 1.45))
    out += judge.heard("bob", 1.55)
    won = [v for v in out if isinstance(v, RoundOver)]
    assert [w.winner for w in won] == ["bob"]


def test_a_stream_cannot_report_behind_its_own_watermark():
    judge = Judge(StroopGame(["ann", "bob"]), ["ann", "bob"])
    judge.heard("ann", 3.0)
    with pytest.raises(LateReport):
        judge.push("ann", Call("ann", "four of hearts", 1.0, 1.5))


# --- Generated games -------------------------------------------------------------

SAYINGS = [c.spoken for c in full_deck()] + ["four", "hearts", "um", "queen"]


@st.composite
def stroop_logs(draw):
    players = draw(st.sampled_from([("ann", "bob"), ("ann", "bob", "cai"), ("ann", "bob", "cai", "dee")]))
    options = draw(st.fixed_dictionaries({}, optional={
        "tie_window_ms": st.sampled_from([0, 20, 40, 100]),
        "two_player_miscall": st.sampled_from(["inactive", "forfeit"]),
    }))
    objs = [game(players, options=options)]
    t = 0.0
    cards = draw(st.permutations(full_deck()))      # one deck: no card dealt twice
    for n in range(draw(st.integers(1, 4))):
        objs.append(deal(str(cards[n]), round(t, 2)))
        for _ in range(draw(st.integers(0, 6))):
            start = round(t + draw(st.integers(0, 60)) * 0.01, 2)   # 10 ms steps provoke ties
            end = round(start + draw(st.integers(1, 40)) * 0.01, 2)
            objs.append(call(draw(st.sampled_from(players)), draw(st.sampled_from(SAYINGS)), start, end))
        if draw(st.integers(0, 4)) == 0:
            at = round(t + draw(st.integers(0, 80)) * 0.01, 2)
            objs.append({"type": "command", "command": draw(st.sampled_from(["undo", "pause", "resume"])), "at": at})
        t += draw(st.integers(5, 120)) * 0.01
    return objs


def outputs(objs):
    return [encode_verdict(v) for v in replay_lines(lines(objs))]


@settings(max_examples=150, deadline=None)
@given(stroop_logs(), st.randoms(use_true_random=False))
def test_shuffling_the_lines_of_a_log_never_changes_the_output(objs, rnd):
    body = objs[1:]
    rnd.shuffle(body)
    assert outputs([objs[0]] + body) == outputs(objs)


@settings(max_examples=150, deadline=None)
@given(stroop_logs(), st.randoms(use_true_random=False))
def test_the_verdict_does_not_depend_on_the_order_in_which_streams_report(objs, rnd):
    """Each player's mic is a stream and the dealer's another; each stream
    reports its events in order but with its own, varying delay, and tells the
    judge how far it has heard only as far as it truly has."""
    log = parse_lines(lines(objs))
    expected = [encode_verdict(v) for v in replay(log)]
    streams = ["dealer", *log.game.players]
    game_ = make_game(log.game)
    judge = Judge(game_, streams)
    def key(ev):        # seconds: time_key's first item is whole microseconds
        return (game_.time_key(ev)[0] / 1e6,)
    per_stream = {s: [] for s in streams}
    for ev in log.events:
        per_stream[ev.player if isinstance(ev, Call) else "dealer"].append(ev)
    reports = []   # (report time, stream, event or None for a watermark)
    for s, evs in per_stream.items():
        evs.sort(key=game_.time_key)
        lag, last = rnd.uniform(0, 1.5), 0.0
        for ev in evs:
            last = max(last, key(ev)[0] + rnd.uniform(0, lag))   # in order, delayed
            reports.append((last, s, ev))
        for i in range(rnd.randint(0, 12)):
            reports.append((rnd.uniform(0, 15), s, None))
    reports.sort(key=lambda r: r[0])
    got = []
    pushed_upto = {s: 0 for s in streams}
    for when, s, ev in reports:
        if ev is not None:
            got += judge.push(s, ev)
            pushed_upto[s] += 1
        else:
            evs = per_stream[s]
            nxt = evs[pushed_upto[s]] if pushed_upto[s] < len(evs) else None
            # Heard as far as the next unreported event (exclusive) or the clock.
            upto = when if nxt is None else min(when, key(nxt)[0] - 1e-6)
            got += judge.heard(s, upto)
    got += judge.finish()
    assert [encode_verdict(v) for v in got] == expected


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_lone_qualifying_call_by_an_active_player_always_wins(data):
    players = data.draw(st.sampled_from([("ann", "bob"), ("ann", "bob", "cai")]))
    top = data.draw(st.sampled_from(full_deck()))
    good = [c for c in full_deck() if qualifies(c.spoken, top)]
    bad = [s for s in SAYINGS if not qualifies(s, top)]
    winner = data.draw(st.sampled_from(players))
    # Miscalls before the winning call, but never by the winner: it stays active.
    objs = [game(players), deal(str(top), 0.0)]
    t = 0.1
    for _ in range(data.draw(st.integers(0, 5))):
        who = data.draw(st.sampled_from([p for p in players if p != winner]))
        objs.append(call(who, data.draw(st.sampled_from(bad)), round(t, 2), round(t + 0.3, 2)))
        t += 0.5
    objs.append(call(winner, data.draw(st.sampled_from(good)).spoken, round(t, 2), round(t + 0.4, 2)))
    rounds = [v for v in outputs(objs) if v["type"] == "round"]
    assert rounds[0]["winner"] == winner and rounds[0]["pile"] == 1
