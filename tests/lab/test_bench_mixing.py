"""The benchmark corpus mixer: the SNR it claims is the SNR in the file, and
the same seed gives the same corpus."""

from __future__ import annotations

import numpy as np
import pytest

from referee.audio.wav import to_int16
from referee.lab import mixing, sentences, synth
from referee.lab.bench import corpus
from referee.lab.mixing import RATE


def _measure_snr_from_mix(audio, clean, start, end):
    """Independent measure: find the clean speech in the mix by least squares,
    take the rest as noise."""
    gain = float(audio @ clean) / float(clean @ clean)
    speech = gain * clean
    noise = audio - speech
    return 10 * np.log10(np.mean(speech[start:end] ** 2) / np.mean(noise ** 2))


@pytest.fixture(scope="module")
def spoken():
    """Real speech: espeak-ng saying a card."""
    return synth.synthesize(corpus.VOICES[0], "queen of hearts")


@pytest.mark.parametrize("kind", ["white", "pink", "clatter", "babble"])
@pytest.mark.parametrize("snr", [20.0, 10.0, 5.0])
def test_mixed_snr_is_what_it_claims(spoken, kind, snr):
    rng = mixing.rng_for(7, f"{kind}/{snr}")
    lead, trail = int(0.7 * RATE), int(1.0 * RATE)
    n = lead + len(spoken) + trail
    pool = [spoken[::-1], np.sin(np.arange(RATE) / 9.0)]  # anything speech-like will do
    noise = mixing.make_noise(kind, n, rng, pool)
    m = mixing.mix(spoken, noise, snr, lead=lead, trail=trail, peak_dbfs=-6)
    # What is written to disk: 16-bit samples.
    audio = to_int16(m.audio).astype(np.float64) / 32767.0
    placed = np.zeros(n)
    placed[lead: lead + len(spoken)] = spoken
    assert _measure_snr_from_mix(audio, placed, m.speech_start, m.speech_end) == \
        pytest.approx(snr, abs=0.3)
    assert mixing.measured_snr(m.speech, m.noise, m.speech_start, m.speech_end) == \
        pytest.approx(snr, abs=0.01)


def test_loud_mix_is_turned_down_not_clipped(spoken):
    rng = mixing.rng_for(1, "loud")
    n = len(spoken) + 2 * RATE
    m = mixing.mix(spoken, mixing.white(n, rng), 5.0, lead=RATE, trail=RATE, peak_dbfs=-1)
    assert np.max(np.abs(m.audio)) <= 0.98 + 1e-9
    assert mixing.measured_snr(m.speech, m.noise, m.speech_start, m.speech_end) == \
        pytest.approx(5.0, abs=0.01)


def test_speech_span_is_where_the_speech_was_put(spoken):
    m = mixing.mix(spoken, None, None, lead=8000, trail=16000)
    a, b = mixing.active_span(spoken)
    assert abs(m.speech_start - (8000 + a)) <= 160
    assert abs(m.speech_end - (8000 + b)) <= 160
    assert not m.audio[:8000].any() and not m.audio[-16000:].any()  # digital silence


def test_noise_is_deterministic_in_its_seed():
    pool = [np.sin(np.arange(4000) / 5.0), np.cos(np.arange(3000) / 3.0)]
    for kind in mixing.NOISE_KINDS:
        a = mixing.make_noise(kind, 20000, mixing.rng_for(3, "x"), pool)
        b = mixing.make_noise(kind, 20000, mixing.rng_for(3, "x"), pool)
        c = mixing.make_noise(kind, 20000, mixing.rng_for(4, "x"), pool)
        assert np.array_equal(a, b)
        assert not np.allclose(a, c)
        assert np.mean(a ** 2) == pytest.approx(1.0, rel=1e-6)


def test_pink_noise_falls_3db_per_octave():
    x = mixing.pink(2 ** 16, mixing.rng_for(5, "pink"))
    spec = np.abs(np.fft.rfft(x)) ** 2
    freqs = np.fft.rfftfreq(len(x), 1 / RATE)
    def band(lo):
        return np.mean(spec[(freqs >= lo) & (freqs < 2 * lo)])
    drop = 10 * np.log10(band(250) / band(2000))  # three octaves
    assert drop == pytest.approx(9.0, abs=1.5)


