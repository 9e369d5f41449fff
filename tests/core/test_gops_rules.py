"""GOPS rules (seed 002, RULINGS GOPS 1-3, our rulings in referee/core/games/gops.py)."""

from __future__ import annotations

import pytest

from referee.core.events import Asked, Command
from referee.core.games.gops import (
    BID_KINDS, PRIZE_KINDS, SETUPS, Bid, BidRefused, BidTaken, GopsError, GopsGame, GopsOptions, GopsOver, GopsPaused,
    GopsUndone, HandsBack, PrizeRefused, PrizeTurned, PrizeUp, PrizeWon, Reshuffled, Tied, TieStands)
from referee.core.options import OptionError


class Play:
    """A game fed one happening at a time, on a clock that ticks by one second."""

    def __init__(self, players="ann bob", setup="purple", **options):
        self.game = GopsGame(tuple(players.split()), GopsOptions(setup, **options))
        self.t = 0.0
        self.out: list = []

    def feed(self, event_of_time):
        self.t += 1.0
        got = self.game.feed(event_of_time(self.t))
        self.out += got
        return got

    def prize(self, card):
        return self.feed(lambda t: PrizeTurned(card, t))

    def bid(self, player, value):
        return self.feed(lambda t: Bid(player, value, t))

    def bids(self, **values):
        out = []
        for p, v in values.items():
            out += self.bid(p, v)
        return out

    def command(self, name):
        return self.feed(lambda t: Command(name, t))


def only(verdicts, kind):
    found = [v for v in verdicts if isinstance(v, kind)]
    assert len(found) == 1, verdicts
    return found[0]


# --- Set-ups -------------------------------------------------------------------------

def test_purple_setup_is_fourteen_clubs_of_two_colours_and_hands_of_seven():
    s = SETUPS["purple"]
    assert len(s.prizes) == 14
    assert sorted(s.prizes.values()) == sorted(list(range(1, 8)) * 2)
    assert {name.split()[0] for name in s.prizes} == {"green", "bronze"}
    assert s.hand == (1, 2, 3, 4, 5, 6, 7)
    assert s.players == (2, 5)


def test_standard_setup_is_thirteen_diamonds_ace_one_to_king_thirteen():
    s = SETUPS["standard"]
    assert s.prizes["ace of diamonds"] == 1 and s.prizes["king of diamonds"] == 13
    assert sorted(s.prizes.values()) == list(range(1, 14))
    assert s.hand == tuple(range(1, 14))
    assert s.players == (2, 3)


@pytest.mark.parametrize("setup, players, ok", [
    ("purple", 1, False), ("purple", 2, True), ("purple", 5, True), ("purple", 6, False),
    ("standard", 3, True), ("standard", 4, False)])
def test_player_counts(setup, players, ok):
    names = tuple("abcdef"[:players])
    if ok:
        assert GopsGame(names, GopsOptions(setup)).players == names
    else:
        with pytest.raises(GopsError, match="players"):
            GopsGame(names, GopsOptions(setup))


def test_options_are_checked():
    assert GopsOptions.from_dict({}) == GopsOptions("purple", False)
    assert GopsOptions.from_dict({"setup": "standard", "virtual_prizes": True}).setup == "standard"
    with pytest.raises(OptionError, match="setup"):
        GopsOptions.from_dict({"setup": "blue"})
    with pytest.raises(OptionError, match="virtual_prizes"):
        GopsOptions.from_dict({"virtual_prizes": "yes"})
    with pytest.raises(OptionError, match="unknown GOPS option"):
        GopsOptions.from_dict({"target": 100})
    with pytest.raises(GopsError, match="differ"):
        GopsGame(("ann", "ann"))


# --- A turn ---------------------------------------------------------------------------

