"""`referee resume --audio GAME.wav` on the recording a game was played on goes on where the
journal stops: a Stroop game (three mics, espeak-ng voices, the real PocketSphinx) stopped
by SIGKILL or SIGTERM partway through `referee play --audio` and resumed on the same file
ends with the rounds, scores and journal of a run never stopped. A different file is refused,
naming what differs."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from referee.audio.wav import read_pcm16, write_wav
from referee.lab.bench.kill_resume import CHANNELS, recorded_game, referee

RATE = 16000


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """The recording (the benchmark's: each voice leaking into the other mics at -16 dB) and
    the journal of an uninterrupted `referee play` of it."""
    tmp = tmp_path_factory.mktemp("recorded")
    wav = recorded_game(tmp / "game.wav")
    r = _referee(tmp / "whole", "play", "stroop", "--audio", str(wav), "--names", CHANNELS)
    assert r.wait(120) == 0, r.communicate()[1]
    return wav, _journal(tmp / "whole")


def _referee(data: Path, *args: str) -> subprocess.Popen:
    return referee(data, *args, stdout=subprocess.PIPE)


def _journal(data: Path) -> list[dict]:
    (path,) = data.rglob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def _stopped(data: Path, wav: Path, lines: int, sig: int) -> list[dict]:
    """`referee play` of ``wav`` stopped by ``sig`` once its journal holds ``lines`` lines."""
    p = _referee(data, "play", "stroop", "--audio", str(wav), "--names", CHANNELS)
    try:
        while p.poll() is None:
            found = list(data.rglob("*.jsonl"))
            if found and len(found[0].read_text().splitlines()) >= lines:
                p.send_signal(sig)
                break
            time.sleep(0.002)
        p.communicate(timeout=60)
    finally:
        p.kill()
    return _journal(data)


def _rounds(objs):
    return [(o["round"], o["top"], o["winner"], o["scores"]) for o in objs if o["type"] == "round"]


@pytest.mark.parametrize("lines, sig", [
    (3, signal.SIGKILL),      # round 1 open: bob's call journaled, not yet judged
    (10, signal.SIGTERM),     # round 2 open: bob's call journaled, maybe ann's
    (21, signal.SIGKILL),     # round 4 open: the first of two calls journaled
])
def test_a_stopped_recorded_game_resumed_on_its_recording_ends_as_if_never_stopped(
        game, tmp_path, lines, sig):
    wav, whole = game
    assert [r[:3] for r in _rounds(whole)] == [(1, "7D", "ann"), (2, "4S", "bob"),
                                              (3, "10C", "ann"), (4, "6C", None)]
    cut = _stopped(tmp_path, wav, lines, sig)
    assert len(cut) >= lines - 1 and not [o for o in cut if o["type"] == "final"], cut
    _resumed_as_whole(tmp_path, wav, whole)


def test_a_call_that_ended_first_but_was_not_journaled_yet_is_judged(game, tmp_path):
    """The journal as a kill leaves it between bob's call and ann's, which ended first."""
    wav, whole = game
    path = tmp_path / "games" / "20261125T120000Z-stroop.jsonl"
    path.parent.mkdir()
    bob = next(i for i, o in enumerate(whole) if o.get("said") == "nine of hearts")
    assert whole[bob + 1]["said"] == "jack of clubs" and whole[bob + 1]["end"] < whole[bob]["end"]
    path.write_text("".join(json.dumps(o) + "\n" for o in whole[:bob + 1]))
    said = _resumed_as_whole(tmp_path, wav, whole)
    # where the journal stops, though the recording is heard again from before
    assert ("Resuming. Ann has one, Bob has zero. Round two is on: the top card is the four "
            "of spades.") in said


def _resumed_as_whole(tmp_path, wav, whole):
    r = _referee(tmp_path, "resume", "--audio", str(wav))
    out, err = r.communicate(timeout=120)
    assert r.returncode == 0, err
    resumed = _journal(tmp_path)
    assert _rounds(resumed) == _rounds(whole), err
    assert resumed[-1] == whole[-1] == {"type": "final", "scores": {"ann": 2, "bob": 1},
                                        "unclaimed": 1, "rounds": 4}
    # nothing judged twice or lost: the same deals and calls in the same order, the same
    # verdicts (a verdict on what the journal held may now come before a later call)
    def happenings(objs):
        return [o for o in objs if o["type"] in ("deal", "call")]
    assert happenings(resumed) == happenings(whole), err
    assert sorted(map(json.dumps, resumed[1:])) == sorted(map(json.dumps, whole[1:])), err
    return out + err


def test_a_resume_on_another_recording_is_refused_naming_what_differs(game, tmp_path):
    wav, _ = game
    _stopped(tmp_path, wav, 5, signal.SIGKILL)
    x, _ = read_pcm16(wav)
    write_wav(tmp_path / "short.wav", x[: 10 * RATE], RATE)
    write_wav(tmp_path / "two.wav", x[:, :2], RATE)
    for other, why in (("short.wav", "it has 10.00 s of audio (160000 frames), not "),
                       ("two.wav", "it has 2 channel(s), not 3")):
        r = _referee(tmp_path, "resume", "--audio", str(tmp_path / other))
        out, err = r.communicate(timeout=60)
        assert r.returncode == 2, err
        assert f"{other} is not the recording this game was played on (game.wav): {why}" in err
        assert "--continuation" in err and "Traceback" not in err
    r = _referee(tmp_path, "resume", "--audio", str(wav), "--names", "ann,dealer,bob")
    out, err = r.communicate(timeout=60)
    assert r.returncode == 2, err
    assert ("--names ann,dealer,bob: the game was played on game.wav with --names "
            "dealer,ann,bob") in err
