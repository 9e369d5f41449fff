"""The acoustic checks on a decoded segment and the spectral subtraction, on
real signals: synthesised speech, a tone, noise and card-table clatter."""

import numpy as np
import pytest

from referee.lab import mixing
from referee.hearing import checks, denoise
from referee.hearing.engine import MIN_VOICED_RUN
from speech import corpus

RATE = 16000


@pytest.fixture(scope="module")
def goop(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("checks"), {"goop": "flite:slt|goop"})["goop"]


def vowel(f0: float, seconds: float) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    # A few harmonics, like a vowel.
    return sum(np.sin(2 * np.pi * f0 * k * t) / k for k in (1, 2, 3)) * 8000


def test_a_vowel_like_tone_is_voiced_and_noise_is_not():
    rng = np.random.default_rng(3)
    assert checks.voiced_run(vowel(140.0, 0.3), RATE) >= 20
    assert checks.voiced_run(mixing.white(RATE // 2, rng) * 8000, RATE) <= 2
    assert checks.voiced_run(np.zeros(RATE // 2), RATE) == 0
    assert checks.voiced_run(np.zeros(100), RATE) == 0


def test_spoken_goop_is_voiced_and_clatter_is_not(goop):
    assert checks.voiced_run(goop * 32767, RATE) >= 10
    for seed in range(20):
        x = mixing.clatter(RATE, mixing.rng_for(seed, "clatter")) * 20000
        assert checks.voiced_run(x, RATE) < MIN_VOICED_RUN, seed


def test_the_voiceless_run_is_the_shuffle_after_a_voice_however_it_is_fed(goop):
    shuffle = mixing.riffle(RATE, mixing.rng_for(2, "riffle"), 45.0)[:RATE] * 4000
    voice = goop * 32767
    x = np.concatenate([np.zeros(RATE // 4), voice, shuffle])
    whole = checks.VoicelessRun(RATE)
    whole.feed(x)
    # it ends where the last 40 ms window of the goop's voice ends (the last
    # of three voiced steps in a row or more)
    v = checks.voiced(x, RATE)
    last = max(k for k in range(2, len(v)) if v[k] and v[k - 1] and v[k - 2])
    assert whole.run == len(x) - (last * RATE // 100 + int(0.04 * RATE))
    assert RATE <= whole.run <= RATE + len(voice) // 2  # the shuffle and the goop's tail
    for block in (1, 160, 480, 777):
        run = checks.VoicelessRun(RATE)
        for i in range(0, len(x), block * 37):
            run.feed(x[i:i + block * 37])
        assert run.run == whole.run, block
    # no voice yet: no run at all, however long the shuffle, though its
    # clicks have a pitch for a step now and then
    assert 0 < checks.voiced_run(shuffle, RATE) < 3
    shuffled = checks.VoicelessRun(RATE)
    shuffled.feed(shuffle)
    assert shuffled.run == 0


def test_edge_words_may_stretch_over_noise_but_not_over_speech():
    long_last = [("six", 0.3, 0.6), ("of", 0.6, 0.7), ("clubs", 0.7, 2.5)]
    # The loud part ends at 1.2 s: the rest of "clubs" is the noise after it.
    assert checks.plausible(long_last, 0.3, 1.2)
    assert not checks.plausible(long_last)
    assert not checks.plausible(long_last, 0.3, 2.5)
    long_first = [("king", 0.0, 2.0), ("of", 2.0, 2.1), ("hearts", 2.1, 2.6)]
    assert checks.plausible(long_first, 1.5, 2.6)
    assert not checks.plausible(long_first, 0.5, 2.6)
    # A word inside the phrase is never excused.
    assert not checks.plausible([("six", 0.3, 0.6), ("of", 0.6, 2.0), ("clubs", 2.0, 2.5)],
                                0.3, 2.5)
    assert not checks.plausible([("six", 0.3, 0.32), ("of", 0.32, 0.4), ("clubs", 0.4, 0.9)])
    assert checks.plausible([("six", 0.3, 0.6), ("of", 0.6, 0.63), ("clubs", 0.63, 0.9)])


def test_trim_and_speech_outside_find_the_loud_part():
    x = np.concatenate([np.zeros(RATE // 2), vowel(150.0, 0.5), np.zeros(RATE // 2),
                        vowel(200.0, 0.3), np.zeros(RATE // 4)])
    a, b = checks.trim(x, RATE, 0.2, 1.1)
    assert a == pytest.approx(0.5, abs=0.02) and b == pytest.approx(1.0, abs=0.02)
    # The second tone lies outside the phrase: 0.3 s of it.
    assert checks.speech_outside(x, RATE, a, b) == pytest.approx(0.3, abs=0.03)
    assert checks.speech_outside(x, RATE, 0.5, 1.8) == 0.0


def test_clatter_outside_the_phrase_is_not_speech_but_a_voice_is():
    clatter = mixing.clatter(RATE // 2, mixing.rng_for(4, "clatter")) * 20000
    phrase = vowel(150.0, 0.5)
    gap = np.zeros(RATE // 2)
    x = np.concatenate([gap, phrase, gap, clatter, gap])
    a, b = checks.trim(x, RATE, 0.2, 1.1)
    loud = checks.speech_outside(x, RATE, a, b, voiced_only=False)
    assert loud >= 0.05
    assert checks.speech_outside(x, RATE, a, b) == 0.0
    # a voice with a hiss (an unvoiced consonant) straight after it, both
    # outside the phrase: all of it may be speech
    hiss = mixing.white(RATE // 20, np.random.default_rng(1)) * 6000
    y = np.concatenate([gap, phrase, gap, vowel(200.0, 0.3), hiss, gap])
    a, b = checks.trim(y, RATE, 0.2, 1.1)
    assert checks.speech_outside(y, RATE, a, b) == pytest.approx(
        checks.speech_outside(y, RATE, a, b, voiced_only=False), abs=0.011)
    assert checks.speech_outside(y, RATE, a, b) >= 0.3


def test_the_speech_span_leaves_out_clatter_that_keeps_the_loud_part_going():
    # a voice, then clatter as loud up to where a segment is cut: the loud part runs to the
    # cut, the speech (voiced steps and 50 ms either side) is the voice
    clatter = mixing.clatter(RATE // 2, mixing.rng_for(4, "clatter")) * 20000
    gap = np.zeros(RATE // 2)
    x = np.concatenate([gap, vowel(150.0, 0.4), clatter])
    a, b = checks.trim(x, RATE, 0.3, len(x) / RATE)
    assert b - a >= 0.8
    assert checks.speech_span(x, RATE, a, b) == pytest.approx(0.45, abs=0.06)
    # with nothing voiced (hiss), the whole span
    hiss = mixing.white(RATE // 2, np.random.default_rng(1)) * 6000
    assert checks.speech_span(hiss, RATE, 0.1, 0.4) == pytest.approx(0.3)


def test_subtraction_takes_out_steady_noise_and_keeps_the_tone():
    rng = np.random.default_rng(7)
    noise = mixing.pink(3 * RATE, rng) * 2000
    signal = np.concatenate([np.zeros(RATE), vowel(150.0, 1.0), np.zeros(RATE)])
    quiet, loud = slice(RATE // 2, RATE), slice(RATE + 800, 2 * RATE - 800)
    for alpha, drop in ((1.0, 2), (2.0, 4)):
        out = denoise.subtract(signal + noise, noise[:RATE // 4], alpha)
        assert len(out) == len(signal)
        # The noise alone drops by 3 dB (6 dB over-subtracting twice) ...
        assert np.mean(out[quiet] ** 2) < np.mean(noise[quiet] ** 2) / drop
        # ... while the tone keeps most of its power.
        assert np.mean(out[loud] ** 2) > 0.7 * np.mean(signal[loud] ** 2)


def test_subtraction_leaves_audio_alone_without_a_noise_estimate():
    x = vowel(150.0, 0.5)
    assert np.allclose(denoise.subtract(x, np.zeros(RATE // 4)), x)
    assert np.array_equal(denoise.subtract(x, np.zeros(10)), x)  # shorter than a frame


def test_voiced_groups_part_words_at_a_pause_but_not_within_a_call(tmp_path):
    s = corpus(tmp_path, {"a": "espeak:en-us|five", "b": "espeak:en-us|six of spades"})
    x = np.concatenate([np.zeros(4000), s["a"], np.zeros(int(0.5 * 16000)), s["b"]])
    groups = checks.voiced_groups(x, 16000, 0.25)
    assert len(groups) == 2
    assert groups[0][1] < (4000 + len(s["a"])) / 16000 + 0.05
    assert groups[1][0] > (4000 + len(s["a"])) / 16000 + 0.45
    assert checks.voiced_groups(np.zeros(16000), 16000, 0.25) == []
