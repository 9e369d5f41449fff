"""Swoop's rules (seed 001, RULINGS Swoop 1-3, docs/rulings-swoop.md), one case each."""

import pytest

from referee.core.events import Asked, Command, GameStart, Tally
from referee.core.games import make_game
from referee.core.games.swoop import (
    GoOut, Paused, PickedUp, PickUp, Play, Played, Refused, Report, Reported, RoundScored,
    SwoopError, SwoopGame, SwoopNote, SwoopOptions, SwoopOver, Undone, WentOut, points, rank_words,
)
from referee.core.options import OptionError

A, J, Q, K = 1, 11, 12, 13


class Clock:
    def __init__(self, game):
        self.game = game
        self.t = 0.0

    def __call__(self, kind, player=None, rank=None, count=1, blind=False, **kw):
        self.t += 1.0
        if kind == "play":
            event = Play(player, rank, count, self.t, blind)
        elif kind == "pick":
            event = PickUp(player, self.t)
        elif kind == "out":
            event = GoOut(player, self.t)
        elif kind == "report":
            event = Report(player, self.t, **kw)
        elif kind == "tally":
            event = Tally(self.t)
        else:
            event = Command(kind, self.t)
        return self.game.feed(event)


def table(players=("ann", "bob", "cai"), **options):
    game = SwoopGame(players, SwoopOptions(**options))
    return game, Clock(game)


def only(verdicts, kind):
    assert len(verdicts) == 1 and isinstance(verdicts[0], kind), verdicts
    return verdicts[0]


def test_seats_decks_and_deal():
    game, _ = table()
    assert game.turn == "ann" and game.options.decks == 2
    assert game.held == {"ann": 19, "bob": 19, "cai": 19}
    assert SwoopGame(("a", "b")).options.decks == 1
    assert SwoopGame(("a", "b", "c", "d", "e")).options.decks == 3
    with pytest.raises(OptionError):
        SwoopGame(("a", "b", "c"), SwoopOptions(decks=1))     # 57 cards from 52
    with pytest.raises(SwoopError):
        SwoopGame(("a",))
    with pytest.raises(OptionError):
        SwoopOptions.from_dict({"rounds": 0})
    with pytest.raises(OptionError):
        SwoopOptions.from_dict({"jokers": True})


def test_make_game_knows_swoop():
    game = make_game(GameStart("swoop", ("ann", "bob"), {"rounds": 3}))
    assert isinstance(game, SwoopGame) and game.options.rounds == 3 and game.options.decks == 1


def test_lead_any_then_equal_or_lower_k_high_a_low():
    game, go = table()
    v = only(go("play", "ann", K), Played)
    assert (v.pile, v.run, v.swoop, v.held, v.next) == (1, 1, "", 18, "bob")
    only(go("play", "bob", K), Played)
    v = only(go("play", "cai", A), Played)
    assert v.next == "ann" and game.to_beat == A
    r = only(go("play", "ann", 3), Refused)
    assert r.reason == "a three does not go on an ace" and r.next == "ann"
    assert game.pile == 3 and game.held["ann"] == 18        # nothing changed


def test_refused_play_the_player_plays_again():
    game, go = table()
    go("play", "ann", 5)
    r = only(go("play", "bob", 7), Refused)
    assert r.what == "a seven" and "does not go on a five" in r.reason
    assert game.turn == "bob" and game.pile == 1 and game.held["bob"] == 19
    v = only(go("play", "bob", 4), Played)
    assert v.next == "cai"


def test_several_cards_of_one_rank():
    game, go = table()
    v = only(go("play", "ann", 9, count=3), Played)
    assert (v.pile, v.run, v.held) == (3, 3, 16)
    assert rank_words(9, 3) == "three nines" and rank_words(6, 2) == "two sixes"
    assert rank_words(A) == "an ace" and rank_words(8) == "an eight"


