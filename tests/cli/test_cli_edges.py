"""The command line at its edges: a mistyped option, a reader that goes away, a data
directory that cannot be one."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from referee.audio.wav import write_wav
from referee.cli.main import main


def test_a_mistyped_option_gets_the_subcommands_usage_and_the_close_option(capsys):
    with pytest.raises(SystemExit) as e:
        main(["play", "stroop", "--players", "ann,bob", "--virtual-dek"])
    err = capsys.readouterr().err
    assert e.value.code == 2
    assert "usage: referee play" in err
    assert "--virtual-dek (did you mean --virtual-deck?)" in err


def test_a_player_without_a_microphone_is_named_before_anything_starts(capsys, tmp_path,
                                                                        monkeypatch):
    monkeypatch.setenv("REFEREE_DATA", str(tmp_path))
    code = main(["play", "stroop", "--players", "ann,bob", "--names", "dealer,ann"])
    err = capsys.readouterr().err
    assert code == 2
    assert "no microphone for bob" in err, err
    assert not list(tmp_path.rglob("*.jsonl"))     # no game was started


def test_replay_into_a_reader_that_stops_early_ends_quietly(tmp_path):
    log = tmp_path / "log.jsonl"
    objs = [{"type": "game", "game": "stroop", "players": ["ann", "bob"]}]
    objs += [{"type": "call", "player": "ann", "said": "four of hearts", "start": i, "end": i + 0.5}
             for i in range(3000)]
    log.write_text("\n".join(json.dumps(o) for o in objs) + "\n")
    cmd = (f"{sys.executable} -m referee replay {log} --json --all | head -1; "
           "echo status=${PIPESTATUS[0]}")
    done = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.stdout.count("\n") == 2 and "status=141" in done.stdout


def test_a_data_directory_below_a_file_is_one_clear_line(tmp_path):
    (tmp_path / "file").write_text("")
    write_wav(tmp_path / "quiet.wav", np.zeros((8000, 2), np.int16), 16000)
    env = {**os.environ, "REFEREE_DATA": str(tmp_path / "file" / "data"),
           "PYTHONPATH": os.getcwd()}
    done = subprocess.run([sys.executable, "-m", "referee", "play", "stroop", "--players", "ann,bob",
                           "--audio", str(tmp_path / "quiet.wav"), "--speak-to", "text"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "cannot keep games in" in done.stderr and "REFEREE_DATA" in done.stderr


def _no_audio_server() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PULSE_SERVER", "ALSA_CONFIG_PATH")}
    return {**env, "PULSE_SERVER": "unix:/nonexistent/pulse", "PYTHONPATH": os.getcwd()}


def test_with_no_input_at_all_listing_says_what_to_try(tmp_path):
    done = subprocess.run([sys.executable, "-m", "referee", "listen", "--list-devices"],
                          capture_output=True, text=True, env=_no_audio_server(), timeout=60)
    assert done.returncode == 2
    assert "no input devices" in done.stderr and "PULSE_SOURCE" in done.stderr


def test_with_no_input_at_all_play_says_what_is_missing(tmp_path):
    env = {**_no_audio_server(), "REFEREE_DATA": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "referee", "play", "stroop", "--players",
                           "ann,bob", "--virtual-deck", "--speak-to", "text"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2
    assert "no microphone" in done.stderr and "Error querying device" not in done.stderr
    assert "--list-devices" in done.stderr and "PULSE_SOURCE" in done.stderr
