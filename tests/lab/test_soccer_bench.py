"""The soccer plays of `referee bench --soccer`: the corpus plan and the report."""

from referee.app.inputs import KINDS
from referee.hearing.grammar import Grammar
from referee.lab.bench import soccer_plays


def test_every_play_reads_back_as_expected_and_no_negative_is_a_phrase():
    grammar = Grammar.load("table").subset(KINDS["soccer"])
    items = soccer_plays.plan(1)
    assert len(items) == 16 * 12
    for it in items:
        m = grammar.match(it.text)
        if it.expect is None:
            assert m is None, it.text
        else:
            assert m is not None and m.said == it.expect, (it.text, m)
    # held-out voices say other wordings and negatives than the tuning voices
    words = {s: {it.text for it in items if it.split == s and it.expect is None} for s in ("tuning", "held-out")}
    assert not words["tuning"] & words["held-out"]
    assert soccer_plays.plan(1) == items


def test_the_report_counts_exact_plays_and_false_accepts():
    def rec(split, snr, expect, heard, play="card"):
        return {"split": split, "snr": snr, "expect": expect, "play": play, "duration": 2.0, "cpu": 0.1,
                "heard": [{"kind": k, "said": s} for k, s in heard]}
    records = [
        rec("held-out", "clean", "block five of clubs", [("play", "block five of clubs")], "block one"),
        rec("held-out", "5", "no block", [("unknown", "no")], "no block"),
        rec("held-out", "clean", None, [("play", "no block")], "negative"),
        rec("held-out", "20", None, [], "negative"),
    ]
    text = soccer_plays.render(records, {"command": "referee bench --soccer", "date": "today", "engine": "x"})
    assert text.startswith(soccer_plays.HEADING)
    assert "| clean | 100.0 % (1/1) |" in text and "| 5 dB | 0.0 % (0/1) |" in text
    assert "| block one | 100.0 % (1/1) |" in text and "| no block | 0.0 % (0/1) |" in text
    assert "| false accepts | 50.0 % (1/2) |" in text
    assert "Real-time factor: 0.050" in text


def test_each_item_is_heard_as_the_game_listens_in_its_phase():
    from referee.core.games.soccer import FORWARD_KINDS, PLAY_KINDS
    items = soccer_plays.plan(1)
    grammar = Grammar.load("table").subset(KINDS["soccer"])
    for item in items:
        kinds = soccer_plays.phase_kinds(item)
        if item.expect is not None:
            assert kinds == (FORWARD_KINDS if item.extra["play"] == "card" else PLAY_KINDS)
            assert grammar.subset(kinds).match(item.text) is not None, item.text
    talk = [soccer_plays.phase_kinds(i) for i in items if i.expect is None]
    assert talk.count(FORWARD_KINDS) == talk.count(PLAY_KINDS) == len(talk) // 2
