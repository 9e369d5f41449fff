"""One word for one thing in every command: ``--channels`` is which channels (numbers),
``--names`` who is on them. The old spellings are refused with the option meant, and a
channel the device does not have is refused, even on an audio server's source, whose ALSA
device offers 32 copies of its one real channel."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from referee.audio.wav import write_wav
from referee.cli.main import main

from live_game import Referee, journal_lines


@pytest.mark.parametrize("argv, line", [
    (["play", "stroop", "--players", "ann,bob", "--channels", "dealer,ann,bob"],
     "referee play: --channels takes channel numbers like 1,2 (not 'dealer,ann,bob'); who is "
     "on them is --names: did you mean --names dealer,ann,bob?"),
    (["play", "swoop", "--players", "ann,bob", "--channels", "table"],
     "did you mean --names table?"),
    (["resume", "--channels", "ann,bob"], "did you mean --names ann,bob?"),
    (["listen", "--players", "ann,bob"],
     "referee listen: --players is the game's players (referee play); who is on each channel "
     "is --names: did you mean --names ann,bob?"),
    (["transcribe", "{wav}", "--players", "ann,bob"], "did you mean --names ann,bob?"),
    (["play", "stroop", "--players", "ann,bob", "--audio", "{wav}", "--channels", "1,2"],
     "--channels picks channels of a microphone device; a recording's channels are the "
     "--names in order"),
    (["listen", "--channels", "1,1"], "gives a channel twice"),
])
def test_an_old_spelling_is_one_line_naming_the_option_meant(argv, line, tmp_path, capsys,
                                                              monkeypatch):
    monkeypatch.setenv("REFEREE_DATA", str(tmp_path / "data"))
    wav = tmp_path / "two.wav"
    write_wav(wav, np.zeros((16000, 2), np.int16), 16000)
    code = main([a.replace("{wav}", str(wav)) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert line in err and len(err.strip().splitlines()) == 1, err
    if argv[0] == "play":
        assert not list(tmp_path.rglob("*.jsonl"))     # no game was started


def test_help_texts_use_names_for_who_and_channels_for_which(capsys):
    for cmd in ("play", "resume", "listen", "transcribe"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        out = capsys.readouterr().out
        assert "--names" in out, cmd
        assert "--players A,B" not in out or cmd == "play", cmd
        if cmd != "transcribe":
            assert "which channels of the input device" in out, cmd


def _listen(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", "listen", *args],
                          capture_output=True, text=True, timeout=60)


def test_listen_refuses_a_channel_a_mono_source_does_not_have(pulse):
    if "annmic" not in pulse.split_sources:
        pulse.split("table3", {"annmic": 1})    # one mono PulseAudio source
    r = _listen("--devices", "annmic", "--channels", "1,5", "--names", "ann,bob")
    assert r.returncode == 2, r.stderr
    assert ("device 'annmic' (PulseAudio source annmic) has 1 input channel(s); channel 5 "
            "was asked for") in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = _listen("--devices", "table3", "--channels", "2,4", "--names", "ann,bob")
    assert r.returncode == 2
    assert "device 'table3' (PulseAudio source table3.monitor) has 3 input channel(s)" in r.stderr


def test_play_hears_each_name_on_the_channel_given(pulse, tmp_path):
    # ann is channel 3 of the three-channel mic, bob channel 2: a call played into the
    # third channel only is ann's; had --channels been ignored, nobody would hear it there
    ref = Referee("play", "stroop", "--players", "ann,bob", "--names", "ann,bob", "--devices",
                  "table3", "--channels", "3,2", "--virtual-deck", "--seed", "1", "--json",
                  "--speak-to", "text", "--engine", "pocketsphinx", data=tmp_path / "data")
    try:
        ref.wait_err("referee: journal ", 60)
        deadline = time.monotonic() + 20
        while not any(o.get("type") == "deal" for o in journal_lines(tmp_path / "data")[1]):
            assert time.monotonic() < deadline, ref.stderr
            time.sleep(0.2)
        wav = pulse.say("seven of diamonds", tmp_path / "c.wav", lead_in=0.2, tail=0.5)
        pulse.play(wav, "table3", channel=2)
        deadline = time.monotonic() + 15
        calls: list[dict] = []
        while not calls and time.monotonic() < deadline:
            time.sleep(0.3)
            _, objs = journal_lines(tmp_path / "data")
            calls = [o for o in objs if o.get("type") == "call"]
    finally:
        ref.kill()
    assert [c["player"] for c in calls] == ["ann"], ref.stderr
    _, objs = journal_lines(tmp_path / "data")
    assert objs[0]["setup"]["mic_channels"] == "3,2"       # resume listens there again
    r = subprocess.run([sys.executable, "-m", "referee", "play", "stroop", "--players", "ann,bob",
                        "--devices", "table3", "--channels", "2,4", "--speak-to", "text"],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "REFEREE_DATA": str(tmp_path / "other")})
    assert r.returncode == 2 and "has 3 input channel(s); channel 4 was asked for" in r.stderr
