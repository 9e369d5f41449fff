"""The mic array benchmark (`referee bench --array`): a game benchmark game said at a
simulated array table (its enrolment, seats and noise), its seats learnt and its utterances
attributed, and the report's figures."""

from __future__ import annotations

import numpy as np
import pytest

from referee.lab.bench import array_bench, array_table, games, games_table
from referee.lab.mixing import RATE

pytest.importorskip("pyroomacoustics")

VOICES = {"dealer": "flite:kal", "ann": "espeak-ng:en-us+m3", "bob": "espeak-ng:en-gb+f2"}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    d = tmp_path_factory.mktemp("array")
    (d / "utt").mkdir()
    voices = games.Voices(d / "utt", d)
    spec = {"id": "test-7", "split": "tuning", "players": ["ann", "bob"], "voices": VOICES,
            "noise": "clatter", "snr": 15.0, "kinds": ["single", "race", "silence"], "seed": 7}
    game = games_table.build(spec, d, voices, 1)
    t, wav = array_table.build(game, 4, 15.0, d / "array", voices, 1)
    return game, t, array_table.read(wav)


def test_every_talker_is_seated_and_says_their_name_first(table):
    game, t, audio = table
    assert audio.shape[1] == 4 and set(t.seats) == set(game.channels)
    centre = np.mean(t.mics, axis=0)
    for pos in t.seats.values():
        assert 0.5 <= np.hypot(*(np.array(pos[:2]) - centre[:2])) <= 0.9
    assert [n for n, _, _ in t.enrol] == game.channels
    assert t.enrol[-1][2] < t.offset
    assert len(audio) == int(round(t.offset * RATE)) + int(game.duration * RATE)


def test_the_seats_are_learnt_and_each_utterance_said_alone_attributed(table):
    game, t, audio = table
    got = array_bench.attributions(game, audio, t)
    assert not got["too_alike"] and got["enrol_err"] < 0.15
    alone = [u for u in got["utts"] if u["alone"]]
    assert len(alone) >= 5
    assert sum(u["right"] for u in alone) >= len(alone) - 1


def test_the_report_counts_games_not_played_as_rounds_lost():
    rec = {"game": "held-out-00", "split": "held-out", "players": 4, "mics": 4, "rt60": 0.3,
           "too_alike": False, "min_apart": 0.9, "max_similarity": 0.5,
           "baseline": [True] * 9,
           "utts": [{"alone": True, "right": True}] * 49 + [{"alone": True, "right": False}],
           "rounds": [{"kind": "race", "right": True}] + [{"kind": "single", "right": False}] * 8}
    unplayed = {**rec, "game": "held-out-01", "too_alike": True, "played": False, "rounds": []}
    text = array_bench.render([rec, unplayed], {"command": "x", "date": "d", "machine": "m",
                                               "elapsed": 1.0, "games": 2})
    assert "| array attribution, single calls | ≥ 98 % | 98.0 % (98/100) | met |" in text
    assert "| rounds right, 4 players, 15 dB | ≥ 90 % | 5.6 % (1/18) | **missed** |" in text
