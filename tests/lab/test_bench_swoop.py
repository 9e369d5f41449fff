"""The Swoop phrase benchmark's plan and scoring (its figures come from `referee bench-swoop`)."""

from referee.core.games.swoop_talk import read_play, read_report
from referee.hearing.grammar import Grammar
from referee.lab.bench.swoop import NEAR_MISSES, plan, score


def test_the_plan_is_deterministic_and_split():
    items = plan(1)
    assert [i.text for i in items] == [i.text for i in plan(1)]
    assert len(items) == 16 * 19
    assert {i.split for i in items if i.text in NEAR_MISSES["held-out"]} == {"held-out"}
    assert {i.split for i in items if i.text in NEAR_MISSES["tuning"]} == {"tuning"}
    assert {i.snr for i in items} == {"clean", "20", "10", "5"}


def test_every_phrase_is_the_grammar_s_and_reads_as_a_play_or_total():
    g = Grammar.load("swoop")
    for item in plan(1):
        m = g.match(item.text)
        if item.expect is None:
            assert m is None, item.text
        else:
            assert m is not None and m.said == item.expect, item.text
            assert (read_play(m.said) if item.category == "play" else read_report(m.said)), item.text


def test_score():
    rec = {"expect": "two sevens", "heard": [{"kind": "call", "said": "two sevens"}]}
    assert score(rec)
    assert not score({**rec, "heard": [{"kind": "call", "said": "two sevens"}] * 2})
    assert not score({**rec, "heard": []})
    near = {"expect": None, "heard": [{"kind": "unknown", "said": "pick up the kids"}]}
    assert score(near)
    assert not score({**near, "heard": [{"kind": "call", "said": "pick up"}]})
