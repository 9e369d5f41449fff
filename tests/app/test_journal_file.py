"""Game journals on disk: appended and fsynced per event, readable after kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from referee.app import journal_file
from referee.app.journal_file import (JournalFile, JournalFileError, data_dir, games_dir,
                                  latest_unfinished, list_games, read_journal)

GAME = {"type": "game", "game": "stroop", "players": ["ann", "bob"]}
WHEN = datetime(2026, 11, 22, 0, 45, 0, tzinfo=timezone.utc)

# A child that journals calls as fast as it can and says how many it has appended.
WRITER = r"""
import sys
from referee.app.journal_file import JournalFile
j = JournalFile.new("stroop", sys.argv[1])
print(j.path, flush=True)
j.append({"type": "game", "game": "stroop", "players": ["ann", "bob"]})
n = 0
while True:
    j.append({"type": "call", "player": "ann", "said": "queen of hearts", "n": n,
              "start": n * 0.5, "end": n * 0.5 + 0.4})
    n += 1
    print(n, flush=True)
"""

# A child that journals two events, then starts a line it never finishes (as a
# write cut short by a crash would) and waits to be killed.
TEARER = r"""
import os, sys, time
from referee.app.journal_file import JournalFile
j = JournalFile.new("stroop", sys.argv[1])
j.append({"type": "game", "game": "stroop", "players": ["ann", "bob"]})
j.append({"type": "deal", "card": "3S", "at": 1.0})
os.write(j._fd, b'{"type":"call","player":"bob","sa')
print(j.path, flush=True)
time.sleep(60)
"""


def run_child(code: str, folder: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, str(folder)], stdout=subprocess.PIPE,
                            text=True)


def test_kill_9_mid_game_loses_no_appended_event(tmp_path):
    child = run_child(WRITER, tmp_path)
    path = Path(child.stdout.readline().strip())
    acknowledged = 0
    while acknowledged < 200:
        acknowledged = int(child.stdout.readline())
    child.send_signal(signal.SIGKILL)
    child.wait()
    got = read_journal(path)
    assert got.objects[0] == GAME
    calls = got.objects[1:]
    assert len(calls) >= acknowledged  # every append that returned is there
    assert [c["n"] for c in calls] == list(range(len(calls)))
    assert got.torn is None  # one write per line: kill -9 does not tear it
    assert latest_unfinished(tmp_path) == path


def test_a_torn_last_line_is_reported_and_cut_off_on_resume(tmp_path):
    child = run_child(TEARER, tmp_path)
    path = Path(child.stdout.readline().strip())
    child.send_signal(signal.SIGKILL)
    child.wait()
    got = read_journal(path)
    assert [o["type"] for o in got.objects] == ["game", "deal"]
    assert got.torn == '{"type":"call","player":"bob","sa'
    assert latest_unfinished(tmp_path) == path
    with JournalFile.reopen(path) as j:
        assert j.dropped == b'{"type":"call","player":"bob","sa'
        j.append({"type": "call", "player": "bob", "said": "three of spades",
                  "start": 2.0, "end": 2.5})
    again = read_journal(path)
    assert again.torn is None
    assert [o["type"] for o in again.objects] == ["game", "deal", "call"]
    assert again.lines == (1, 2, 3)


def test_every_append_is_fsynced(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(journal_file.os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    with JournalFile.new("stroop", tmp_path, WHEN) as j:
        before = len(synced)  # the new file's directory entry
        for i in range(5):
            j.append({"type": "deal", "card": "3S", "at": float(i)})
            assert len(synced) == before + i + 1
            assert read_journal(j.path).objects[-1]["at"] == float(i)  # already in the file
    assert before == 1


def test_journal_lines_are_compact_utf8_json(tmp_path):
    with JournalFile.new("stroop", tmp_path, WHEN) as j:
        j.append({"type": "game", "game": "stroop", "players": ["아름", "bob"]})
    assert j.path.read_bytes() == (
        '{"type":"game","game":"stroop","players":["아름","bob"]}\n'.encode())
    with pytest.raises(ValueError):
        JournalFile.new("stroop", tmp_path).append({"at": float("nan")})
    with pytest.raises(TypeError, match="dict"):
        JournalFile.new("stroop", tmp_path).append(["not", "an", "object"])


def test_a_complete_last_line_without_its_newline_is_kept(tmp_path):
    path = tmp_path / "20261122T004500Z-stroop.jsonl"
    path.write_text(json.dumps(GAME) + "\n" + '{"type":"deal","card":"3S","at":1.0}')
    assert len(read_journal(path).objects) == 2 and read_journal(path).torn is None
    with JournalFile.reopen(path) as j:
        assert j.dropped == b""
        j.append({"type": "final"})
    got = read_journal(path)
    assert [o["type"] for o in got.objects] == ["game", "deal", "final"]
    assert got.finished


def test_a_bad_line_before_the_end_is_an_error_naming_it(tmp_path):
    path = tmp_path / "20261122T004500Z-stroop.jsonl"
    path.write_text(json.dumps(GAME) + "\nnot json\n" + json.dumps({"type": "final"}) + "\n")
    with pytest.raises(JournalFileError, match=r"line 2 is not a JSON object"):
        read_journal(path)
    with pytest.raises(JournalFileError, match="cannot read"):
        read_journal(tmp_path / "missing.jsonl")
    with pytest.raises(JournalFileError, match="cannot open"):
        JournalFile.reopen(tmp_path / "missing.jsonl")


def test_names_and_finding_the_latest_unfinished_game(tmp_path):
    def game(when, kind, finished):
        with JournalFile.new(kind, tmp_path, when) as j:
            j.append({"type": "game", "game": kind, "players": ["ann", "bob"]})
            j.append({"type": "command", "command": "score", "at": 1.0})
            if finished:
                j.append({"type": "final", "scores": {"ann": 3, "bob": 1}})
        return j.path

    t = lambda m, s=0: datetime(2026, 11, 22, 0, m, s, tzinfo=timezone.utc)  # noqa: E731
    a = game(t(1), "stroop", False)
    b = game(t(2), "stroop", True)
    c = game(t(2), "goop", False)    # same second as b: gets -2
    d = game(t(3), "stroop", True)
    assert a.name == "20261122T000100Z-stroop.jsonl"
    assert c.name == "20261122T000200Z-2-goop.jsonl"
    assert list_games(tmp_path) == [a, b, c, d]
    assert latest_unfinished(tmp_path) == c
    assert latest_unfinished(tmp_path, game="stroop") == a
    assert latest_unfinished(tmp_path / "none") is None
    with pytest.raises(ValueError, match="game name"):
        JournalFile.new("../evil", tmp_path)


def test_data_dir_follows_the_environment():
    assert data_dir({"REFEREE_DATA": "/d/ref", "XDG_DATA_HOME": "/x"}) == Path("/d/ref")
    assert data_dir({"XDG_DATA_HOME": "/x"}) == Path("/x/referee")
    assert data_dir({"HOME": "/home/ann"}) == Path("/home/ann/.local/share/referee")
    assert games_dir({"REFEREE_DATA": "/d/ref"}) == Path("/d/ref/games")


def test_new_uses_the_data_dir_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("REFEREE_DATA", str(tmp_path / "data"))
    with JournalFile.new("stroop") as j:
        j.append(GAME)
    assert latest_unfinished() is None     # a game line alone: a start that was stopped
    with JournalFile.reopen(j.path) as j:
        j.append({"type": "deal", "card": "3S", "at": 1.0})
    assert j.path.parent == tmp_path / "data" / "games"
    assert latest_unfinished() == j.path


@pytest.fixture
def small_disk(tmp_path):
    """A real file system of its own under ``tmp_path``: a 16 KiB tmpfs (the tests run as
    root, as CI does; elsewhere they are skipped)."""
    d = tmp_path / "disk"
    d.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(d)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", str(d)], capture_output=True)


def test_a_read_only_data_dir_is_one_clear_error(small_disk):
    (small_disk / "games").mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    with pytest.raises(JournalFileError, match="Read-only file system.*REFEREE_DATA"):
        JournalFile.new("stroop", small_disk / "games")


def test_a_full_disk_mid_game_keeps_every_whole_line(small_disk):
    j = JournalFile.new("stroop", small_disk, when=WHEN)
    j.append(GAME)
    (small_disk / "ballast").write_bytes(b"\0" * 8000)
    calls = 0
    with pytest.raises(JournalFileError, match="No space left on device.*referee resume"):
        for calls in range(10_000):
            j.append({"type": "call", "player": "ann", "said": "queen of hearts",
                      "start": calls, "end": calls + 0.5})
    j.close()
    got = read_journal(j.path)
    assert got.torn is None and j.path.read_bytes().endswith(b"\n")  # no torn line
    assert got.objects[0] == GAME and len(got.objects) == calls + 1
    (small_disk / "ballast").unlink()
    with JournalFile.reopen(j.path) as again:  # room again: the game goes on
        assert again.dropped == b""
        again.append({"type": "call", "player": "bob", "said": "two of clubs",
                      "start": 1e4, "end": 1e4 + 0.5})
    assert read_journal(j.path).objects[-1]["player"] == "bob"
