"""Swoop at the live table: one shared mic (whose turn it is tells who spoke), mics per
player, typed plays, the report dialogue, the spoken verdicts, the screen and the journal."""

import io
import json

from referee.app.journal_file import JournalFile, read_journal
from referee.app.screen import Screen
from referee.core.events import GameStart, Heard, Utterance
from referee.core.journal import encode_verdict
from referee.core.replay import replay_lines
from referee.core.table import Table, TableOptions
from referee.voice.speaker import Speaker

PLAYERS = ("ann", "bob", "cai")


def make(tmp_path, channels=("table",), rounds=1):
    speaker = Speaker(None, text=io.StringIO())
    journal = JournalFile.new("swoop", folder=tmp_path)
    screen_out = io.StringIO()
    table = Table(GameStart("swoop", PLAYERS, {"rounds": rounds}), list(channels),
                  speaker=speaker, journal=journal, json_out=io.StringIO(),
                  screen=Screen(screen_out, live=False), options=TableOptions(confirm=1.0))
    return table, speaker, journal, screen_out


class Mic:
    """Says phrases on one channel, one after another, and moves every mic's watermark."""

    def __init__(self, table, channels=("table",)):
        self.table, self.channels, self.t = table, channels, 0.0

    def say(self, said, kind="call", channel="table"):
        self.table.hear(Utterance(kind, said, self.t + 0.1, self.t + 0.6,
                                  player=channel))
        self.wait(1.0)

    def wait(self, seconds):
        self.t += seconds
        for c in self.channels:
            self.table.hear(Heard(c, self.t))


def spoken(speaker):
    return [s.text for s in speaker.history()]


def test_one_shared_mic_plays_a_round(tmp_path):
    table, speaker, journal, screen = make(tmp_path)
    mic = Mic(table)
    mic.say("two eights")                 # ann
    mic.say("five")                       # bob
    mic.say("seven")                      # cai: refused, plays again
    mic.say("pick up")                    # cai takes 3
    mic.say("ten")                        # ann swoops, plays again
    mic.say("queen")                      # ann
    mic.say("two")                        # bob: a 2 on anything
    mic.say("king")                       # cai: anything on a 2
    mic.say("undo", kind="command")
    mic.say("jack")                       # cai again
    game = table.game
    assert game.held == {"ann": 19 - 4, "bob": 17, "cai": 19 + 3 - 1}
    assert game.turn == "ann" and game.pile == 3 and game.run == (11, 1)
    said = spoken(speaker)
    assert "No, cai: a seven does not go on a five. Play again or pick up." in said
    assert "cai picks up 3 cards. ann leads." in said
    assert "A ten. Swoop! ann plays again." in said
    assert "Undone: cai: a king. cai's turn." in said
    assert "bob's turn." in said
    assert "Swoop  round 1  pile 3, top a jack  ann's turn" in screen.getvalue()
    assert "cai's turn" in screen.getvalue() and "22 cards" in screen.getvalue()

    # ann runs out (swooping three times on the way), then the reports on the same mic
    for play in ("four jacks", "four queens", "four nines", "three sixes"):
        mic.say(play)
    assert "ann is out!" in spoken(speaker) and "bob, what is left in your hand?" in spoken(speaker)
    mic.say("42", kind="number")          # bob
    mic.say("no 40", kind="number")       # bob corrects it
    mic.wait(1.5)
    assert "cai, what is left in your hand?" in spoken(speaker)
    mic.say("king")                       # cai: one card left, a king
    mic.wait(1.5)
    table.finish()
    journal.close()
    said = spoken(speaker)
    assert "bob, 42 points." in said
    assert "bob, 40 points." in said and "cai, 10 points. But I counted 21 cards." in said
    assert "Round 1: bob 40, cai 10. Totals: ann 0, cai 10, bob 40." in said
    assert "Game over. ann wins with 0 points." in said

    # the journal replays to the very verdicts the table gave
    objs = read_journal(journal.path).objects
    lines = [json.dumps(o) for o in objs]
    live = [o for o in objs[1:] if o["type"] not in ("play", "pick-up", "going-out", "report",
                                                       "command", "tally", "note")]
    assert [encode_verdict(v) for v in replay_lines(lines)] == live
    plays = [o for o in objs if o["type"] == "play"]
    assert all("player" not in o for o in plays)      # the shared mic: whoever's turn


