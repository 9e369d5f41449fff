"""`referee resume --settle`: a resumed virtual-deck game says where it stands, then waits
the settle time before it deals, run on a silent recording."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from referee.app.journal_file import JournalFile, read_journal
from referee.audio.wav import write_wav
from referee.core.cards import full_deck
from referee.core.games.stroop import qualifies
from referee.core.table import VirtualDeck


def _crashed_game(data):
    top = VirtualDeck(7).cards[0]
    call = next(c for c in full_deck() if qualifies(c.spoken, top))
    journal = JournalFile.new("stroop", folder=data / "games")
    for obj in ({"type": "game", "game": "stroop", "players": ["ann", "bob"],
                 "setup": {"channels": ["ann", "bob"], "virtual_deck": True, "seed": 7}},
                {"type": "deal", "card": str(top), "at": 0.0},
                {"type": "call", "player": "ann", "said": call.spoken, "start": 1.0, "end": 1.5}):
        journal.append(obj)
    journal.close()
    return journal.path


@pytest.mark.parametrize("settle, first_deal", [(["--settle", "3"], 5.5), ([], 7.5), (["--settle", "0"], 2.5)])
def test_resume_waits_the_settle_time_before_the_next_deal(tmp_path, settle, first_deal):
    data = tmp_path / "data"
    path = _crashed_game(data)
    wav = tmp_path / "silence.wav"
    write_wav(wav, np.zeros((16000 * 10, 2), np.int16), 16000)
    r = subprocess.run([sys.executable, "-m", "referee", "resume", "--audio", str(wav),
                        "--speak-to", "text", "--engine", "pocketsphinx", *settle],
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, "REFEREE_DATA": str(data)})
    assert r.returncode == 0, r.stderr
    assert "Resuming. Ann has one, Bob has zero." in r.stdout + r.stderr
    deals = [o["at"] for o in read_journal(path).objects if o["type"] == "deal"]
    # the clock goes on a second after the last event (1.5 s); PocketSphinx's marks come
    # 0.09-0.12 s apart, and the deck deals at the first mark past the settle time
    assert deals[0] == 0.0 and first_deal <= deals[1] <= first_deal + 0.13, deals


def test_a_negative_settle_time_is_refused(tmp_path):
    data = tmp_path / "data"
    path = _crashed_game(data)
    before = path.read_text()
    r = subprocess.run([sys.executable, "-m", "referee", "resume", "--settle", "-1"],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "REFEREE_DATA": str(data)})
    assert r.returncode == 2 and "--settle must be 0 or more" in r.stderr
    assert path.read_text() == before
    assert json.loads(before.splitlines()[0])["game"] == "stroop"
