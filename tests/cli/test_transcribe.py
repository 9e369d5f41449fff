"""`referee transcribe`: files of any rate and channel count, one JSON line per
utterance, players per channel, clear errors for bad input."""

import json

import numpy as np
import pytest

from referee.audio.wav import resample, write_wav
from referee.cli.main import main
from speech import corpus, pad

PHRASES = {
    "qh": "flite:slt|queen of hearts",
    "goop": "flite:slt|goop",
    "score": "festival:kal_diphone|referee score",
    "7c": "festival:cmu_us_slt_arctic_hts|seven of clubs",
    "chat": "flite:awb|what time is it",
}


@pytest.fixture(scope="session")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("tr")
    s = corpus(d, PHRASES)
    mono = np.concatenate([pad(s["qh"], 0.5, 0.6), pad(s["chat"], 0, 0.6),
                           pad(s["goop"], 0, 0.6), pad(s["score"], 0, 0.8)])
    write_wav(d / "mono44k.wav", resample(mono, 16000, 44100), 44100)
    n = 16000 * 4
    a = np.zeros(n, np.float32)
    b = np.zeros(n, np.float32)
    a[8000:8000 + len(s["qh"])] = s["qh"]
    b[40000:40000 + len(s["7c"])] = s["7c"]
    stereo = np.stack([a + 0.15 * b, b + 0.15 * a], axis=1)
    write_wav(d / "stereo11k.wav", resample(stereo, 16000, 11025), 11025)
    return d


def lines(capsys):
    out = capsys.readouterr().out.strip().splitlines()
    return [json.loads(x) for x in out]


def test_json_lines_for_a_mono_44k_file(files, capsys):
    assert main(["transcribe", str(files / "mono44k.wav"), "--json"]) == 0
    got = lines(capsys)
    assert [(g["kind"], g["said"]) for g in got] == [
        ("call", "queen of hearts"), ("shout", "goop"), ("command", "score")]
    assert set(got[0]) == {"file", "channel", "player", "kind", "said", "start", "end",
                           "confidence"}
    assert got[0]["file"].endswith("mono44k.wav") and got[0]["channel"] == 0
    assert got[0]["player"] is None
    assert 0.5 < got[0]["start"] < got[0]["end"] < got[1]["start"]


def test_players_per_channel_and_many_files_in_one_run(files, capsys):
    rc = main(["transcribe", str(files / "stereo11k.wav"), str(files / "mono44k.wav"),
               "--names", "ann,bob", "--json", "--engine", "pocketsphinx"])
    assert rc == 0
    got = lines(capsys)
    stereo = [(g["player"], g["channel"], g["said"]) for g in got
              if g["file"].endswith("stereo11k.wav")]
    assert stereo == [("ann", 0, "queen of hearts"), ("bob", 1, "seven of clubs")]
    assert len([g for g in got if g["file"].endswith("mono44k.wav")]) == 3


def test_unknown_speech_is_never_a_card(files, capsys):
    main(["transcribe", str(files / "mono44k.wav"), "--json", "--unknown"])
    got = lines(capsys)
    cards = [g for g in got if g["kind"] == "call"]
    assert [g["said"] for g in cards] == ["queen of hearts"]
    assert all(g["kind"] in ("call", "shout", "command", "unknown") for g in got)


def test_readable_lines_without_json(files, capsys):
    assert main(["transcribe", str(files / "stereo11k.wav"), "--names", "ann,bob"]) == 0
    out = capsys.readouterr()
    rows = out.out.strip().splitlines()
    assert len(rows) == 2 and "ann" in rows[0] and "queen of hearts" in rows[0]
    assert "listening with pocketsphinx + phrase classifier" in out.err


@pytest.mark.parametrize("args,why", [
    (["nosuch.wav"], "nosuch.wav: cannot read"),
    (["{stereo}", "--names", "ann"], "2 channels but only 1 named in --names"),
    (["{stereo}", "--engine", "vosk", "--model", "/nonexistent"], "not a Vosk model"),
    (["{stereo}", "--kinds", "call,spells"], "unknown phrase kinds: spells"),
    (["{stereo}", "--grammar", "nosuch"], "no such grammar file"),
])
def test_bad_input_is_a_clear_error_and_exit_2(files, capsys, args, why):
    args = [a.format(stereo=files / "stereo11k.wav") for a in args]
    assert main(["transcribe", *args]) == 2
    err = capsys.readouterr().err
    assert why in err and "Traceback" not in err


def test_not_a_wav(tmp_path, capsys):
    p = tmp_path / "x.wav"
    p.write_text("hello")
    assert main(["transcribe", str(p)]) == 2
    assert "not a WAV file" in capsys.readouterr().err


@pytest.mark.parametrize("rate,frames,why", [
    (16000, 0, "empty.wav: holds no audio (a header and no samples)"),
    (1, 100, "empty.wav: its sample rate, 1 Hz, is too low to hear speech"),
])
def test_a_wav_with_nothing_to_hear_is_said_not_passed_over(tmp_path, capsys, rate, frames, why):
    import wave

    p = tmp_path / "empty.wav"
    with wave.open(str(p), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(rate)
        w.writeframes(b"\0\0" * frames)
    assert main(["transcribe", str(p)]) == 2
    assert why in capsys.readouterr().err
