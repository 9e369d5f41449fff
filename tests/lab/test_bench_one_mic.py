"""The one-mic benchmark (`referee bench --one-mic`): a game benchmark game said to one mic in
a simulated room, each talker enrolling with their name and three cards in their own playing
voice, the voices learnt as `referee play --one-mic` learns them and every call attributed;
and the report's figures."""

from __future__ import annotations

import pytest

from referee.lab.bench import array_table, games, games_table, one_mic_bench, one_mic_report
from referee.lab.mixing import RATE

pytest.importorskip("pyroomacoustics")

VOICES = {"dealer": "flite:kal", "ann": "espeak-ng:en-us+m3", "bob": "espeak-ng:en-gb+f2"}
SPEC = {"id": "test-7", "split": "tuning", "players": ["ann", "bob"], "voices": VOICES,
        "noise": "clatter", "snr": 15.0, "kinds": ["single", "race", "silence"], "seed": 7}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    d = tmp_path_factory.mktemp("onemic")
    (d / "utt").mkdir()
    voices = games.Voices(d / "utt", d)
    game = games_table.build(SPEC, d, voices, 1)
    t, wav = array_table.build(game, 1, None, d / "one", voices, 1, one_mic_bench.ENROL_CARDS,
                               games.talk_settings(SPEC))
    return game, t, wav


def test_each_talker_enrols_with_a_name_and_three_cards_in_their_playing_voice(table):
    game, t, wav = table
    audio = array_table.read(wav)
    assert audio.shape[1] == 1
    assert [n for n, _, _ in t.enrol] == game.channels
    assert [w for w, *_ in t.enrol_cards] == [w for w in game.channels for _ in range(3)]
    assert t.enrol_cards[-1][2] < t.offset
    assert len(audio) == int(round(t.offset * RATE)) + int(game.duration * RATE)
    # the rate and pitch each talker plays with are the game's own
    rate, pitch = games.talk_settings(SPEC)["ann"]
    assert games.Schedule(SPEC, voices=None).talk["ann"] == (rate, pitch)


def test_the_voices_are_learnt_and_calls_said_alone_attributed(table):
    game, t, wav = table
    got = one_mic_bench.attributions(game, array_table.read(wav), wav, t)
    assert got["enrol_err"] < 0.15
    assert len(got["alone"]) >= 4
    assert sum(u["best"] == u["speaker"] for u in got["alone"]) >= len(got["alone"]) - 1
    assert not [u for u in got["alone"] if u["verdict"] == "wrong"]


def test_the_report_says_what_falls_short():
    alone = [{"speaker": "ann", "best": "ann", "verdict": "right"}] * 19 + \
        [{"speaker": "ann", "best": "bob", "verdict": "asked"}]
    rec = {"game": "held-out-02", "split": "held-out", "players": 4, "snr": "clean",
           "alone": alone, "pairs": [{"verdict": "two"}, {"verdict": "wrong"}],
           "unknown": ["asked", "wrong"], "rounds": [{"right": True}, {"right": False}],
           "enrolled": True}
    text = one_mic_report.render([rec], {"command": "x", "date": "d", "machine": "m",
                                         "elapsed": 1.0, "games": 1})
    assert "| attribution, 4 players, clean (most likely right) | ≥ 95 % | 95.0 % (19/20) | met |" in text
    assert "| overlapping calls caught | ≥ 95 % | 50.0 % (1/2) | **missed** |" in text
    assert "| confident wrong award (alone and overlapping calls) | ≤ 1 % | 4.5 % (1/22) | **missed** |" in text
