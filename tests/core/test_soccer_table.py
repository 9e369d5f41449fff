"""The soccer game at the live table, fed the hearing layer's events directly: one shared
mic or one mic per player, typed plays, spoken verdicts and questions, the journal and resume."""

import io
import json

import pytest

from referee.app.journal_file import JournalFile, read_journal
from referee.app.screen import Screen
from referee.core.events import GameStart, Heard, Utterance
from referee.core.journal import encode_verdict, parse_lines
from referee.core.replay import replay_lines
from referee.core.table import Table, TableOptions
from referee.voice.speaker import Speaker

START = GameStart("soccer", ("ann", "bob"))


def make(tmp_path, channels=("table",), **options):
    text = io.StringIO()
    speaker = Speaker(None, text=text)
    journal = JournalFile.new("soccer", folder=tmp_path)
    out = io.StringIO()
    table = Table(START, list(channels), speaker=speaker, journal=journal, json_out=out,
                  options=TableOptions(hears_itself=False, **options))
    return table, speaker, journal, out


class Mic:
    """Says phrases into the table, one every two seconds, as the hearing layer reports them."""

    def __init__(self, table, channels):
        self.table, self.channels, self.t = table, channels, 0.0

    def say(self, said, kind="call", player=None):
        self.t += 2.0
        self.table.hear(Utterance(kind, said, self.t, self.t + 1.0, player=player or self.channels[0]))
        for c in self.channels:
            self.table.hear(Heard(c, self.t + 1.0))

    def quiet(self, seconds):
        self.t += seconds
        for c in self.channels:
            self.table.hear(Heard(c, self.t))


def said(speaker):
    return [s.text for s in speaker.history()]


