"""Commands at the table: undo, pause/resume, end."""

from stroop_logs import call, deal, final, game, rounds, verdicts
from referee.core.account import describe
from referee.core.replay import replay_lines
from stroop_logs import lines


def command(name, at, player=None):
    obj = {"type": "command", "command": name, "at": at}
    if player:
        obj["player"] = player
    return obj


def test_undo_reopens_the_current_round_and_gives_the_cards_back():
    log = [game(), deal("3S", 0.0), deal("6D", 1.0),
           call("ann", "eight of clubs", 1.2, 1.5),        # misheard: ann wins 2
           command("undo", 2.0, "bob"),
           call("bob", "two of spades", 2.5, 3.0)]         # the round is open again
    v = verdicts(log)
    undone = [x for x in v if x["type"] == "undone"]
    assert undone == [{"type": "undone", "round": 2, "winner": "ann", "cards": 2, "reopened": True,
                       "scores": {"ann": 0, "bob": 0}}]
    r = rounds(log)
    assert [(x["round"], x["winner"], x["pile"]) for x in r] == [(1, None, 0), (2, "ann", 2), (2, "bob", 2)]
    assert final(log)["scores"] == {"ann": 0, "bob": 2}


def test_undo_after_the_next_deal_puts_the_cards_on_the_stake_pile():
    log = [game(), deal("3S", 0.0), call("ann", "four of hearts", 0.5, 1.0),
           deal("6D", 2.0), command("undo", 2.5),
           call("bob", "eight of clubs", 3.0, 3.5)]
    assert final(log)["scores"] == {"ann": 0, "bob": 2}
    text = [describe(v) for v in replay_lines(lines(log))]
    assert "undo round 1: ann gives back 1 card; they go onto the stake pile" in text


def test_undo_twice_reverts_two_verdicts_and_a_third_has_nothing_to_undo():
    log = [game(), deal("3S", 0.0), call("ann", "four of hearts", 0.5, 1.0),
           deal("6D", 2.0), call("bob", "eight of clubs", 2.5, 3.0),
           command("undo", 4.0), command("undo", 5.0), command("undo", 6.0)]
    v = verdicts(log)
    assert [(x["round"], x["winner"]) for x in v if x["type"] == "undone"] == [(2, "bob"), (1, "ann"), (None, None)]
    assert final(log)["scores"] == {"ann": 0, "bob": 0} and final(log)["unclaimed"] == 2


def test_calls_while_paused_count_for_nothing():
    log = [game(), deal("3S", 0.0), command("pause", 0.2),
           call("ann", "four of hearts", 0.5, 1.0), command("resume", 2.0),
           call("bob", "five of hearts", 2.5, 3.0)]
    v = verdicts(log)
    assert [x["outcome"] for x in v if x["type"] == "judged"] == ["paused", "qualifies"]
    assert rounds(log)[0]["winner"] == "bob"


def test_end_ends_the_game_once():
    log = [game(), deal("3S", 0.0), call("ann", "four of hearts", 0.5, 1.0),
           command("end", 2.0), deal("6D", 3.0), call("bob", "eight of clubs", 3.5, 4.0)]
    v = verdicts(log)
    assert [x["type"] for x in v if x["type"] in ("round", "final")] == ["round", "final"]
    assert v[-1]["type"] == "judged" and v[-1]["outcome"] == "no-round"
    finals = [x for x in v if x["type"] == "final"]
    assert len(finals) == 1 and finals[0]["scores"] == {"ann": 1, "bob": 0}


def test_a_round_reopened_by_undo_starts_afresh_like_a_deal():
    # bob miscalled (out), then ann won; the undo opens the round with every player active
    log = [game(), deal("6D", 0.0),
           call("bob", "queen of spades", 0.5, 1.0),       # a court card on a number: out
           call("ann", "eight of clubs", 1.2, 1.5),
           command("undo", 2.0, "bob"),
           call("bob", "two of spades", 2.5, 3.0)]
    r = rounds(log)
    assert [(x["round"], x["winner"]) for x in r] == [(1, "ann"), (1, "bob")]
