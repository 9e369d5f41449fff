"""Cross-talk: calls leak into the neighbours' microphones at -10 to -20 dB;
each call must come out once, for the player who said it."""

import numpy as np
import pytest

from referee.core.events import Utterance
from referee.hearing.crosstalk import CrossTalk, attribute
from referee.hearing.transcribe import transcribe_audio
from speech import corpus, recogniser

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