def test_highest_bid_wins_the_prize_and_its_rank_points():
    g = Play("ann bob cai")
    up = only(g.prize("green five"), PrizeUp)
    assert (up.points, up.tie_break, up.pile) == (5, False, 13)
    assert g.game.waiting_for == ("ann", "bob", "cai")
    g.bids(ann=3, bob=6)
    assert g.game.waiting_for == ("cai",)
    won = only(g.bid("cai", 2), PrizeWon)
    assert (won.winner, won.prizes, won.points) == ("bob", ("green five",), 5)
    assert won.bids == {"ann": (3,), "bob": (6,), "cai": (2,)}
    assert won.totals == {"ann": 0, "bob": 5, "cai": 0}
    assert g.game.hand_of("bob") == (1, 2, 3, 4, 5, 7)
    assert g.game.where("bob", 6) == "discard"


def test_standard_scores_ace_one_and_king_thirteen():
    g = Play("ann bob", "standard")
    g.prize("king of diamonds")
    assert only(g.bids(ann=13, bob=1), PrizeWon).totals == {"ann": 13, "bob": 0}
    g.prize("ace of diamonds")
    assert only(g.bids(ann=2, bob=12), PrizeWon).totals == {"ann": 13, "bob": 1}


def test_a_bid_replaces_the_players_earlier_bid_until_all_are_in():
    g = Play()
    g.prize("bronze two")
    g.bid("ann", 7)
    taken = only(g.bid("ann", 4), BidTaken)
    assert (taken.value, taken.replaced) == (4, 7)
    assert 7 in g.game.hand_of("ann") and 4 not in g.game.hand_of("ann")
    assert only(g.bid("bob", 5), PrizeWon).winner == "bob"


# --- Refusals: each hand is known exactly ------------------------------------------------

def test_a_used_card_is_in_the_discard_pile():
    g = Play()
    g.prize("green ace")
    g.bids(ann=7, bob=1)
    g.prize("green two")
    refused = only(g.bid("ann", 7), BidRefused)
    assert (refused.player, refused.value, refused.reason) == ("ann", 7, "discard")
    assert g.game.waiting_for == ("ann", "bob")


def test_a_card_outside_the_setup_is_not_held():
    g = Play()
    g.prize("green ace")
    assert only(g.bid("ann", 12), BidRefused).reason == "not held"


def test_a_bid_before_any_prize_is_up_is_refused():
    g = Play()
    assert only(g.bid("ann", 3), BidRefused).reason == "no prize"


def test_a_first_bid_in_place_cannot_be_bid_again_in_the_tie_break():
    g = Play()
    g.prize("green six")
    g.bids(ann=5, bob=5)
    g.prize("bronze six")
    assert only(g.bid("ann", 5), BidRefused).reason == "in place"


def test_unknown_player_and_unknown_prize_raise():
    g = Play()
    with pytest.raises(GopsError, match="dan"):
        g.bid("dan", 3)
    with pytest.raises(GopsError, match="prize card"):
        g.prize("king of diamonds")


def test_prizes_that_are_not_in_the_pile_are_refused_with_where_they_are():
    g = Play()
    g.prize("green three")
    assert only(g.prize("green four"), PrizeRefused).reason == "the bids for the prize up are not all in"
    g.bids(ann=2, bob=1)
    assert only(g.prize("green three"), PrizeRefused).reason == "was won by ann"


# --- Tie breaks (RULINGS GOPS 2) ---------------------------------------------------------

def test_the_game_listens_for_the_prize_then_the_bids_then_the_tie_breaks_prize():
    g = Play("ann bob")
    assert g.game.listening_for == PRIZE_KINDS == {"prize", "command"}
    g.prize("green four")
    assert g.game.listening_for == BID_KINDS == {"bid", "command"}
    g.bid("ann", 6)
    assert g.game.listening_for == BID_KINDS
    g.bid("bob", 6)                                # tied: the next prize is turned up
    assert g.game.listening_for == PRIZE_KINDS
    g.prize("bronze seven")
    g.bids(ann=1, bob=2)
    assert g.game.listening_for == PRIZE_KINDS
    g.command("undo")                              # bob's bid taken back: bids again
    assert g.game.listening_for == BID_KINDS


