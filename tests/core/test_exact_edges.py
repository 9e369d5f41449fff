"""Issue #22: the tie boundary on one integer clock, a player against himself,
the same instant, forfeits and the deck, through real logs and replay."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from referee.cli.main import main
from referee.core.judge import first_to_finish
from referee.core.events import Call
from stroop_logs import call, deal, game, rounds, verdicts


def goop_game(players=("ann", "bob"), **extra):
    return {"type": "game", "game": "goop", "players": list(players), **extra}


def shout(player, start, end):
    return {"type": "shout", "player": player, "said": "goop", "start": start, "end": end}


def of(kind, objs):
    return [v for v in verdicts(objs) if v["type"] == kind]


# --- 1. Exactly the tie window, on every time -----------------------------------------

def test_a_rival_exactly_40_ms_behind_is_in_the_race():
    (r,) = rounds([game(), deal("3S", 7.5), call("ann", "four of hearts", 7.6, 8.01),
                   call("bob", "five of diamonds", 7.55, 8.05)])
    assert (r["winner"], r["decided_by"]) == ("bob", "beginning")


def test_a_goop_shout_exactly_40_ms_behind_is_in_the_race():
    (g,) = of("gooped", [goop_game(), shout("ann", 7.7, 8.01), shout("bob", 7.6, 8.05)])
    assert (g["goopers"], g["decided_by"]) == (["bob"], "beginning")


@settings(max_examples=300, deadline=None)
@given(st.integers(1000, 60_000), st.sampled_from([0, 1, 20, 40, 100]))
def test_exactly_the_window_apart_is_together_at_every_time_on_a_1_ms_grid(end_ms, window):
    first, later = end_ms / 1000, (end_ms + window) / 1000
    objs = [game(options={"tie_window_ms": window}), deal("3S", 0.5),
            call("ann", "four of hearts", first - 0.3, first),
            call("bob", "five of diamonds", first - 0.5, later)]
    (r,) = rounds(objs)
    assert (r["winner"], r["decided_by"]) == ("bob", "beginning")
    objs = [goop_game(options={"tie_window_ms": window}), shout("ann", first - 0.3, first), shout("bob", first - 0.5, later)]
    (g,) = of("gooped", objs)
    assert (g["goopers"], g["decided_by"]) == (["bob"], "beginning")


def test_one_more_microsecond_is_too_late():
    (r,) = rounds([game(), deal("3S", 7.5), call("ann", "four of hearts", 7.6, 8.01),
                   call("bob", "five of diamonds", 7.55, 8.050001)])
    assert (r["winner"], r["decided_by"]) == ("ann", "alone")


# --- 2. Nobody draws with or beats themselves -----------------------------------------

def test_two_overlapping_calls_by_one_player_are_her_win_not_a_draw():
    (r,) = rounds([game(), deal("3S", 0), call("ann", "four of hearts", 0.5, 1.0),
                   call("ann", "five of hearts", 0.51, 1.01)])
    assert (r["outcome"], r["winner"], r["decided_by"], r["pile"]) == ("won", "ann", "alone", 1)


def test_two_calls_30_ms_apart_by_one_player_are_not_a_win_by_beginning():
    (r,) = rounds([game(), deal("3S", 0), call("ann", "four of hearts", 0.5, 1.0),
                   call("ann", "five of hearts", 0.53, 1.02)])
    assert (r["winner"], r["decided_by"], r["rivals"]) == ("ann", "alone", [])


def test_two_goops_by_one_player_are_her_goop_alone():
    (g,) = of("gooped", [goop_game(), shout("ann", 1.0, 1.4), shout("ann", 1.01, 1.41)])
    assert (g["goopers"], g["decided_by"]) == (["ann"], "alone")


def test_a_player_tied_with_herself_and_a_rival_draws_with_the_rival_only():
    (r,) = rounds([game(("ann", "bob", "cai")), deal("3S", 0), call("ann", "four of hearts", 0.5, 1.0),
                   call("ann", "five of hearts", 0.5, 1.0), call("bob", "six of hearts", 0.5, 1.0)])
    assert (r["outcome"], r["tied"]) == ("draw", ["ann", "bob"])


def test_the_rule_takes_entries_without_players_too():
    class E:
        def __init__(self, start, end):
            self.start, self.end = start, end
    assert first_to_finish([E(0, 1.0), E(0, 1.0)], 0.04).decided_by == "draw"


# --- 2b. The same instant: miscalls first, then by start -------------------------------

def test_a_miscall_completed_at_the_same_instant_is_taken_first():
    # ann's miscall and her qualifying call end together: the miscall puts her out first,
    # so bob's later qualifying call wins, whatever the card names.
    for good in ("two of diamonds", "ten of hearts"):
        (r,) = rounds([game(), deal("3S", 0), call("ann", good, 0.5, 1.0),
                       call("ann", "ace of diamonds", 0.6, 1.0),
                       call("bob", "four of hearts", 1.5, 2.0)])
        assert r["winner"] == "bob", good


def test_same_instant_qualifying_calls_are_taken_by_start():
    objs = [game(), deal("3S", 0), call("ann", "two of diamonds", 0.6, 1.0),
            call("bob", "ten of hearts", 0.5, 1.0)]
    judged = [v for v in verdicts(objs) if v["type"] == "judged"]
    assert [j["player"] for j in judged] == ["bob", "ann"]


# --- 3. After a forfeit ------------------------------------------------------------------

def test_no_hair_and_no_margin_after_a_forfeit():
    objs = [game(options={"two_player_miscall": "forfeit"}), deal("3S", 0),
            call("bob", "three of hearts", 0.2, 0.4), call("bob", "four of hearts", 0.3, 0.5)]
    (r,) = rounds(objs)
    assert (r["winner"], r["decided_by"], r["call"], r["miscall"]["said"]) == \
        ("ann", "forfeit", None, "three of hearts")
    late = [v for v in verdicts(objs) if v["type"] == "judged" and v["outcome"] == "late"]
    assert late and "late_by" not in late[0] and "winning call" not in late[0]["reason"]


# --- 4. The deck ------------------------------------------------------------------------

def test_a_card_dealt_twice_is_an_error_naming_the_line(tmp_path, capsys):
    log = tmp_path / "twice.jsonl"
    log.write_text("\n".join(json.dumps(o) for o in [
        game(), deal("3S", 0), call("ann", "four of hearts", 0.5, 1.0), deal("3S", 2)]) + "\n")
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert "line 4" in err and "3♠" in err and "already dealt" in err


def test_a_card_dealt_twice_is_an_error_in_any_line_order(tmp_path, capsys):
    log = tmp_path / "twice.jsonl"
    log.write_text("\n".join(json.dumps(o) for o in [
        game(), deal("3S", 5), call("ann", "four of hearts", 0.5, 1.0), deal("3S", 2)]) + "\n")
    assert main(["replay", str(log)]) == 2
    assert "line 2" in capsys.readouterr().err     # the later deal, by time


def test_an_undone_round_does_not_return_its_card_to_the_deck():
    objs = [game(), deal("3S", 0), {"type": "command", "command": "undo", "at": 1}, deal("3S", 2)]
    with pytest.raises(ValueError, match="already dealt"):
        verdicts(objs)


# --- The margin of a race is kept --------------------------------------------------------

def test_the_margin_is_on_the_verdict_in_whole_microseconds(tmp_path, capsys):
    objs = [game(), deal("3S", 7.5), call("ann", "four of hearts", 7.6, 8.01),
            call("bob", "five of diamonds", 7.55, 8.05)]
    (r,) = rounds(objs)
    assert r["margin_us"] == 50_000
    (g,) = of("gooped", [goop_game(), shout("ann", 7.7, 8.01), shout("bob", 7.6, 8.05)])
    assert g["margin_us"] == 100_000
    log = tmp_path / "race.jsonl"
    log.write_text("\n".join(json.dumps(o) for o in objs) + "\n")
    assert main(["replay", str(log)]) == 0
    assert 'began "five of diamonds" 50 ms earlier' in capsys.readouterr().out


def test_no_margin_without_another_player_in_the_race():
    (r,) = rounds([game(), deal("3S", 0), call("ann", "four of hearts", 0.5, 1.0),
                   call("ann", "five of hearts", 0.4, 1.02)])
    assert (r["decided_by"], r["rivals"]) == ("alone", []) and "margin_us" not in r


def test_the_margin_is_to_the_nearest_other_player():
    c = [Call("ann", "x", 0.50, 1.000), Call("bob", "x", 0.45, 1.100), Call("cai", "x", 0.40, 1.070)]
    r = first_to_finish(c, 0.04)
    assert (r.winners[0].player, r.decided_by, r.margin_us) == ("ann", "completion", 70_000)
    c = [Call("ann", "x", 0.50, 1.000), Call("bob", "x", 0.60, 1.030), Call("cai", "x", 0.56, 1.040),
         Call("ann", "x", 0.30, 1.035)]
    r = first_to_finish(c, 0.04)
    assert (r.winners[0].start, r.decided_by, r.margin_us) == (0.30, "beginning", 260_000)
    assert [e.player for e in r.rivals] == ["bob", "cai"]
    assert first_to_finish(c[:1], 0.04).margin_us is None


def test_an_old_journal_still_replays(tmp_path, capsys):
    """Written before the integer clock: seconds as floats, old verdict lines (skipped)."""
    log = tmp_path / "old.jsonl"
    log.write_text("\n".join([
        '{"type":"game","game":"stroop","players":["ann","bob"],"setup":{}}',
        '{"type":"deal","card":"3S","at":7.5}',
        '{"type":"call","player":"ann","said":"four of hearts","start":7.6,"end":8.01}',
        '{"type":"judged","round":1,"player":"ann","said":"four of hearts","start":7.6,"end":8.01,'
        '"outcome":"qualifies","reason":"qualifies on 3♠"}',
        '{"type":"round","round":1,"top":"3S","winner":"ann","pile":1,"outcome":"won",'
        '"decided_by":"alone","carried":0,"call":null,"rivals":[],"scores":{"ann":1,"bob":0}}',
        '{"type":"call","player":"bob","said":"five of diamonds","start":7.55,"end":8.05}',
    ]) + "\n")
    assert main(["replay", "--json", str(log)]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (first["winner"], first["decided_by"], first["margin_us"]) == ("bob", "beginning", 50_000)
