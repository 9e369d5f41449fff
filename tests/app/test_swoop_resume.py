"""`referee resume` continues a Swoop game after a crash: the pile, the turn and the card
counts come back from the journal, and the game goes on from a recording of real speech."""

import json
import subprocess
import sys

import numpy as np

from live_game import voice_wav
from referee.audio.wav import read_pcm16, write_wav
from referee.app.journal_file import JournalFile, read_journal
from referee.core.journal import encode_verdict
from referee.core.replay import replay_lines

GAME = {"type": "game", "game": "swoop", "players": ["ann", "bob"], "options": {"rounds": 1},
        "setup": {"channels": ["table"]}}


def test_resume_continues_the_pile_and_the_turn(tmp_path, monkeypatch):
    data = tmp_path / "data"
    games = data / "games"
    journal = JournalFile.new("swoop", folder=games)
    for obj in (GAME, {"type": "play", "rank": "Q", "count": 2, "at": 1.0},
                {"type": "played", "player": "ann", "rank": "Q", "count": 2, "at": 1.0,
                 "round": 1, "pile": 2, "run": 2, "swoop": "", "held": 17, "next": "bob"},
                {"type": "play", "rank": "Q", "count": 1, "at": 3.0}):   # crash before its verdict
        journal.append(obj)
    journal.close()
    # bob's queen (journaled, unjudged) made 3 queens in a row; after the crash ann says
    # "queen": the fourth swoops, and she plays again
    parts = []
    for text in ("queen", "five"):
        x, rate = read_pcm16(voice_wav(tmp_path, "ann", text, "espeak:en-us+f2"))
        parts += [np.zeros((rate // 2, 1), np.int16), x, np.zeros((rate, 1), np.int16)]
    wav = tmp_path / "after.wav"
    write_wav(wav, np.concatenate(parts), rate)
    env = {**__import__("os").environ, "REFEREE_DATA": str(data)}
    r = subprocess.run([sys.executable, "-m", "referee", "resume", "--audio", str(wav),
                        "--speak-to", "text", "--json", "--engine", "pocketsphinx"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert "Resuming. Score: ann 0, bob 0. Round 1: 3 cards on the pile. ann's turn." in r.stderr
    objs = read_journal(journal.path).objects
    played = [(o["player"], o["rank"], o["count"], o["swoop"], o["held"], o["next"])
              for o in objs if o["type"] == "played"]
    assert played == [("ann", "Q", 2, "", 17, "bob"), ("bob", "Q", 1, "", 18, "ann"),
                      ("ann", "Q", 1, "four", 16, "ann"), ("ann", "5", 1, "", 15, "bob")], r.stderr
    assert "Swoop! ann plays again." in r.stderr
    # the resumed audio goes on from the journal's last time plus a second, in seconds
    assert all(3.0 < o["at"] < 3.0 + 1.0 + 7.0 for o in objs[5:] if "at" in o), objs[5:]
    lines = [json.dumps(o) for o in objs]
    judged = [o for o in objs[1:] if o["type"] not in ("play", "pick-up", "going-out", "report",
                                                       "tally", "command", "note")]
    assert [encode_verdict(v) for v in replay_lines(lines)] == judged     # the missing verdict once
