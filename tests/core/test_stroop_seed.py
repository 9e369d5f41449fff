"""Every example in the seed's Stroop text, ruled as RULINGS.md says."""

import pytest

from referee.core.cards import Card
from referee.core.games.stroop import miscall_reason, qualifies
from stroop_logs import call, deal, final, game, rounds, verdicts

# The seed's table of qualifying and non-qualifying calls. Two entries break
# the seed's own rule text (ruling 2): 9♧ on 3♠ (both black) and A♦ on Q♡
# (both red). The rule text wins: both are miscalls.
SEED_TABLE = [
    ("3♠", ["4♡"], ["3♡", "4", "A♡", "J♣"]),
    ("6♢", ["2♠", "8♣"], ["3♢", "6", "J♡"]),
    ("Q♡", ["K♠"], ["9♦", "Q♦", "A♢"]),
    ("A♣", ["J♢", "Q♡"], ["10♢", "7♣", "J♠"]),
]
SEED_TYPOS = [("3♠", "9♧"), ("Q♡", "A♦")]


@pytest.mark.parametrize("top, good, bad", SEED_TABLE)
def test_seed_table(top, good, bad):
    t = Card.parse(top)
    for c in good:
        assert qualifies(c, t), f"{c} should qualify on {top}"
    for c in bad:
        assert not qualifies(c, t), f"{c} should not qualify on {top}"


@pytest.mark.parametrize("top, listed", SEED_TYPOS)
def test_seed_typos_are_miscalls_because_the_rule_text_wins(top, listed):
    assert miscall_reason(listed, Card.parse(top)) == "same colour as the top card"


def test_bare_ranks_are_miscalls():
    assert miscall_reason("4", Card.parse("3S")) == "names a rank only"
    assert miscall_reason("four", Card.parse("3S")) == "names a rank only"
    assert miscall_reason("hearts", Card.parse("3S")) == "names a suit only"


def test_reasons_name_the_broken_condition():
    top = Card.parse("3S")
    assert miscall_reason("three of hearts", top) == "same rank as the top card"
    assert miscall_reason("ace of hearts", top) == "a number card is needed"
    assert miscall_reason("two of hearts", Card.parse("JC")) == "a court card is needed"


def test_worked_example_1_player_one_wins_on_the_first_call():
    log = [game(), deal("3S", 0.0), call("ann", "two of hearts", 1.0, 1.5)]
    (r,) = rounds(log)
    assert (r["winner"], r["pile"]) == ("ann", 1)


def test_worked_example_2_invalid_call_then_the_other_player_wins():
    log = [game(), deal("4D", 0.0),
           call("ann", "two of hearts", 1.0, 1.5),     # inactive
           call("ann", "three of clubs", 2.0, 2.5),    # no effect
           call("bob", "three of clubs", 3.0, 3.5)]    # wins
    v = verdicts(log)
    judged = [x for x in v if x["type"] == "judged"]
    assert [j["outcome"] for j in judged] == ["miscall", "inactive", "qualifies"]
    assert {"type": "out", "round": 1, "player": "ann", "at": 1.5} in v
    (r,) = rounds(log)
    assert (r["winner"], r["pile"]) == ("bob", 1)


def test_worked_example_3_both_miscall_then_all_are_active_again():
    log = [game(), deal("JC", 0.0),
           call("ann", "two of hearts", 1.0, 1.5),
           call("bob", "queen of spades", 2.0, 2.5),
           call("ann", "queen of hearts", 3.0, 3.5)]
    v = verdicts(log)
    assert {"type": "all-active", "round": 1, "at": 2.5} in v
    (r,) = rounds(log)
    assert r["winner"] == "ann"


def test_after_the_reset_later_miscalls_change_nothing():
    log = [game(), deal("JC", 0.0),
           call("ann", "two of hearts", 1.0, 1.5),
           call("bob", "queen of spades", 2.0, 2.5),   # reset
           call("bob", "two of clubs", 3.0, 3.5),      # changes nothing
           call("bob", "king of hearts", 4.0, 4.5)]    # bob still active: wins
    assert rounds(log)[0]["winner"] == "bob"
    assert not [x for x in verdicts(log) if x["type"] == "out" and x["player"] == "bob"]


