"""The soccer card game's rules: every rule of the seed, RULINGS soccer 1-5, and ours (S1-S6)."""

from __future__ import annotations

import itertools

import pytest

from referee.core.cards import Card, full_deck
from referee.core.events import Asked, Command, GameStart
from referee.core.games import make_game
from referee.core.games.soccer import (
    Attack, Block, BlockFailed, Blocked, Fizzled, Forward, Goal, Overtime, Penalty, Rejected,
    FORWARD_KINDS, PLAY_KINDS, RoundOver, SoccerError, SoccerGame, SoccerOptions, SoccerOver, SoccerPaused, Undone,
)
from referee.core.games.soccer_blocks import Method, check_block, is_goalie
from referee.core.options import OptionError

C = Card.parse


def cards(*texts):
    return tuple(C(t) for t in texts)


# --- The four methods (soccer_blocks) -------------------------------------------------

@pytest.mark.parametrize("forward, block, methods", [
    ("5S", ["JC"], [Method.GOALIE]),            # method 1: a black goalie on a black forward
    ("5H", ["KD"], [Method.GOALIE]),
    ("AD", ["QH"], [Method.GOALIE]),
    ("5S", ["5D"], [Method.NUMBER]),            # seed example: a 5 of diamonds blocks a 5 of spades
    ("AC", ["AH"], [Method.NUMBER]),            # an ace is 1
    ("3C", ["5H", "2D"], [Method.DIFFERENCE]),  # seed example: 5 and 2 block a 3 ...
    ("7C", ["5H", "2D"], [Method.SUM]),         # ... and 5 + 2 blocks a 7
    ("2D", ["4D", "9D"], [Method.SUIT]),        # seed example: 4 and 9 of diamonds block a 2 of diamonds
    ("10S", ["JS", "3S"], [Method.SUIT]),       # a goalie counts in method 4
    ("2C", ["AH", "AD"], [Method.SUM]),         # 1 + 1
    ("4S", ["3H", "AC"], [Method.SUM]),
    ("2S", ["3H", "AC"], [Method.DIFFERENCE]),
])
def test_each_method_holds(forward, block, methods):
    check = check_block(C(forward), cards(*block))
    assert check.holds
    assert list(check.methods) == methods


def test_a_block_matching_two_methods_names_both():
    check = check_block(C("5D"), cards("9D", "4D"))
    assert check.methods == (Method.DIFFERENCE, Method.SUIT)
    assert check.reason == "nine minus four is five and two diamonds"
    assert check_block(C("8H"), cards("5H", "3H")).methods == (Method.SUM, Method.SUIT)


def test_reasons_for_blocks_that_hold():
    assert check_block(C("5S"), cards("5D")).reason == "same number"
    assert check_block(C("5S"), cards("JC")).reason == "a jack of the same colour"
    assert check_block(C("AS"), cards("KS")).reason == "a king of the same colour"
    assert check_block(C("7C"), cards("2D", "5H")).reason == "five plus two is seven"


@pytest.mark.parametrize("forward, block, reason", [
    ("5S", ["JH"], "the jack is red; the forward is black"),          # goalie of the other colour
    ("5D", ["QC"], "the queen is black; the forward is red"),
    ("5S", ["7S"], "the seven is not a five"),                        # a different number
    ("8S", ["AS"], "the ace is not an eight"),
    ("7C", ["5H", "3D"],                                              # neither sum, difference nor suit
     "five plus three is eight and five minus three is two, not seven; and they are not both clubs"),
    ("2S", ["JS", "QH"], "a goalie has no number; and they are not both spades"),
    ("3S", ["KS", "QS", "2S"], "a block is one card or two, not three"),
    ("5S", [], "no block"),
])
def test_failed_blocks_say_why(forward, block, reason):
    check = check_block(C(forward), cards(*block))
    assert not check.holds
    assert check.methods == ()
    assert check.reason == reason


