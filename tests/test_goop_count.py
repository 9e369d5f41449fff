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
    assert d.heard("ann", "seven", 1.5) == [Count("ann", "centre", 7, 1.5), Say("Seven.", 1.5)]
    assert d.heard("ann", "no, nine", 2.0) == [Count("ann", "centre", 9, 2.0), Say("Nine.", 2.0)]
    assert d.tick(2.9) == []
    assert d.tick(3.0) == [Say("Ann, how many cards are left in your Goop pile?", 3.0)]
    assert d.heard("ann", "fourteen", 3.5) == [Say("That can't be: say zero to thirteen. Ann, how many cards are left in your Goop pile?", 3.5)]
    assert d.tick(8.4) == []
    assert d.tick(8.5) == [Say("Ann, how many cards are left in your Goop pile?", 8.5)]   # asked again
    d.heard(None, "none", 9.0)                                   # a shared mic: anyone answers
    d.tick(10.0)
    d.heard("bob", "four", 10.5)
    d.tick(11.5)
    d.heard("bob", "two", 12.0)
    assert d.tick(13.0) == [Tally(13.0)]
    assert d.done and d.asking is None
