"""The game benchmark (`referee bench --games`): the generator's truth (leaks, the call
times from the clean voice, the round kinds and the core's verdicts on them), and one small
game refereed through the code path of `referee play --audio` and scored."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from referee.audio.wav import read_wav
from referee.core.cards import Card
from referee.lab.bench import games, games_report, games_run, games_table
from referee.lab.bench.games import RoundKind, Speech
from referee.lab.mixing import RATE
from referee.lab.train.voices import training_voices

VOICES = {"dealer": "flite:kal", "ann": "espeak-ng:en-us+m3", "bob": "espeak-ng:en-gb+f2"}


def _spec(snr: float, kinds: list[str], seed: int) -> dict:
    return {"id": f"test-{seed}", "split": "tuning", "players": ["ann", "bob"],
            "voices": VOICES, "noise": "pink", "snr": snr, "kinds": kinds, "seed": seed}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A two-player game with a round of every kind, nearly without noise (200 dB SNR)."""
    d = tmp_path_factory.mktemp("games")
    voices = games.Voices(d / "utt", d)
    (d / "utt").mkdir()
    spec = _spec(200.0, [k.value for k in RoundKind], 11)
    game = games_table.build(spec, d, voices, 1)
    audio, rate = read_wav(d / game.file)
    return d, game, audio.astype(np.float64), rate


def _span_by_hand(x: np.ndarray) -> tuple[int, int]:
    """First and last 10 ms frame, 1 ms hop, within 40 dB of the loudest (a plain loop)."""
    frames = [(s, float(np.mean(x[s:s + 160] ** 2))) for s in range(0, len(x) - 159, 16)]
    top = max(p for _, p in frames)
    loud = [s for s, p in frames if p >= top * 1e-4]
    return loud[0], loud[-1] + 160


def test_truth_times_are_the_clean_voices_span(built):
    d, game, _, _ = built
    assert len(game.utts) > 20
    for u in game.utts:
        x, _ = read_wav(d / "utt" / u.file)
        a, b = _span_by_hand(x[:, 0].astype(np.float64))
        assert abs((u.end - u.start) - (b - a) / RATE) < 1e-6, u


def test_every_voice_leaks_into_every_other_mic_down_and_late(built):
    _, game, audio, rate = built
    ch = game.channels
    for t in ch:
        for m in ch:
            if m != t:
                assert 10 <= game.leak_db[t][m] <= 22 and 1 <= game.leak_ms[t][m] <= 4
    assert all(abs(g) <= 6 for g in game.mic_gain_db.values())
    # measured on the file, over a deal (the dealer alone): level and delay of the leak
    deal = next(u for u in game.utts if u.kind == Speech.DEAL)
    a, b = int(deal.start * rate), int(deal.end * rate)
    own = audio[a:b, ch.index("dealer")]
    for m in ("ann", "bob"):
        other = audio[a:b, ch.index(m)]
        lag = max(range(80), key=lambda k: float(own[: len(own) - k] @ other[k:]))
        gain = float(own[: len(own) - lag] @ other[lag:]) / float(own @ own)
        down = -20 * np.log10(gain) + game.mic_gain_db[m] - game.mic_gain_db["dealer"]
        assert abs(down - game.leak_db["dealer"][m]) < 0.5
        assert abs(lag * 1000 / rate - game.leak_ms["dealer"][m]) <= 0.07


def test_each_round_kind_is_laid_out_and_judged_as_meant(built):
    d, game, _, _ = built
    expect = games_table.expectations(d, game.id)
    assert [e["kind"] for e in expect] == game.kinds == [k.value for k in RoundKind]
    for e, r in zip(expect, game.rounds):
        calls = [u for u in game.utts if u.round == e["round"]
                 and u.kind in (Speech.CALL, Speech.PARTIAL)]
        kind = RoundKind(e["kind"])
        assert r["top"] == e["top"] and r["winner"] == e["winner"], (e, r)
        if kind == RoundKind.SILENCE:
            assert not calls and r["outcome"] == "unwon"
        elif kind == RoundKind.TIE_DRAW:
            a, b = calls
            assert abs(a.end - b.end) <= 0.020 and abs(a.start - b.start) <= 0.015
            assert r["outcome"] == "draw"
        elif kind == RoundKind.TIE_START:
            a, b = calls
            assert abs(a.end - b.end) <= 0.020 and abs(a.start - b.start) >= 0.080
            assert r["decided_by"] == "beginning"
            assert r["winner"] == min(calls, key=lambda u: u.start).speaker
        elif kind == RoundKind.RACE:
            a, b = sorted(calls, key=lambda u: u.end)
            assert 0.060 <= b.end - a.end <= 0.300 and r["winner"] == a.speaker
        elif kind == RoundKind.PARTIAL:
            assert calls[0].kind == Speech.PARTIAL and calls[0].text in games.PARTIALS
            assert r["winner"] != calls[0].speaker
        elif kind == RoundKind.RESET:
            assert len(calls) == len(game.players) + 1
        else:
            assert r["outcome"] == "won"
    chatter = [u for u in game.utts if u.kind == Speech.CHATTER]
    assert chatter and all(games.Card.find(u.text) is None for u in chatter)


def test_the_plan_is_deterministic_and_keeps_the_voices_apart():
    full = games.plan(1)
    assert full == games.plan(1) and full != games.plan(2)
    assert {s["split"] for s in full} == {"tuning", "held-out"} and len(full) == 24
    by_id = {v.id: v for v in games.corpus.VOICES}
    for s in full:
        assert 2 <= len(s["players"]) <= 5 and 8 <= s["snr"] <= 25
        assert all(by_id[v].split == s["split"] for v in s["voices"].values())
        assert sorted(s["kinds"]) == sorted(k.value for k in RoundKind)
    quick = games.plan(1, quick=True)
    assert len(quick) == 4 and all(q in full for q in quick)


