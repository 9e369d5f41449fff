"""The Goop rulings (RULINGS.md, Goop) as tests, through real logs and replay."""

import json

import pytest

from referee.cli.main import main
from referee.core.journal import encode_verdict
from referee.core.replay import replay_lines

PLAYERS = ["ann", "bob", "cai"]


def game(players=PLAYERS, **options):
    obj = {"type": "game", "game": "goop", "players": list(players)}
    if options:
        obj["options"] = options
    return obj


def shout(player, start, end, said="goop"):
    return {"type": "shout", "player": player, "said": said, "start": start, "end": end}


def count(player, field, value, at):
    return {"type": "count", "player": player, "field": field, "value": value, "at": at}


def counts(at, **per_player):
    """counts(10, ann=(7, 0), bob=(3, 5)) -> count lines, centre then left."""
    out = []
    for p, (centre, left) in per_player.items():
        out += [count(p, "centre", centre, at), count(p, "left", left, at + 0.5)]
        at += 1
    return out


def tally(at):
    return {"type": "tally", "at": at}


def run(objs):
    return [encode_verdict(v) for v in replay_lines(json.dumps(o) for o in objs)]


def of(kind, verdicts):
    return [v for v in verdicts if v["type"] == kind]


def test_first_completed_shout_goops():
    v = run([game(), shout("bob", 10.0, 10.5), shout("cai", 9.0, 10.7)])
    (g,) = of("gooped", v)
    assert g["goopers"] == ["bob"] and g["decided_by"] == "alone"
    assert of("ignored", v)[0]["player"] == "cai"


def test_shouts_completed_together_go_to_the_first_begun():
    v = run([game(), shout("bob", 10.0, 10.50), shout("cai", 9.9, 10.53)])
    (g,) = of("gooped", v)
    assert g["goopers"] == ["cai"] and g["decided_by"] == "beginning"


def test_a_full_tie_credits_both():
    v = run([game(), shout("bob", 10.0, 10.50), shout("cai", 10.01, 10.52),
             *counts(12, ann=(4, 6), bob=(5, 0), cai=(6, 0)), tally(20)])
    (g,) = of("gooped", v)
    assert g["goopers"] == ["bob", "cai"] and g["decided_by"] == "draw"
    (h,) = of("hand", v)
    assert h["goopers"] == ["bob", "cai"] and h["false_goop"] == [] and h["says_go"] == "bob"


def test_scoring_is_plus_one_per_centre_card_and_minus_two_per_card_left():
    v = run([game(), shout("ann", 1, 1.5), *counts(3, ann=(9, 0), bob=(4, 6), cai=(0, 13)), tally(10)])
    (h,) = of("hand", v)
    assert h["points"] == {"ann": 9, "bob": -8, "cai": -26}
    assert h["totals"] == h["points"]


def test_a_correction_replaces_the_number():
    v = run([game(), shout("ann", 1, 1.5), *counts(3, ann=(9, 0), bob=(4, 6), cai=(2, 3)),
             count("cai", "left", 12, 8.0), tally(10)])
    corrected = [c for c in of("counted", v) if c["corrected"] is not None]
    assert corrected == [{"type": "counted", "hand": 1, "player": "cai", "field": "left", "value": 12, "corrected": 3}]
    assert of("hand", v)[0]["points"]["cai"] == 2 - 24


def test_a_gooper_reporting_cards_left_is_a_false_goop_scored_as_reported():
    v = run([game(), shout("bob", 1, 1.5), *counts(3, ann=(5, 2), bob=(6, 1), cai=(1, 1)), tally(10)])
    (h,) = of("hand", v)
    assert h["false_goop"] == ["bob"] and h["points"]["bob"] == 4


def test_pick_order_is_lowest_total_first_and_the_gooper_says_go():
    v = run([game(), shout("cai", 1, 1.5), *counts(3, ann=(5, 0), bob=(2, 0), cai=(5, 0)), tally(10)])
    (h,) = of("hand", v)
    assert h["pick_order"] == ["bob", "ann", "cai"]     # ann and cai tie: seat order
    assert h["says_go"] == "cai"


