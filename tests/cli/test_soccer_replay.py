"""`referee replay` of a soccer log: the journal format of its events and every verdict with its reason."""

from __future__ import annotations

import json
import random

import pytest

from referee.cli.main import main
from referee.core.cards import Card
from referee.core.events import Command, GameStart
from referee.core.games.soccer import Block, Forward, Penalty
from referee.core.journal import LogError, decode, encode, parse_lines
from referee.core.replay import replay_lines

GAME = {"type": "game", "game": "soccer", "players": ["ann", "bob"]}


def fwd(player, card, at):
    return {"type": "forward", "player": player, "card": card, "at": at}


def blk(player, cards, at):
    return {"type": "block", "player": player, "cards": cards, "at": at}


def pen(player, card, at):
    return {"type": "penalty", "player": player, "card": card, "at": at}


# Round 1: ann 5S blocked by the same number; ann KC a penalty kick (QH discarded);
# bob 7H: a failed block (a black jack), then blocked by 9H and 2H (difference and suit);
# bob JD without a second goalie. Round 2: ann 2D, blocked by 4D+9D (the seed's example);
# a card named twice; ann 8C, no block: a goal; then undo and a block by a goalie; end.
LOG = [
    GAME,
    fwd("ann", "5S", 1.0), blk("bob", ["5D"], 2.0),
    fwd("ann", "KC", 3.0), pen("ann", "QH", 4.0),
    fwd("bob", "7H", 5.0), blk("ann", ["JS"], 6.0), blk("ann", ["9H", "2H"], 7.0),
    fwd("bob", "JD", 8.0), pen("bob", None, 9.0),
    fwd("ann", "2D", 10.0), blk("bob", ["4D", "9D"], 11.0),
    fwd("ann", "5D", 12.0),
    fwd("ann", "8C", 13.0), blk("bob", [], 14.0),
    {"type": "command", "command": "undo", "at": 15.0},
    blk("bob", ["JC"], 16.0),
    {"type": "command", "command": "end", "at": 17.0},
]


def text(objs):
    return [json.dumps(o) for o in objs]


def test_every_happening_round_trips_through_the_journal():
    game = GameStart("soccer", ("ann", "bob"))
    for event in (Forward("ann", Card.parse("5S"), 1.5), Block("bob", (Card.parse("9D"), Card.parse("4D")), 2.0),
                  Block("bob", (), 2.5), Penalty("ann", Card.parse("QH"), 3.0), Penalty("ann", None, 3.5),
                  Command("undo", 4.0, "bob")):
        assert decode(json.loads(json.dumps(encode(event))), 2, game) == event


def test_replay_gives_every_verdict_with_its_reason():
    objs = [json.loads(json.dumps(o)) for o in _json(replay_lines(text(LOG)))]
    kinds = [o["type"] for o in objs]
    assert kinds == ["attack", "blocked", "attack", "goal", "attack", "failed-block", "blocked",
                     "attack", "fizzled", "round-over", "attack", "blocked", "rejected", "attack",
                     "goal", "undone", "blocked", "final"]
    blocked = [o for o in objs if o["type"] == "blocked"]
    assert [b["methods"] for b in blocked] == [["number"], ["difference", "suit"], ["suit"], ["goalie"]]
    assert blocked[0]["reason"] == "same number"
    assert blocked[1]["reason"] == "nine minus two is seven and two hearts"
    goal = objs[3]
    assert goal == {"type": "goal", "round": 1, "attacker": "ann", "forward": "KC", "how": "penalty kick",
                    "cards": ["QH"], "reason": "queen of hearts discarded", "goals": {"ann": 1, "bob": 0}}
    assert objs[5]["reason"] == "the jack is black; the forward is red"
    assert objs[9] == {"type": "round-over", "round": 1, "goals": {"ann": 1, "bob": 0}, "drawn": 4,
                       "pile": 32, "last_round_next": False, "overtime": False}
    assert objs[12]["reason"] == "the five of diamonds is out of play: it was used to block"
    assert objs[15] == {"type": "undone", "what": "bob's no block", "round": 2, "goals": {"ann": 1, "bob": 0}}
    assert objs[-1] == {"type": "final", "scores": {"ann": 1, "bob": 0}, "winner": "ann", "rounds": 2,
                        "ended_early": True}


def _json(verdicts):
    from referee.core.journal import encode_verdict
    return [encode_verdict(v) for v in verdicts]


def test_the_lines_may_come_in_any_order():
    want = _json(replay_lines(text(LOG)))
    shuffled = LOG[1:]
    random.Random(4).shuffle(shuffled)
    assert _json(replay_lines(text([GAME] + shuffled))) == want


def test_a_journal_with_its_verdicts_replays_the_same():
    verdicts = _json(replay_lines(text(LOG)))
    assert _json(replay_lines(text(LOG + verdicts))) == verdicts


def test_the_cli_prints_decisions_and_reasons(tmp_path, capsys):
    path = tmp_path / "soccer.jsonl"
    path.write_text("\n".join(text(LOG)) + "\n", encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 0
    out = [json.loads(line)["type"] for line in capsys.readouterr().out.splitlines()]
    assert out == ["blocked", "goal", "blocked", "fizzled", "round-over", "blocked", "goal", "blocked", "final"]
    assert main(["replay", str(path)]) == 0
    prose = capsys.readouterr().out
    assert "round 1: bob blocks the 5♠ with 5♦: same number (number)" in prose
    assert "round 1: goal for ann with the K♣: penalty kick, queen of hearts discarded; goals: ann 1, bob 0" in prose
    assert "round 1: ann's block J♠ fails against the 7♥: the jack is black; the forward is red" in prose
    assert "round 1: bob's goalie forward, the J♦, has no second goalie: discarded, no goal" in prose
    assert "round 1 over: goals ann 1, bob 0; both draw 4, 32 left" in prose
    assert "not taken, the five of diamonds is out of play: it was used to block" in prose
    assert "undo: bob's no block is taken back" in prose
    assert "final after 2 rounds: ann 1, bob 0; ann wins (ended early)" in prose


def test_replay_help_documents_the_soccer_lines(capsys):
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    out = capsys.readouterr().out
    for needle in ('"type":"forward"', '"type":"block"', '"type":"penalty"', "failed_block", "round-over"):
        assert needle in out


@pytest.mark.parametrize("line, message", [
    (blk("bob", "5D", 2.0), "line 2: field 'cards' must be a list of cards"),
    (blk("bob", ["5X"], 2.0), "line 2: unknown card '5X' in block"),
    (fwd("cai", "5S", 1.0), "line 2: unknown player 'cai'"),
    ({"type": "penalty", "player": "ann", "at": 1.0}, "line 2: penalty line is missing the field 'card'"),
    (fwd("ann", "5S", "soon"), "line 2: field 'at' must be a number of seconds"),
    ({"type": "shout", "player": "ann", "said": "goop", "start": 1.0, "end": 1.2},
     "line 2: the soccer game takes forwards, blocks, penalties and commands, not Shout"),
])
def test_bad_lines_name_the_line(line, message):
    with pytest.raises(LogError) as e:
        replay_lines(text([GAME, line]))
    assert str(e.value).startswith(message)


def test_a_soccer_game_line_is_checked():
    with pytest.raises(LogError, match="two players"):
        replay_lines(text([{**GAME, "players": ["ann", "bob", "cai"]}]))
    with pytest.raises(LogError, match="failed_block"):
        replay_lines(text([{**GAME, "options": {"failed_block": "never"}}]))
    assert parse_lines(text([GAME])).game.game == "soccer"