def test_one_mic_per_player_and_out_of_turn(tmp_path):
    table, speaker, _, _ = make(tmp_path, channels=PLAYERS)
    mic = Mic(table, PLAYERS)
    mic.say("nine", channel="ann")
    mic.say("four", channel="cai")
    assert "No, cai: it is bob's turn." in spoken(speaker)
    mic.say("blind four", channel="bob")
    assert table.game.turn == "cai" and table.game.held["bob"] == 18


def test_typed_plays_and_reports(tmp_path):
    table, speaker, _, _ = make(tmp_path)
    mic = Mic(table)
    mic.wait(1.0)
    assert table.type("2 7") is None
    mic.wait(1.0)
    assert table.game.held["ann"] == 17
    assert table.type("bob: blind K") is None
    mic.wait(1.0)
    assert table.game.held["bob"] == 19 - 1 + 3
    assert table.type("cai: pick up") is None            # empty pile: refused, spoken
    mic.wait(1.0)
    assert "No, cai: the pile is empty." in spoken(speaker)
    assert table.type("seven o'clock").startswith("not a play or a command")
    assert table.type("zoe: 7").startswith("unknown player 'zoe'")
    table.type("score")
    mic.wait(1.0)
    assert spoken(speaker)[-1] == "Score: ann 0, bob 0, cai 0."


def test_table_talk_never_changes_the_pile(tmp_path):
    table, speaker, _, _ = make(tmp_path)
    mic = Mic(table)
    for chatter in ("seven o'clock", "i'll pick up the kids", "queen of hearts"):
        mic.say(chatter, kind="unknown")
        mic.say(chatter)
    assert table.game.pile == 0 and table.game.turn == "ann" and table.game.held["ann"] == 19


def test_speech_on_the_turn_that_is_no_play_is_asked_again_but_not_table_talk(tmp_path):
    from referee.app.inputs import table_talk
    speaker = Speaker(None, text=io.StringIO())
    table = Table(GameStart("swoop", PLAYERS, {"rounds": 1}), ["table"], speaker=speaker,
                  options=TableOptions(table_talk=table_talk("swoop")))
    mic = Mic(table)
    mic.say("uh seven", kind="unknown")              # ann's turn: heard, but no play
    mic.say("uh seven", kind="unknown")              # again within 4 s: not asked again
    mic.wait(4.0)
    mic.say("forty two", kind="number")              # a number is no play either
    mic.wait(4.0)
    mic.say("pick up the phone", kind="unknown")     # table talk (grammar decoys)
    mic.say("seven eleven", kind="unknown")
    mic.say("phone_ah phone_t", kind="unknown")      # no words at all
    mic.say("seven")                                 # a play: nothing to ask
    speaker.close()
    assert [s for s in spoken(speaker) if s == "Say that again."] == ["Say that again."] * 2
    assert table.game.turn == "bob"


def test_speech_on_another_players_mic_is_not_asked_again(tmp_path):
    speaker = Speaker(None, text=io.StringIO())
    players = list(PLAYERS)
    table = Table(GameStart("swoop", PLAYERS, {"rounds": 1}), players, speaker=speaker)
    mic = Mic(table, channels=players)
    mic.say("what a hand", kind="unknown", channel="bob")     # ann's turn: bob's talk
    mic.say("hmm seven", kind="unknown", channel="ann")       # ann's: asked again
    mic.say("pause", kind="command", channel="ann")
    mic.wait(5.0)
    mic.say("hmm seven", kind="unknown", channel="ann")       # paused: nothing is asked
    speaker.close()
    assert [s for s in spoken(speaker) if s == "Say that again."] == ["Say that again."]