def test_two_way_tie_keeps_bids_in_place_and_the_second_bids_break_it():
    g = Play("ann bob")
    g.prize("green four")
    tied = only(g.bids(ann=6, bob=6), Tied)
    assert (tied.players, tied.prize, tied.then) == (("ann", "bob"), "green four", "tie break")
    assert g.game.where("ann", 6) == "in place"
    up = only(g.prize("bronze seven"), PrizeUp)
    assert up.tie_break
    assert g.game.waiting_for == ("ann", "bob")
    won = only(g.bids(ann=1, bob=2), PrizeWon)
    assert (won.winner, won.prizes, won.points) == ("bob", ("green four", "bronze seven"), 11)
    assert won.bids == {"ann": (6, 1), "bob": (6, 2)}
    assert g.game.where("ann", 6) == "discard" and g.game.where("ann", 1) == "discard"


def test_three_way_tie_every_player_bids_again_and_an_untied_player_can_win():
    g = Play("ann bob cai dan")
    g.prize("green two")
    tied = only(g.bids(ann=5, bob=5, cai=5, dan=3), Tied)
    assert tied.players == ("ann", "bob", "cai")
    g.prize("green three")
    assert g.game.waiting_for == ("ann", "bob", "cai", "dan")
    won = only(g.bids(ann=1, bob=2, cai=3, dan=7), PrizeWon)
    assert won.winner == "dan"          # 3 + 7 = 10 beats 5 + 3 = 8
    assert won.totals["dan"] == 5


def test_a_tie_that_stays_tied_sends_both_prizes_to_the_discard_and_the_bids_back():
    g = Play("ann bob cai")
    g.prize("bronze five")
    g.bids(ann=7, bob=7, cai=1)
    g.prize("bronze six")
    stands = only(g.bids(ann=2, bob=2, cai=7), TieStands)   # 9, 9, 8
    assert stands.players == ("ann", "bob")
    assert stands.prizes == ("bronze five", "bronze six")
    assert stands.bids == {"ann": (7, 2), "bob": (7, 2), "cai": (1, 7)}
    assert g.game.discard == ["bronze five", "bronze six"]
    for p in ("ann", "bob", "cai"):
        assert g.game.hand_of(p) == (1, 2, 3, 4, 5, 6, 7)
    assert g.game.totals == {"ann": 0, "bob": 0, "cai": 0}
    assert only(g.prize("bronze five"), PrizeRefused).reason == "is in the prize discard pile"


def win_the_rest(g: Play, keep=()):
    """Every prize still in the pile but ``keep`` is won outright, bob taking the first six
    and ann the seventh of each round of bids; after 12 of them both hands are {6, 7}, after
    13 both are {7}."""
    cards = [c for c in list(g.game.pile) if c not in keep]
    k = len(cards) - 7
    ann = [1, 2, 3, 4, 5, 6, 7] + list(range(1, k + 1))
    bob = [2, 3, 4, 5, 6, 7, 1] + list(range(2, k + 1)) + [1]
    for card, a, b in zip(cards, ann, bob):
        g.prize(card)
        g.bids(ann=a, bob=b)
        assert any(isinstance(v, PrizeWon) for v in g.out[-3:]), g.out[-3:]


def test_prize_discard_pile_is_reshuffled_when_the_prize_pile_runs_out():
    g = Play("ann bob")
    g.prize("green ace")
    g.bids(ann=1, bob=1)
    g.prize("green two")
    g.bids(ann=2, bob=2)                 # stands: both to the prize discard
    win_the_rest(g)
    assert g.game.pile == [] and g.game.phase == "prize"
    assert g.game.next_prizes() == ("green ace", "green two")
    got = g.prize("green two")
    assert only(got, Reshuffled).cards == ("green ace", "green two")
    assert only(got, PrizeUp).pile == 1
    assert got.index(only(got, Reshuffled)) < got.index(only(got, PrizeUp))


