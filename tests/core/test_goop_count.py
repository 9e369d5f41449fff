import pytest

from referee.core.events import Count, Tally
from referee.core.games.goop_count import CountDialogue, Say
from referee.core.numbers import Number, number_words, parse_number


@pytest.mark.parametrize("text, value, fix", [
    ("twelve", 12, False), ("forty two", 42, False), ("none", 0, False), ("zero", 0, False),
    ("no, twelve", 12, True), ("no twelve", 12, True), ("52", 52, False), ("three cards", 3, False),
    ("fifty", 50, False),
])
def test_parse_number(text, value, fix):
    assert parse_number(text) == Number(value, fix)


@pytest.mark.parametrize("text", ["seven of hearts", "goop", "twenty twenty", "", "hundred", "99"])
def test_not_numbers(text):
    assert parse_number(text) is None


def test_number_words_round_trip():
    for n in range(0, 53):
        assert parse_number(number_words(n)).value == n


def test_dialogue_asks_reads_back_accepts_corrections_and_tallies():
    d = CountDialogue(["ann", "bob"], start=0.0, confirm=1.0, reask=5.0)
    assert d.opening == [Say("Count! Ann, how many of your cards are in the centre?", 0.0)]
    assert d.heard("bob", "three", 1.0) == []                 # not bob's turn
    assert d.heard("ann", "seven", 1.5) == [Count("ann", "centre", 7, 1.5), Say("Ann: seven in the centre.", 1.5)]
    assert d.heard("ann", "no, nine", 2.0) == [Count("ann", "centre", 9, 2.0), Say("Ann: nine in the centre.", 2.0)]
    assert d.tick(2.9) == []
    assert d.tick(3.0) == [Say("Ann, how many cards are left in your Goop pile?", 3.0)]
    assert d.heard("ann", "fourteen", 3.5) == [Say("That can't be: say zero to thirteen. Ann, how many cards are left in your Goop pile?", 3.5)]
    assert d.tick(8.4) == []
    assert d.tick(8.5) == [Say("Ann, how many cards are left in your Goop pile?", 8.5)]   # asked again
    d.heard(None, "none", 9.0)                                   # a shared mic: anyone answers
    d.tick(10.0)
    d.heard("bob", "four", 10.5)
    d.tick(11.5)
    assert d.heard("bob", "two", 12.0) == [Count("bob", "left", 2, 12.0), Say("Bob: two left.", 12.0)]
    assert d.tick(13.0) == []               # the last answer waits the correction time
    assert d.tick(17.0) == [Tally(17.0)]
    assert d.done and d.asking is None


def test_a_correction_after_the_confirm_window_corrects_the_answer_before():
    d = CountDialogue(["ann", "bob"], start=0.0, confirm=1.0, reask=8.0, correct=5.0)
    d.heard("ann", "seven", 1.0)
    assert d.tick(2.0) == [Say("Ann, how many cards are left in your Goop pile?", 2.0)]
    assert parse_number("correction fifteen") == Number(15, True)
    assert d.heard("ann", "no, fifteen", 3.0) == [
        Count("ann", "centre", 15, 3.0),
        Say("Ann: fifteen in the centre. Ann, how many cards are left in your Goop pile?", 3.0)]
    assert d.asking == ("ann", "left")                          # still the question on
    assert d.heard("ann", "three", 4.0) == [Count("ann", "left", 3, 4.0), Say("Ann: three left.", 4.0)]
    assert d.tick(5.0) == [Say("Bob, how many of your cards are in the centre?", 5.0)]
    # a correction from another player's mic, or too late, is no correction
    assert d.heard("bob", "no, two", 6.0) == [Count("bob", "centre", 2, 6.0), Say("Bob: two in the centre.", 6.0)]
    d.tick(7.0)
    assert d.heard(None, "correction four", 12.5) == [Count("bob", "left", 4, 12.5), Say("Bob: four left.", 12.5)]


def test_a_correction_out_of_range_is_refused_with_its_question():
    d = CountDialogue(["ann", "bob"], start=0.0, confirm=1.0, correct=5.0)
    d.heard(None, "seven", 1.0)
    d.tick(2.0)
    assert d.heard(None, "no, fifty three", 3.0) == [
        Say("That can't be: say zero to fifty two. Ann, how many of your cards are in the centre?", 3.0)]


def test_a_question_is_asked_again_at_most_twice_then_the_referee_waits():
    d = CountDialogue(["ann", "bob"], start=0.0, confirm=1.0, reask=5.0)
    asked = [t for t in range(1, 60) if d.tick(float(t))]
    assert asked == [5, 10]
    d.heard(None, "seven", 60.0)
    asked = [t for t in range(61, 120) if d.tick(float(t))]
    assert asked == [61, 66, 71]                                 # the next question, then twice again


def test_numbers_are_listened_for_only_during_the_count(tmp_path):
    import io

    from referee.app.journal_file import JournalFile
    from referee.app.session import run_recording
    from referee.core.events import GameStart, Heard, Utterance
    from referee.core.games.goop import COUNT_KINDS, PLAY_KINDS
    from referee.core.table import Table, TableOptions
    from referee.voice.speaker import Speaker

    table = Table(GameStart("goop", ("ann", "bob")), ["ann", "bob"],
                  speaker=Speaker(None, text=io.StringIO()),
                  journal=JournalFile.new("goop", folder=tmp_path), json_out=io.StringIO(),
                  options=TableOptions(confirm=1.0))
    assert "number" not in PLAY_KINDS and "shout" not in COUNT_KINDS
    events = [Utterance("shout", "goop", 1.0, 1.4, player="ann"), Heard("ann", 3.0),
              Heard("bob", 3.0)]
    t = 3.0
    for player, n in (("ann", "seven"), ("ann", "zero"), ("bob", "none"), ("bob", "four")):
        t += 2.0
        events += [Utterance("number", n, t, t + 0.5, player=player), Heard("ann", t + 1.9),
                   Heard("bob", t + 1.9)]
    events += [Heard("ann", t + 20.0), Heard("bob", t + 20.0)]
    told = []
    run_recording(table, events, follow=told.append)
    assert told[0] == PLAY_KINDS
    counting = told.index(COUNT_KINDS)
    assert counting in (2, 3)                       # at a watermark past the shout race
    back = told.index(PLAY_KINDS, counting)         # the count tallied: play again
    assert set(told[counting:back]) == {COUNT_KINDS} and told[-1] == PLAY_KINDS
    assert table.game.totals != {"ann": 0, "bob": 0}
