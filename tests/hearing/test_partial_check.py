"""The partial-call check on real speech synthesised during the test, by voices it was not
trained on (the benchmark's held-out speakers and accents), alone and in the engine. It tells
a partial call from talk and whole calls better than it tells which partial call it is on a
kind of voice unlike its training voices (flite's and festival's statistical voices), so the
engine keeps the decoder's reading of which one (docs/partial-calls.md)."""

import pytest

from referee.audio.wav import to_int16
from referee.hearing.classifier import ClassifierError, PhraseClassifier
from referee.hearing.engine import EngineError, PocketSphinx
from referee.hearing.grammar import Grammar
from referee.hearing.partial_check import PartialCheck
from speech import corpus, pad

PARTIAL = {
    "spades, New York": "espeak:en-us-nyc+m7|spades",
    "diamonds, New York": "espeak:en-us-nyc+m7|diamonds",
    "jack of, Scottish": "espeak:en-gb-scotland+m2|jack of",
    "jack of, Caribbean": "espeak:en-029+f4|jack of",
    "seven, Caribbean": "espeak:en-029+f4|seven",
    "queen, flite": "flite:slt|queen",
    "eight, festival": "festival:cmu_us_slt_arctic_hts|eight",
}
NO_PARTIAL = {
    "I saw the queen": "flite:awb|I saw the queen",
    "diamonds are trumps": "espeak:en-029+f4|diamonds are trumps",
    "nine o'clock": "flite:slt|nine o'clock",
    "a whole call": "festival:cmu_us_slt_arctic_hts|queen of hearts",
}


@pytest.fixture(scope="session")
def check():
    return PartialCheck.load()


@pytest.fixture(scope="session")
def speech(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("partials"), {**PARTIAL, **NO_PARTIAL})


def _said(name):
    return {**PARTIAL, **NO_PARTIAL}[name].split("|")[1]


@pytest.mark.parametrize("name", PARTIAL)
def test_it_hears_a_partial_call(check, speech, name):
    best, q = check.heard(to_int16(pad(speech[name], 0.3, 0.3)))
    assert q >= 0.9, (best, q)


@pytest.mark.parametrize("name", [n for n in PARTIAL if "espeak" in PARTIAL[n]])
def test_it_names_the_partial_call_said_by_voices_of_a_kind_it_trained_on(check, speech, name):
    assert check.heard(to_int16(pad(speech[name], 0.3, 0.3)))[0] == _said(name)


@pytest.mark.parametrize("name", NO_PARTIAL)
def test_talk_and_whole_calls_are_no_partial_call(check, speech, name):
    best, q = check.heard(to_int16(pad(speech[name], 0.3, 0.3)))
    assert q < 0.2, (best, q)


def test_a_file_that_is_no_partial_check_is_named(tmp_path):
    with pytest.raises(ClassifierError, match="phrases.npz: not a partial-call check"):
        PartialCheck.load(PhraseClassifier.load().path)
    with pytest.raises(ClassifierError, match="gone.npz: no partial-call check there"):
        PartialCheck.load(tmp_path / "gone.npz")
    with pytest.raises(EngineError, match="phrases.npz: not a partial-call check"):
        PocketSphinx(partials=str(PhraseClassifier.load().path))


def test_only_an_engine_that_listens_for_partial_calls_loads_it():
    assert "partial-call check" in PocketSphinx().description
    assert PocketSphinx(partials=False).partials is None
    goop = Grammar.load().subset(["shout", "command", "number"])
    assert PocketSphinx(grammar=goop).partials is None


def _heard(engine, x):
    s = engine.stream()
    return [(u.kind, u.said) for u in s.feed(to_int16(pad(x, 0.5, 0.8))) + s.close()
            if u.kind != "unknown"]


# Fresh engines: a decoder's noise estimate runs on from one utterance to the next.
@pytest.mark.parametrize("name", [n for n in PARTIAL if "espeak" in PARTIAL[n]])
def test_the_engine_hears_partial_calls_the_decoder_alone_missed(speech, name):
    assert _heard(PocketSphinx(partials=False), speech[name]) == [], "heard without the check"
    got = _heard(PocketSphinx(), speech[name])
    assert [k for k, _ in got] == ["partial"] and got[0][1].split()[0] == _said(name).split()[0]


@pytest.mark.parametrize("name", NO_PARTIAL)
def test_the_engine_makes_no_partial_call_of_talk(speech, name):
    assert "partial" not in [k for k, _ in _heard(PocketSphinx(), speech[name])]
