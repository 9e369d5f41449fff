"""Cross-talk: calls leak into the neighbours' microphones at -10 to -20 dB;
each call must come out once, for the player who said it."""

import numpy as np
import pytest

from referee.core.events import Utterance
from referee.hearing.crosstalk import OWN_OVER_DB, CrossTalk, attribute
from referee.hearing.transcribe import transcribe_audio
from speech import corpus, recogniser, room_talk

VOICES = {
    "ann-qh": "flite:slt|queen of hearts",
    "bob-7c": "festival:cmu_us_slt_arctic_hts|seven of clubs",
    "cat-goop": "flite:awb|goop",
    "bob-2d": "flite:awb|two of diamonds",
}


@pytest.fixture(scope="session")
def speech(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("xt"), VOICES)


def place(n, x, at, rate=16000):
    out = np.zeros(n, np.float32)
    i = int(at * rate)
    out[i:i + len(x)] = x[: max(0, min(len(x), n - i))]
    return out


def mix(sources, leak_db, rng):
    """sources: per-channel dry signals; each leaks into every other channel at
    ``leak_db`` (a list: one level per pair, drawn from the given range), with a
    small delay as across a table."""
    n = len(sources[0])
    out = np.stack(sources, axis=1).astype(np.float32)
    for i, s in enumerate(sources):
        for j in range(len(sources)):
            if i != j:
                g = 10 ** (-rng.uniform(*leak_db) / 20)
                d = int(rng.integers(8, 40))  # 0.5-2.5 ms
                out[d:, j] += g * s[: n - d]
    out += np.random.default_rng(1).normal(0, 3e-4, out.shape).astype(np.float32)
    return out


@pytest.mark.parametrize("leak", [(10, 12), (14, 20)])
def test_each_call_once_for_the_player_who_said_it(speech, leak):
    rng = np.random.default_rng(7)
    n = 16000 * 7
    ann = place(n, speech["ann-qh"], 0.5)
    bob = place(n, speech["bob-7c"], 2.5)
    cat = place(n, speech["cat-goop"], 4.8)
    audio = mix([ann, bob, cat], leak, rng)
    players = ["ann", "bob", "cat"]
    raw = transcribe_audio(recogniser(), audio, 16000, "t.wav", players, crosstalk=False)
    heard = [u for u in raw if u.kind != "unknown"]
    assert len(heard) > 3  # the leaks are loud enough to be recognised as well
    got = [(u.player, u.said) for u in transcribe_audio(recogniser(), audio, 16000, "t.wav",
                                                        players) if u.kind != "unknown"]
    assert got == [("ann", "queen of hearts"), ("bob", "seven of clubs"), ("cat", "goop")]


def test_two_players_calling_at_once_both_count(speech):
    rng = np.random.default_rng(3)
    n = 16000 * 3
    ann = place(n, speech["ann-qh"], 0.5)
    bob = place(n, speech["bob-2d"], 0.6)
    audio = mix([ann, bob], (10, 14), rng)
    got = [(u.player, u.said) for u in transcribe_audio(recogniser(), audio, 16000, "t.wav",
                                                        ["ann", "bob"]) if u.kind != "unknown"]
    assert sorted(got) == [("ann", "queen of hearts"), ("bob", "two of diamonds")]


def _tone_burst(n, at, dur, amp, rate=16000, f=300):
    x = np.zeros(n, np.float32)
    i, k = int(at * rate), int(dur * rate)
    t = np.arange(k) / rate
    x[i:i + k] = amp * np.sin(2 * np.pi * f * t) * (1 + 0.5 * np.sin(2 * np.pi * 4 * t))
    return x


def test_a_copy_heard_only_on_the_quiet_channel_moves_to_the_loud_one():
    n = 16000 * 2
    loud = _tone_burst(n, 0.5, 0.6, 0.5)
    audio = np.stack([loud, loud * 10 ** (-15 / 20)], axis=1)
    u = Utterance("call", "queen of hearts", 0.5, 1.1, 1.0, channel=1, player="bob")
    got = attribute([u], audio, 16000, ["ann", "bob"])
    assert [(v.channel, v.player, v.said) for v in got] == [(0, "ann", "queen of hearts")]


