"""`referee play gops --audio` on a recording of one table microphone (two TTS voices, the
real PocketSphinx), and `referee resume` continuing a journal that a crash left unfinished."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from live_game import duration, mix_wav, replay_json, voice_wav

LINES = [("ann", "green five"), ("ann", "ann seven"), ("bob", "bob four"),
         ("ann", "bronze three"), ("ann", "ann six"), ("bob", "bob six"),
         ("ann", "green ace"), ("ann", "ann ace"), ("bob", "bob two")]


def recording(tmp_path, lines, name):
    parts, t = [], 0.5
    for who, text in lines:
        w = voice_wav(tmp_path, who, text)
        parts.append((0, w, t))
        t += duration(w) + 1.2
    return mix_wav(tmp_path / name, parts, 1)


def referee(data, *args):
    env = dict(os.environ, REFEREE_DATA=str(data))
    return subprocess.run([sys.executable, "-m", "referee", *args, "--json", "--speak-to", "text",
                           "--engine", "pocketsphinx"], capture_output=True, text=True,
                          timeout=120, env=env)


def test_a_recorded_game_then_a_crash_and_resume(tmp_path):
    data = tmp_path / "data"
    r = referee(data, "play", "gops", "--players", "ann,bob", "--names", "table",
                "--audio", str(recording(tmp_path, LINES, "game.wav")))
    assert r.returncode == 0, r.stderr
    objs = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(o["type"], o.get("winner")) for o in objs] == [
        ("won", "ann"), ("tied", None), ("won", "bob"), ("final", None)], r.stderr
    assert objs[-1]["scores"] == {"ann": 5, "bob": 4}
    assert "referee: Tie-break prize: the green ace. Everyone, a second card." in r.stderr
    journal = next(data.rglob("*.jsonl"))
    assert replay_json(journal) == objs

    # a crash after the tie: the journal up to bob's "six" and its verdict, nothing after
    lines = journal.read_text().splitlines()
    cut = next(i for i, x in enumerate(lines) if '"type":"tied"' in x)
    journal.write_text("\n".join(lines[:cut + 1]) + "\n")
    r2 = referee(data, "resume", "--continuation",
                 "--audio", str(recording(tmp_path, LINES[6:], "rest.wav")))
    assert r2.returncode == 0, r2.stderr
    assert "Resuming. Ann has five, Bob has zero. Tie break for the bronze three: bids stay in place. Next prize." in r2.stderr
    assert [json.loads(x) for x in r2.stdout.splitlines()][-2:] == objs[-2:]
    assert replay_json(journal) == objs