def test_the_game_ends_at_the_end_of_the_hand_in_which_someone_reaches_100():
    objs = [game(players=["ann", "bob"])]
    t = 0.0
    for hand in range(3):
        objs += [shout("ann", t + 1, t + 1.5), *counts(t + 2, ann=(40, 0), bob=(10, 3)), tally(t + 9)]
        t += 20
    v = run(objs)
    hands = of("hand", v)
    assert [h["totals"]["ann"] for h in hands] == [40, 80, 120]
    assert [h["game_over"] for h in hands] == [False, False, True]
    (f,) = of("final", v)
    assert f["winner"] == "ann" and f["hands"] == 3


def test_a_tie_at_the_top_plays_another_hand():
    objs = [game(players=["ann", "bob"], target=10),
            shout("ann", 1, 1.5), *counts(2, ann=(12, 0), bob=(12, 0)), tally(9),
            shout("bob", 21, 21.5), *counts(22, ann=(1, 0), bob=(3, 0)), tally(29)]
    v = run(objs)
    h1, h2 = of("hand", v)
    assert (h1["game_over"], h1["tied_at_top"]) == (False, ["ann", "bob"])
    assert h2["game_over"] is True
    assert of("final", v)[0]["winner"] == "bob"


def test_the_next_shout_starts_a_new_hand_once_the_count_is_complete():
    v = run([game(), shout("ann", 1, 1.5), *counts(3, ann=(1, 0), bob=(1, 0), cai=(1, 0)),
             shout("bob", 30, 30.5)])
    assert [g["goopers"] for g in of("gooped", v)] == [["ann"], ["bob"]]
    assert len(of("hand", v)) == 1


def test_counts_out_of_range_are_refused_with_a_clear_message(tmp_path, capsys):
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(json.dumps(o) for o in [game(), shout("ann", 1, 1.5), count("bob", "left", 14, 3)]))
    assert main(["replay", str(path)]) == 2
    assert "line 3: left count must be 0 to 13, not 14" in capsys.readouterr().err


@pytest.mark.parametrize("bad", [
    {"type": "count", "player": "bob", "field": "middle", "value": 1, "at": 3},
    {"type": "count", "player": "bob", "field": "left", "value": 1.5, "at": 3},
    {"type": "call", "player": "bob", "said": "queen of hearts", "start": 1, "end": 2},
])
def test_bad_goop_lines(tmp_path, capsys, bad):
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(json.dumps(o) for o in [game(), bad]))
    assert main(["replay", str(path)]) == 2
    assert "line 2:" in capsys.readouterr().err


def test_shuffled_goop_logs_replay_the_same():
    objs = [game(), shout("bob", 10.0, 10.50), shout("cai", 9.9, 10.53),
            *counts(12, ann=(4, 6), bob=(5, 0), cai=(6, 1)), tally(20),
            shout("ann", 40, 40.4), *counts(42, ann=(4, 0), bob=(5, 2), cai=(6, 1))]
    import random
    rnd = random.Random(7)
    expected = run(objs)
    for _ in range(20):
        body = objs[1:]
        rnd.shuffle(body)
        assert run([objs[0]] + body) == expected


def test_after_a_tie_at_the_top_the_highest_total_wins_even_below_the_target():
    objs = [game(players=["ann", "bob"], target=10),
            shout("ann", 1, 1.5), *counts(2, ann=(12, 0), bob=(12, 0)), tally(9),
            shout("bob", 21, 21.5), *counts(22, ann=(0, 3), bob=(0, 2)), tally(29)]
    v = run(objs)
    h1, h2 = of("hand", v)
    assert h2["totals"] == {"ann": 6, "bob": 8}
    assert h2["game_over"] is True
    assert of("final", v)[0]["winner"] == "bob"


def test_a_tie_at_the_top_goes_on_hand_after_hand():
    objs = [game(players=["ann", "bob"], target=10),
            shout("ann", 1, 1.5), *counts(2, ann=(12, 0), bob=(12, 0)), tally(9),
            shout("bob", 21, 21.5), *counts(22, ann=(1, 1), bob=(1, 1)), tally(29),
            shout("ann", 41, 41.5), *counts(42, ann=(0, 0), bob=(1, 0)), tally(49)]
    h1, h2, h3 = of("hand", run(objs))
    assert [h["tied_at_top"] for h in (h1, h2, h3)] == [["ann", "bob"], ["ann", "bob"], []]
    assert [h["game_over"] for h in (h1, h2, h3)] == [False, False, True]
