"""``referee play --audio``: the referee hears a recorded game (real espeak-ng speech, mic
bleed at -16 dB, the real PocketSphinx) through the recording source and the listener."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from pulse import espeak

from referee.audio.wav import read_pcm16, write_wav

RATE = 16000


def game_wav(tmp_path, lines, leak=0.15, rate=RATE):
    """``lines`` = [(channel, text, at)]: each spoken on its channel at ``at`` seconds and
    leaking into the others."""
    parts = []
    for ch, text, at in lines:
        x, _ = read_pcm16(espeak(text, tmp_path / f"{ch}_{at}.wav", lead_in=at))
        parts.append((ch, x[:, 0] / 32768.0))
    n_ch = 1 + max(ch for ch, *_ in lines)
    m = np.zeros((max(len(x) for _, x in parts) + rate, n_ch))
    for ch, x in parts:
        for c in range(n_ch):
            m[:len(x), c] += x * (1.0 if c == ch else leak)
    path = tmp_path / "game.wav"
    write_wav(path, m, rate)
    return path


def referee(*args, tmp_path):
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"))
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True,
                          text=True, timeout=120, env=env)


def test_play_a_recorded_stroop_game(tmp_path):
    wav = game_wav(tmp_path, [(0, "seven of diamonds", 0.5),   # the dealer turns 7D
                              (2, "queen of hearts", 2.5),      # bob: a court card, miscall
                              (1, "two of clubs", 3.8)])        # ann: qualifies
    r = referee("play", "stroop", "--audio", str(wav), "--names", "dealer,ann,bob",
                "--json", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    objs = [json.loads(line) for line in r.stdout.splitlines()]
    rounds = [o for o in objs if o["type"] == "round"]
    assert len(rounds) == 1
    assert rounds[0]["top"] == "7D" and rounds[0]["winner"] == "ann"
    assert rounds[0]["call"]["said"] == "two of clubs"
    assert objs[-1] == {"type": "final", "scores": {"ann": 1, "bob": 0}, "unclaimed": 0,
                        "rounds": 1}
    # the same description as `referee transcribe` gives
    assert "listening with pocketsphinx + phrase classifier" in r.stderr


def test_play_with_the_wrong_number_of_channels_is_a_clear_error(tmp_path):
    wav = game_wav(tmp_path, [(0, "goop", 0.5), (1, "goop", 1.0)])
    r = referee("play", "stroop", "--audio", str(wav), "--names", "dealer,ann,bob",
                "--json", tmp_path=tmp_path)
    assert r.returncode == 2
    assert "3 player names for 2 channel(s)" in r.stderr and "game.wav" in r.stderr
    assert "Traceback" not in r.stderr


def test_devices_are_given_as_for_listen_and_the_older_comma_form_still_works():
    from referee.app.inputs import device_list

    assert device_list(["3", "USB mic"], 2) == ["3", "USB mic"]
    assert device_list(["hw:1,0"], 1) == ["hw:1,0"]          # an ALSA name with a comma
    assert device_list("ann-mic,bob-mic", 2) == ["ann-mic", "bob-mic"]  # an older journal
    assert device_list(["ann-mic,bob-mic"], 2) == ["ann-mic", "bob-mic"]
    assert device_list(None, 2) == [] and device_list([], 1) == []
