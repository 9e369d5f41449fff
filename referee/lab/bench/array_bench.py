"""``referee bench --array``: the game benchmark's Stroop games (:mod:`referee.lab.bench.games`)
heard by one mic array in the middle of the table (:mod:`referee.lab.bench.array_table`)
instead of a mic per player.

Per game: the seats are learnt from the talkers' "NAME here" at the start, as ``referee play
--array`` learns them; every utterance said alone (no other talker within 100 ms) is
attributed to a seat over its true span (:meth:`referee.hearing.seats.SeatMap.attribute`);
and the game is refereed by the code of ``referee play stroop --array --audio ARRAY.wav
--names dealer,... --json`` and scored as the game benchmark scores it
(:func:`referee.lab.bench.games_run.score`), beside the same game refereed with a mic per
player (the game benchmark's results, when cached). Figures: docs/one-device.md.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from referee.hearing.seats import MIN_APART
from referee.lab.bench import array_table
from referee.lab.bench.games import Game, Voices
from referee.lab.cache import bench_dir

HEADING = "# Mic array benchmark (issue 29, mode 1)"
SNR = 15.0
"""dB: table noise under the voices at the array (the issue's target condition)."""
ALONE = 0.1
"""Seconds of clearance from any other talker for an utterance to count as said alone."""
RACES = ("race", "tie-start", "tie-draw")


def default_dir(seed: int) -> Path:
    return bench_dir(f"array-v{array_table.VERSION}-s{seed}")


def attributions(game: Game, audio: np.ndarray, table: array_table.Table) -> dict:
    """The seats learnt as ``play --array`` learns them, and every utterance attributed."""
    from referee.hearing.seats import SeatMap, voice_spans

    rate = array_table.RATE
    spans = voice_spans(audio, rate, len(game.channels))
    seats = SeatMap.learn(audio, rate, [(n, s, e) for n, (s, e) in zip(game.channels, spans)])
    sim = seats.similarity()
    close = seats.too_close()
    shifted = array_table.shifted(game, table.offset)
    utts = []
    for u in shifted.utts:
        alone = not any(o.speaker != u.speaker and o.start < u.end + ALONE
                        and u.start < o.end + ALONE for o in shifted.utts)
        at = seats.attribute(audio, u.start, u.end)
        utts.append({"speaker": u.speaker, "kind": u.kind, "alone": alone, "seat": at.seat,
                     "right": at.seat == u.speaker, "confidence": round(at.confidence, 3),
                     "second_share": round(at.second_share, 3)})
    enrol_err = max(abs(s - t[1]) for (s, _), t in zip(spans, table.enrol))
    apart = np.minimum(seats.apart, seats.apart.T) + 2 * np.eye(len(sim))
    return {"too_alike": close is not None, "max_similarity": round(float(np.max(sim - 2 * np.eye(len(sim)))), 3),
            "min_apart": round(float(apart.min()), 3),
            "enrol_err": round(enrol_err, 3), "utts": utts}


def one(job: tuple) -> dict:
    """One game: built at its table, attributed, refereed and scored (a worker's task)."""
    from referee.lab.bench.games_run import PlayFailed, play, score

    game, mics, directory, utt, seed, baseline = job
    with tempfile.TemporaryDirectory(prefix="referee-tts-") as td:
        table, wav = array_table.build(game, mics, SNR, directory, Voices(utt, Path(td)), seed)
    audio = array_table.read(wav)
    rec = {"game": game.id, "split": game.split, "players": len(game.players), "mics": mics,
           "rt60": table.rt60, "noise": game.noise, "snr": SNR, "baseline": baseline,
           **attributions(game, audio, table)}
    shifted = array_table.shifted(game, table.offset)
    try:
        ran = play(shifted, wav, ["--array"])
    except PlayFailed as e:
        return {**rec, "played": False, "error": str(e), "rounds": [], "right": False}
    s = score(shifted, ran)
    heard = [c["heard"] for c in s["calls"] if c["kind"] == "call"]
    return {**rec, "played": True, "rounds": s["rounds"], "right": s["right"],
            "calls_heard": [sum(heard), len(heard)], "phantoms": s["phantoms"],
            "wall": s["wall"]}


def _baselines(seed: int, quick: bool) -> dict[str, list[bool]]:
    """Each game's rounds right with a mic per player, from the game benchmark's results."""
    from referee.lab.bench.games_run import default_dir as games_dir

    path = games_dir(seed) / f"results{'-quick' if quick else ''}.jsonl"
    if not path.exists():
        return {}
    out = {}
    for line in path.read_text().splitlines()[1:]:
        r = json.loads(line)
        out[r["game"]] = [x["right"] for x in r["rounds"]]
    return out


def run_array(args) -> int:
    """``referee bench --array [--quick] [--seed N] [--jobs N] [--out FILE]``."""
    from referee.lab.bench.games_run import default_dir as games_dir, run_on_games

    directory = Path(args.corpus) if args.corpus else default_dir(args.seed)
    base = _baselines(args.seed, args.quick)

    def work_of(built, specs):
        # the games' clean utterances (and the "NAME here"s) live in the game benchmark's cache
        return [(g, array_table.MIC_COUNTS[k % len(array_table.MIC_COUNTS)], directory,
                 games_dir(args.seed) / "utt", args.seed, base.get(g.id))
                for k, g in enumerate(built)]

    return run_on_games(args, "--array", directory, one, work_of, "array games", render,
                        HEADING)


# --- The report -----------------------------------------------------------------------

def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.1f} % ({k}/{n})" if n else "–"


