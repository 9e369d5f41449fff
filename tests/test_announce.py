from referee.core.announce import Announcer
from referee.core.replay import replay_lines
from stroop_logs import call, deal, game, lines


def spoken(objs, **kw):
    a = Announcer(**kw)
    return [t for t in (a.say(v) for v in replay_lines(lines(objs))) if t]


def test_wins_races_draws_and_the_end():
    log = [game(), deal("3S", 0), call("ann", "four of hearts", 0.5, 1.0),
           deal("QH", 2), call("bob", "king of spades", 2.0, 2.50), call("ann", "jack of clubs", 2.1, 2.52),
           deal("6D", 4), call("ann", "eight of clubs", 4.5, 5.0), call("bob", "two of spades", 4.5, 5.01)]
    assert spoken(log, scores_every=0) == [
        "ann wins one card.",
        "bob, by a hair: started first. One card.",
        "Draw between ann and bob! The cards stay.",
        "Game over. ann and bob tie with 1 card.",
    ]


def test_scores_every_two_rounds_and_miscalls_when_verbose():
    log = [game(), deal("3S", 0), call("bob", "three of hearts", 0.2, 0.4), call("ann", "four of hearts", 0.5, 1.0),
           deal("QH", 2), call("bob", "king of spades", 2.0, 2.5)]
    assert spoken(log, scores_every=2, verbosity="verbose") == [
        "bob is out this round.",
        "ann wins one card.",
        "bob wins one card. Score: ann 1, bob 1.",
        "Game over. ann and bob tie with 1 card.",
    ]
    assert "bob is out this round." not in spoken(log)   # normal verbosity


def test_forfeit_is_explained():
    log = [game(options={"two_player_miscall": "forfeit"}), deal("3S", 0), call("bob", "three of hearts", 0.2, 0.4)]
    assert spoken(log, scores_every=0)[0] == "bob miscalled. ann takes one card."


def test_a_race_lost_by_more_than_the_window_is_won_by_a_hair():
    log = [game(), deal("3S", 0), call("ann", "four of hearts", 0.5, 1.0),
           call("bob", "five of hearts", 0.4, 1.12),          # 120 ms late: qualifies, too late
           call("bob", "six of diamonds", 1.0, 1.2),          # said once per round only
           deal("6D", 3), call("ann", "eight of clubs", 3.5, 4.0),
           call("bob", "two of spades", 3.5, 4.9)]            # 900 ms: not a hair
    assert spoken(log, scores_every=0) == [
        "ann wins one card.",
        "By a hair: bob finished 120 milliseconds later.",
        "ann wins one card.",
        "Game over. ann wins with 2 cards. Score: bob 0.",
    ]