def test_goalies_never_count_as_numbers():
    # Ruling 5: J+2 is not 13 (K), Q-J is not 1, a jack does not match a jack's "number".
    assert not check_block(C("AS"), cards("QH", "JD")).holds      # 12 - 11 would be 1
    assert not check_block(C("3H"), cards("JC", "8D")).holds      # 11 - 8 would be 3
    assert check_block(C("3H"), cards("JH", "8H")).methods == (Method.SUIT,)


def test_one_goalie_of_the_suit_but_two_cards_needed_for_the_suit_method():
    assert not check_block(C("5S"), cards("5H", "JD")).holds
    assert check_block(C("5S"), cards("JS")).methods == (Method.GOALIE,)


# --- The game -------------------------------------------------------------------------

class Play:
    """Drives a game with a clock that moves a second per play."""

    def __init__(self, players=("ann", "bob"), **options):
        self.game = SoccerGame(players, SoccerOptions.from_dict(options))
        self.t = itertools.count(1)

    def forward(self, player, card):
        return self.game.feed(Forward(player, C(card), float(next(self.t))))

    def block(self, player, *names):
        return self.game.feed(Block(player, cards(*names), float(next(self.t))))

    def penalty(self, player, card=None):
        return self.game.feed(Penalty(player, C(card) if card else None, float(next(self.t))))

    def command(self, name, player=None):
        return self.game.feed(Command(name, float(next(self.t)), player))

    def goal(self, attacker, defender, card):
        self.forward(attacker, card)
        return self.block(defender)

    def stop(self, attacker, defender, card, blocker):
        self.forward(attacker, card)
        return self.block(defender, blocker)


def in_play(game):
    return [c for c in full_deck() if c not in game.s.out]


def a_block(game, forward):
    """One or two cards in play that block ``forward``, or None."""
    free = [c for c in in_play(game) if c != forward]
    for block in itertools.chain(((c,) for c in free), itertools.combinations(free, 2)):
        if check_block(forward, block).holds:
            return block
    return None


def play_round(p, goals_a=0, goals_b=0):
    """One round: ann scores ``goals_a`` of her two forwards, bob ``goals_b``;
    the others are blocked. Every card named is one still in play. Returns the
    verdicts of the round, the round's end last."""
    out = []
    for attacker, defender, n in (("ann", "bob", goals_a), ("bob", "ann", goals_b)):
        for k in range(2):
            forward = next(c for c in in_play(p.game) if not is_goalie(c) and a_block(p.game, c))
            p.forward(attacker, str(forward))
            if k < n:
                out += p.block(defender)
            else:
                out += p.block(defender, *map(str, a_block(p.game, forward)))
                assert any(isinstance(v, Blocked) for v in out)
    return out


def test_a_forward_asks_the_defender_to_block():
    p = Play()
    [v] = p.forward("ann", "5S")
    assert v == Attack(1, "ann", "bob", C("5S"), 1, False)
    assert p.game.expects == "bob"


@pytest.mark.parametrize("block, methods", [
    (["JC"], (Method.GOALIE,)), (["5D"], (Method.NUMBER,)),
    (["7H", "2D"], (Method.DIFFERENCE,)), (["3C", "2C"], (Method.SUM,)),
    (["9S", "KS"], (Method.SUIT,)), (["9S", "4S"], (Method.DIFFERENCE, Method.SUIT)),
])
def test_each_method_blocks_in_play_and_discards(block, methods):
    p = Play()
    p.forward("ann", "5S")
    [v] = p.block("bob", *block)
    assert isinstance(v, Blocked) and v.methods == methods and v.defender == "bob"
    assert p.game.scores == {"ann": 0, "bob": 0}
    assert p.game.s.out[C("5S")] == "discarded"
    assert all(p.game.s.out[C(c)] == "used to block" for c in block)
    assert p.game.expects == "ann" and p.game.s.number == 2


def test_no_block_is_a_goal_and_the_attacker_keeps_the_forward():
    p = Play()
    p.forward("ann", "5S")
    [v] = p.block("bob")
    assert v == Goal(1, "ann", C("5S"), "no block", (), "no block", {"ann": 1, "bob": 0})
    assert p.game.s.out[C("5S")] == "scored"


