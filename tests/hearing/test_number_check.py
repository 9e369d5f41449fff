"""The number check on real speech synthesised during the test, by voices it was not trained on
(the benchmark's held-out speakers and accents), alone and in the engine with the Goop count's
grammar. It is weaker on a kind of voice unlike its training voices (festival's and flite's
statistical voices; docs/model-history.md), so these are voices where it helps: each engine
test checks that PocketSphinx alone gets the example wrong."""

import pytest

from referee.audio.wav import to_int16
from referee.hearing.classifier import ClassifierError, PhraseClassifier
from referee.hearing.engine import EngineError, PocketSphinx
from referee.hearing.grammar import Grammar
from referee.hearing.number_check import NumberCheck
from speech import corpus, pad

ANSWERS = {
    "14": "espeak:en-us-nyc+m7|fourteen",
    "40": "espeak:en-gb-scotland+m2|forty",
    "12": "espeak:en-gb-scotland+m2|twelve",
    "13": "espeak:en-gb-scotland+m2|thirteen",
    "19": "espeak:en-gb-x-rp+m7|nineteen",
    "30": "flite:awb|thirty",
}
TALK = {
    "kids": "espeak:en-029+f4|she has three kids and a dog",
    "minutes": "espeak:en-gb-x-rp+m7|we waited for ten minutes or so",
}
CORRECTION = {"no 14": "espeak:en-us-nyc+m7|no fourteen"}


@pytest.fixture(scope="session")
def check():
    return NumberCheck.load()


@pytest.fixture(scope="session")
def speech(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("numbers"), {**ANSWERS, **TALK, **CORRECTION})


def _top(p):
    return sorted(p.items(), key=lambda kv: -kv[1])[:3]


@pytest.mark.parametrize("said", ANSWERS)
def test_it_hears_the_number_of_an_answer(check, speech, said):
    p = check.probabilities(to_int16(pad(speech[said], 0.3, 0.3)))
    assert max(p, key=p.get) == int(said), _top(p)


@pytest.mark.parametrize("name", TALK)
def test_talk_with_a_number_word_is_no_answer(check, speech, name):
    p = check.probabilities(to_int16(pad(speech[name], 0.3, 0.3)))
    assert max(p, key=p.get) is None, _top(p)


def test_a_file_that_is_no_number_check_is_named(tmp_path):
    with pytest.raises(ClassifierError, match="phrases.npz: not a number check"):
        NumberCheck.load(PhraseClassifier.load().path)
    with pytest.raises(ClassifierError, match="gone.npz: no number check there"):
        NumberCheck.load(tmp_path / "gone.npz")
    with pytest.raises(EngineError, match="phrases.npz: not a number check"):
        PocketSphinx(grammar=Grammar.load().subset(["number"]),
                     numbers=str(PhraseClassifier.load().path))


COUNT = ["shout", "command", "number"]
"""What `referee play goop` listens for: shouts, commands and the count's numbers."""


# A fresh engine for each test: a decoder's noise estimate runs on from one utterance to the
# next, so what one heard before would change what it hears.
@pytest.fixture
def goop_count():
    return PocketSphinx(grammar=Grammar.load().subset(COUNT))


@pytest.fixture
def unchecked():
    return PocketSphinx(grammar=Grammar.load().subset(COUNT), numbers=False)


def test_only_the_count_loads_it(goop_count, unchecked):
    assert goop_count.numbers is not None and "number check" in goop_count.description
    assert unchecked.numbers is None
    assert PocketSphinx().numbers is None  # cards, shouts, commands: no numbers
    # Swoop's totals (0-199) are not the count's
    assert PocketSphinx(grammar=Grammar.load("swoop")).numbers is None


def _heard(engine, x):
    s = engine.stream()
    return [u.said for u in s.feed(to_int16(pad(x, 0.5, 0.8))) + s.close()
            if u.kind != "unknown"]


@pytest.mark.parametrize("said", [*ANSWERS, *CORRECTION])
def test_the_count_hears_numbers_that_sound_alike(goop_count, unchecked, speech, said):
    assert _heard(unchecked, speech[said]) != [said], "right without the check: pick another"
    assert _heard(goop_count, speech[said]) == [said]


@pytest.mark.parametrize("name", TALK)
def test_talk_is_no_number_with_the_check(goop_count, unchecked, speech, name):
    assert _heard(unchecked, speech[name]), "no number without the check: pick another"
    assert _heard(goop_count, speech[name]) == []