def test_three_players_reset_only_when_all_have_miscalled():
    players = ("ann", "bob", "cai")
    log = [game(players), deal("5C", 0.0),
           call("ann", "five of hearts", 1.0, 1.2),
           call("bob", "six of clubs", 2.0, 2.2),
           call("ann", "six of hearts", 3.0, 3.2),     # ann inactive: no effect
           call("cai", "six of spades", 4.0, 4.2),     # cai miscalls: reset
           call("ann", "seven of diamonds", 5.0, 5.2)]
    v = verdicts(log)
    assert [x["player"] for x in v if x["type"] == "out"] == ["ann", "bob"]
    assert [x for x in v if x["type"] == "all-active"] == [{"type": "all-active", "round": 1, "at": 4.2}]
    assert rounds(log)[0]["winner"] == "ann"


# --- The tie text -------------------------------------------------------------

def test_simultaneous_calls_the_first_to_complete_wins():
    log = [game(), deal("3S", 0.0),
           call("ann", "four of hearts", 1.0, 1.60),
           call("bob", "five of hearts", 0.9, 1.50)]
    r = rounds(log)[0]
    assert r["winner"] == "bob"


def test_completed_together_the_first_to_begin_wins():
    log = [game(), deal("3S", 0.0),
           call("ann", "four of hearts", 1.00, 1.52),
           call("bob", "five of hearts", 1.10, 1.50)]   # ends 20 ms earlier: a tie
    r = rounds(log)[0]
    assert (r["winner"], r["decided_by"]) == ("ann", "beginning")


def test_begun_and_completed_together_is_a_draw_and_the_pile_carries():
    log = [game(), deal("3S", 0.0),
           call("ann", "four of hearts", 1.00, 1.50),
           call("bob", "five of hearts", 1.02, 1.53),
           deal("6D", 2.0),
           call("bob", "eight of clubs", 2.5, 3.0)]
    r1, r2 = rounds(log)
    assert (r1["winner"], r1["pile"], r1["outcome"], r1["carried"]) == (None, 0, "draw", 1)
    assert r1["tied"] == ["ann", "bob"]
    assert (r2["winner"], r2["pile"]) == ("bob", 2)
    assert final(log)["scores"] == {"ann": 0, "bob": 2}


def test_tie_window_is_an_option():
    base = [deal("3S", 0.0), call("ann", "four of hearts", 1.00, 1.52),
            call("bob", "five of hearts", 1.10, 1.50)]
    assert rounds([game(options={"tie_window_ms": 10})] + base)[0]["winner"] == "bob"
    assert rounds([game(options={"tie_window_ms": 40})] + base)[0]["winner"] == "ann"


def test_exactly_at_the_window_edge_counts_as_together():
    log = [game(options={"tie_window_ms": 40}), deal("3S", 0.0),
           call("ann", "four of hearts", 1.0, 1.54),
           call("bob", "five of hearts", 1.2, 1.50)]
    assert rounds(log)[0]["winner"] == "ann"


# --- Rounds, piles and the score ---------------------------------------------------

def test_unwon_round_carries_its_pile_to_the_next_winner():
    log = [game(), deal("3S", 0.0), deal("6D", 5.0), deal("KC", 10.0),
           call("ann", "queen of hearts", 11.0, 11.5)]
    r = rounds(log)
    assert [(x["winner"], x["pile"], x["carried"]) for x in r] == [(None, 0, 1), (None, 0, 2), ("ann", 3, 0)]


def test_calls_after_the_round_is_won_have_no_effect():
    log = [game(), deal("3S", 0.0),
           call("ann", "four of hearts", 1.0, 1.5),
           call("bob", "five of hearts", 1.0, 1.7),
           call("bob", "six of diamonds", 2.0, 2.5)]
    v = verdicts(log)
    late = [x for x in v if x["type"] == "judged" and x["outcome"] == "late"]
    assert [x["said"] for x in late] == ["five of hearts", "six of diamonds"]
    assert late[0]["reason"] == "finished 200 ms after ann's winning call"
    assert final(log)["scores"] == {"ann": 1, "bob": 0}