def test_live_use_block_by_block():
    n = 16000 * 2
    src = _tone_burst(n, 0.5, 0.6, 0.5)
    audio = np.stack([src * 0.1, src], axis=1)  # channel 1 speaks, channel 0 hears -20 dB
    ct = CrossTalk(16000, 2, ["ann", "bob"], keep=5.0, refine=False)  # the times are the test's
    for i in range(0, n, 1600):
        ct.add_audio((audio[i:i + 1600] * 32767).astype(np.int16), i)
    own = Utterance("call", "two of clubs", 0.5, 1.1, channel=1, player="bob")
    copy = Utterance("call", "two of clubs", 0.52, 1.08, channel=0, player="ann")
    assert ct.filter([own]) == [own]
    assert ct.filter([copy]) == []  # a copy reported later is dropped
    other = Utterance("call", "five of clubs", 1.5, 1.9, channel=0, player="ann")
    assert ct.filter([other]) == [other]  # quiet on both: stays where it was heard


def _gained(sources, leak_db, delay, gains_db, snr_db):
    """Each dry source leaks into the other mics ``leak_db`` down, ``delay`` samples late;
    every mic has hiss ``snr_db`` under the loudest source, then its own gain (dB)."""
    n = len(sources[0])
    out = np.stack(sources, axis=1).astype(np.float64)
    for i, s in enumerate(sources):
        for j in range(len(sources)):
            if i != j:
                out[delay:, j] += 10 ** (-leak_db / 20) * s[: n - delay]
    rms = max(np.sqrt(np.mean(s[s != 0].astype(np.float64) ** 2)) for s in sources if s.any())
    out += np.random.default_rng(5).normal(0, rms * 10 ** (-snr_db / 20), out.shape)
    return (out * 10 ** (np.asarray(gains_db) / 20)).astype(np.float32)


def test_a_copy_louder_than_its_source_goes_to_the_mic_it_leaked_from(speech):
    """Bob's mic is set 9 dB higher than ann's: her call, 11 dB down on his mic, is about as
    loud there as on hers, and, live, the leak is not yet learnt when the call ends. It
    reaches his mic later, so it is hers."""
    n = 16000 * 3
    ann = place(n, speech["ann-qh"], 0.5)
    audio = _gained([ann, np.zeros(n, np.float32)], 11.0, 37, [-4.5, 4.5], 18.0)
    end = 0.5 + len(speech["ann-qh"]) / 16000
    span = slice(int(0.5 * 16000), int(end * 16000))
    levels = 10 * np.log10(np.mean(audio[span].astype(np.float64) ** 2, axis=0))
    assert levels[1] > levels[0] - 3   # the copy is nearly as loud as the call
    ct = CrossTalk(16000, 2, ["ann", "bob"], keep=5.0)
    for i in range(0, int((end + 0.3) * 16000), 1600):   # as the listener feeds it
        ct.add_audio(audio[i:i + 1600], i)
    copy = Utterance("call", "queen of hearts", 0.55, end, 0.9, channel=1, player="bob")
    assert [(v.channel, v.player) for v in ct.filter([copy])] == [(0, "ann")]


def test_two_players_at_once_on_mics_set_far_apart_both_count(speech):
    """The same gains, both calling at once: each mic's own voice is not a later copy of the
    other's, so neither call is taken for a leak."""
    n = 16000 * 3
    ann = place(n, speech["ann-qh"], 0.5)
    bob = place(n, speech["bob-2d"], 0.55)
    audio = _gained([ann, bob], 11.0, 37, [-4.5, 4.5], 18.0)
    us = [Utterance("call", "queen of hearts", 0.5, 0.5 + len(speech["ann-qh"]) / 16000, 0.9,
                    channel=0, player="ann"),
          Utterance("call", "two of diamonds", 0.55, 0.55 + len(speech["bob-2d"]) / 16000, 0.9,
                    channel=1, player="bob")]
    got = attribute(us, audio, 16000, ["ann", "bob"])
    assert sorted((v.channel, v.player, v.said) for v in got) == [
        (0, "ann", "queen of hearts"), (1, "bob", "two of diamonds")]


def test_a_copy_under_the_noise_goes_to_the_talker_not_to_a_mic_of_noise(speech):
    """One noise in the room reaches every mic (a few samples apart), so the mics where
    nobody talks look alike. Ann's call reaches cat's mic 9 dB under that noise; bob's mic,
    set 5 dB higher, holds only the noise. The copy heard on cat's mic is ann's: bob has no
    voice of his own there."""
    from referee.lab.mixing import pink

    n = 16000 * 4
    ann = place(n, speech["ann-qh"], 1.5).astype(np.float64)
    rms = np.sqrt(np.mean(ann[ann != 0] ** 2))
    room = pink(n + 64, np.random.default_rng(2))
    room *= rms * 10 ** (-12 / 20) / np.sqrt(np.mean(room ** 2))
    leak = np.zeros(n)
    leak[40:] = 10 ** (-21 / 20) * ann[:-40]
    audio = np.stack([ann + room[0:n], leak + room[17:n + 17], leak + room[31:n + 31]], axis=1)
    audio *= 10 ** (np.array([0.0, 5.0, 0.0]) / 20)
    end = 1.5 + len(speech["ann-qh"]) / 16000
    ct = CrossTalk(16000, 3, ["ann", "bob", "cat"], keep=6.0)
    for i in range(0, int((end + 0.3) * 16000), 1600):
        ct.add_audio(audio[i:i + 1600].astype(np.float32), i)
    copy = Utterance("call", "queen of hearts", 1.3, end, 0.9, channel=2, player="cat")
    assert [(v.channel, v.player) for v in ct.filter([copy])] == [(0, "ann")]