def _attr(records: list[dict], alone: bool = True, mics: int | None = None) -> tuple[int, int]:
    us = [u for r in records if mics in (None, r["mics"])
          for u in r["utts"] if u["alone"] == alone]
    return sum(u["right"] for u in us), len(us)


def _rounds(records: list[dict], kinds=None, players=None, base: bool = False
            ) -> tuple[int, int]:
    k = n = 0
    for r in records:
        if players is not None and r["players"] != players:
            continue
        if base and r["baseline"] is None:
            continue
        truth = r["baseline"] if base else [x["right"] for x in r["rounds"]] or \
            [False] * len(r.get("baseline") or [0] * 9)
        kinds_of = [x["kind"] for x in r["rounds"]] or [None] * len(truth)
        for right, kind in zip(truth, kinds_of):
            if kinds is None or kind in kinds:
                k, n = k + bool(right), n + 1
    return k, n


def render(records: list[dict], meta: dict) -> str:
    splits = ("held-out", "tuning")
    by = {s: [r for r in records if r["split"] == s] for s in splits}
    L = [HEADING, "",
         "Written by `referee bench --array`; do not edit by hand: re-run the command.", "",
         f"- **Command:** `{meta['command']}`", f"- **Date:** {meta['date']}",
         f"- **Machine:** {meta['machine']}",
         f"- **Run time:** {meta['elapsed']:.0f} s wall for {meta['games']} games", "",
         "The game benchmark's Stroop games (same voices, talk and rounds; tuning and held-out "
         "voices in separate games) said in a simulated room (pyroomacoustics image sources, "
         "RT60 0.25–0.6 s) to one array in the middle of the table: 2, 3, 4 or 6 mics 5 cm "
         "apart (games in turn), the dealer and 2–5 players 0.5–0.9 m away (with 2 mics, a "
         "laptop's stereo pair, over half a circle in front of it; else all round), the game's "
         f"noise (babble, clatter, pink) from a point on the table plus hiss at each mic, "
         f"{SNR:g} dB SNR at the first mic. Each recording begins with every talker saying "
         "\"NAME here\" in turn; the seats are learnt from those as `referee play --array` "
         "learns them. *Attribution*: an utterance said alone (no other voice within 100 ms) "
         "goes to the seat its loud bins match best. *Rounds right*: the game refereed by "
         "`referee play stroop --array --audio ARRAY.wav --names dealer,...` and judged as "
         "the game benchmark judges it (winner and pile of each round); beside it, the same "
         "games refereed with a mic per player. TTS voices are easier to tell apart than "
         "people, but attribution here uses no voice at all: only where the sound comes from.",
         "", "## Targets (issue 29), held-out voices", "",
         "| target | wanted | held-out | |", "|---|---|---|---|"]
    ho = by["held-out"]
    k, n = _attr(ho)
    L.append(f"| array attribution, single calls | ≥ 98 % | {_pct(k, n)} | "
             f"{'met' if n and k / n >= 0.98 else '**missed**'} |")
    k, n = _rounds(ho, players=4)
    L.append(f"| rounds right, 4 players, {SNR:g} dB | ≥ 90 % | {_pct(k, n)} | "
             f"{'met' if n and k / n >= 0.9 else '**missed**'} |")
    L += ["", "## Per split", "", "| | held-out | tuning |", "|---|---|---|"]
    rows = [
        ("seats too alike (named, refereed all the same)",
         lambda rs: _pct(sum(r["too_alike"] for r in rs), len(rs))),
        ("attribution, said alone", lambda rs: _pct(*_attr(rs))),
        ("attribution, overlapping another voice", lambda rs: _pct(*_attr(rs, alone=False))),
        ("rounds right, array", lambda rs: _pct(*_rounds(rs))),
        ("rounds right, mic per player (same games)", lambda rs: _pct(*_rounds(rs, base=True))),
        ("race and tie rounds right, array", lambda rs: _pct(*_rounds(rs, kinds=RACES))),
        ("race and tie rounds right, mic per player", lambda rs: _pct(*_rounds(rs, kinds=RACES, base=True))),
        ("full calls heard, array", lambda rs: _pct(sum(r.get("calls_heard", [0, 0])[0] for r in rs),
                                                    sum(r.get("calls_heard", [0, 0])[1] for r in rs))),
        ("calls heard that nobody made, array", lambda rs: str(sum(r.get("phantoms", 0) for r in rs))),
    ]
    for name, f in rows:
        L.append(f"| {name} | {f(by['held-out'])} | {f(by['tuning'])} |")
    L += ["", "## Per array (both splits)", "",
          "| mics | games | seats too alike | attribution, alone | rounds right, array | "
          "rounds right, mic per player |", "|---|---|---|---|---|---|"]
    for m in array_table.MIC_COUNTS:
        rs = [r for r in records if r["mics"] == m]
        if rs:
            L.append(f"| {m} | {len(rs)} | {sum(r['too_alike'] for r in rs)} | "
                     f"{_pct(*_attr(rs))} | {_pct(*_rounds(rs))} | {_pct(*_rounds(rs, base=True))} |")
    L += ["", "## Per game", "", "*Least apart*: of the two seats least told apart, the share "
          "of each one's \"NAME here\" that matches its own seat better than the other's (the "
          f"smaller of the two); under {MIN_APART:.0%} the two are named as too alike (live, "
          "one of them is asked to move; a recording is refereed all the same).", "",
          "| game | players | mics | RT60 | least apart | attribution alone | rounds right | "
          "mic per player |", "|---|---|---|---|---|---|---|---|"]
    for r in records:
        b = r["baseline"]
        L.append(f"| {r['game']} | {r['players']} | {r['mics']} | {r['rt60']:.2f} s | "
                 f"{r['min_apart']:.0%}{' (too alike)' if r['too_alike'] else ''} | "
                 f"{_pct(*_attr([r]))} | {_pct(*_rounds([r]))} | "
                 f"{'–' if b is None else _pct(sum(b), len(b))} |")
    return "\n".join(L) + "\n"