def test_a_tie_on_the_last_prize_is_bid_for_again():
    g = Play("ann bob")
    win_the_rest(g, keep=("bronze seven",))
    g.prize("bronze seven")
    assert g.game.hand_of("ann") == g.game.hand_of("bob") == (7,)
    tied = only(g.bids(ann=7, bob=7), Tied)
    assert tied.then == "again"
    assert g.game.phase == "bids" and g.game.up == ["bronze seven"]
    assert g.game.where("ann", 7) == "hand" and g.game.where("bob", 7) == "hand"
    # They had used every card: they picked up their bid discard piles, so the bid can change.
    assert only(g.out[-2:], HandsBack).players == ("ann", "bob")
    assert g.game.hand_of("ann") == g.game.hand_of("bob") == (1, 2, 3, 4, 5, 6, 7)
    won = only(g.bids(ann=7, bob=3), PrizeWon)
    assert won.prizes == ("bronze seven",) and won.bids == {"ann": (7,), "bob": (3,)}
    over = only(g.out[-1:], GopsOver)
    assert over.complete


def test_a_tie_break_with_only_discarded_prizes_left_reshuffles_them_for_the_second_prize():
    g = Play("ann bob")
    g.prize("green ace")
    g.bids(ann=3, bob=3)
    g.prize("green two")
    g.bids(ann=1, bob=1)                 # stands
    win_the_rest(g)
    assert g.game.pile == []
    got = g.prize("green ace")           # reshuffled: green two stays in the new pile
    assert only(got, Reshuffled)
    assert g.game.hand_of("ann") == g.game.hand_of("bob") == (6, 7)
    tied = only(g.bids(ann=6, bob=6), Tied)
    assert tied.then == "tie break"
    assert only(g.prize("green two"), PrizeUp).tie_break


# --- The bid hand refresh ---------------------------------------------------------------

def test_after_seven_bids_each_player_picks_up_their_bid_discard_pile():
    g = Play()
    for v, card in zip(range(1, 8), ["green ace", "green two", "green three", "green four",
                                     "green five", "green six", "green seven"]):
        g.prize(card)
        got = g.bids(ann=v, bob=8 - v)
    assert only(got, HandsBack).players == ("ann", "bob")
    assert g.game.hand_of("ann") == (1, 2, 3, 4, 5, 6, 7)
    assert g.game.where("ann", 3) == "hand"


def test_tie_on_the_last_card_in_hand_refreshes_from_the_discard():
    g = Play()
    order = [("green ace", 1, 2), ("green two", 2, 1), ("green three", 3, 4), ("green four", 4, 3),
             ("green five", 5, 6), ("green six", 6, 5)]
    for card, a, b in order:
        g.prize(card)
        g.bids(ann=a, bob=b)
    g.prize("green seven")
    got = g.bids(ann=7, bob=7)
    assert only(got, Tied).then == "tie break"
    assert only(got, HandsBack).players == ("ann", "bob")
    assert g.game.hand_of("ann") == (1, 2, 3, 4, 5, 6)
    assert g.game.where("ann", 7) == "in place"
    g.prize("bronze ace")
    won = only(g.bids(ann=6, bob=1), PrizeWon)
    assert won.bids == {"ann": (7, 6), "bob": (7, 1)}
    assert g.game.hand_of("ann") == (1, 2, 3, 4, 5)
    assert g.game.where("ann", 7) == "discard"


# --- End of game -------------------------------------------------------------------------

def test_a_standard_game_ends_when_every_prize_is_won_with_the_totals_and_winner():
    g = Play("ann bob", "standard")
    for card, points in SETUPS["standard"].prizes.items():
        g.prize(card)
        g.bids(ann=points, bob=14 - points)     # 7 ties: broken by the next prize's bids
    over = only(g.out, GopsOver)
    assert over.complete and g.game.phase == "over"
    assert sum(over.totals.values()) == 91
    assert over.totals == {p: sum(SETUPS["standard"].prizes[c] for c in g.game.won[p]) for p in ("ann", "bob")}
    assert over.winners == (max(over.totals, key=over.totals.get),)
    assert only(g.prize("ace of diamonds"), PrizeRefused).reason == "the game is over"


def test_a_tied_final_total_splits_the_win():
    g = Play("ann bob")
    prizes = list(SETUPS["purple"].prizes)     # green 1..7, bronze 1..7
    for i, card in enumerate(prizes):
        g.prize(card)
        v = i % 7 + 1
        if i < 7:
            g.bids(ann=v, bob=v % 7 + 1 if v != 7 else 1)  # bob wins green 1..6, ann green 7
        else:
            g.bids(ann=v % 7 + 1 if v != 7 else 1, bob=v)  # ann wins bronze 1..6, bob bronze 7
    over = only(g.out, GopsOver)
    assert over.totals == {"ann": 28, "bob": 28}
    assert over.winners == ("ann", "bob")
    assert over.complete