def test_swoop_by_the_fourth_card_across_three_players():
    game, go = table()
    go("play", "ann", 8)
    go("play", "bob", 8, count=2)
    v = only(go("play", "cai", 8), Played)
    assert (v.swoop, v.run, v.pile, v.next) == ("four", 4, 0, "cai")   # cai plays again
    assert game.pile == 0 and game.to_beat is None
    v = only(go("play", "cai", K), Played)    # on an empty pile, any rank
    assert v.next == "ann"


def test_more_than_four_swoop_with_two_decks():
    game, go = table()
    go("play", "ann", 6, count=3)
    v = only(go("play", "bob", 6, count=2), Played)
    assert (v.swoop, v.run) == ("four", 5) and v.next == "bob"


def test_run_is_broken_by_another_rank():
    game, go = table()
    go("play", "ann", 8, count=2)
    go("play", "bob", 5)
    go("play", "cai", 5)
    assert game.run == (5, 2) and game.pile == 4
    v = only(go("play", "ann", 5), Played)
    assert v.swoop == "" and v.run == 3


def test_swoop_by_a_ten_on_anything():
    game, go = table()
    go("play", "ann", 3)
    v = only(go("play", "bob", 10), Played)
    assert v.swoop == "ten" and v.pile == 0 and v.next == "bob"
    v = only(go("play", "bob", Q), Played)
    assert v.next == "cai"


def test_a_ten_leads_and_swoops_an_empty_pile():
    game, go = table()
    v = only(go("play", "ann", 10, count=2), Played)
    assert v.swoop == "ten" and v.next == "ann" and v.held == 17


def test_two_as_reset():
    game, go = table()
    go("play", "ann", 4)
    v = only(go("play", "bob", 2), Played)      # a 2 goes on anything
    assert v.swoop == "" and game.to_beat is None
    v = only(go("play", "cai", K), Played)      # anything goes on a 2
    assert v.next == "ann" and game.to_beat == K


def test_four_twos_swoop():
    game, go = table()
    go("play", "ann", 2, count=2)
    v = only(go("play", "bob", 2, count=2), Played)
    assert v.swoop == "four"


def test_blind_card_that_goes():
    game, go = table()
    go("play", "ann", 9)
    v = only(go("play", "bob", 4, blind=True), Played)
    assert v.play.blind and v.next == "cai" and v.held == 18


def test_blind_card_that_fails_picks_up_the_pile_with_it():
    game, go = table()
    go("play", "ann", 6)
    go("play", "bob", 5, count=2)
    v = only(go("play", "cai", J, blind=True), PickedUp)
    assert (v.player, v.cards, v.held, v.blind, v.next) == ("cai", 4, 22, J, "ann")
    assert game.pile == 0 and game.to_beat is None


def test_blind_play_is_one_card():
    _, go = table()
    r = only(go("play", "ann", 4, count=2, blind=True), Refused)
    assert "one at a time" in r.reason


def test_pick_up_empties_the_pile_and_next_leads_any():
    game, go = table()
    go("play", "ann", 4, count=2)
    go("play", "bob", 3)
    v = only(go("pick", "cai"), PickedUp)
    assert (v.cards, v.held, v.next, v.blind) == (3, 22, "ann", None)
    assert game.pile == 0
    only(go("play", "ann", K), Played)


def test_pick_up_an_empty_pile_is_refused():
    game, go = table()
    r = only(go("pick", "ann"), Refused)
    assert r.reason == "the pile is empty" and game.turn == "ann"


def test_out_of_turn_is_refused():
    game, go = table()
    r = only(go("play", "bob", 5), Refused)
    assert r.reason == "it is ann's turn" and game.pile == 0
    assert only(go("pick", "cai"), Refused).reason == "it is ann's turn"


def test_more_cards_than_held_is_refused():
    game, go = table(("ann", "bob"))
    game.state.held["ann"] = 2
    r = only(go("play", "ann", 7, count=3), Refused)
    assert r.reason == "ann holds only 2 cards"


def test_a_fifth_seven_with_one_deck():
    game, go = table(("ann", "bob"))
    go("play", "ann", 7, count=3)
    r = only(go("play", "bob", 7, count=2), Refused)
    assert r.reason == "one deck holds only 4 sevens, and 3 are out already"
    only(go("play", "bob", 7), Played)          # the fourth swoops
    r = only(go("play", "bob", 7), Refused)     # swooped sevens still count
    assert "4 are out already" in r.reason