def test_plan_is_deterministic_and_splits_voices():
    a, b = corpus.plan(1), corpus.plan(1)
    assert a == b
    assert corpus.plan(2) != a
    tuning = {i.voice for i in a if i.split == "tuning" and i.voice}
    held = {i.voice for i in a if i.split == "held-out" and i.voice}
    assert tuning and held and not tuning & held
    # Each voice says each card once, spread evenly over the SNR buckets.
    for v in tuning | held:
        calls = [i for i in a if i.voice == v and i.category == "call"]
        assert sorted(i.expect for i in calls) == sorted(
            c.spoken for c in corpus.full_deck())
        assert {s: sum(i.snr == s for i in calls) for s in corpus.SNRS} == \
            {s: 13 for s in corpus.SNRS}
    # Different noise seeds in the two splits.
    assert not {i.seed for i in a if i.split == "tuning"} & \
        {i.seed for i in a if i.split == "held-out"}


def test_build_writes_the_items_and_reuses_them(tmp_path):
    items = [i for i in corpus.plan(1) if i.split == "held-out"]
    few = [items[0], next(i for i in items if i.category == "noise" and i.noise == "pink")]
    built = corpus.build(few, tmp_path)
    for it in built:
        f = tmp_path / it.file
        assert f.exists()
        assert it.duration > 0.5
    speech = built[0]
    assert 0 < speech.speech_start < speech.speech_end < speech.duration
    if speech.snr_measured is not None:
        expected = 50.0 if speech.noise == "room" else float(speech.snr)
        assert speech.snr_measured == pytest.approx(expected, abs=0.05)
    # The same seed gives the same files, byte for byte (TTS and all).
    elsewhere = corpus.build(few, tmp_path / "again")
    for a, b in zip(built, elsewhere):
        assert (tmp_path / a.file).read_bytes() == (tmp_path / "again" / b.file).read_bytes()
    mtime = (tmp_path / built[0].file).stat().st_mtime_ns
    again = corpus.build(few, tmp_path)
    assert again == built
    assert (tmp_path / built[0].file).stat().st_mtime_ns == mtime


def test_each_voice_says_four_sentences_to_the_referee_that_are_no_command():
    from referee.hearing.grammar import Grammar
    items = corpus.plan(1)
    addressed = [i for i in items if i.category == "addressed"]
    grammar = Grammar.load()
    for split in corpus.SPLITS:
        voices = {v.id for v in corpus.VOICES if v.split == split}
        mine = [i for i in addressed if i.split == split]
        assert sorted({i.voice for i in mine}) == sorted(voices)
        assert all(sum(i.voice == v for i in mine) == 4 for v in voices)
    for i in addressed:
        assert i.expect is None and i.text.startswith("referee ")
        assert grammar.match(i.text) is None
    assert not set(sentences.ADDRESSED["tuning"]) & set(sentences.ADDRESSED["held-out"])
    # They come after every other item, so those are as in version 3.
    first = items.index(addressed[0])
    assert all(i.category in ("addressed", "partial", "partial-chatter", "unaddressed")
               for i in items[first:] if i.split == "tuning")


def test_each_voice_says_its_splits_partial_calls_and_talk_with_bare_card_words_last():
    from referee.hearing.grammar import Grammar
    items = corpus.plan(1)
    grammar = Grammar.load().subset(("call", "partial"))
    for split in corpus.SPLITS:
        mine = [i for i in items if i.split == split]
        first = next(k for k, i in enumerate(mine) if i.category == "partial")
        # They come after every other item but the unaddressed talk, so those are as before.
        assert all(i.category in ("partial", "partial-chatter", "unaddressed")
                   for i in mine[first:])
        assert sum(i.category in ("partial", "partial-chatter") for i in mine[first:]) \
            == 18 * sum(v.split == split for v in corpus.VOICES)
    for i in items:
        if i.category == "partial":
            m = grammar.match(i.text)
            assert (m.kind, m.said) == ("partial", i.expect)
        elif i.category == "partial-chatter":
            assert i.expect is None and grammar.match(i.text) is None
    for table in (sentences.PARTIALS, sentences.PARTIAL_CHATTER):
        assert not set(table["tuning"]) & set(table["held-out"])