@pytest.fixture(scope="session")
def babble_answers(tmp_path_factory):
    """Three answers of the numbers benchmark's tuning voices in babble at 20 dB, built as
    the benchmark builds them: the decoder reads each with a short "no" out of the babble
    before it, whose length no word has."""
    from referee.lab.bench import corpus, numbers_bench

    items = [i for i in numbers_bench.plan(1) if i.split == "tuning" and i.snr == "20"
             and i.noise == "babble" and i.text in ("twenty one", "twenty", "forty seven")]
    d = tmp_path_factory.mktemp("babble-answers")
    return d, corpus.build(items, d, 1)


def test_a_number_the_check_is_sure_of_stands_whatever_the_decoder_s_word_times(
        babble_answers):
    from referee.core.games.goop import COUNT_KINDS
    from referee.core.numbers import parse_number
    from referee.lab.bench.run import measure

    d, items = babble_answers
    assert len(items) == 3
    for sure in (None, 0.5):
        engine = PocketSphinx(grammar=Grammar.load().subset(COUNT), number_sure=sure)
        engine.listen_for(COUNT_KINDS)
        for item in items:
            heard = [h for h in measure(engine, item, d)["heard"] if h["kind"] != "unknown"]
            if sure is None:
                assert heard == [], "heard without the sure number: pick another"
            else:
                assert [parse_number(h["said"]).value for h in heard] == [int(item.expect)]


@pytest.fixture(scope="session")
def noisy_answers(tmp_path_factory):
    """Four answers of the numbers benchmark's tuning voices in noise at 10 and 5 dB, built as
    the benchmark builds them, by id: in the first three the babble holds the segment's loud
    part open for longer than an answer may last; the fourth the decoder reads as a command
    it then rejects ("referee pause" for "thirty six left", in white noise)."""
    from referee.lab.bench import corpus, numbers_bench

    ids = {"numbers-tuning-0002", "numbers-tuning-0060", "numbers-tuning-0082",
           "numbers-tuning-0177"}
    items = [i for i in numbers_bench.plan(1) if i.id in ids]
    d = tmp_path_factory.mktemp("noisy-answers")
    return d, {i.id: i for i in corpus.build(items, d, 1)}


def _count_heard(item, d) -> list[int]:
    from referee.core.games.goop import COUNT_KINDS
    from referee.core.numbers import parse_number
    from referee.lab.bench.run import measure

    engine = PocketSphinx(grammar=Grammar.load().subset(COUNT))
    engine.listen_for(COUNT_KINDS)
    return [parse_number(h["said"]).value for h in measure(engine, item, d)["heard"]
            if h["kind"] != "unknown"]


def test_a_sure_number_in_noise_stands_over_the_decoder_s_words(noisy_answers, monkeypatch):
    from referee.hearing.engine.checked_readings import CheckedReadings

    over, tried = CheckedReadings._number_over, []

    def spy(self, seg, said, p, a=None, b=None):
        out = over(self, seg, said, p, a, b)
        tried.append((a is None, said, bool(out)))     # (over the loud part, said, stood)
        return out

    monkeypatch.setattr(CheckedReadings, "_number_over", spy)
    d, items = noisy_answers
    for key in ("numbers-tuning-0002", "numbers-tuning-0060", "numbers-tuning-0082"):
        item = items[key]
        tried.clear()
        assert _count_heard(item, d) == [int(item.expect)], tried
        # over the segment's loud part it could not stand: the decoder's words placed it
        over_loud_part = [ok for whole, _, ok in tried if whole]
        assert over_loud_part and not any(over_loud_part), (item.text, tried)
        assert any(ok for whole, _, ok in tried if not whole), tried


def test_a_command_the_decoder_rejects_during_the_count_leaves_the_number_to_the_check(
        noisy_answers, monkeypatch):
    d, items = noisy_answers
    item = items["numbers-tuning-0177"]
    read, decode = [], PocketSphinx.decode

    def spy(self, *a, **k):
        out = decode(self, *a, **k)
        read.append((out[0], out[2]))
        return out

    monkeypatch.setattr(PocketSphinx, "decode", spy)
    heard = _count_heard(item, d)
    assert ("referee pause", 0.0) in read, read      # the decoder's reading, rejected
    assert heard == [int(item.expect)], read
