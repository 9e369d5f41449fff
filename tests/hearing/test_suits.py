"""The suit check on real speech synthesised during the test, by voices it was
not trained on (the benchmark's held-out speakers and accents), alone and in
the engine."""

import pytest

from referee.audio.wav import to_int16
from referee.hearing.classifier import ClassifierError, PhraseClassifier
from referee.hearing.engine import EngineError, PocketSphinx
from referee.hearing.suits import SUITS, SuitCheck
from speech import corpus, pad, recogniser, speech_bounds

CALLS = {
    "qh": "flite:slt|queen of hearts",
    "7c": "festival:cmu_us_slt_arctic_hts|seven of clubs",
    "2d": "flite:awb|two of diamonds",
    "ks": "espeak:en-gb-scotland+m2|king of spades",
    "10h": "espeak:en-029+f4|ten of hearts",
}
NO_SUIT = {
    "six of one": "flite:awb|six of one",
    "two of them": "flite:awb|two of them",
    "two of them, Caribbean": "espeak:en-029+f4|two of them",
    "two of them, Scottish": "espeak:en-gb-scotland+m2|two of them",
    "four of my friends": "flite:slt|four of my friends",
    "seven of us": "espeak:en-029+f4|seven of us",
}


@pytest.fixture(scope="session")
def check():
    return SuitCheck.load()


@pytest.fixture(scope="session")
def speech(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("suits"), {**CALLS, **NO_SUIT})


def _end(x):
    """A call's samples with a little silence round it, and where it ends."""
    y = to_int16(pad(x, 0.3, 0.3))
    return y, speech_bounds(y)[1]


@pytest.mark.parametrize("name", CALLS)
def test_it_hears_the_suit_word_that_ends_a_call(check, speech, name):
    x, end = _end(speech[name])
    said = CALLS[name].split("|")[1]
    p = check.probabilities(x, end)
    assert max(p, key=p.get) == said.split()[-1], p
    assert check.probability(said, x, end) >= 0.5


@pytest.mark.parametrize("text", NO_SUIT)
def test_talk_that_ends_with_no_suit_word_is_none(check, speech, text):
    x, end = _end(speech[text])
    p = check.probabilities(x, end)
    assert max(p.get(s, 0.0) for s in SUITS) < 0.1, p


def test_a_file_that_is_no_suit_check_is_named(tmp_path):
    with pytest.raises(ClassifierError, match="phrases.npz: not a suit check"):
        SuitCheck.load(PhraseClassifier.load().path)
    with pytest.raises(ClassifierError, match="gone.npz: no suit check there"):
        SuitCheck.load(tmp_path / "gone.npz")
    with pytest.raises(EngineError, match="phrases.npz: not a suit check"):
        PocketSphinx(suits=str(PhraseClassifier.load().path))


def test_it_works_beside_the_classifier_or_not_at_all():
    with_it = recogniser("pocketsphinx")
    assert with_it.suits is not None and "suit check" in with_it.description
    assert PocketSphinx(suits=False).suits is None
    assert PocketSphinx(classifier=False).suits is None


@pytest.fixture(scope="session")
def unchecked():
    return PocketSphinx(suits=False, classifier=recogniser("pocketsphinx").classifier)


@pytest.mark.parametrize("text", ["six of one", "two of them", "two of them, Caribbean"])
def test_talk_taken_for_a_call_is_no_call_with_the_check(speech, unchecked, text):
    # In quiet, by voices never trained on: without the check each of these
    # is a card ("six of clubs", "two of diamonds").
    x = to_int16(pad(speech[text], 0.5, 0.8))

    def calls(engine):
        s = engine.stream()
        return [u.said for u in s.feed(x) + s.close() if u.kind == "call"]

    assert calls(unchecked), "no longer a call without the check: pick another example"
    assert calls(recogniser("pocketsphinx")) == []


def test_calls_are_heard_with_the_check_in_the_engine(speech):
    for name, spec in CALLS.items():
        s = recogniser("pocketsphinx").stream()
        x = to_int16(pad(speech[name], 0.5, 0.8))
        got = [u.said for u in s.feed(x) + s.close() if u.kind == "call"]
        assert got == [spec.split("|")[1]], (name, got)
