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
        "Ann wins one card.",
        "Bob wins one card: Bob began one hundred milliseconds sooner.",
        "Ann and Bob tie! The cards stay.",
        "Game over. Ann and Bob tie with one card each.",
    ]


def test_scores_every_two_rounds_and_miscalls_when_verbose():
    log = [game(), deal("3S", 0), call("bob", "three of hearts", 0.2, 0.4), call("ann", "four of hearts", 0.5, 1.0),
           deal("QH", 2), call("bob", "king of spades", 2.0, 2.5)]
    assert spoken(log, scores_every=2, verbosity="verbose") == [
        "Bob is out this round.",
        "Ann wins one card.",
        "Bob wins one card. Ann has one, Bob has one.",
        "Game over. Ann and Bob tie with one card each.",
    ]
    assert "Bob is out this round." not in spoken(log)   # normal verbosity


def test_forfeit_leads_with_the_winner_and_names_the_miscall():
    log = [game(options={"two_player_miscall": "forfeit"}), deal("3S", 0), call("bob", "three of hearts", 0.2, 0.4),
           call("bob", "four of hearts", 0.3, 0.5)]
    said = spoken(log, scores_every=0)
    assert said[0] == "Ann takes one card: Bob miscalled."
    assert not [s for s in said if "hair" in s]


def test_a_race_lost_by_more_than_the_window_is_won_by_a_hair():
    log = [game(), deal("3S", 0), call("ann", "four of hearts", 0.5, 1.0),
           call("bob", "five of hearts", 0.4, 1.12),          # 120 ms late: qualifies, too late
           call("bob", "six of diamonds", 1.0, 1.2),          # said once per round only
           deal("6D", 3), call("ann", "eight of clubs", 3.5, 4.0),
           call("bob", "two of spades", 3.5, 4.9)]            # 900 ms: not a hair
    assert spoken(log, scores_every=0) == [
        "Ann wins one card.",
        "Ann won by a hair: Bob was one hundred and twenty milliseconds later.",
        "Ann wins one card.",
        "Game over. Ann wins with two cards. Bob has zero.",
    ]


def test_nobody_draws_with_himself_aloud():
    log = [game(), deal("3S", 0), call("ann", "four of hearts", 0.5, 1.0), call("ann", "five of hearts", 0.5, 1.0)]
    assert spoken(log, scores_every=0)[0] == "Ann wins one card."


def test_goop_sentences_lead_with_the_player_and_say_numbers_as_words():
    objs = [{"type": "game", "game": "goop", "players": ["cai", "bob", "ann"], "options": {"target": 10}},
            {"type": "shout", "player": "ann", "said": "goop", "start": 1.0, "end": 1.4}]
    for i, (p, centre, left) in enumerate([("ann", 12, 0), ("bob", 1, 2), ("cai", 12, 0)]):
        objs += [{"type": "count", "player": p, "field": "centre", "value": centre, "at": 2 + i},
                 {"type": "count", "player": p, "field": "left", "value": left, "at": 2.5 + i}]
    objs += [{"type": "tally", "at": 9}, {"type": "command", "command": "end", "at": 10}]
    assert spoken(objs) == [
        "Ann gooped!",
        "Cai has twelve, Ann has twelve, Bob has minus three. Cai and Ann tie at the top: play one more hand. "
        "Pick decks: Bob first, then Cai, then Ann. Ann says go.",
        "The game ends with Cai and Ann tied at the top. Cai has twelve, Ann has twelve, Bob has minus three.",
    ]


def test_a_goop_win_and_its_points():
    objs = [{"type": "game", "game": "goop", "players": ["ann", "bob"], "options": {"target": 10}},
            {"type": "shout", "player": "ann", "said": "goop", "start": 1.0, "end": 1.4}]
    objs += [{"type": "count", "player": p, "field": f, "value": v, "at": 2 + i}
             for i, (p, f, v) in enumerate([("ann", "centre", 12), ("ann", "left", 0),
                                            ("bob", "centre", 1), ("bob", "left", 1)])]
    assert spoken(objs)[-1] == "Ann has twelve, Bob has minus one. Game over. Ann wins with twelve points."


def test_the_score_is_a_line_of_its_own_and_terse_names_only_who_won():
    log = [game(options={"two_player_miscall": "forfeit"}), deal("3S", 0), call("ann", "four of hearts", 0.5, 1.0),
           deal("QH", 2), call("bob", "king of spades", 2.0, 2.50), call("ann", "jack of clubs", 2.1, 2.52),
           deal("6D", 4), call("bob", "six of hearts", 4.2, 4.4), call("bob", "eight of clubs", 4.5, 5.0),
           deal("7H", 6), call("ann", "eight of clubs", 6.5, 7.0), call("bob", "two of spades", 6.5, 7.01)]
    a = Announcer()
    said = [a.lines(v) for v in replay_lines(lines(log))]
    first = next(x for x in said if x)
    assert [(x.text, x.score) for x in first] == [("Ann wins one card.", False),
                                                  ("Ann has one, Bob has zero.", True)]
    # a race won by beginning first, a forfeit and a draw: each in the fewest words, no score
    assert spoken(log, verbosity="terse") == [
        "Ann wins.", "Bob wins.", "Ann wins.", "Ann and Bob tie.", "Game over. Ann wins with two cards. Bob has one."]
