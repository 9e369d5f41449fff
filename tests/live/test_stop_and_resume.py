"""Ctrl-C and SIGTERM stop the referee, not the game: the journal stays unfinished, the
voice is not killed first, and `referee resume` finds the game; a journal that holds only
its game line (a start that was stopped at once) is no game to resume."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from referee.app.journal_file import JournalFile, latest_unfinished
from referee.core.events import GameStart
from referee.core.journal import encode

from live_game import Referee, journal_lines


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_game_is_left_to_resume(pulse, tmp_path, sig):
    ref = Referee("play", "stroop", "--players", "ann,bob", "--names", "ann,bob",
                  "--devices", "ann,bob", "--virtual-deck", "--speak-to", "speakers", "--json",
                  data=tmp_path, session=True)
    try:
        ref.wait_err("journal ", timeout=60)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:   # the referee deals and says its first card
            path, objs = journal_lines(tmp_path)
            if any(o["type"] == "deal" for o in objs):
                break
            time.sleep(0.2)
        time.sleep(1.0)
        os.killpg(ref.proc.pid, sig)          # as a terminal does: the whole group
        code = ref.proc.wait(30)
    finally:
        ref.kill()
    path, objs = journal_lines(tmp_path)
    assert code == 130, ref.stderr
    assert not [o for o in objs if o["type"] == "final"], objs
    assert "`referee resume` continues it" in ref.stderr
    assert "voice failed" not in ref.stderr
    assert latest_unfinished(tmp_path / "games") == path


def test_a_journal_with_only_its_game_line_is_not_the_latest_game(tmp_path):
    start = GameStart("stroop", ("ann", "bob"))
    older = JournalFile.new("stroop", tmp_path)
    older.append({**encode(start), "setup": {}})
    older.append({"type": "deal", "card": "3S", "at": 1.0})
    older.close()
    time.sleep(1.1)                           # journals are named by the second they start
    empty = JournalFile.new("stroop", tmp_path)
    empty.append({**encode(start), "setup": {}})
    empty.close()
    assert json.loads(empty.path.read_text().splitlines()[0])["type"] == "game"
    assert latest_unfinished(tmp_path) == older.path
