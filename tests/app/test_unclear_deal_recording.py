"""`referee play stroop --audio` on a recording (espeak-ng voices, three mics, the real
PocketSphinx) where the dealer's words for a card are read as no card: the referee asks for
the card again, and bob's call, made before the dealer says it again, counts for that card."""

from __future__ import annotations

import json
import subprocess

import numpy as np

from referee.audio.wav import resample, write_wav
from referee.lab.bench.kill_resume import referee
from referee.voice.voices import EspeakVoice

RATE = 16000
LEAK = 10 ** (-16 / 20)
LINES = [   # (mic: 0 dealer, 1 ann, 2 bob; words; seconds)
    (0, "three of spades", 0.5), (1, "four of hearts", 2.0),     # ann wins the 3♠
    (0, "i have seven club", 4.5),       # the 7♣ turned, its words read as no card
    (2, "six of diamonds", 6.3),          # bob calls for the 7♣
    (0, "seven of clubs", 8.5),           # said again, as asked
]


def test_a_card_read_as_no_card_is_asked_for_and_the_call_meanwhile_counts(tmp_path):
    voice = EspeakVoice(rate=150, voice="en-us")
    parts = []
    for ch, text, at in LINES:
        a = voice.render(text)
        parts.append((ch, int(at * RATE),
                      resample(np.frombuffer(a.samples, "<i2") / 32768.0, a.rate, RATE)))
    mix = np.zeros((max(i + len(x) for _, i, x in parts) + RATE, 3))
    for ch, i, x in parts:
        for c in range(3):
            mix[i:i + len(x), c] += x * (1.0 if c == ch else LEAK)
    wav = tmp_path / "game.wav"
    write_wav(wav, mix, RATE)
    p = referee(tmp_path / "data", "play", "stroop", "--audio", str(wav),
                "--names", "dealer,ann,bob", stdout=subprocess.PIPE)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    (path,) = (tmp_path / "data").rglob("*.jsonl")
    objs = [json.loads(line) for line in path.read_text().splitlines()]
    deals = [(o["card"], o["at"]) for o in objs if o["type"] == "deal"]
    assert [c for c, _ in deals] == ["3S", "7C"], (objs, err)
    assert 4.4 <= deals[1][1] <= 4.7, deals           # when the 7♣ was turned, not said again
    assert any(o["type"] == "note" and "asked again" in o["text"] for o in objs), objs
    rounds = [(o["top"], o["winner"]) for o in objs if o["type"] == "round"]
    assert rounds == [("3S", "ann"), ("7C", "bob")], (rounds, err)
    assert "Dealer, I did not catch the card. Say it again." in out + err