def test_two_decks_hold_eight_of_a_rank():
    game, go = table(("ann", "bob", "cai", "dan"))
    assert game.options.decks == 2
    go("play", "ann", Q, count=3)
    v = only(go("play", "bob", Q, count=3), Played)
    assert v.swoop == "four" and v.run == 6
    only(go("play", "bob", Q, count=2), Played)
    r = only(go("play", "cai", Q), Refused)
    assert r.reason == "2 decks hold only 8 queens, and 8 are out already"
    only(SwoopGame(("a", "b")).feed(Play("a", 5, 5, 1.0)), Refused)


def test_picked_up_cards_are_back_in_the_hands():
    game, go = table(("ann", "bob"))
    go("play", "ann", 7, count=3)
    go("pick", "bob")
    assert game.held == {"ann": 16, "bob": 22}
    only(go("play", "ann", 7), Played)          # only one seven is out now


def test_im_out_with_cards_left_is_challenged():
    game, go = table()
    r = only(go("out", "ann"), Refused)
    assert r.what == "I'm out" and r.reason == "ann still holds 19 cards"


def play_down(game, go, player, keep):
    """Empty ``player``'s count to ``keep`` cards, as if earlier turns had been played."""
    game.state.held[player] = keep


def test_going_out_ends_the_round():
    game, go = table()
    play_down(game, go, "ann", 2)
    v = go("play", "ann", 5, count=2)
    assert isinstance(v[0], Played) and v[0].held == 0
    out = v[1]
    assert isinstance(out, WentOut) and out.to_report == ("bob", "cai")
    assert only(go("play", "bob", 3), Refused).reason == "the round is over: ann went out"
    assert only(go("report", "ann", total=3), Refused).reason == "ann went out and scores nothing"


def test_going_out_with_a_swoop():
    game, go = table()
    play_down(game, go, "ann", 1)
    v = go("play", "ann", 10)
    assert v[0].swoop == "ten" and isinstance(v[1], WentOut)


def test_scoring_with_twos_and_tens_names_and_totals():
    game, go = table(rounds=2)
    play_down(game, go, "ann", 1)
    play_down(game, go, "bob", 4)
    play_down(game, go, "cai", 2)
    go("play", "ann", 3)
    v = only(go("report", "bob", cards=(2, 10, K, A)), Reported)
    assert v.points == 25 + 50 + 10 + 1 and v.doubt == ""
    v = only(go("report", "cai", total=40), Reported)
    assert v.points == 40
    v = only(go("report", "cai", cards=(10, 7)), Reported)     # a correction
    assert (v.points, v.corrected) == (57, 40)
    v = only(go("tally"), RoundScored)
    assert v.points == {"ann": 0, "bob": 86, "cai": 57} and v.totals == v.points
    assert (v.round, v.out, v.missing, v.game_over, v.next) == (1, "ann", (), False, "bob")
    assert game.held == {"ann": 19, "bob": 19, "cai": 19} and game.turn == "bob"


def test_points_of_every_rank():
    assert [points([r]) for r in range(1, 14)] == [1, 25, 3, 4, 5, 6, 7, 8, 9, 50, 10, 10, 10]


def test_reports_that_disagree_with_the_count_are_doubted():
    game, go = table(("ann", "bob"))
    play_down(game, go, "ann", 1)
    play_down(game, go, "bob", 2)
    go("play", "ann", 4)
    assert only(go("report", "bob", cards=(3,)), Reported).doubt == "I counted 2 cards"
    assert only(go("report", "bob", total=101), Reported).doubt == "2 cards score 2 to 100"


def test_report_before_anyone_is_out_is_refused():
    _, go = table()
    assert only(go("report", "bob", total=5), Refused).reason == "no one is out yet"
    assert isinstance(only(go("tally"), SwoopNote), SwoopNote)