def test_repeat_during_the_reports_says_the_score_and_the_question(tmp_path):
    table, speaker, journal, screen = make(tmp_path)
    mic = Mic(table)
    for said in ("two eights", "five", "seven", "pick up", "ten", "queen", "two", "king"):
        mic.say(said)
    mic.say("undo", kind="command")
    for said in ("jack", "four jacks", "four queens", "four nines", "three sixes"):   # ann goes out
        mic.say(said)
    assert table.dialogue is not None and table.dialogue.asking == ("bob", "hand")
    mic.say("repeat", kind="command")
    assert spoken(speaker)[-1] == "Score: ann 0, bob 0, cai 0. bob, what is left in your hand?", spoken(speaker)[-3:]


def test_speech_over_the_referees_own_voice_is_not_asked_again(tmp_path):
    speaker = Speaker(tmp_path / "referee.wav", text=io.StringIO())
    table = Table(GameStart("swoop", PLAYERS, {"rounds": 1}), ["table"], speaker=speaker)
    mic = Mic(table)
    mic.say("seven")                                  # ann plays: "bob's turn." is voiced
    speaker.wait()
    said = speaker.history()[-1]
    assert said.text == "bob's turn." and said.start is not None
    # the mic hears the referee's voice as words outside the grammar: no "say that again"
    table.hear(Utterance("unknown", "bobs tone", said.start, said.end, player="table"))
    mic.wait(6.0)
    table.hear(Utterance("unknown", "uh seven", mic.t + 0.1, mic.t + 0.6, player="table"))
    mic.wait(1.0)                                     # bob's own mumble, later: asked again
    speaker.close()
    assert [s.text for s in speaker.history()].count("Say that again.") == 1


def test_totals_are_listened_for_only_while_reports_are_asked_for(tmp_path):
    from referee.app.session import run_recording
    from referee.core.games.swoop import PLAY_KINDS, REPORT_KINDS

    table, speaker, _, _ = make(tmp_path)
    assert table.listening_for == PLAY_KINDS and "number" not in PLAY_KINDS
    said = [("call", s) for s in ("two eights", "five", "seven", "pick up", "ten", "queen",
                                  "two", "king")]
    said += [("command", "undo")]
    said += [("call", s) for s in ("jack", "four jacks", "four queens", "four nines",
                                   "three sixes")]                    # ann goes out
    said += [("number", "forty two")]                                 # bob's report
    events = []
    for k, (kind, s) in enumerate(said):
        events += [Utterance(kind, s, k + 0.1, k + 0.6, player="table"), Heard("table", k + 1.0)]
    told = []
    run_recording(table, events, follow=told.append)
    assert told[0] == PLAY_KINDS
    # told[1 + e] follows events[e]: ann's last play is event 2j, its watermark 2j + 1
    out = 1 + 2 * said.index(("call", "three sixes"))
    first = told.index(REPORT_KINDS)
    assert first in (out, out + 1) and set(told[:first]) == {PLAY_KINDS}
    assert set(told[first:]) == {REPORT_KINDS}
    assert "number" in REPORT_KINDS


def test_an_undo_and_a_play_typed_at_one_audio_time_replay_in_their_order(tmp_path):
    table, speaker, journal, _ = make(tmp_path)
    mic = Mic(table)
    mic.say("two eights")                  # ann
    mic.say("five")                        # bob
    mic.say("pick up")                     # cai picks up; ann leads
    mic.say("a seven")                     # ann, misheard: it was a ten
    assert table.type("undo") is None      # typed while no audio comes in: one clock time
    assert table.type("ann: 10") is None
    mic.wait(1.0)
    journal.close()
    objs = read_journal(journal.path).objects
    typed = [o for o in objs if o["type"] in ("command", "play") and o["at"] >= 4.0]
    assert [o["type"] for o in typed] == ["command", "play"]
    assert typed[0]["at"] < typed[1]["at"]
    played = [o for o in objs if o["type"] == "played"]
    assert (played[-1]["player"], played[-1]["rank"], played[-1]["swoop"]) == ("ann", "10", "ten")
    lines = [json.dumps(o) for o in objs]
    live = [o for o in objs[1:] if o["type"] not in ("play", "pick-up", "going-out", "report",
                                                       "command", "tally", "note")]
    replayed = [encode_verdict(v) for v in replay_lines(lines)]
    assert [v for v in replayed if v["type"] != "final"] == live     # the game goes on
