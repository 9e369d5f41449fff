"""GOPS at the live table, fed the hearing layer's events directly: one microphone for the
whole table or one per player, typed bids, the referee's own prize pile, the spoken
verdicts and questions, the journal, `referee replay` and a resumed game."""

from __future__ import annotations

import io
import json

from referee.app.journal_file import JournalFile
from referee.cli import replay as replay_cli
from referee.core.events import GameStart, Heard, Utterance
from referee.core.journal import encode_verdict, parse_lines
from referee.core.replay import replay
from referee.core.table import Table, TableOptions
from referee.voice.speaker import Speaker


def make(tmp_path, channels=("table",), players=("ann", "bob", "cai"), **options):
    text = io.StringIO()
    speaker = Speaker(None, text=text)
    journal = JournalFile.new("gops", folder=tmp_path)
    out = io.StringIO()
    start = GameStart("gops", players, {"setup": options.pop("setup", "purple"),
                                        "virtual_prizes": options.pop("virtual", False)})
    table = Table(start, list(channels), speaker=speaker, journal=journal, json_out=out,
                  options=TableOptions(hears_itself=False, **options))
    return table, speaker, journal, out


class Mic:
    """Utterances on a clock, each followed by every mic's watermark."""

    def __init__(self, table, channels=("table",)):
        self.table, self.channels, self.t = table, channels, 0.0

    def say(self, said, kind, mic="table", gap=1.0):
        self.t += gap
        self.table.hear(Utterance(kind, said, self.t, self.t + 0.5, player=mic))
        self.t += 0.5
        self.wait(0.1)

    def wait(self, seconds):
        self.t += seconds
        for c in self.channels:
            self.table.hear(Heard(c, self.t))


def said(speaker):
    return [s.text for s in speaker.history()]