@pytest.mark.parametrize("block, reason", [
    (["JH"], "the jack is red; the forward is black"),
    (["7S"], "the seven is not a five"),
    (["9H", "3D"], "nine plus three is twelve and nine minus three is six, not five; "
                   "and they are not both spades"),
    (["JS", "QD"], "a goalie has no number; and they are not both spades"),
    (["2H", "3H", "AS"], "a block is one card or two, not three"),
])
def test_a_failed_block_of_each_kind_may_be_retried(block, reason):
    p = Play()
    p.forward("ann", "5S")
    [v] = p.block("bob", *block)
    assert v == BlockFailed(1, "bob", C("5S"), cards(*block), reason)
    assert p.game.expects == "bob" and p.game.forward == C("5S")
    assert not any(C(c) in p.game.s.out for c in block)     # the cards stay in the hand
    [v] = p.block("bob", "5D")
    assert isinstance(v, Blocked) and v.methods == (Method.NUMBER,)


def test_a_failed_block_then_no_block_concedes():
    p = Play()
    p.forward("ann", "5S")
    p.block("bob", "JH")
    [v] = p.block("bob")
    assert isinstance(v, Goal) and v.how == "no block" and v.goals == {"ann": 1, "bob": 0}


def test_option_failed_block_goal_scores_at_once():
    p = Play(failed_block="goal")
    p.forward("ann", "5S")
    [v] = p.block("bob", "JH")
    assert v == Goal(1, "ann", C("5S"), "failed block", cards("JH"),
                     "the jack is red; the forward is black", {"ann": 1, "bob": 0})
    assert C("JH") not in p.game.s.out


def test_options_are_checked():
    with pytest.raises(OptionError, match="failed_block"):
        SoccerOptions.from_dict({"failed_block": "maybe"})
    with pytest.raises(OptionError, match="unknown soccer option 'target'"):
        SoccerOptions.from_dict({"target": 3})
    with pytest.raises(SoccerError, match="two players"):
        SoccerGame(("ann", "bob", "cai"))
    game = make_game(GameStart("soccer", ("ann", "bob"), {"failed_block": "goal"}))
    assert isinstance(game, SoccerGame) and game.options.failed_block == "goal"


def test_penalty_kick_is_an_unblockable_goal():
    p = Play()
    [v] = p.forward("ann", "KC")
    assert v == Attack(1, "ann", "bob", C("KC"), 1, True)
    assert p.game.expects == "ann"
    assert p.block("bob", "KS")[0].reason.startswith("ann has flipped a goalie")
    [v] = p.penalty("ann", "QH")
    assert v == Goal(1, "ann", C("KC"), "penalty kick", cards("QH"), "queen of hearts discarded",
                     {"ann": 1, "bob": 0})
    assert p.game.s.out[C("KC")] == "scored" and p.game.s.out[C("QH")] == "discarded"


def test_the_game_listens_for_a_forward_then_for_a_block_or_a_penalty_kick():
    p = Play()
    assert p.game.listening_for == FORWARD_KINDS == {"call", "command"}
    p.forward("ann", "5S")
    assert p.game.listening_for == PLAY_KINDS == {"call", "play", "command"}
    p.block("bob", "5D")
    assert p.game.listening_for == FORWARD_KINDS
    p.forward("ann", "KC")                          # a goalie: a penalty kick is asked for
    assert p.game.listening_for == PLAY_KINDS


def test_goalie_forward_without_second_goalie_does_nothing_and_is_discarded():
    p = Play()
    p.forward("ann", "JD")
    [v] = p.penalty("ann", None)
    assert v == Fizzled(1, "ann", C("JD"))
    assert p.game.scores == {"ann": 0, "bob": 0}
    assert p.game.s.out[C("JD")] == "discarded"
    assert p.game.s.number == 2 and p.game.expects == "ann"


