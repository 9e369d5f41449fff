"""referee bench --left-out-family: the held-out items heard with a classifier fit with a
voice family and one fit without it, in a section of its own."""

from __future__ import annotations

import json
from pathlib import Path

from referee.cli.main import main
from referee.hearing.model_file import read_model
from referee.lab.bench import corpus, left_out

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "phrases.npz"


def heard(said, kind="call"):
    return {"kind": kind, "said": said, "start": 0.5, "end": 1.5, "confidence": 0.9,
            "emitted": 2.0, "compute": 0.01, "flushed": False}


def rec(expect, *hs, family="flite", voice="flite:awb", category=None, snr="clean"):
    if category is None:
        category = "call" if expect and " of " in expect else ("shout" if expect else "chatter")
    return {"id": "x", "split": "held-out", "category": category, "expect": expect,
            "text": expect or "hello", "voice": voice, "family": family, "snr": snr,
            "noise": "silence", "speech_start": 0.5, "speech_end": 1.4, "duration": 3.0,
            "heard": list(hs), "cpu": 0.1, "wall": 0.1}


def meta():
    model = {"path": "m.npz", "trained_on": ["/x/data-none.npz"], "epochs": 8,
             "from_scratch": True}
    return {"command": "referee bench --left-out-family flite --models a b", "family": "flite",
            "date": "d", "machine": "m", "corpus": "c", "models": {"with": model,
                                                                    "without": model},
            "elapsed": {"with": 1.0, "without": 2.0}}


def test_the_gap_on_the_left_out_family_and_each_shortfall_are_on_the_page():
    with_ = [rec("queen of hearts", heard("queen of hearts")),
             rec("two of clubs", heard("two of clubs")),
             rec("goop", heard("goop", "shout")),
             rec(None, category="unaddressed"),
             rec("ace of spades", heard("ace of spades"), family="espeak-ng",
                 voice="espeak-ng:en-029+f4")]
    without = [rec("queen of hearts", heard("queen of hearts")),
               rec("two of clubs"),                                   # missed
               rec("goop", heard("goop", "shout")),
               rec(None, heard("score", "command"), category="unaddressed"),
               rec("ace of spades", heard("ace of spades"), family="espeak-ng",
                   voice="espeak-ng:en-029+f4")]
    text = left_out.render({"with": with_, "without": without}, meta())
    assert text.startswith(left_out.HEADING)
    row = next(x for x in text.splitlines() if x.startswith("| Card calls, clean"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "≥ 99 %"
    assert cells[2].startswith("100.0 % (2/2)") and cells[3].startswith("50.0 % (1/2)")
    assert cells[4] == "-50.0" and cells[5] == "**missed**"
    assert cells[6] == cells[7] == "100.0 % (1/1)"                   # the other voices
    cmd = next(x for x in text.splitlines() if x.startswith("| Commands from talk"))
    assert "100.0 % (1/1)" in cmd and "**missed**" in cmd
    shortfalls = next(x for x in text.splitlines() if "fit without flite: a new kind" in x)
    assert "Card calls, clean" in shortfalls and "Commands from talk" in shortfalls
    assert "goop" not in shortfalls
    assert "**Shortfalls, flite voices, fit with flite:** none." in text
    assert "| flite:awb | 100.0 % (3/3) | 66.7 % (2/3) |" in text


def test_it_needs_both_models_and_only_hears_held_out_voices(capsys):
    assert main(["bench", "--left-out-family", "flite"]) == 2
    assert "--models WITH.npz WITHOUT.npz" in capsys.readouterr().err
    assert main(["bench", "--models", "a.npz", "b.npz"]) == 2
    assert "--models is for --left-out-family" in capsys.readouterr().err
    assert main(["bench", "--left-out-family", "flite", "--models", "a", "b",
                 "--split", "tuning"]) == 2
    assert main(["bench", "--left-out-family", "flite", "--models", "nope.npz",
                 str(SHIPPED)]) == 2
    assert "nope.npz: no such model file" in capsys.readouterr().err


def test_the_held_out_items_are_heard_with_each_model_into_a_section_of_its_own(
        tmp_path, monkeypatch):
    # Real audio through the real engine, on a few held-out items; both "models" are the
    # shipped one here, so the two runs hear alike.
    items = [i for i in corpus.plan(1) if i.split == "held-out"]
    few = [next(i for i in items if i.voice == "flite:slt" and i.category == "call"
                and i.snr == "clean"),
           next(i for i in items if i.voice == "flite:rms" and i.category == "unaddressed"),
           next(i for i in items if i.family == "espeak-ng" and i.category == "call"
                and i.snr == "clean")]
    monkeypatch.setattr(corpus, "plan", lambda seed=1, voices=corpus.VOICES: few)
    out = tmp_path / "B.md"
    out.write_text("# Hearing benchmark\n\nkept\n")
    args = ["bench", "--left-out-family", "flite", "--models", str(SHIPPED), str(SHIPPED),
            "--corpus", str(tmp_path / "c"), "--out", str(out)]
    assert main(args) == 0
    text = out.read_text()
    assert text.startswith("# Hearing benchmark\n\nkept\n")          # other sections kept
    section = text[text.index(left_out.HEADING):]
    for r in left_out.RUNS:
        lines = (tmp_path / "c" / f"results-left-out-flite-{r}.jsonl").read_text().splitlines()
        assert json.loads(lines[0])["meta"]["family"] == "flite"
        assert [json.loads(x)["id"] for x in lines[1:]] == [i.id for i in few]
    assert "for 3 items each" in section and "flite:slt" in section
    assert f"`{SHIPPED}`, {left_out.model_about(SHIPPED)['epochs']} epochs" in section
    # the epochs of every fit the shipped model was continued from, then its own
    meta = read_model(SHIPPED)[0]
    chain = [f["epochs"] for f in meta.get("history", [])] + [meta["epochs"]]
    assert len(chain) >= 2
    assert left_out.model_about(SHIPPED)["epochs"].startswith(" + ".join(map(str, chain)))
    row = next(x for x in section.splitlines() if x.startswith("| Card calls, clean"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == cells[3] and cells[4] == "+0.0"                # the same model twice
    # --report-only renders the same section again from the results.
    out.write_text("")
    assert main(args + ["--report-only"]) == 0
    assert out.read_text().strip().splitlines()[3:] == section.strip().splitlines()[3:]
