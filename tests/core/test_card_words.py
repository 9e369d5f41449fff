"""Issue #22, card words: what people say, read into a full card, a partial
call or nothing, with one table of words; a partial call is a miscall."""

import io

import pytest

from referee.core.cards import Card, CallKind, Partial, Suit, call_kind, read_call
from referee.core.events import GameStart, Heard, Utterance, UtteranceKind
from referee.app.journal_file import JournalFile, read_journal
from referee.voice.speaker import Speaker
from referee.core.games.stroop import qualifies
from referee.core.table import Table
from stroop_logs import call, deal, game, rounds, verdicts


@pytest.mark.parametrize("said, card", [
    ("the four of hearts", "4H"), ("4 of hearts", "4H"), ("four hearts", "4H"),
    ("Four of Hearts", "4H"), ("the 10 of diamonds", "10D"), ("a of spades", "AS"),
    ("an ace of clubs", "AC"), ("ace of clubs", "AC"), ("AS", "AS"), ("q♡", "QH"),
])
def test_full_cards(said, card):
    assert read_call(said) == Card.parse(card)
    assert call_kind(said) is CallKind.CARD


@pytest.mark.parametrize("said, partial", [
    ("ace", Partial(1, None)), ("an ace", Partial(1, None)), ("a four", Partial(4, None)),
    ("four", Partial(4, None)), ("the queen", Partial(12, None)), ("10", Partial(10, None)),
    ("a heart", Partial(None, Suit.HEARTS)), ("hearts", Partial(None, Suit.HEARTS)),
    ("jack of", Partial(11, None, cut_short=True)), ("the jack of", Partial(11, None, cut_short=True)),
])
def test_partial_calls(said, partial):
    assert read_call(said) == partial
    assert call_kind(said) is CallKind.PARTIAL


@pytest.mark.parametrize("said", ["", "a", "um", "hello there", "of hearts of", "four of hearts please"])
def test_nothing(said):
    assert read_call(said) is None and call_kind(said) is CallKind.NOTHING


def test_the_article_a_is_never_the_ace_of_hearts():
    (r,) = rounds([game(), deal("KS", 0), call("ann", "a heart", 0.5, 1.0)])
    assert r["outcome"] == "unwon"
    judged = [v for v in verdicts([game(), deal("KS", 0), call("ann", "a heart", 0.5, 1.0)])
              if v["type"] == "judged"]
    assert (judged[0]["outcome"], judged[0]["reason"]) == ("miscall", "names a suit only")


def test_the_four_of_hearts_qualifies():
    assert qualifies("the four of hearts", Card.parse("3S"))
    (r,) = rounds([game(), deal("3S", 0), call("ann", "the four of hearts", 0.5, 1.0)])
    assert r["winner"] == "ann"


@pytest.mark.parametrize("said", ["jack of", "queen", "hearts", "a four"])
def test_a_partial_call_is_a_miscall_in_replay(said):
    objs = [game(), deal("3S", 0), call("ann", said, 0.4, 0.8), call("ann", "four of hearts", 0.9, 1.2),
            call("bob", "five of hearts", 1.5, 2.0)]
    (r,) = rounds(objs)
    assert r["winner"] == "bob"          # ann's partial call put her out


def test_a_partial_utterance_is_a_miscall_at_the_table(tmp_path):
    journal = JournalFile.new("stroop", folder=tmp_path)
    speaker = Speaker(None, text=io.StringIO())
    table = Table(GameStart("stroop", ("ann", "bob")), ["dealer", "ann", "bob"], speaker=speaker,
                  journal=journal)
    table.hear(Utterance(kind="call", said="three of spades", start=0.0, end=0.5))
    table.hear(Utterance(kind=UtteranceKind.PARTIAL, said="jack of", start=1.0, end=1.3, player="ann"))
    table.hear(Utterance(kind="call", said="four of hearts", start=1.4, end=1.9, player="ann"))
    table.hear(Utterance(kind="partial", said="queen", start=1.0, end=1.5, player="bob"))
    for c in ("dealer", "ann", "bob"):
        table.hear(Heard(c, 3.0))
    table.finish()
    speaker.close()
    objs = read_journal(journal.path).objects
    judged = [(o["player"], o["said"], o["outcome"]) for o in objs if o["type"] == "judged"]
    assert judged == [("ann", "jack of", "miscall"), ("bob", "queen", "miscall"),
                      ("ann", "four of hearts", "qualifies")]
    assert [o["winner"] for o in objs if o["type"] == "round"] == ["ann"]
