"""The near-miss check of many histories (referee.lab.bench.histories): its plan, and the
real recogniser hearing a call as a call and talk as talk after each history."""

from __future__ import annotations

from referee.core.cards import Card
from referee.lab.bench import histories
from referee.lab.bench.corpus import DEV_SETS


def test_the_plan_is_none_then_calls_at_gains_in_range_and_the_same_for_a_seed():
    a = histories.plan(6, seed=3)
    assert a == histories.plan(6, seed=3) and a != histories.plan(6, seed=4)
    assert len(a) == 6 and a[0] == []
    for h in a[1:]:
        assert 1 <= len(h) <= 5
        for voice, call, gain in h:
            assert 0 <= voice < len(DEV_SETS["near-miss"])
            assert Card.find(call) is not None, call
            assert histories.GAIN_DB[0] <= gain <= histories.GAIN_DB[1]


def test_a_call_is_taken_after_every_history_and_talk_after_none(tmp_path):
    taken = histories.check(3, seed=0, workdir=tmp_path,
                            texts=("seven of clubs", "pass me the water please"))
    assert taken == {"seven of clubs": [0, 1, 2], "pass me the water please": []}


def test_main_says_how_many_were_taken(capsys):
    assert histories.main(["--histories", "1", "--sentences", "1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("taken for a card or shout: ")
    assert "(1 sentences x 1 histories, seed 0)" in out