def test_a_round_on_one_shared_mic(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    mic = Mic(table, ["table"])
    mic.say("five of spades")                                   # ann's forward
    mic.say("block five of diamonds", "play")                   # bob: same number
    mic.say("king of clubs")                                    # ann: a goalie forward
    mic.say("penalty queen of hearts", "play")                  # a penalty kick
    mic.say("seven of hearts")                                  # bob's forward
    mic.say("jack of spades")                                   # ann: a black jack fails on a red forward
    mic.say("block nine of hearts and two of hearts", "play")   # difference and suit
    mic.say("eight of clubs")
    mic.say("no block", "play")                                 # a goal for bob
    mic.say("end", "command")
    table.finish()
    journal.close()
    assert said(speaker) == [
        "Five of spades. Bob, block?", "Blocked: same number.",
        "King of clubs: a goalie. Ann, penalty kick? Name your second goalie, or say no penalty.",
        "Penalty kick: goal! Ann one, Bob zero.",
        "Seven of hearts. Ann, block?", "The jack is black; the forward is red. Ann, another block, or no block?",
        "Blocked: nine minus two is seven and two hearts.",
        "Eight of clubs. Ann, block?", "Goal! Ann one, Bob one.",
        "Round one over. Both draw four: thirty two left.",
        "Game over: a tie, Ann one, Bob one.",
    ]
    decisions = [json.loads(line)["type"] for line in out.getvalue().splitlines()]
    assert decisions == ["blocked", "goal", "blocked", "goal", "round-over", "final"]
    # the journal replays to the same verdicts
    objs = read_journal(journal.path).objects
    verdicts = [encode_verdict(v) for v in replay_lines([json.dumps(o) for o in objs])]
    assert verdicts == [o for o in objs[1:] if o["type"] not in ("forward", "block", "penalty", "command")]
    assert read_journal(journal.path).finished


def test_one_mic_per_player_and_a_play_out_of_turn_is_refused_aloud(tmp_path):
    table, speaker, journal, out = make(tmp_path, channels=("ann", "bob"))
    mic = Mic(table, ["ann", "bob"])
    mic.say("four of clubs", player="bob")                      # not bob's turn
    mic.say("four of clubs", player="ann")
    mic.say("jack of clubs", player="bob")                      # a goalie of the same colour
    table.finish()
    assert said(speaker)[:3] == ["It is ann's turn to flip a forward. ann, your forward?",
                                 "Four of clubs. Bob, block?", "Blocked: a jack of the same colour."]


def test_a_card_named_twice_is_reported_and_asked_again(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    mic = Mic(table, ["table"])
    mic.say("five of spades")
    mic.say("no block", "play")
    mic.say("five of spades")
    assert said(speaker)[-1] == "The five of spades is out of play: it was scored. ann, which forward?"


def test_typed_plays(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    mic = Mic(table, ["table"])

    def typed(text):
        problem = table.type(text)
        mic.quiet(1.0)                        # typed plays are judged once the mic has heard past them
        return problem

    assert typed("6H") is None
    assert typed("block 4D 2D") is None                          # sum
    assert typed("banana") == ("not a soccer play: 'banana' (a card like 5S, 'block 9D 4D', "
                               "'no block', 'penalty QH', 'no penalty')")
    assert typed("QS") is None
    assert typed("no penalty") is None
    assert typed("score") is None
    assert said(speaker) == ["Six of hearts. Bob, block?", "Blocked: four plus two is six.",
                             "Queen of spades: a goalie. Ann, penalty kick? Name your second goalie, "
                             "or say no penalty.",
                             "No second goalie: the queen of spades is discarded.", "Ann has zero, Bob has zero."]


def test_nothing_heard_asks_again(tmp_path):
    table, speaker, journal, out = make(tmp_path, reask=8.0)
    mic = Mic(table, ["table"])
    mic.say("five of spades")
    mic.quiet(5.0)
    assert said(speaker)[-1] == "Five of spades. Bob, block?"
    mic.quiet(5.0)
    assert said(speaker)[-1] == "Still waiting: Bob, block the five of spades, or no block?"
    mic.quiet(30.0)                                             # asked once, not nagged
    assert said(speaker).count("Still waiting: Bob, block the five of spades, or no block?") == 1
    mic.say("no block", "play")
    mic.quiet(11.0)
    assert said(speaker)[-1] == "Still waiting: Ann, your forward?"


def test_the_screen_shows_forward_block_method_pile_and_goals(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    screen_text = io.StringIO()
    table.screen = Screen(screen_text, live=False, width=100)
    mic = Mic(table, ["table"])
    mic.say("two of diamonds")
    assert "ann attacks: 2♦" in screen_text.getvalue()
    mic.say("block nine of diamonds and four of diamonds", "play")
    text = screen_text.getvalue()
    assert "draw pile 40" in text and "2♦ blocked by 9♦ 4♦: two diamonds" in text
    mic.say("three of spades")
    mic.say("no block", "play")
    assert "goal with 3♠ (no block)" in screen_text.getvalue()


def test_resume_continues_the_game(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    mic = Mic(table, ["table"])
    mic.say("five of spades")
    mic.say("no block", "play")
    mic.say("six of spades")
    journal.close()                                             # a crash: no finish
    objs = read_journal(journal.path).objects
    log = parse_lines([json.dumps(o) for o in objs])
    speaker2 = Speaker(None, text=io.StringIO())
    again = JournalFile.reopen(journal.path)
    table2 = Table(log.game, ["table"], speaker=speaker2, journal=again, history=list(log.events),
                   options=TableOptions(offset=10.0, hears_itself=False), write_start=False)
    assert table2.standing() == ["Ann has one, Bob has zero.", "Round one, forty cards in the draw pile.",
                                 "Bob, block the six of spades, or no block?"]
    table2.hear(Utterance("call", "six of hearts", 1.0, 1.5, player="table"))
    table2.hear(Heard("table", 2.0))
    assert said(speaker2) == ["Blocked: same number."]
    assert table2.game.scores == {"ann": 1, "bob": 0}


@pytest.mark.parametrize("channels", [("dealer",), ("table", "ann")])
def test_channels(tmp_path, channels):
    table, *_ = make(tmp_path, channels=channels)
    assert table.channels == list(channels)