def _voiced_part(x, rate=16000, size=0.12):
    """The loudest ``size`` seconds of ``x`` (the vowel of a call: pitched)."""
    n, hop = int(size * rate), int(0.01 * rate)
    e = [np.mean(x[i:i + n] ** 2) for i in range(0, len(x) - n, hop)]
    i = int(np.argmax(e)) * hop
    return x[i:i + n]


@pytest.mark.parametrize("tail_db, known, is_voice", [
    (-45.0, True, False),   # the call fading on its own mic: not a new voice
    (-45.0, False, True),   # the same, with no call reported there: a voice, however weak
    (-6.0, True, True),     # a loud voice straight after the call: a new voice
])
def test_a_calls_own_fading_tail_is_no_new_voice(speech, tail_db, known, is_voice):
    """The watermark's hold (`own_voice`) is not kept by the call's own quiet voiced tail
    (docs/timing.md, "A call's own tail"), and still is by a voice that could be a call."""
    rate, call = 16000, speech["ann-qh"]
    end = 0.5 + len(call) / rate
    tail = _voiced_part(call) * 10 ** (tail_db / 20)
    n = int((end + 1.0) * rate)
    ann = place(n, call, 0.5) + place(n, tail, end + 0.02)
    rng = np.random.default_rng(3)
    audio = np.stack([ann, np.zeros(n, np.float32)], axis=1) + \
        rng.normal(0, 1e-4, (n, 2)).astype(np.float32)
    ct = CrossTalk(16000, 2, ["ann", "bob"], keep=5.0, refine=False)
    ct.add_audio(audio)
    calls = [(0, 0.5, end - 0.08)] if known else []   # the recogniser's end comes early
    first, _ = ct.own_voice(0, end - 0.02, calls)
    assert (first is not None) == is_voice
    if is_voice:
        assert end - 0.04 <= first <= end + 0.02 + len(tail) / rate  # 40 ms windows



@pytest.fixture(scope="session")
def talk12(tmp_path_factory):
    return room_talk(tmp_path_factory.mktemp("talk"), 12.0)


@pytest.mark.parametrize("over_db, in_talk", [(OWN_OVER_DB, False), (None, True)])
def test_talk_in_the_room_is_no_voice_of_a_mics_own_and_a_call_over_it_is(
        speech, talk12, over_db, in_talk):
    """The watermark's hold (`own_voice`) is not kept by the room's talk, voiced as it is:
    it reaches the mic at the mic's usual level, and a voice of the mic's own stands
    ``OWN_OVER_DB`` over that (without the test, None: the talk is a voice). A call said over
    the talk at 10 dB is one (docs/timing.md, "Talk in the room no longer holds verdicts")."""
    rate, call, at = 16000, speech["ann-qh"], 10.0
    n = len(talk12)
    talk = talk12 * 10 ** (-30 / 20)            # -30 dB under full scale
    span = call[int(0.1 * rate):-int(0.1 * rate)]  # the call's power over its sound
    ann = place(n, call / np.sqrt(np.mean(span ** 2)) * 10 ** (-20 / 20), at)
    audio = np.stack([talk + ann, np.roll(talk, 32) + ann * 10 ** (-15 / 20)], axis=1)
    ct = CrossTalk(rate, 2, ["ann", "bob"], keep=12.0, refine=False)
    ct.add_audio(audio[:int((at - 0.2) * rate)])
    first, upto = ct.own_voice(0, 2.0, [], over_db=over_db)
    assert upto > at - 0.3
    assert (first is not None) == in_talk
    if in_talk:
        return
    ct.add_audio(audio[int((at - 0.2) * rate):])
    first, _ = ct.own_voice(0, 2.0, [], over_db=over_db)
    assert first is not None and at <= first <= at + len(call) / rate - 0.1