def test_end_game_early_is_not_complete():
    g = Play()
    g.prize("green seven")
    g.bids(ann=7, bob=1)
    over = only(g.command("end"), GopsOver)
    assert over.winners == ("ann",) and not over.complete


# --- Commands -------------------------------------------------------------------------

def test_score_repeat_new_game_go_to_the_shell():
    g = Play()
    assert isinstance(only(g.command("score"), Asked), Asked)
    assert isinstance(only(g.command("repeat"), Asked), Asked)


def test_pause_refuses_bids_and_prizes_until_resume():
    g = Play()
    assert only(g.command("pause"), GopsPaused).paused
    assert g.command("pause") == []
    assert only(g.prize("green ace"), PrizeRefused).reason == "the game is paused"
    g.command("resume")
    g.prize("green ace")
    g.command("pause")
    assert only(g.bid("ann", 3), BidRefused).reason == "paused"


def test_undo_takes_back_the_last_bid_and_what_it_decided():
    g = Play()
    g.prize("green five")
    g.bid("ann", 2)
    g.bid("bob", 3)
    assert g.game.totals["bob"] == 5
    undone = only(g.command("undo"), GopsUndone)
    assert undone.what == "bob's bid of three"
    assert g.game.totals == {"ann": 0, "bob": 0}
    assert g.game.waiting_for == ("bob",)
    assert g.game.where("bob", 3) == "hand"
    assert g.game.where("ann", 2) == "bid"
    assert only(g.bid("bob", 1), PrizeWon).winner == "ann"


def test_undo_takes_back_a_real_prize_but_never_a_virtual_one_alone():
    g = Play()
    g.prize("green five")
    assert only(g.command("undo"), GopsUndone).what == "the green five"
    assert g.game.phase == "prize" and "green five" in g.game.pile
    assert only(g.command("undo"), GopsUndone).what == ""
    v = Play(virtual_prizes=True)
    v.prize("green five")
    v.bids(ann=1, bob=2)
    v.prize("green six")
    assert only(v.command("undo"), GopsUndone).what == "bob's bid of two"
    assert v.game.up == ["green five"] and v.game.waiting_for == ("bob",)


# --- The players' own deck -----------------------------------------------------------------

OWN = {"name": "reds", "prizes": {"red ace": 1, "red two": 2, "red three": 3},
       "hand": [3, 1, 2], "players": [2, 4]}


def test_an_own_setup_is_data_in_the_game_line():
    options = GopsOptions.from_dict({"setup": OWN})
    g = GopsGame(("ann", "bob", "cai", "dan"), options)
    assert g.setup.prizes == {"red ace": 1, "red two": 2, "red three": 3}
    assert g.setup.hand == (1, 2, 3) and g.hand_of("dan") == (1, 2, 3)
    with pytest.raises(GopsError, match="2 to 4 players"):
        GopsGame(tuple("abcde"), options)
    p = Play()
    p.game = g
    p.prize("red three")
    assert only(p.bids(ann=3, bob=2, cai=1, dan=2), PrizeWon).points == 3


@pytest.mark.parametrize("bad, message", [
    ({**OWN, "prizes": {"red ace": 14}}, "points 1-13"),
    ({**OWN, "prizes": {"red 7": 7}}, "names in words"),
    ({**OWN, "hand": [1, 1]}, "different ranks"),
    ({**OWN, "players": [1, 3]}, "2 or more"),
    ({**OWN, "colour": "red"}, "unknown a GOPS set-up option 'colour'"),
    ("blue", "setup must be one of purple, standard"),
    (["red ace"], "a set-up object")])
def test_a_bad_own_setup_is_named(bad, message):
    with pytest.raises(OptionError, match=message):
        GopsOptions.from_dict({"setup": bad})
