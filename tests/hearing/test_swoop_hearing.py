"""Hearing Swoop: totals listened for only while reports are asked for (the recogniser's search
follows the table), and Swoop's play check beside the decoder, on real speech synthesised
during the test by voices the check was not trained on (the benchmark's held-out speakers)."""

import pytest

from referee.audio.wav import to_int16
from referee.core.games.swoop import PLAY_KINDS, REPORT_KINDS
from referee.hearing import play_check
from referee.hearing.classifier import ClassifierError, PhraseClassifier
from referee.hearing.engine import EngineError, PocketSphinx
from referee.hearing.grammar import Grammar
from speech import corpus, pad

SAID = {
    "four eights": "espeak:en-029+f4|four eights",
    "forty two": "espeak:en-gb+f2|forty two",
}
#: Plays the decoder alone misses or misreads, by held-out voices.
PLAYS = {
    "jack": "espeak:en-gb-scotland+m2|jack",
    "two queens": "espeak:en-gb-scotland+m2|two queens",
    "ace": "flite:rms|ace",
    "three nines": "espeak:en-us-nyc+m7|three nines",
    "seven": "espeak:en-029+f4|a seven",
}
#: A total the play check alone takes for a play (it knows no totals).
TOTAL = {"thirteen": "flite:awb|thirteen"}
#: Table talk the decoder alone takes for a play ("blind eight").
TALK = {
    "date": "espeak:en-gb-scotland+m2|a blind date",
    "date-rp": "espeak:en-gb-x-rp+f1|a blind date",
}


@pytest.fixture(scope="session")
def speech(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("swoop"), {**SAID, **PLAYS, **TALK, **TOTAL})


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


# A fresh engine per test, listening as in play: a decoder's noise estimate runs on from one
# utterance to the next.
@pytest.fixture
def checked():
    e = PocketSphinx(grammar=Grammar.load("swoop"))
    e.listen_for(PLAY_KINDS)
    return e


@pytest.fixture
def unchecked():
    e = PocketSphinx(grammar=Grammar.load("swoop"), classifier=False)
    e.listen_for(PLAY_KINDS)
    return e


def test_swoop_hears_with_its_play_check_and_no_card_checks(checked):
    assert checked.classifier.path == play_check.MODEL_PATH
    assert "plays.npz" in checked.description
    assert checked.suits is None and checked.numbers is None and checked.partials is None
    assert checked.backing.early is None and not checked.backing.decide_at_pause
    table = PocketSphinx()
    assert table.classifier.path != play_check.MODEL_PATH and table.backing.early is not None


@pytest.mark.parametrize("said", PLAYS)
def test_the_play_check_hears_plays_the_decoder_alone_does_not(checked, unchecked, speech, said):
    assert _heard(unchecked, speech[said]) != [("call", said)], "right without the check"
    assert _heard(checked, speech[said]) == [("call", said)]


@pytest.mark.parametrize("name", TALK)
def test_talk_the_decoder_takes_for_a_play_is_none_with_the_check(checked, unchecked, speech,
                                                                    name):
    assert _heard(unchecked, speech[name]) == [("call", "blind eight")], "no play without it"
    assert _heard(checked, speech[name]) == []


def test_a_file_that_is_no_play_check_is_named(tmp_path):
    with pytest.raises(ClassifierError, match="phrases.npz: not a Swoop play check"):
        play_check.load(PhraseClassifier.load().path)
    with pytest.raises(EngineError, match="gone.npz: no Swoop play check there"):
        PocketSphinx(grammar=Grammar.load("swoop"), classifier=str(tmp_path / "gone.npz"))


def test_while_totals_are_listened_for_the_play_check_does_not_decide_alone(checked, speech):
    # in play, the check decides alone, and takes the total for a play
    assert _heard(checked, speech["thirteen"]) == [("call", "four kings")], "pick another"
    checked.listen_for(REPORT_KINDS)
    assert _heard(checked, speech["thirteen"]) == [("number", "thirteen")]
