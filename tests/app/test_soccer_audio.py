"""`referee play soccer --audio`: two rounds spoken by TTS voices, heard by the real
PocketSphinx, on one microphone for the whole table and on one per player."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from live_game import duration, journal_lines, mix_wav, replay_json, voice_wav
from referee.audio.wav import read_pcm16, write_wav
from soccer_script import PLAYS, check_decisions

#: seconds between the starts of two plays: room for a two-card phrase and a pause
GAP = 3.8


def script_wav(tmp_path, channels: list[str]):
    """The plays in one WAV: one channel per name in ``channels`` ("table": everyone)."""
    parts, at = [], 1.0
    for who, text in PLAYS:
        wav = voice_wav(tmp_path, who, text)
        ch = channels.index("table" if "table" in channels else who)
        parts.append((ch, wav, at))
        at += max(GAP, duration(wav) + 1.2)
    path = mix_wav(tmp_path / "soccer.wav", parts, len(channels))
    x, rate = read_pcm16(path)
    write_wav(path, np.concatenate([x, np.zeros((2 * rate, x.shape[1]), np.int16)]), rate)  # the end
    return path


def run(tmp_path, channels: list[str]):
    wav = script_wav(tmp_path, channels)
    data = tmp_path / "data"
    r = subprocess.run([sys.executable, "-m", "referee", "play", "soccer", "--players", "ann,bob",
                        "--names", ",".join(channels), "--audio", str(wav), "--json",
                        "--speak-to", "text", "--engine", "pocketsphinx"],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "REFEREE_DATA": str(data)})
    assert r.returncode == 0, r.stderr
    objs = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    return objs, r.stderr, data


@pytest.mark.parametrize("channels", [["table"], ["ann", "bob"]], ids=["one-mic", "mic-each"])
def test_two_rounds_from_a_recording(tmp_path, channels):
    objs, stderr, data = run(tmp_path, channels)
    why = (objs, stderr[-3000:])
    check_decisions(objs, why)
    said = [line[len("referee: "):] for line in stderr.splitlines() if line.startswith("referee: ")]
    for sentence in ("Blocked: same number.", "Penalty kick: goal! Ann one, Bob zero.",
                     "The jack is black; the forward is red. Ann, another block, or no block?",
                     "Blocked: nine minus two is seven and two hearts.",
                     "Blocked: a jack of the same colour.", "Round one over. Both draw four: thirty two left.",
                     "Blocked: four plus two is six.", "Blocked: two spades.",
                     "No second goalie: the queen of diamonds is discarded."):
        assert sentence in said, why
    path, lines = journal_lines(data)
    assert replay_json(path) == objs
    assert objs[-1]["type"] == "final" and objs[-1]["scores"] == {"ann": 1, "bob": 1}


def test_resume_continues_a_journaled_game(tmp_path):
    """`referee resume` of a soccer journal cut off after a play: the verdict the journal lacks
    is journaled once, the referee says where the game stands, and a recording goes on."""
    games = tmp_path / "data" / "games"
    games.mkdir(parents=True)
    journal = games / "20261125T010000Z-soccer.jsonl"
    journal.write_text("\n".join(json.dumps(o) for o in [
        {"type": "game", "game": "soccer", "players": ["ann", "bob"], "options": {"failed_block": "retry"},
         "setup": {"channels": ["table"], "virtual_deck": False, "seed": 1}},
        {"type": "forward", "player": "ann", "card": "5S", "at": 2.0},
        {"type": "attack", "round": 1, "attacker": "ann", "defender": "bob", "forward": "5S",
         "number": 1, "goalie": False},
        {"type": "block", "player": "bob", "cards": [], "at": 6.0},       # a crash before its verdict
    ]) + "\n")
    wav = mix_wav(tmp_path / "more.wav", [(0, voice_wav(tmp_path, "ann", "six of spades"), 1.0),
                                          (0, voice_wav(tmp_path, "bob", "six of hearts"), 4.0)], 1)
    x, rate = read_pcm16(wav)
    write_wav(wav, np.concatenate([x, np.zeros((2 * rate, 1), np.int16)]), rate)
    r = subprocess.run([sys.executable, "-m", "referee", "resume", "--audio", str(wav), "--json",
                        "--speak-to", "text", "--engine", "pocketsphinx"],
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, "REFEREE_DATA": str(tmp_path / "data")})
    assert r.returncode == 0, r.stderr
    assert "Resuming. Ann has one, Bob has zero. Round one, forty cards in the draw pile. Ann, your forward?" in r.stderr
    objs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [o["type"] for o in objs] == ["goal", "blocked", "final"], r.stderr
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    assert [o["type"] for o in lines].count("goal") == 1
    assert replay_json(journal) == objs