def test_one_mic_seat_order_names_refusals_tie_break_and_replay(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    mic = Mic(table)
    mic.say("green five", "prize")
    mic.say("seven", "bid")                   # seat order: ann
    mic.say("cai two", "bid")                 # named out of order
    mic.say("four", "bid")                    # the one still missing: bob
    assert said(speaker)[0] == "Prize: the green five."
    assert any(s.startswith("Ann wins the green five, with seven.") for s in said(speaker))
    mic.say("bronze three", "prize")
    mic.say("seven", "bid")                   # ann's seven is used
    assert said(speaker)[-1] == "Ann, your seven is in the discard pile. Which card?"
    mic.say("six", "bid")                     # ann again: the question was hers
    mic.say("bob five", "bid")
    mic.say("bob six", "bid")                 # a correction, read back
    assert said(speaker)[-1] == "Bob: six, not five."
    mic.say("green ace", "prize")             # too soon: cai has not bid
    assert said(speaker)[-1] == "Not yet: Cai, your bid?"
    mic.say("cai one", "bid")
    assert said(speaker)[-1] == "Tie between Ann and Bob! Leave your bids. Next prize."
    mic.say("green ace", "prize")
    assert said(speaker)[-1] == "Tie-break prize: the green ace. Everyone, a second card."
    mic.say("ann ace", "bid")
    mic.say("bob ace", "bid")
    mic.say("cai seven", "bid")               # 1 + 7 = 8 beats 6 + 1
    assert said(speaker)[-1].startswith("Cai wins the bronze three and the green ace, eight to seven.")
    table.finish()
    journal.close()
    decisions = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [(d["type"], d.get("winner")) for d in decisions] == [
        ("won", "ann"), ("tied", None), ("won", "cai"), ("final", None)]
    assert decisions[-1]["scores"] == {"ann": 5, "bob": 0, "cai": 4}
    # the journal replays to the same verdicts, and `referee replay` says why
    lines = journal.path.read_text().splitlines()
    verdicts = [encode_verdict(v) for v in replay(parse_lines(lines))]
    assert verdicts == [encode_verdict(v) for v in table.verdicts]
    text = io.StringIO()

    class Args:
        log, json, all = str(journal.path), False, False
    assert replay_cli.run(Args, out=text) == 0
    prose = text.getvalue()
    assert "ann's bid of seven is refused: it is in the bid discard pile" in prose
    assert "ann and bob tie for the bronze three (ann six, bob six, cai ace)" in prose
    assert "cai wins the bronze three and the green ace (4 points) with the highest total of two bids" in prose


def test_a_missing_bid_is_asked_for_by_name(tmp_path):
    table, speaker, journal, out = make(tmp_path, bid_question=5.0)
    mic = Mic(table)
    mic.say("green two", "prize")
    mic.say("ann three", "bid")
    mic.say("bob four", "bid")
    mic.say("score", "command")
    mic.wait(6.0)
    assert said(speaker)[-1] == "Cai, your bid?"
    mic.wait(2.0)
    assert said(speaker)[-1] == "Cai, your bid?" and said(speaker).count("Cai, your bid?") == 1
    assert "Ann has zero, Bob has zero, Cai has zero." in said(speaker)
    table.finish()
    journal.close()
    log = parse_lines(journal.path.read_text().splitlines())      # the command's line reads back
    assert [type(e).__name__ for e in log.events] == ["PrizeTurned", "Bid", "Bid", "Command"]


def test_one_mic_per_player_and_typed_bids(tmp_path):
    table, speaker, journal, out = make(tmp_path, channels=("ann", "bob"), players=("ann", "bob"),
                                        setup="standard")
    mic = Mic(table, ("ann", "bob"))
    mic.say("queen of diamonds", "prize", mic="bob")
    mic.say("nine", "bid", mic="bob")          # bob's mic: bob's bid, though ann is first
    assert table.game.waiting_for == ("ann",)
    mic.say("bob ten", "bid", mic="ann")       # ann's mic, a misheard name: still ann's bid
    assert table.game.waiting_for == ()
    mic.wait(0.5)
    assert table.game.totals == {"ann": 12, "bob": 0}
    mic.say("king of diamonds", "prize", mic="ann")
    mic.say("eight", "bid", mic="bob")
    assert table.game.waiting_for == ("ann",)
    assert table.type("ann 9") is None
    mic.wait(0.5)
    assert table.game.totals == {"ann": 12 + 13, "bob": 0}
    assert table.type("dan 9") == ("not a bid, a prize or a command: 'dan 9' (players: ann, bob; "
                                   "a bid is 'ann 9' or '9', a prize 'ace of diamonds')")
    assert table.type("jack of diamonds") is None
    mic.wait(0.5)
    assert table.game.up == ["jack of diamonds"]


def test_virtual_prizes_are_drawn_and_said_and_a_resumed_game_goes_on(tmp_path):
    table, speaker, journal, out = make(tmp_path, players=("ann", "bob"), virtual=True,
                                        prize_seed=7)
    mic = Mic(table)
    mic.wait(0.5)
    assert len(table.game.up) == 1 and said(speaker)[-1] == f"Prize: the {table.game.up[0]}."
    first = table.game.up[0]
    mic.say("ann seven", "bid")
    mic.say("bob ace", "bid")
    mic.wait(2.0)                             # the next prize comes after the pause
    assert len(table.game.up) == 1 and table.game.up[0] != first
    mic.say("green ace", "prize")             # the players do not turn prizes here
    assert said(speaker)[-1] == "I turn the prizes in this game."
    journal.close()
    lines = journal.path.read_text().splitlines()
    log = parse_lines(lines)
    t2 = Table(log.game, ["table"], history=list(log.events), write_start=False,
               options=TableOptions(offset=mic.t + 1, prize_seed=7, hears_itself=False))
    assert t2.game.totals == table.game.totals and t2.game.up == table.game.up
    assert "Bidding for the" in " ".join(t2.standing())
    assert t2.talk.turned == 2


def test_bad_gops_lines_name_the_line(tmp_path):
    import pytest

    from referee.core.journal import LogError
    from referee.core.replay import replay_lines

    game = '{"type":"game","game":"gops","players":["ann","bob"],"options":{"setup":"standard"}}'
    for bad, message in [('{"type":"bid","player":"dan","value":3,"at":1}', "unknown player 'dan'"),
                         ('{"type":"bid","player":"ann","value":14,"at":1}', r"from 1 \(ace\) to 13"),
                         ('{"type":"bid","player":"ann","value":3}', "'at' must be a number"),
                         ('{"type":"prize","card":"green five","at":1}', "not a prize card")]:
        with pytest.raises(LogError, match=message) as e:
            replay_lines([game, bad])
        assert e.value.line == 2
    with pytest.raises(LogError, match="for 2 to 3 players"):
        replay_lines(['{"type":"game","game":"gops","players":["a","b","c","d"],"options":{"setup":"standard"}}'])


def test_the_screen_shows_prize_piles_hands_and_totals(tmp_path):
    from referee.app.screen import Screen

    table, speaker, journal, out = make(tmp_path, players=("ann", "bob"))
    mic = Mic(table)
    mic.say("green five", "prize")
    mic.say("ann seven", "bid")
    mic.say("bob ace", "bid")
    mic.say("bronze two", "prize")
    mic.say("ann three", "bid")
    shown = io.StringIO()
    Screen(shown, live=False, width=90).update(table)
    text = shown.getvalue()
    assert "prize bronze two  pile 12  prize discard 0  waiting for bob" in text
    assert "A 2 4 5 6 *" in text            # ann: 7 used, 3 bid
    assert "2 3 4 5 6 7" in text            # bob
    assert "5" in text.splitlines()[[i for i, l in enumerate(text.splitlines()) if "ann" in l][0]]


def test_reading_bids_and_prizes():
    from referee.core.games.gops import SETUPS
    from referee.core.games.gops_talk import parse

    purple, standard = SETUPS["purple"], SETUPS["standard"]
    assert parse("Ann nine", standard, ("Ann", "Bob")) == [("bid", "Ann", 9)]
    assert parse("ann 9, bob q, seven", standard, ("Ann", "Bob")) == [
        ("bid", "Ann", 9), ("bid", "Bob", 12), ("bid", None, 7)]
    assert parse("I bid seven", purple, ("ann",)) == [("bid", None, 7)]
    assert parse("bob bids four", purple, ("ann", "bob")) == [("bid", "bob", 4)]
    assert parse("green 5", purple, ()) == [("prize", "green five")]
    assert parse("queen of diamonds", standard, ()) == [("prize", "queen of diamonds")]
    assert parse("queen of diamonds", purple, ()) == []       # no such prize in Purple
    for nothing in ("dan nine", "ann", "ann bob nine", "hello", ""):
        assert parse(nothing, purple, ("ann", "bob")) == [], nothing


def test_voice_commands_undo_pause_score_and_end(tmp_path):
    table, speaker, journal, out = make(tmp_path, players=("ann", "bob"))
    mic = Mic(table)
    mic.say("green five", "prize")
    mic.say("ann three", "bid")
    mic.say("bob two", "bid")                 # misheard: bob bid four
    assert table.game.totals["ann"] == 5
    mic.say("undo", "command")
    assert said(speaker)[-1] == "Undone: bob's bid of two."
    assert table.game.totals["ann"] == 0 and table.game.waiting_for == ("bob",)
    mic.say("bob four", "bid")
    assert said(speaker)[-1].startswith("Bob wins the green five, with four.")
    mic.say("pause", "command")
    mic.say("bronze six", "prize")
    assert said(speaker)[-2:] == ["Paused.", "Not yet: the game is paused."]
    mic.say("resume", "command")
    mic.say("bronze six", "prize")
    mic.say("score", "command")
    assert said(speaker)[-2:] == ["Prize: the bronze six.", "Bob has five, Ann has zero."]
    mic.say("end", "command")
    assert said(speaker)[-1] == "Game over. Bob wins with five points. Bob has five, Ann has zero."
    assert table.over


def test_an_own_deck_is_heard_by_its_prize_names_and_replays(tmp_path):
    from referee.hearing.gops_grammar import gops_grammar

    own = {"name": "reds", "prizes": {"red ace": 1, "red two": 2}, "hand": [1, 2]}
    table, speaker, journal, out = make(tmp_path, players=("ann", "bob"), setup=own)
    grammar = gops_grammar(("ann", "bob"), table.game.setup)
    assert grammar.match("prize red two").said == "red two"
    assert grammar.match("ann two").said == "ann two" and grammar.match("ann three") is None
    assert grammar.match("green five") is None
    mic = Mic(table)
    mic.say("red two", "prize")
    mic.say("ann two", "bid")
    mic.say("bob ace", "bid")
    mic.say("red ace", "prize")
    mic.say("ann ace", "bid")
    mic.say("bob two", "bid")
    journal.close()
    lines = journal.path.read_text().splitlines()
    assert json.loads(lines[0])["options"]["setup"] == own
    final = [encode_verdict(v) for v in replay(parse_lines(lines))][-1]
    assert final == {"type": "final", "scores": {"ann": 2, "bob": 1}, "winners": ["ann"],
                     "complete": True}