def test_missing_report_scores_zero_and_is_named():
    game, go = table(("ann", "bob", "cai"))
    play_down(game, go, "ann", 1)
    go("play", "ann", 4)
    go("report", "cai", total=12)
    v = only(go("tally"), RoundScored)
    assert v.missing == ("bob",) and v.points["bob"] == 0


def test_rounds_rotate_the_lead_and_lowest_total_wins():
    game, go = table(("ann", "bob"), rounds=2)
    play_down(game, go, "ann", 1)
    go("play", "ann", 4)
    go("report", "bob", total=30)
    go("tally")
    assert game.turn == "bob" and game.round == 2
    play_down(game, go, "bob", 1)
    go("play", "bob", 9)
    go("report", "ann", total=10)
    v = go("tally")
    assert isinstance(v[0], RoundScored) and v[0].game_over and v[0].totals == {"ann": 10, "bob": 30}
    assert isinstance(v[1], SwoopOver) and v[1].winners == ("ann",) and v[1].rounds == 2
    assert isinstance(only(go("play", "ann", 3), SwoopNote), SwoopNote)


def test_a_tie_shares_the_win():
    game, go = table(("ann", "bob"), rounds=1)
    play_down(game, go, "ann", 1)
    go("play", "ann", 4)
    go("report", "bob", total=0)
    v = go("tally")
    assert v[-1].winners == ("ann", "bob")


def test_undo_takes_back_the_last_play():
    game, go = table()
    go("play", "ann", 8)
    go("play", "bob", 6, count=2)
    v = only(go("undo"), Undone)
    assert v.what == "bob: two sixes" and v.next == "bob"
    assert game.pile == 1 and game.held["bob"] == 19
    go("undo")
    assert only(go("undo"), Undone).what == "" and game.turn == "ann"


def test_undo_takes_back_a_swoop_a_pick_up_and_going_out():
    game, go = table()
    go("play", "ann", 3)
    go("play", "bob", 10)
    go("undo")
    assert game.pile == 1 and game.turn == "bob"
    go("pick", "bob")
    assert only(go("undo"), Undone).what == "bob: pick up" and game.held["bob"] == 19
    play_down(game, go, "bob", 1)
    go("play", "bob", 2)
    go("report", "cai", total=5)
    assert game.phase == "scoring"
    only(go("undo"), Undone)
    assert game.phase == "playing" and game.turn == "bob" and game.reports == {}


def test_nothing_to_undo_after_the_round_is_scored():
    game, go = table(("ann", "bob"))
    play_down(game, go, "ann", 1)
    go("play", "ann", 4)
    go("tally")
    assert only(go("undo"), Undone).what == ""


def test_pause_refuses_plays_until_resume():
    game, go = table()
    assert only(go("pause"), Paused).paused
    assert go("pause") == []
    assert only(go("play", "ann", 5), Refused).reason == "the game is paused"
    assert not only(go("resume"), Paused).paused
    only(go("play", "ann", 5), Played)


def test_score_and_repeat_go_to_the_shell():
    _, go = table()
    assert only(go("score"), Asked).command.name == "score"
    assert only(go("repeat"), Asked).command.name == "repeat"


def test_end_scores_a_round_whose_reports_began():
    game, go = table(("ann", "bob"))
    play_down(game, go, "ann", 1)
    go("play", "ann", 4)
    go("report", "bob", total=7)
    v = go("end")
    assert isinstance(v[0], RoundScored) and v[0].totals == {"ann": 0, "bob": 7}
    assert isinstance(v[1], SwoopOver) and v[1].winners == ("ann",)
    assert game.finish() == []


def test_end_before_any_round_names_no_winner():
    _, go = table()
    v = only(go("end"), SwoopOver)
    assert v.winners == () and v.rounds == 0


def test_bad_events_raise_narrow_errors():
    game, go = table()
    with pytest.raises(SwoopError):
        go("play", "zoe", 5)
    with pytest.raises(SwoopError):
        go("play", "ann", 14)
    with pytest.raises(SwoopError):
        game.time_key(object())
