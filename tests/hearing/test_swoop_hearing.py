"""Hearing Swoop: totals listened for only while reports are asked for (the recogniser's search
follows the table), on real speech synthesised during the test."""

import pytest

from referee.audio.wav import to_int16
from referee.core.games.swoop import PLAY_KINDS, REPORT_KINDS
from referee.hearing.engine import EngineError, PocketSphinx
from referee.hearing.grammar import Grammar
from speech import corpus, pad

SAID = {
    "four eights": "espeak:en-029+f4|four eights",
    "forty two": "espeak:en-gb+f2|forty two",
}


@pytest.fixture(scope="session")
def speech(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("swoop"), SAID)


def _heard(engine, x):
    s = engine.stream()
    return [(u.kind, u.said) for u in s.feed(to_int16(pad(x, 0.5, 0.8))) + s.close()
            if u.kind != "unknown"]


# The decoder alone (no play check): what its search hears is what is tested.
@pytest.fixture
def decoder():
    return PocketSphinx(grammar=Grammar.load("swoop"), classifier=False)


def test_a_play_is_not_read_as_a_total_while_none_is_asked_for(decoder, speech):
    assert _heard(decoder, speech["four eights"]) == [("number", "forty eight")], \
        "heard right with totals listened for: pick another"
    decoder.listen_for(PLAY_KINDS)
    assert _heard(decoder, speech["four eights"]) == [("call", "four eights")]


def test_totals_come_and_go_with_the_reports(decoder, speech):
    decoder.listen_for(REPORT_KINDS)
    assert _heard(decoder, speech["forty two"]) == [("number", "forty two")]
    decoder.listen_for(PLAY_KINDS)
    assert all(kind != "number" for kind, _ in _heard(decoder, speech["forty two"]))
    decoder.listen_for(REPORT_KINDS)            # the search made before is used again
    assert _heard(decoder, speech["forty two"]) == [("number", "forty two")]
    decoder.listen_for(None)
    assert decoder.hearing is None
    assert _heard(decoder, speech["forty two"]) == [("number", "forty two")]


def test_kinds_the_grammar_lacks(decoder):
    decoder.listen_for({"call", "command", "number", "shout"})   # no shouts in Swoop: all it has
    assert decoder.hearing is None
    with pytest.raises(EngineError, match="'swoop' has no phrases of the kinds bid, shout"):
        decoder.listen_for({"shout", "bid"})