def test_each_voice_says_its_splits_talk_in_a_commands_words_last_and_it_is_no_command():
    from referee.hearing.engine import DEFAULT_KINDS
    from referee.hearing.grammar import Grammar
    items = corpus.plan(1)
    grammar = Grammar.load().subset(DEFAULT_KINDS)
    for split in corpus.SPLITS:
        mine = [i for i in items if i.split == split]
        first = next(k for k, i in enumerate(mine) if i.category == "unaddressed")
        assert all(i.category == "unaddressed" for i in mine[first:])
        voices = [v.id for v in corpus.VOICES if v.split == split]
        assert sorted(i.voice for i in mine[first:]) == sorted(voices * 4)
        assert {i.snr for i in mine[first:]} == set(corpus.SNRS)
        for i in mine[first:]:
            assert i.expect is None and i.text in sentences.UNADDRESSED[split]
            assert grammar.match(i.text) is None and not i.text.startswith("referee")
    # Commands are said to the referee, in both splits (issue 25).
    assert all(i.text.startswith("referee ") for i in items if i.category == "command")
    assert not set(sentences.UNADDRESSED["tuning"]) & set(sentences.UNADDRESSED["held-out"])


def test_a_development_set_replaces_the_tuning_voices_only():
    # The tuning split's sentences, noises and seeds, said by the set's voices; the
    # held-out items are the benchmark's own, untouched.
    base = corpus.plan(7)
    dev = corpus.plan(7, corpus.voices_for("kept-out"))
    assert [i for i in dev if i.split == "held-out"] == [i for i in base if i.split == "held-out"]
    tuning = [i for i in dev if i.split == "tuning"]
    assert {i.voice for i in tuning if i.voice} == {v.id for v in corpus.DEV_SETS["kept-out"]}
    assert not {v.id for v in corpus.DEV_SETS["kept-out"]} & {v.id for v in corpus.VOICES}
    assert {i.text for i in tuning} <= {i.text for i in base if i.split == "tuning"}
    assert corpus.default_dir(7, "pico").name == f"dev-pico-v{corpus.VERSION}-s7"
    with pytest.raises(corpus.CorpusError, match="no development set 'nope'"):
        corpus.voices_for("nope")


@pytest.mark.skipif(not __import__("shutil").which("pico2wave"),
                    reason="SVOX Pico (Debian non-free libttspico-utils) is not installed")
def test_pico_voices_speak_and_the_low_ones_lower():
    def pitch(x):  # the strongest autocorrelation lag in 60-400 Hz, as a frequency
        x = x - x.mean()
        r = np.correlate(x[:8000], x[:8000], "full")[7999:]
        lo, hi = RATE // 400, RATE // 60
        return RATE / (lo + int(np.argmax(r[lo:hi])))

    us = synth.synthesize(synth.Voice("pico", "en-US", "tuning"), "queen of hearts")
    low = synth.synthesize(synth.Voice("pico", "en-US-low", "tuning"), "queen of hearts")
    assert 0.5 < len(us) / RATE < 3.0
    assert pitch(low) < pitch(us) * 0.85  # 5 semitones down: x 0.75


def test_the_near_miss_set_is_talk_with_card_words_and_no_call():
    from referee.hearing.grammar import Grammar

    items = corpus.plan_for(77, "near-miss")
    assert items == corpus.plan_near_misses(77) != corpus.plan_near_misses(78)
    voices = corpus.DEV_SETS["near-miss"]
    assert len(items) == len(voices) * len(sentences.PROBE_NEAR_MISSES)
    assert {i.voice for i in items} == {v.id for v in voices}
    grammar = Grammar.load()
    for i in items:
        assert i.category == "near-miss" and i.expect is None and i.split == "tuning"
        assert grammar.match(i.text) is None, i.text
    benchmark = {t for ts in sentences.NEAR_MISSES.values() for t in ts}
    assert not set(sentences.PROBE_NEAR_MISSES) & benchmark
    # the hardest conditions are there: each noise at 5 dB
    assert {(i.snr, i.noise) for i in items} >= {("5", n) for n in corpus.NOISE_KINDS}
