"""``referee say``: the referee's voice from the command line."""

from __future__ import annotations

import numpy as np

from referee.cli.main import main
from referee.voice.voices import read_wav


def test_say_into_a_wav_file(tmp_path, capsys):
    out = tmp_path / "said.wav"
    assert main(["say", "--speak-to", str(out), "--speech-rate", "150", "Bob", "wins"]) == 0
    assert capsys.readouterr().out == "referee: Bob wins\n"
    a = read_wav(str(out))
    x = np.frombuffer(a.samples, "<i2") / 32768
    assert 0.3 < a.duration < 2.0 and np.sqrt(np.mean(x ** 2)) > 0.02


def test_say_with_no_audio_output_prints_and_exits_1(capsys):
    assert main(["say", "--speaker-device", "referee-no-such-sink", "Bob wins"]) == 1
    got = capsys.readouterr()
    assert got.out == "referee: Bob wins\n"
    assert "no audio output" in got.err


def test_say_bad_options_exit_2_naming_them(tmp_path, capsys):
    assert main(["say", "--speak-to", "said.mp3", "hi"]) == 2
    assert "--speak-to takes" in capsys.readouterr().err
    assert main(["say", "--speech-rate", "5", "hi"]) == 2
    assert "--speech-rate" in capsys.readouterr().err
    assert main(["say", "--speak-to", str(tmp_path / "no" / "such.wav"), "hi"]) == 2
    assert "cannot write the announcements" in capsys.readouterr().err
