"""The benchmark's figures and report, from hand-made result records."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from referee.lab.bench import metrics as M
from referee.lab.bench import report
from referee.cli.main import main
from referee.core.events import Utterance


def heard(said, kind="call", emitted=2.0, compute=0.01, start=0.5, end=1.5, flushed=False):
    return {"kind": kind, "said": said, "start": start, "end": end, "confidence": 0.9,
            "emitted": emitted, "compute": compute, "flushed": flushed}


def rec(expect, *hs, category=None, split="held-out", snr="clean", noise="silence",
        voice="flite:awb", family="flite", speech_end=1.4, duration=3.0, cpu=0.15, text=""):
    if category is None:
        category = "call" if expect and " of " in expect else ("shout" if expect else "chatter")
    return {"id": f"x-{id(hs)}", "split": split, "category": category, "expect": expect,
            "text": text or (expect or "hello"), "voice": voice, "family": family, "snr": snr,
            "noise": noise, "speech_start": 0.5, "speech_end": speech_end, "duration": duration,
            "heard": list(hs), "cpu": cpu, "wall": cpu}


def test_outcomes():
    assert M.outcome(rec("queen of hearts", heard("queen of hearts"))) == "correct"
    assert M.outcome(rec("queen of hearts")) == "missed"
    assert M.outcome(rec("queen of hearts", heard("king of hearts"))) == "wrong"
    assert M.outcome(rec("queen of hearts", heard("queen of hearts"),
                         heard("two of clubs"))) == "extra"
    # 'unknown' utterances do not act on the game, so they neither help nor hurt.
    assert M.outcome(rec("queen of hearts", heard("queen of hearts"),
                         heard("blah", kind="unknown"))) == "correct"
    assert M.outcome(rec(None, heard("blah", kind="unknown"))) == "rejected"
    assert M.outcome(rec(None, heard("goop", kind="shout"))) == "false-accept"
    assert M.outcome(rec(None, heard("score", kind="command"))) == "other-accept"


def test_accuracy_and_false_accepts():
    recs = [rec("queen of hearts", heard("queen of hearts"), snr="clean"),
            rec("two of clubs", heard("two of clubs"), snr="clean"),
            rec("ace of spades", heard("eight of spades"), snr="clean"),
            rec("ace of spades", snr="5"),
            rec(None), rec(None, heard("four of hearts")), rec(None), rec(None)]
    assert M.accuracy_by(recs, lambda r: r["snr"]) == {"clean": (2, 3), "5": (0, 1)}
    assert M.false_accepts(recs) == (1, 4)
    assert M.confusions(recs) == {("ace of spades", "eight of spades"): 1,
                                  ("ace of spades", "(nothing)"): 1}


def test_word_confusions_say_which_part_went_wrong():
    recs = [rec("nine of hearts", heard("five of hearts")),
            rec("nine of spades", heard("five of spades")),
            rec("two of spades", heard("two of diamonds")),
            rec("ace of clubs", heard("eight of hearts")),
            rec("ace of clubs", heard("ace of clubs"))]
    assert M.word_confusions(recs) == {("rank", "nine", "five"): 2,
                                       ("suit", "spades", "diamonds"): 1,
                                       ("rank", "ace", "eight"): 1,
                                       ("suit", "clubs", "hearts"): 1}


def test_percentile_matches_linear_interpolation():
    assert M.percentile([], 50) is None
    assert M.percentile([3.0], 95) == 3.0
    assert M.percentile([1, 2, 3, 4], 50) == 2.5
    assert M.percentile(range(101), 95) == 95
    assert M.percentile([0, 10], 95) == pytest.approx(9.5)


def test_delay_is_emission_minus_speech_end_plus_compute():
    recs = [rec("queen of hearts", heard("queen of hearts", emitted=1.7, compute=0.02),
                speech_end=1.4),
            # only the expected phrase's event counts, and only its first one
            rec("two of clubs", heard("goop", kind="shout", emitted=1.0),
                heard("two of clubs", emitted=2.0, compute=0.0),
                heard("two of clubs", emitted=2.9), speech_end=1.5),
            rec(None, heard("goop", kind="shout", emitted=9.0))]
    assert M.delays(recs) == [pytest.approx(0.32), pytest.approx(0.5)]


def test_real_time_factor_and_wilson():
    recs = [rec("goop", cpu=0.3, duration=3.0), rec(None, cpu=0.1, duration=1.0)]
    assert M.real_time_factor(recs) == pytest.approx(0.1)
    lo, hi = M.wilson(50, 100)
    assert lo == pytest.approx(40.4, abs=0.1) and hi == pytest.approx(59.6, abs=0.1)
    assert M.wilson(0, 0) is None


def test_verdicts_against_targets():
    # issue 25's targets
    good = {"accuracy": {"clean": (99, 100), "20": (97, 100), "10": (92, 100), "5": (80, 100)},
            "goop": (9, 10), "false_accepts": (1, 100), "rtf": 0.1, "p95": 0.3,
            "partials": (90, 100), "partial_accepts": (1, 100), "command_talk": (1, 100)}
    assert all(report.verdicts(good).values())
    bad = {**good, "accuracy": {**good["accuracy"], "10": (91, 100)}, "p95": 0.301,
           "partials": (89, 100), "partial_accepts": (2, 100), "goop": (8, 10),
           "false_accepts": (2, 100), "command_talk": (2, 100)}
    v = report.verdicts(bad)
    assert v["10"] is False and v["p95"] is False and v["clean"] is True
    assert v["partials"] is False and v["partial_accepts"] is False
    assert v["goop"] is False and v["false_accepts"] is False and v["command_talk"] is False


def test_partial_calls_heard_and_talk_turned_into_one():
    part = [rec("queen", heard("queen", kind="partial"), category="partial"),
            rec("jack of", heard("ten of", kind="partial"), category="partial"),   # a miscall
            rec("hearts", heard("two of hearts"), category="partial"),            # a card
            rec("spades", category="partial")]
    assert M.partials_heard(part) == (2, 4)
    talk = [rec(None, heard("five", kind="partial"), category="partial-chatter"),
            rec(None, heard("five of clubs"), category="partial-chatter"),
            rec(None, heard("five", kind="unknown"), category="partial-chatter")]
    assert M.partial_accepts(talk) == (1, 3)
    assert M.outcome(rec("queen of hearts", heard("queen of", kind="partial"))) == "wrong"
    assert M.calls_heard_as_partial([rec("queen of hearts", heard("queen of", kind="partial")),
                                     rec("queen of hearts", heard("queen of hearts"))]) == (1, 2)


def test_report_states_held_out_separately_and_the_command(tmp_path):
    recs = [rec("queen of hearts", heard("queen of hearts", emitted=1.6), split="held-out"),
            rec("queen of hearts", heard("king of hearts"), split="held-out", snr="5",
                noise="pink"),
            rec("goop", heard("goop", kind="shout", emitted=1.6), split="tuning"),
            rec(None, split="tuning", category="noise", voice="", family="")]
    meta = {"command": "referee bench --out X.md", "date": "2026-01-01 00:00 UTC",
            "machine": "test box", "engine": "pocketsphinx", "corpus": "c", "elapsed": 1.0}
    text = report.render(recs, meta)
    assert "`referee bench --out X.md`" in text
    assert "| Card calls, clean | ≥ 99 % | 100.0 % (1/1)" in text
    assert "| Card calls, 5 dB | ≥ 80 % | 0.0 % (0/1)" in text
    assert "judged on the **held-out** voices" in text
    assert "| queen of hearts | king of hearts | 1 |" in text
    details = report.render_details(recs, meta)
    assert "king of hearts" in details
    # The classifier's training is stated when one worked beside the engine.
    assert "phrase classifier was trained" not in text
    assert "phrase classifier was trained" in report.render(
        recs, meta | {"engine": "pocketsphinx + phrase classifier (m.npz)",
                      "classifier": "m.npz"})

    # --report-only re-renders from a results file, with no recogniser at all.
    results = tmp_path / "r.jsonl"
    results.write_text("\n".join(json.dumps(x) for x in [{"meta": meta}, *recs]) + "\n")
    out = tmp_path / "B.md"
    assert main(["bench", "--report-only", "--results", str(results), "--out", str(out)]) == 0
    assert out.read_text() == text
    # Other benchmarks' sections of the file are left alone, before and after.
    out.write_text("# Before\n\nkeep 1\n\n" + text + "\n# Verdict latency\n\nkeep 2\n")
    assert main(["bench", "--report-only", "--results", str(results), "--out", str(out)]) == 0
    assert out.read_text() == "# Before\n\nkeep 1\n\n" + text + "\n# Verdict latency\n\nkeep 2\n"
    out.write_text("# Verdict latency\n\nkeep 2\n")
    assert main(["bench", "--report-only", "--results", str(results), "--out", str(out)]) == 0
    assert out.read_text() == text + "\n# Verdict latency\n\nkeep 2\n"
    # A development set's report says that it is one, not how targets are judged.
    dev = tmp_path / "dev.md"
    assert main(["bench", "--report-only", "--results", str(results), "--dev", "pico",
                 "--out", str(dev)]) == 0
    assert "**Development set pico:**" in dev.read_text()
    assert "Targets are judged" not in dev.read_text()


def test_bad_input_is_a_clear_error(tmp_path, capsys):
    assert main(["bench", "--report-only", "--results", str(tmp_path / "none.jsonl"),
                 "--out", str(tmp_path / "B.md")]) == 2
    assert "no results file" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert main(["bench", "--report-only", "--results", str(bad),
                 "--out", str(tmp_path / "B.md")]) == 2
    assert "not a results file" in capsys.readouterr().err
    assert main(["bench", "--block-ms", "0"]) == 2
    assert main(["bench", "--dev", "pico", "--split", "held-out"]) == 2
    assert "--dev pico has only tuning items" in capsys.readouterr().err
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps({"meta": {"command": "c", "date": "d", "machine": "m",
                                            "engine": "e", "corpus": "c"}}) + "\n")
    assert main(["bench", "--report-only", "--results", str(results),
                 "--out", str(tmp_path / "B.md")]) == 2
    assert "no items" in capsys.readouterr().err
    with open(results, "a") as f:
        f.write(json.dumps(rec("goop", heard("goop", kind="shout"))) + "\n")
    assert main(["bench", "--report-only", "--results", str(results),
                 "--out", str(tmp_path / "no" / "such" / "dir" / "B.md")]) == 2
    assert "such" in capsys.readouterr().err


# The harness on the real recogniser --------------------------------------

def test_harness_streams_an_item_through_the_real_recogniser(tmp_path):
    from referee.lab.bench import corpus
    from referee.lab.bench.run import _classifier_path, check_against_grammar, measure
    from referee.hearing.engine import DEFAULT_KINDS, PocketSphinx, open_recogniser
    from referee.hearing.grammar import Grammar

    grammar = Grammar.load("table").subset(DEFAULT_KINDS)
    items = corpus.plan(1)
    # Every command and call the corpus expects is one the product's grammar gives.
    kept, skipped = check_against_grammar(items, grammar)
    assert skipped == [] and len(kept) == len(items)
    fake = corpus.Item(**{**corpus.asdict(items[0]), "text": "queen of the castle"})
    assert check_against_grammar([fake], grammar)[0] == []

    item = next(i for i in items if i.voice == "flite:kal16" and i.snr == "clean"
                and i.category == "call")
    [item] = corpus.build([item], tmp_path)
    engine = open_recogniser("pocketsphinx", grammar=grammar)
    # the report says how the classifier beside the engine was trained
    assert _classifier_path(engine).endswith("phrases.npz")
    assert _classifier_path(PocketSphinx(grammar=grammar, classifier=False)) is None
    rec = measure(engine, item, tmp_path, 100)
    assert rec["id"] == item.id and rec["expect"] == item.expect
    assert 0 < rec["cpu"] and rec["duration"] == item.duration
    for h in rec["heard"]:
        # an event comes out at the end of a block, after the speech it reports
        assert h["start"] < h["end"] <= h["emitted"] + 1e-6 <= rec["duration"] + 1e-6
        assert (h["flushed"] or round(h["emitted"] * 1000) % 100 == 0
                or h["emitted"] == pytest.approx(rec["duration"], abs=1e-3))
    assert M.outcome(rec) in ("correct", "extra", "wrong", "missed")


class SlowRecogniser:
    """A stand-in recogniser for the harness's own accounting (not for hearing):
    its stream spends ``work`` CPU seconds on the block that ends at ``busy_at``
    seconds and reports a call from the next block, as a recogniser that
    decides ahead of time and reports later would."""

    rate = 16000

    def __init__(self, busy_at: float, work: float) -> None:
        self.busy_at, self.work = busy_at, work

    def stream(self, start=0.0, channel=0, player=None, source=""):
        return _SlowStream(self)


class _SlowStream:
    def __init__(self, rec: SlowRecogniser) -> None:
        self.rec, self.n = rec, 0

    def feed(self, samples):
        self.n += len(samples)
        t = self.n / self.rec.rate
        if abs(t - self.rec.busy_at) < 1e-9:
            c0 = time.process_time()
            while time.process_time() - c0 < self.rec.work:
                pass
        if abs(t - self.rec.busy_at - 0.1) < 1e-9:
            return [Utterance("call", "queen of hearts", 0.5, 1.0, 0.9, 0, None, "")]
        return []

    def close(self):
        return []


def test_harness_counts_work_still_running_when_a_block_arrives(tmp_path):
    # One core takes the blocks in order: 0.3 s of work on the block that
    # ends at 1.0 s is still running when the next block arrives at 1.1 s, so
    # the call that block returns comes out 0.2 s after it arrived, at least.
    from referee.audio.wav import write_wav
    from referee.lab.bench import corpus
    from referee.lab.bench.run import measure

    write_wav(tmp_path / "x.wav", np.zeros(32000, np.float32), 16000)
    item = corpus.Item(id="x", split="tuning", category="call", text="queen of hearts",
                       expect="queen of hearts", voice="flite:kal", family="flite",
                       snr="clean", noise="silence", rate=1.0, pitch=0, peak_dbfs=-6.0,
                       lead=0.5, trail=1.0, seed=1, file="x.wav", speech_start=0.5,
                       speech_end=1.0, duration=2.0)
    rec = measure(SlowRecogniser(busy_at=1.0, work=0.3), item, tmp_path, 100)
    [h] = rec["heard"]
    assert h["emitted"] == pytest.approx(1.1)
    assert h["compute"] >= 0.2 - 1e-6
    assert M.delays([rec])[0] == pytest.approx(h["emitted"] - 1.0 + h["compute"])
    assert M.delays([rec])[0] >= 0.3 - 1e-6


def test_talk_addressed_to_the_referee_is_reported_apart_from_the_false_accept_target():
    recs = [rec(None, heard("goop", kind="shout"), category="chatter"),
            rec(None, category="near-miss"),
            rec(None, category="noise"),
            # Addressed talk: a call on it is not in the target's count...
            rec(None, heard("two of clubs"), category="addressed"),
            rec(None, heard("undo", kind="command"), category="addressed"),
            rec(None, heard("score", kind="command"), category="addressed"),
            rec(None, heard("who won", kind="unknown"), category="addressed")]
    assert report.summary(recs)["false_accepts"] == (1, 3)
    text = report.render(recs, {"command": "referee bench", "date": "d", "machine": "m",
                                "engine": "e", "corpus": "c", "elapsed": 1.0})
    # ...and the commands it set off are reported on their own.
    assert "| any command | 50.0 % (2/4) |" in text
    assert "| undo, new game or end | 25.0 % (1/4) |" in text
    assert "| addressed | 25.0 % (1/4); other 2 |" in text


def test_commands_from_talk_not_addressed_to_the_referee_are_a_figure_against_its_target():
    recs = [rec(None, heard("score", kind="command"), category="unaddressed",
                text="what's the score"),
            rec(None, heard("resume", kind="command"), category="chatter"),
            rec(None, heard("pause the game", kind="unknown"), category="unaddressed"),
            rec(None, category="near-miss"),
            rec(None, category="partial-chatter"),
            # said to the referee, and noise: not in this figure
            rec(None, heard("score", kind="command"), category="addressed"),
            rec(None, heard("score", kind="command"), category="noise")]
    assert report.summary(recs)["command_talk"] == (2, 5)
    assert report.verdicts(report.summary(recs))["command_talk"] is False
    text = report.render(recs, {"command": "referee bench", "date": "d", "machine": "m",
                                "engine": "e", "corpus": "c", "elapsed": 1.0})
    row = next(x for x in text.splitlines() if x.startswith("| Commands from talk not"))
    assert "| ≤ 1 % | 40.0 % (2/5)" in row and "**missed**" in row
    assert "commands from talk not addressed to the referee" in text.split("**Shortfalls**")[1]
