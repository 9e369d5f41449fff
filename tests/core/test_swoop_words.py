"""What the referee says about Swoop's verdicts, at each verbosity, and the replay's lines."""

from referee.core.announce import Announcer
from referee.core.games.swoop import (
    Paused, PickedUp, Play, Played, Refused, Report, Reported, RoundScored, SwoopOver, Undone,
    WentOut,
)
from referee.core.games.swoop_words import describe, sentence, standings

PLAIN = Played(1, Play("ann", 7, 2, 3.0), 2, 2, "", 17, "bob")
SWOOP = Played(1, Play("bob", 10, 1, 4.0), 0, 1, "ten", 18, "bob")


def test_whose_turn_by_verbosity():
    assert sentence(PLAIN, "quiet") is None
    assert sentence(PLAIN, "normal") == "bob's turn."
    assert sentence(PLAIN, "verbose") == "Two sevens. bob's turn."
    assert Announcer("normal").say(PLAIN) == "bob's turn."


def test_swoops_refusals_pick_ups_at_every_verbosity():
    for level in ("quiet", "normal", "verbose"):
        assert sentence(SWOOP, level) == "A ten. Swoop! bob plays again."
        assert sentence(Refused(1, "cai", "a seven", "a seven does not go on a five", "cai"),
                        level) == "No, cai: a seven does not go on a five. Play again or pick up."
        assert sentence(PickedUp(1, "cai", 4, 22, "ann", 11), level) == \
            "The blind jack does not go. cai picks up 4 cards. ann leads."


def test_going_out_reports_scores_and_the_end():
    assert sentence(WentOut(1, "ann", ("bob",))) == "ann is out!"
    assert sentence(Reported(1, Report("bob", 5.0, total=1), 1)) == "bob, 1 point."
    assert sentence(Reported(1, Report("bob", 5.0, (13,)), 10, None, "I counted 2 cards")) == \
        "bob, 10 points. But I counted 2 cards."
    scored = RoundScored(1, "ann", {"ann": 0, "bob": 86, "cai": 57}, {"ann": 3, "bob": 86, "cai": 57},
                         (), False, "bob")
    assert sentence(scored) == "Round 1: bob 86, cai 57. Totals: ann 3, cai 57, bob 86. bob leads."
    assert sentence(SwoopOver({"ann": 3, "bob": 3}, ("ann", "bob"), 2)) == \
        "Game over. ann and bob tie with 3 points."
    assert sentence(SwoopOver({"ann": 0, "bob": 0}, (), 0)) == "Game ended before any round was scored."
    assert sentence(Undone(1, "", "ann")) == "Nothing to undo."
    assert sentence(Paused(True, 1.0)) == "Paused."
    assert standings({"ann": 5, "bob": 2, "cai": 5}) == "bob 2, ann 5, cai 5"


def test_replay_lines_say_why():
    assert describe(SWOOP) == "round 1: bob plays a ten at 4.00 s: a ten swoops the pile; bob plays again"
    four = Played(1, Play("cai", 8, 2, 5.0), 0, 5, "four", 10, "cai")
    assert "5 eights in a row swoop the pile" in describe(four)
    assert describe(PLAIN) == ("round 1: ann plays two sevens at 3.00 s: it goes "
                               "(pile 2, run 2; ann holds 17); bob's turn")