def test_a_call_belongs_to_the_round_of_the_last_deal_before_its_end():
    # Begun during round 1, finished after the second deal: judged on the new top card.
    log = [game(), deal("3S", 0.0), deal("QH", 2.0),
           call("ann", "king of spades", 1.8, 2.3)]
    r1, r2 = rounds(log)
    assert r1["winner"] is None and r2["winner"] == "ann" and r2["pile"] == 2


def test_a_call_ending_exactly_at_a_deal_belongs_to_the_old_round():
    log = [game(), deal("3S", 0.0), deal("QH", 2.0),
           call("ann", "four of hearts", 1.5, 2.0)]
    r1, r2 = rounds(log)
    assert r1["winner"] == "ann" and r2["winner"] is None


def test_calls_before_the_first_deal_do_nothing():
    log = [game(), call("ann", "four of hearts", 0.0, 0.5), deal("3S", 1.0)]
    v = verdicts(log)
    assert [x["outcome"] for x in v if x["type"] == "judged"] == ["no-round"]
    assert rounds(log)[0]["winner"] is None


def test_unclaimed_pile_at_the_end_belongs_to_no_one():
    log = [game(), deal("3S", 0.0), call("ann", "four of hearts", 0.5, 1.0), deal("6D", 2.0)]
    f = final(log)
    assert f["scores"] == {"ann": 1, "bob": 0} and f["unclaimed"] == 1 and f["rounds"] == 2


# --- Option two_player_miscall ------------------------------------------------------

def test_forfeit_gives_the_round_to_the_other_player_at_once():
    log = [game(options={"two_player_miscall": "forfeit"}), deal("4D", 0.0),
           call("ann", "two of hearts", 1.0, 1.5),
           call("ann", "three of clubs", 2.0, 2.5)]
    r = rounds(log)[0]
    assert (r["winner"], r["decided_by"], r["pile"]) == ("bob", "forfeit", 1)


def test_forfeit_applies_only_to_two_player_games():
    log = [game(("ann", "bob", "cai"), options={"two_player_miscall": "forfeit"}), deal("4D", 0.0),
           call("ann", "two of hearts", 1.0, 1.5), call("cai", "three of clubs", 2.0, 2.5)]
    assert rounds(log)[0]["winner"] == "cai"


def test_default_two_player_miscall_is_inactive():
    log = [game(), deal("4D", 0.0), call("ann", "two of hearts", 1.0, 1.5)]
    assert rounds(log)[0]["winner"] is None


# --- The match-card variant ------------------------------------------------------------

def test_match_card_rank_example_9s_on_9h():
    m, t = Card.parse("9S"), Card.parse("9H")
    assert qualifies("9♡", t, m) and qualifies("nine of diamonds", t, m)
    assert not qualifies("nine of spades", t, m)      # wrong colour
    assert not qualifies("two of clubs", t, m)        # the normal rule does not apply to her
    assert qualifies("two of clubs", t)               # but it does to player two
    assert not qualifies("nine of diamonds", t)       # "player two cannot call a nine"


def test_match_card_suit_example_9s_on_ks():
    m, t = Card.parse("9S"), Card.parse("KS")
    assert {c for c in ("AS", "JS", "QS") if qualifies(c, t, m)} == {"AS", "JS", "QS"}
    for c in ("KS", "9S", "QH", "AH", "JD"):
        assert not qualifies(c, t, m), c


def test_match_cards_in_a_log_apply_to_their_player_only():
    log = [game(match_cards={"ann": "9S"}), deal("9H", 0.0),
           call("ann", "two of clubs", 1.0, 1.5),      # miscall for ann
           call("bob", "nine of diamonds", 2.0, 2.5),  # miscall for bob
           call("ann", "nine of diamonds", 3.0, 3.5)]  # reset; ann wins
    assert rounds(log)[0]["winner"] == "ann"
