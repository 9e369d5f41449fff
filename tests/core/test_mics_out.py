"""A microphone's device lost and back, at the table: said at once, noted in the journal,
and a race the lost mic might have joined announced as such (the shell's side, devices
going away on a real audio server, is tests/test_mic_loss.py)."""

import io

from referee.app.journal_file import JournalFile, read_journal
from referee.core.events import GameStart, Heard, Utterance
from referee.core.games import goop
from referee.core.mics import MicChange, MicsOut
from referee.core.table import Table
from referee.voice.speaker import Speaker


def make(tmp_path, game="stroop", players=("ann", "bob")):
    text = io.StringIO()
    speaker = Speaker(None, text=text)
    journal = JournalFile.new(game, folder=tmp_path)
    channels = (["dealer"] if game == "stroop" else []) + list(players)
    table = Table(GameStart(game, tuple(players)), channels, speaker=speaker, journal=journal)
    return table, speaker, journal, channels


def utter(player, said, start, end, kind="call"):
    return Utterance(kind=kind, said=said, start=start, end=end, player=player)


def heard_all(table, upto, channels):
    for c in channels:
        table.hear(Heard(c, upto))


def said(speaker):
    return [s.text for s in speaker.history()]


def test_lost_and_back_are_said_and_journaled_and_a_race_run_meanwhile_names_the_lost_mic(tmp_path):
    table, speaker, journal, ch = make(tmp_path)
    table.hear(utter(None, "three of spades", 1.0, 1.6, "call"))      # the dealer deals 3S
    heard_all(table, 1.6, ch)
    table.hear(MicChange("bob", True, 1.8, "its source went away"))
    table.hear(utter("ann", "four of hearts", 2.0, 2.6, "call"))
    heard_all(table, 3.5, ch)
    table.hear(MicChange("bob", False, 4.0))
    table.hear(utter(None, "six of diamonds", 5.0, 5.5, "call"))      # the next round
    table.hear(utter("bob", "two of spades", 6.0, 6.5, "call"))
    heard_all(table, 8.0, ch)
    table.finish()
    speaker.close()
    journal.close()
    lines = said(speaker)
    assert "Lost Bob's microphone. Trying to get it back." in lines
    assert "Listening again on Bob's microphone." in lines
    # round 1 ran while bob's mic was out; round 2 after it was back
    caveats = [s for s in lines if "may have called" in s]
    assert caveats == ["Bob's microphone was out: Bob may have called."], lines
    assert lines.index(caveats[0]) > [i for i, s in enumerate(lines) if s.startswith("Ann wins")][0]
    notes = [o["text"] for o in read_journal(journal.path).objects if o["type"] == "note"]
    assert "bob's microphone lost at 1.800 s: its source went away" in notes
    assert "bob's microphone back at 4.000 s" in notes
    assert "bob's microphone was out during this race" in notes


def test_a_race_won_by_the_player_whose_mic_came_back_needs_no_caveat(tmp_path):
    table, speaker, journal, ch = make(tmp_path)
    table.hear(MicChange("ann", True, 0.5))
    table.hear(MicChange("ann", False, 0.9))
    table.hear(utter(None, "three of spades", 1.0, 1.6, "call"))      # dealt after ann's mic came back
    table.hear(utter("bob", "four of hearts", 2.0, 2.6, "call"))
    heard_all(table, 4.0, ch)
    table.finish()
    speaker.close()
    journal.close()
    assert not [s for s in said(speaker) if "may have called" in s]


def test_a_goop_shout_race_with_a_mic_out_names_it(tmp_path):
    table, speaker, journal, ch = make(tmp_path, "goop", ("ann", "bob", "cai"))
    table.hear(MicChange("cai", True, 1.0))
    table.hear(utter("ann", "goop", 3.0, 3.4, "shout"))
    heard_all(table, 5.0, ch)
    speaker.close()
    journal.close()
    assert any(isinstance(v, goop.Gooped) for v in table.verdicts)
    assert "Cai's microphone was out: Cai may have called." in said(speaker)


def test_mics_out_keeps_spans_and_ignores_repeats():
    m = MicsOut()
    assert m.change(MicChange("bob", True, 2.0))
    assert not m.change(MicChange("bob", True, 3.0))          # lost twice: still since 2.0
    assert not m.change(MicChange("ann", False, 3.0))         # back while never out
    assert m.out_during(0.0, 1.9) == [] and m.out_during(0.0, 2.0) == ["bob"]
    assert m.change(MicChange("bob", False, 4.0))
    assert m.out_during(4.5, 9.0) == [] and m.out_during(3.0, 9.0) == ["bob"]


def test_a_mic_missing_at_the_start_is_said_and_its_calls_count_once_it_is_found(tmp_path):
    table, speaker, journal, ch = make(tmp_path)
    table.hear(MicChange("bob", True, 0.0, "cannot open input device 'bob'", at_start=True))
    table.hear(utter(None, "three of spades", 1.0, 1.6, "call"))
    table.hear(utter("ann", "four of hearts", 2.0, 2.6, "call"))
    heard_all(table, 3.5, ch)
    table.hear(MicChange("bob", False, 4.0, at_start=True))
    table.hear(utter(None, "six of diamonds", 5.0, 5.5, "call"))
    table.hear(utter("bob", "two of spades", 6.0, 6.5, "call"))
    heard_all(table, 8.0, ch)
    table.finish()
    speaker.close()
    journal.close()
    lines = said(speaker)
    assert lines[0] == "Bob's microphone is not there. Starting without it.", lines
    assert "Listening on Bob's microphone now." in lines
    assert not any(s.startswith(("Lost", "Listening again")) for s in lines), lines
    assert "Bob's microphone was out: Bob may have called." in lines     # round 1, won by ann
    rounds = [o for o in read_journal(journal.path).objects if o["type"] == "round"]
    assert [(r["top"], r["winner"]) for r in rounds] == [("3S", "ann"), ("6D", "bob")]
    notes = [o["text"] for o in read_journal(journal.path).objects if o["type"] == "note"]
    assert "bob's microphone not there at the start: cannot open input device 'bob'" in notes
    assert "bob's microphone found at 4.000 s" in notes