def test_penalty_with_a_card_that_is_no_goalie_is_asked_again():
    p = Play()
    p.forward("ann", "JD")
    [v] = p.penalty("ann", "7H")
    assert isinstance(v, Rejected) and v.reason == "the seven of hearts is not a goalie"
    assert "second goalie" in v.question
    assert p.game.phase == "penalty"
    [v] = p.penalty("ann", "JD")
    assert isinstance(v, Rejected) and v.reason == "the jack of diamonds is the forward"


def test_turns_are_kept():
    p = Play()
    [v] = p.forward("bob", "5S")
    assert v == Rejected(1.0, "bob", "it is ann's turn to flip a forward", "ann, your forward?")
    [v] = p.block("bob", "5D")
    assert isinstance(v, Rejected)
    p.forward("ann", "5S")
    [v] = p.forward("ann", "6S")
    assert v.reason == "bob has to block the five of spades" and v.question == "bob, your block?"
    [v] = p.penalty("ann", "KH")
    assert isinstance(v, Rejected)
    with pytest.raises(SoccerError, match="unknown player 'cai'"):
        p.game.feed(Forward("cai", C("2S"), 9.0))


def test_the_order_of_a_round_and_the_draw():
    p = Play()
    order = []
    for card, blocker in (("2S", "2D"), ("3S", "3D"), ("4S", "4D"), ("5S", "5D")):
        order.append(p.game.expects)
        out = p.stop(p.game.expects, p.game.defender, card, blocker)
    assert order == ["ann", "ann", "bob", "bob"]
    assert out[-1] == RoundOver(1, {"ann": 0, "bob": 0}, 4, 32, False, False)
    assert p.game.round == 2 and p.game.expects == "ann"     # the first player attacks first again


def discards(game):
    return sum(1 for why in game.s.out.values() if why != "scored")


def test_the_last_round_is_announced_when_eight_are_left_and_the_game_ends_after_it():
    p = Play()
    for r in range(1, 6):                              # 40 in the pile: five draws of 8
        out = play_round(p, goals_a=1 if r == 1 else 0)
        assert out[-1].round == r and out[-1].drawn == 4
        assert out[-1].pile == 40 - 8 * r
        assert out[-1].last_round_next == (r == 5)     # the draw of the last 8 cards
    out = play_round(p)
    assert out[-2] == RoundOver(6, {"ann": 1, "bob": 0}, 0, 0, False, False)
    assert out[-1] == SoccerOver({"ann": 1, "bob": 0}, "ann", 6, False)
    assert p.game.phase == "over"
    assert isinstance(p.forward("ann", "9C")[0], Rejected)


def to_overtime(p):
    for _ in range(5):
        play_round(p)
    return play_round(p, goals_a=1, goals_b=1)          # the last round ends 1-1


def test_overtime_decided_after_two_extra_rounds():
    p = Play()
    for _ in range(5):
        play_round(p)
    before = discards(p.game)
    out = play_round(p, goals_a=1, goals_b=1)
    reshuffled = before + 6                              # round 6 discarded 2 forwards and 4 blockers... at most
    assert out[-2] == RoundOver(6, {"ann": 1, "bob": 1}, 0, 0, False, False)
    ot = out[-1]
    assert isinstance(ot, Overtime) and ot.goals == {"ann": 1, "bob": 1}
    assert before < ot.reshuffled <= reshuffled and ot.drawn == 4 and ot.pile == ot.reshuffled - 8
    assert discards(p.game) == 0                         # the discards are back in the draw pile
    out = play_round(p, goals_a=1, goals_b=1)           # round 7: still tied
    assert out[-1] == RoundOver(7, {"ann": 2, "bob": 2}, 4, ot.pile - 8, False, True)
    out = play_round(p, goals_b=1)                      # round 8: bob leads by 1
    assert out[-2] == RoundOver(8, {"ann": 2, "bob": 3}, 0, ot.pile - 8, False, True)
    assert out[-1] == SoccerOver({"ann": 2, "bob": 3}, "bob", 8, False)


