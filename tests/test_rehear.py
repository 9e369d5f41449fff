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
#: what the mics hear: 7D dealt, bob miscalls, ann wins; 4S dealt, bob wins
HEARD = [(0.5, Utterance("call", "seven of diamonds", 0.5, 1.5, player=None)),
         (3.6, Utterance("call", "queen of hearts", 2.5, 3.6, player="bob")),
         (4.75, Utterance("call", "two of clubs", 3.8, 4.75, player="ann")),
         (6.9, Utterance("call", "four of spades", 6.0, 6.9, player=None)),
         (9.0, Utterance("call", "nine of hearts", 8.0, 9.0, player="bob"))]


def _run(table, since=0.0):
    """Hear the game from ``since`` seconds on, each event once every mic has heard to
    its end, then the rest of the recording."""
    t = since
    for end, u in HEARD:
        if u.end >= since:
            table.hear(u)
        while t < end + 0.5:
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


@pytest.mark.parametrize("cut, says", [
    (2, "Ann wins"),     # bob's call journaled, not judged
    (9, "Bob wins"),     # round 2's call journaled, not judged
    (10, "Bob wins"),    # ... and judged: the round is decided after the journal's last time
    (11, None),          # ... and the round decided and said: not journaled or said again
])
def test_the_game_heard_again_from_its_start_is_journaled_once(whole, cut, says):
    kept = whole[:cut + 1]
    journal = [json.loads(line) for line in kept]
    table, text = _table(journal, history=list(parse_lines(kept).events),
                         options=TableOptions(rehear=True))
    table.journal_missing([json.loads(line) for line in kept])
    _run(table)                    # heard again from the start: more than resume hears again
    assert sorted(dumps(o) for o in journal) == sorted(whole)
    assert [o for o in journal if o["type"] in ("deal", "call")] == \
        [json.loads(x) for x in whole if json.loads(x)["type"] in ("deal", "call")]
    assert table.reheard.dropped == sum(1 for x in kept if json.loads(x)["type"] in ("deal", "call"))
    table.speaker.close()
    said = text.getvalue()
    assert ("Ann wins" in said) == (says == "Ann wins") and ("Bob wins" in said) == (says is not None), said


def test_without_rehearing_the_same_audio_would_be_judged_again(whole):
    kept = whole[:whole.index(next(x for x in whole if '"type":"round"' in x)) + 1]
    log = parse_lines(kept)
    journal = [json.loads(line) for line in kept]
    table, _ = _table(journal, history=list(log.events))
    _run(table)
    assert len(journal) > len(whole)       # the 7D deal not dealt again, noted; bob's call late
