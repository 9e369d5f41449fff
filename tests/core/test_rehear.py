"""A resumed recording heard again from before where its journal stops (the table's side of
`referee resume --audio GAME.wav`): what each mic says again up to its last journaled
happening is not judged twice, and a verdict the journal already holds is not journaled,
printed or said again."""

import io
import json

import pytest

from referee.core.events import GameStart, Heard, Utterance
from referee.core.journal import dumps, encode, parse_lines
from referee.core.table import Table, TableOptions
from referee.voice.speaker import Speaker

CHANNELS = ["dealer", "ann", "bob"]
START = GameStart("stroop", ("ann", "bob"))
#: what the mics hear: 7D dealt, bob miscalls, ann wins; 4S dealt, ann's call ends first but
#: is reported after bob's, and wins
HEARD = [(0.5, Utterance("call", "seven of diamonds", 0.5, 1.5, player=None)),
         (3.6, Utterance("call", "queen of hearts", 2.5, 3.6, player="bob")),
         (4.75, Utterance("call", "two of clubs", 3.8, 4.75, player="ann")),
         (6.9, Utterance("call", "four of spades", 6.0, 6.9, player=None)),
         (9.0, Utterance("call", "nine of hearts", 8.0, 9.0, player="bob")),
         (8.9, Utterance("call", "two of hearts", 8.02, 8.9, player="ann"))]


def _run(table, since=0.0):
    """Hear the game from ``since`` seconds on: each utterance, then every mic heard up to
    the next one's start (the listener's promise), then the rest of the recording."""
    t = since
    for i, (end, u) in enumerate(HEARD):
        if u.end >= since:
            table.hear(u)
        upto = HEARD[i + 1][1].start if i + 1 < len(HEARD) else end + 2.0
        while t + 0.1 <= upto:
            t = round(t + 0.1, 6)
            for c in CHANNELS:
                table.hear(Heard(c, t))
    table.finish()


def _table(journal, **kw):
    text = io.StringIO()
    table = Table(START, CHANNELS, journal=journal, speaker=Speaker(None, text=text),
                  json_out=io.StringIO(), write_start=False, **kw)
    return table, text


@pytest.fixture()
def whole():
    journal = [encode(START)]
    _run(_table(journal)[0])
    return [dumps(o) for o in journal]


@pytest.mark.parametrize("cut, since, wins", [
    (2, 0.0, 2),     # bob's call journaled, not judged; heard again from the start
    (9, 0.0, 1),     # round 2: bob's call journaled, ann's (ending first, reported later) not
    (9, 5.0, 1),     # ... heard again from 5 s
    (11, 5.0, 1),    # ann's call judged: the round is decided after the journal's last time
    (12, 5.0, 0),    # the round decided and said: not journaled or said again
])
def test_the_game_heard_again_is_journaled_once_and_nothing_is_lost(whole, cut, since, wins):
    kept = whole[:cut + 1]
    journal = [json.loads(line) for line in kept]
    table, text = _table(journal, history=list(parse_lines(kept).events),
                         options=TableOptions(rehear=since))
    table.journal_missing([json.loads(line) for line in kept])
    _run(table, since)
    assert sorted(dumps(o) for o in journal) == sorted(whole)
    assert [o for o in journal if o["type"] in ("deal", "call")] == \
        [json.loads(x) for x in whole if json.loads(x)["type"] in ("deal", "call")]
    times = {o.get("start", o.get("at")) for o in journal[:cut + 1]}
    assert table.reheard.dropped == sum(1 for _, u in HEARD if u.end >= since and u.start in times)
    table.speaker.close()
    assert text.getvalue().count("wins one card") == wins, text.getvalue()


def test_without_rehearing_the_same_audio_would_be_judged_again(whole):
    kept = whole[:whole.index(next(x for x in whole if '"type":"round"' in x)) + 1]
    log = parse_lines(kept)
    journal = [json.loads(line) for line in kept]
    table, _ = _table(journal, history=list(log.events))
    _run(table)
    assert len(journal) > len(whole)       # the 7D deal not dealt again, noted; bob's call late


def _deck_game(journal, since=0.0, history=None, dealt=(), journaled=None):
    from referee.core.table import VirtualDeck

    start = GameStart("stroop", ("ann", "bob"))
    deck = VirtualDeck(7)
    deck.cards = [c for c in deck.cards if str(c) not in dealt]     # as `referee resume` does
    table = Table(start, ["ann", "bob"], journal=journal, deck=deck, write_start=False,
                  history=history, options=TableOptions(rehear=since if history else None))
    if journaled is not None:
        table.journal_missing(journaled)
    t = since
    while t < 30.0:
        t = round(t + 0.1, 6)
        if abs(t - 3.0) < 1e-9:
            table.hear(Utterance("call", "two of clubs", 2.0, 2.9, player="ann"))
        for c in ("ann", "bob"):
            table.hear(Heard(c, t))
    table.finish()
    return table


@pytest.mark.parametrize("cut", [1, 2, 4, 5])
def test_a_virtual_deck_heard_again_deals_as_it_did(cut):
    journal = [encode(GameStart("stroop", ("ann", "bob")))]
    _deck_game(journal)
    whole = [dumps(o) for o in journal]
    assert [json.loads(x)["type"] for x in whole[:6]] == ["game", "deal", "call", "judged", "round", "deal"]
    kept = whole[:cut + 1]
    resumed = [json.loads(x) for x in kept]
    log = parse_lines(kept)
    dealt = {str(e.card) for e in log.events if type(e).__name__ == "Deal"}
    _deck_game(resumed, 0.0, list(log.events), dealt, [json.loads(x) for x in kept])
    assert sorted(dumps(o) for o in resumed) == sorted(whole)
    assert [o for o in resumed if o["type"] == "deal"] == \
        [json.loads(x) for x in whole if json.loads(x)["type"] == "deal"]


def test_a_call_counted_for_nobody_is_not_noted_or_asked_about_twice_when_heard_again():
    """One mic: "who was that?" for a call whose voice was not sure. A resumed recording
    hears it again; the journal holds its note already."""
    from referee.core.events import Unattributed

    def run(table, since=0.0):
        for end, u in HEARD[:3]:
            if u.end >= since:
                table.hear(u)
        if since <= 5.5:
            table.hear(Unattributed("call", "two of hearts", 5.0, 5.5))
        for c in CHANNELS:
            table.hear(Heard(c, 6.0))

    journal = [encode(START)]
    table, text = _table(journal)
    run(table)
    whole = [dumps(o) for o in journal]
    notes = [o for o in journal if o["type"] == "note"]
    assert len(notes) == 1 and "two of hearts" in notes[0]["text"]
    table.speaker.close()
    assert text.getvalue().count("Who was that") == 1

    kept = [json.loads(x) for x in whole]
    again = [json.loads(x) for x in whole]
    table, text = _table(again, history=list(parse_lines(whole).events),
                         options=TableOptions(rehear=0.0))
    table.journal_missing(kept)
    run(table)
    assert [o for o in again if o["type"] == "note"] == notes, again
    table.speaker.close()
    assert "Who was that" not in text.getvalue()