def test_the_unseen_games_are_the_tuning_games_said_by_voices_never_trained_on():
    tuning = [s for s in games.plan(1) if s["split"] == "tuning"]
    unseen = games.unseen_plan(1)
    assert unseen == games.unseen_plan(1) and len(unseen) == len(tuning)
    trained = {v.id for v in games.corpus.VOICES if v.split == "tuning"}
    held_out = {v.id for v in games.corpus.VOICES if v.split == "held-out"}
    learnt = {v.id for v in training_voices()}  # the models' own training voices
    assert "pico:en-US" in learnt or not shutil.which("pico2wave")
    for s, t in zip(unseen, tuning):
        assert s["id"] == t["id"].replace("tuning", "unseen")
        assert {k: v for k, v in s.items() if k not in ("id", "voices")} == \
            {k: v for k, v in t.items() if k not in ("id", "voices")}
        voices = list(s["voices"].values())
        assert list(s["voices"]) == list(t["voices"]) and len(set(voices)) == len(voices)
        assert not set(voices) & (trained | held_out | learnt)
        assert set(voices) <= {v.id for v in games.UNSEEN}


def test_a_game_refereed_through_play_is_scored_consistently(tmp_path_factory):
    d = tmp_path_factory.mktemp("e2e")
    voices = games.Voices(d / "utt", d)
    (d / "utt").mkdir()
    spec = _spec(20.0, ["single", "race", "partial"], 5)
    game = games_table.build(spec, d, voices, 1)
    ran = games_run.play(game, d / game.file)
    rec = games_run.score(game, ran)
    printed = [o for o in ran["printed"] if o["type"] == "round"]
    assert len(rec["rounds"]) == 3
    for r in rec["rounds"]:
        h = next((o for o in printed if o["top"] == r["top"]), None)
        assert r["right"] == (h is not None and h["winner"] == r["truth"]["winner"]
                              and h["pile"] == r["truth"]["pile"])
    assert rec["right"] == (all(r["right"] for r in rec["rounds"]) and len(printed) == 3)
    said = [u for u in game.utts if u.kind in (Speech.CALL, Speech.PARTIAL)]
    assert len(rec["calls"]) == len(said) and len(rec["deals"]) == 3
    heard = [c for c in rec["calls"] if c["heard"]]
    journaled = [o for o in ran["journal"] if o["type"] == "call"]
    assert len(heard) <= len(journaled)
    # at 20 dB most of the full calls are heard, each as said, near its true time
    full = [c for c in rec["calls"] if c["kind"] == "call"]
    assert sum(c["heard"] for c in full) >= len(full) // 2
    for c in heard:
        if c["kind"] == "call":
            assert c["said"] == c["text"] and abs(c["end_err"]) < 0.5
    f = games_report.figures([rec])
    assert f["rounds"] == (sum(r["right"] for r in rec["rounds"]), 3)
    assert f["calls"] == (sum(c["heard"] for c in full), len(full))
    assert f["partials"][1] == 1 and f["games"] == (int(rec["right"]), 1)
    text = games_report.render([rec], {"command": "c", "date": "d", "machine": "m",
                                       "games": "g", "elapsed": 1.0})
    assert text.startswith(games_report.HEADING) and "## Timing errors, tuning voices" in text
    assert games_report._fmt_rate(*f["rounds"]) in text
    # a call taken for a deal of the card dealt later is a deal nobody made, not that deal
    last = [u for u in game.utts if u.kind == Speech.DEAL][-1]
    card = str(Card.parse(last.text))
    early = [o for o in ran["journal"] if not (o["type"] == "deal" and o["card"] == card)]
    early.append({"type": "deal", "card": card, "at": round(last.start - 3.0, 3)})
    again = games_run.score(game, {**ran, "journal": early})
    assert not again["deals"][-1]["heard"] and rec["deals"][-1]["heard"]
    assert again["phantom_deals"] == rec["phantom_deals"] + 1
    # a question to the dealer is over a deal not heard only when the deal it was about (the
    # last begun by then) was not heard
    first = [u for u in game.utts if u.kind == Speech.DEAL][0]
    plain = [o for o in ran["journal"] if "asked" not in o]
    note = {"type": "note", "at": 0.0, "text": "asked", "asked": "deal-missed",
            "about": first.start + 1.0}
    heard = games_run.score(game, {**ran, "journal": plain + [note]})
    assert [q["deal_missed"] for q in heard["questions"]] == [not rec["deals"][0]["heard"]]
    lost = [o for o in plain if not (o["type"] == "deal" and o["card"] == str(Card.parse(first.text)))]
    missed = games_run.score(game, {**ran, "journal": lost + [note]})
    assert [q["deal_missed"] for q in missed["questions"]] == [True]
    assert games_report.figures([missed])["asked"] == (1, 1)
    before = games_run.score(game, {**ran, "journal": plain + [{**note, "about": first.start - 2}]})
    assert [q["deal_missed"] for q in before["questions"]] == [False]    # no card yet


def test_hearing_benchmark_options_are_refused_with_games(capsys):
    from referee.cli.main import main

    assert main(["bench", "--games", "--split", "tuning"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "referee bench: --split is for the hearing benchmark, not with --games"
