"""The Goop count's numbers benchmark: its plan says every number 0-52 in every split, in
what the game's grammar hears as that number, and its scoring and report count what a
count would take as an answer."""

from __future__ import annotations

from collections import Counter

import pytest

from referee.app.inputs import KINDS
from referee.core.numbers import parse_number
from referee.hearing.grammar import Grammar
from referee.lab.bench import corpus
from referee.lab.bench import numbers_bench as nb


def test_the_plan_says_every_number_in_both_splits_in_every_noise():
    items = nb.plan(seed=1)
    assert items == nb.plan(seed=1) and items != nb.plan(seed=2)
    grammar = Grammar.load("table").subset(KINDS["goop"])
    for split in corpus.SPLITS:
        answers = [i for i in items if i.split == split and i.extra["said"] == "answer"]
        assert {int(i.expect) for i in answers} == set(range(53))
        assert set(Counter(i.snr for i in answers).values()) == {len(answers) // 4}
        voices = {i.voice for i in items if i.split == split}
        assert voices == {v.id for v in corpus.VOICES if v.split == split}
    for it in items:
        heard = grammar.match(it.text)
        if it.expect is None:       # talk: nothing the count would take
            assert heard is None or heard.kind != "number", it.text
        else:
            assert heard.kind == "number" and heard.said == it.expect, it.text
            number = parse_number(heard.said)
            assert str(number.value) == it.expect.removeprefix("no ")
    tuning = {i.text for i in items if i.split == "tuning" and i.expect is None}
    held = {i.text for i in items if i.split == "held-out" and i.expect is None}
    assert tuning and held and not tuning & held


def _rec(split, snr, expect, said_kind, *heard):
    return {"split": split, "snr": snr, "expect": expect, "said": said_kind, "duration": 2.0,
            "cpu": 0.2, "heard": [{"kind": k, "said": s} for k, s in heard]}


def test_scoring_and_the_report_count_exact_numbers_and_talk_taken_for_one():
    recs = [_rec("held-out", "clean", "42", "answer", ("number", "42")),
            _rec("held-out", "clean", "20", "answer", ("number", "28")),
            _rec("held-out", "10", "9", "answer"),
            _rec("held-out", "10", "7", "answer", ("number", "7"), ("shout", "goop")),
            _rec("held-out", "5", "no 15", "correction", ("number", "no 15")),
            _rec("held-out", "20", None, "negative", ("number", "2")),
            _rec("held-out", "20", None, "negative", ("unknown", "minutes")),
            _rec("tuning", "clean", "8", "answer", ("unknown", "eight")),
            _rec("tuning", "clean", "3", "answer", ("number", "3")),
            _rec("tuning", "20", "27", "answer", ("number", "no 27")),
            _rec("tuning", "20", "no 9", "correction", ("number", "9"))]
    assert [nb.score(r) for r in recs] == ["correct", "wrong", "missed", "extra", "correct",
                                           "false-accept", "rejected", "missed", "correct",
                                           "correct", "wrong"]
    text = nb.render(recs, {"command": "referee bench --numbers", "date": "today",
                            "engine": "pocketsphinx"})
    assert text.startswith(nb.HEADING + "\n")
    assert "| clean | 50.0 % (1/2) | 50.0 % (1/2) |" in text
    assert "| corrections | 100.0 % (1/1) | 0.0 % (0/1) |" in text
    assert "| 10 dB | 0.0 % (0/2) | – |" in text
    assert "| talk taken for a number | 50.0 % (1/2) | – |" in text
    assert "held-out at clean: ≥ 95 %; 50.0 % (1/2): **missed**" in text
    assert "| held-out | 1 | 1 | 1 | 1 |" in text
    assert "8 → nothing" in text and "20 → 28" not in text     # only tuning misses listed


def test_a_development_set_says_the_tuning_answers_with_its_own_voices_only():
    items = nb.plan(seed=1, dev="kept-out")
    kept = {v.id for v in corpus.DEV_SETS["kept-out"]}
    assert {i.split for i in items} == {"tuning"}
    assert {i.voice for i in items} == kept
    answers = [i for i in items if i.extra["said"] == "answer"]
    assert len(answers) == nb.ANSWERS * len(kept)
    assert {int(i.expect) for i in answers} == set(range(53))
    assert {i.text for i in items if i.expect is None} <= set(nb.NEGATIVES["tuning"])
    assert nb.default_dir(1, "kept-out") != nb.default_dir(1)
    with pytest.raises(corpus.CorpusError, match="near-miss"):
        nb.plan(seed=1, dev="near-miss")


def test_soccer_refuses_a_development_set(capsys):
    from referee.cli.main import main
    assert main(["bench", "--soccer", "--dev", "kept-out"]) == 2
    assert "--dev is for the hearing and numbers benchmarks" in capsys.readouterr().err
