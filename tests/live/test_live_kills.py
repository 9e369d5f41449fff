"""A live Stroop game through the audio server killed with SIGKILL and resumed: the
``live-kills`` part of ``referee bench-reliability`` with two kills: at once (the journal
holds only its game line, resumed by naming it) and half way through the script (after a
verdict, before the last), so that the round in progress is played again after ``referee
resume``."""

from __future__ import annotations

import pytest

from referee.lab.bench.live_kills import SCRIPT, live_kills


@pytest.mark.slow
def test_a_live_game_killed_and_resumed_ends_as_one_never_killed(pulse, tmp_path):
    r = live_kills(pulse, tmp_path / "kills", kills=2, moments=[0.0, 0.5], log=lambda line: None)
    assert [x[0] for x in r.whole[:-1]] == list(range(1, len(SCRIPT) + 1)), r.whole
    assert r.kills == 2 and r.ended_first == 0 and r.named == 1, r
    assert 1 <= r.rounds_at_kill[1] < len(SCRIPT), r       # killed mid-game, then resumed
    assert r.failures == [] and r.same == 2, r
