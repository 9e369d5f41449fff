"""A live Stroop game through the audio server killed with SIGKILL and resumed: the
``live-kills`` part of ``referee bench-reliability`` with two kills: at once (the journal
holds only its game line, resumed by naming it) and half way through the script (after a
verdict, before the last), so that the round in progress is played again after ``referee
resume``."""

from __future__ import annotations

import time

import pytest

from referee.lab.bench.live_kills import SCRIPT, live_kills


@pytest.mark.slow
def test_a_live_game_killed_and_resumed_ends_as_one_never_killed(pulse, tmp_path):
    r = live_kills(pulse, tmp_path / "kills", kills=2, moments=[0.0, 0.5], log=lambda line: None)
    assert [x[0] for x in r.whole[:-1]] == list(range(1, len(SCRIPT) + 1)), r.whole
    assert r.kills == 2 and r.ended_first == 0 and r.named == 1, r
    assert 1 <= r.rounds_at_kill[1] < len(SCRIPT), r       # killed mid-game, then resumed
    assert r.failures == [] and r.same == 2, r


def test_a_referee_killed_leaves_no_client_on_the_audio_server(pulse, tmp_path):
    """Its ``pactl subscribe`` (the mic watch) ends with it: left running, each kill kept a
    connection to the server, and the server takes 64."""
    import subprocess

    from live_game import Referee

    def clients():
        r = subprocess.run(["pactl", "list", "short", "clients"], env=pulse.env,
                           capture_output=True, text=True, check=True)
        return len(r.stdout.splitlines())

    before = clients()
    ref = Referee("play", "stroop", "--names", "dealer,ann,bob", "--devices", "dealer", "ann",
                  "bob", "--json", "--speak-to", "text", "--engine", "pocketsphinx",
                  data=tmp_path / "data", env=pulse.env)
    try:
        ref.wait_err("microphones lined up", 60)
        assert clients() > before
    finally:
        ref.kill()
    assert ref.proc.returncode == -9
    deadline = time.monotonic() + 5
    while clients() != before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert clients() == before
