"""Issue #22: `referee replay` of random valid logs, times on a 1 ms grid (so
ends, starts and windows collide exactly), gives the same verdicts for every
order of the log's lines."""

import argparse
import io
import json

from hypothesis import given, settings, strategies as st

from referee.core.cards import full_deck
from referee.cli.replay import run

SAYINGS = ["four of hearts", "the four of hearts", "five of diamonds", "two of spades", "ten of clubs",
           "queen of hearts", "king of spades", "ace of diamonds", "jack of", "a heart", "a four",
           "queen", "hearts", "um"]


def ms(n):
    return n / 1000


@st.composite
def stroop_logs(draw):
    players = draw(st.sampled_from([["ann", "bob"], ["ann", "bob", "cai"]]))
    options = draw(st.fixed_dictionaries({}, optional={
        "tie_window_ms": st.sampled_from([0, 1, 20, 40]),
        "two_player_miscall": st.sampled_from(["inactive", "forfeit"])}))
    lines = [{"type": "game", "game": "stroop", "players": players, "options": options}]
    cards = draw(st.permutations(full_deck()))
    t = 0
    for n in range(draw(st.integers(1, 3))):
        lines.append({"type": "deal", "card": str(cards[n]), "at": ms(t)})
        for _ in range(draw(st.integers(0, 6))):
            end = t + draw(st.integers(1, 120))          # a narrow span: ends collide
            start = end - draw(st.integers(0, 80))
            lines.append({"type": "call", "player": draw(st.sampled_from(players)),
                          "said": draw(st.sampled_from(SAYINGS)), "start": ms(max(start, 0)), "end": ms(end)})
        if draw(st.integers(0, 3)) == 0:
            lines.append({"type": "command", "command": draw(st.sampled_from(["undo", "pause", "resume"])),
                          "at": ms(t + draw(st.integers(0, 150)))})
        t += draw(st.integers(1, 200))
    return lines


@st.composite
def goop_logs(draw):
    players = draw(st.sampled_from([["ann", "bob"], ["ann", "bob", "cai"]]))
    options = {"tie_window_ms": draw(st.sampled_from([0, 1, 40])), "target": draw(st.integers(3, 12))}
    lines = [{"type": "game", "game": "goop", "players": players, "options": options}]
    t = 0
    for _ in range(draw(st.integers(1, 4))):
        for _ in range(draw(st.integers(1, 3))):
            end = t + draw(st.integers(1, 60))
            lines.append({"type": "shout", "player": draw(st.sampled_from(players)), "said": "goop",
                          "start": ms(end - draw(st.integers(0, 60))), "end": ms(end)})
        t += 100
        for p in players:
            for field, top in (("centre", 12), ("left", 3)):
                for _ in range(draw(st.integers(1, 2))):     # a second number corrects the first
                    lines.append({"type": "count", "player": p, "field": field,
                                  "value": draw(st.integers(0, top)), "at": ms(t + draw(st.integers(0, 3)))})
        t += 10
        if draw(st.booleans()):
            lines.append({"type": "tally", "at": ms(t)})
        t += draw(st.integers(1, 50))
    return lines


def replayed(lines):
    out, err = io.StringIO(), io.StringIO()
    log = io.StringIO("".join(json.dumps(o) + "\n" for o in lines))
    args = argparse.Namespace(log="-", json=True, all=True)
    import sys
    stdin, sys.stdin = sys.stdin, log
    try:
        code = run(args, out=out, err=err)
    finally:
        sys.stdin = stdin
    assert code == 0, err.getvalue()
    return out.getvalue()


@settings(max_examples=200, deadline=None)
@given(st.one_of(stroop_logs(), goop_logs()), st.randoms(use_true_random=False))
def test_every_line_order_gives_the_same_verdicts(lines, rnd):
    body = lines[1:]
    expected = replayed(lines)
    for _ in range(3):
        rnd.shuffle(body)
        assert replayed([lines[0]] + body) == expected