def test_overtime_reshuffles_again_when_the_pile_runs_low():
    p = Play()
    to_overtime(p)
    reshuffles = 0
    for _ in range(5):                          # tied overtime rounds, 2 more cards scored in each
        pile, before = p.game.pile, discards(p.game)
        out = play_round(p, goals_a=1, goals_b=1)
        end = out[-1]
        assert isinstance(end, RoundOver) and end.overtime
        new = sum(1 + len(v.cards) for v in out if isinstance(v, Blocked))
        if pile >= 8:
            assert (end.drawn, end.pile) == (4, pile - 8)
            assert discards(p.game) == before + new
        else:                                   # the discard pile goes under the last few cards
            reshuffles += 1
            available = pile + before + new
            assert end.drawn == min(4, available // 2)
            assert end.pile == available - 2 * end.drawn
            assert discards(p.game) == 0
    assert reshuffles >= 1


def test_a_card_named_twice_is_reported_and_asked_again():
    p = Play()
    p.goal("ann", "bob", "5S")                      # scored
    [v] = p.forward("ann", "5S")
    assert v == Rejected(3.0, "ann", "the five of spades is out of play: it was scored", "ann, which forward?")
    p.forward("ann", "6S")
    p.block("bob", "6D")                            # 6S discarded, 6D used to block
    p.forward("bob", "6D")
    assert p.game.phase == "attack"
    [v] = p.forward("bob", "6D")
    assert v.reason == "the six of diamonds is out of play: it was used to block"
    [v] = p.forward("bob", "6S")
    assert v.reason == "the six of spades is out of play: it was discarded"
    p.forward("bob", "9H")
    [v] = p.block("ann", "9H")
    assert v.reason == "the nine of hearts is the forward"
    [v] = p.block("ann", "4H", "4H")
    assert v.reason == "the four of hearts is named twice"
    [v] = p.block("ann", "5S", "4H")
    assert v.reason == "the five of spades is out of play: it was scored" and v.question == "ann, your block?"
    assert p.game.expects == "ann" and p.game.forward == C("9H")


def test_undo_takes_back_the_latest_play_step_by_step():
    p = Play()
    p.forward("ann", "5S")
    p.block("bob")
    [v] = p.command("undo")
    assert v == Undone("bob's no block", 1, {"ann": 0, "bob": 0})
    assert p.game.phase == "defend" and p.game.forward == C("5S")
    assert C("5S") not in p.game.s.out
    [v] = p.command("undo")
    assert v.what == "ann's forward, the five of spades" and p.game.phase == "attack"
    [v] = p.command("undo")
    assert v == Undone("", 1, {"ann": 0, "bob": 0})


def test_undo_reopens_a_finished_round():
    p = Play()
    out = play_round(p, goals_b=1)
    assert isinstance(out[-1], RoundOver)
    [v] = p.command("undo")
    assert p.game.round == 1 and p.game.pile == 40 and p.game.phase == "defend"
    assert p.game.expects == "ann"


def test_pause_and_resume():
    p = Play()
    [v] = p.command("pause")
    assert v == SoccerPaused(True, 1.0)
    [v] = p.forward("ann", "5S")
    assert v.reason == "the game is paused"
    assert p.command("pause") == []
    [v] = p.command("resume")
    assert v == SoccerPaused(False, 4.0)
    assert isinstance(p.forward("ann", "5S")[0], Attack)


def test_end_and_shell_commands():
    p = Play()
    p.goal("ann", "bob", "5S")
    [v] = p.command("score", "bob")
    assert isinstance(v, Asked) and v.command.name == "score"
    [v] = p.command("end")
    assert v == SoccerOver({"ann": 1, "bob": 0}, "ann", 1, True)
    assert p.game.finish() == []


def test_a_game_ended_between_rounds_counts_the_rounds_played():
    p = Play()
    play_round(p)
    [v] = p.command("end")
    assert v == SoccerOver({"ann": 0, "bob": 0}, None, 1, True)


def test_time_key_refuses_other_events():
    from referee.core.events import Deal
    with pytest.raises(SoccerError, match="not Deal"):
        SoccerGame.time_key(Deal(C("5S"), 1.0))
