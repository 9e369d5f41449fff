"""Verdict latency: end of the winning call -> start of the spoken verdict, live.

Plays N Stroop rounds through a private PulseAudio server (null sinks as the dealer's and
the players' mics, espeak-ng voices as the people) into a real `referee play` subprocess
with the real recogniser, and captures what the referee says from its output sink.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

DESCRIPTION = """\
Measure the delay from the end of a winning call to the start of the referee's
spoken verdict, live through a private PulseAudio server (issue 4; target p95 <= 500 ms),
and, as a row of its own, for calls made while the referee is still talking about the
round before (issue 23; target p95 <= 300 ms).

Each round: the dealer names a card into the dealer's mic (a null sink), a player names a
qualifying card into theirs, and `referee play stroop --speak-to speakers` judges it and
says "ann wins one card." into the `speaker` sink. The players' sinks and the speaker sink
are channels of one null sink recorded as one stream (one sample clock); the call's
end and the verdict's start are found in those recordings by their energy. The delay is
split into: end of call -> verdict printed (recogniser endpointing, watermarks, judge),
verdict printed -> announcement printed (TTS rendering), announcement printed -> sound in
the sink (playback start).

Every other round is a talking round: the dealer deals as soon as the verdict of the round
before is printed, so the call ends while the referee still says that verdict or the score
after it (`--scores-every 1`). The referee's channel is already loud then, so the verdict's
start is not found by its energy: it is the time the referee printed the verdict (just
before it plays it) plus the median print -> sound delay of the quiet rounds. Whether a
round was really a talking round is read from the recording: the referee's channel was
loud in the 0.15 s before the call ended.

Needs a source checkout (it uses the test harness tests/helpers/pulse.py and live_game.py)
and pulseaudio, espeak-ng. With --out FILE.md it rewrites that file's "Verdict latency
(issue 4)" section (and only that section).
"""

SECTION = "# Verdict latency (issue 4)"
#: Rounds of one game: one deck less the tens, every card dealt once (a card dealt twice in a
#: game is refused). More rounds are played as further games, one after another.
GAME_ROUNDS = 48


def _rounds(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text}: at least 1 round")
    return n


def rounds_to_play(n: int) -> list[tuple[str, str, str]]:
    """``n`` rounds of (card dealt, who calls, the qualifying card called): every dealt card
    of a game (:data:`GAME_ROUNDS` rounds) different (one deck: a card dealt twice is
    refused), the callers taking turns."""
    from referee.core.cards import Card, full_deck
    from referee.core.games.stroop import qualifies

    deck = [c for c in full_deck() if c.rank != 10]
    calls = [Card.parse(x) for x in ("2C", "AC", "6C", "QC", "3S", "KS", "4H", "JH", "5D", "KD")]
    out = []
    for i in range(n):
        top = deck[(7 * i) % len(deck)]
        call = next(c for c in calls if c != top and qualifies(c.spoken, top))
        out.append((top.spoken, ("ann", "bob")[i % 2], call.spoken))
    return out


TARGET_P95 = 0.5
#: p95 target for calls made while the referee is talking (issue 23).
TARGET_P95_TALKING = 0.3
#: Seconds after a verdict before a quiet round's deal: the verdict and the score are said.
QUIET_GAP = 4.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rounds", type=_rounds, default=20,
                   help=f"rounds to play (default 20); past {GAME_ROUNDS} (one deck less the "
                        "tens) in further games, one after another")
    p.add_argument("--out", metavar="FILE.md", help="write the figures into this file's section")
    p.add_argument("--engine", default="pocketsphinx", help="recogniser (default pocketsphinx)")
    p.add_argument("--referee-args", default="", metavar="ARGS",
                   help="extra options for `referee play`, e.g. '--speech-rate 200'")


def _harness():
    helpers = Path(__file__).resolve().parents[3] / "tests" / "helpers"
    if not (helpers / "pulse.py").exists():
        raise SystemExit("referee bench-latency: needs a source checkout (tests/helpers/pulse.py)")
    sys.path.insert(0, str(helpers))
    import live_game
    import pulse

    return pulse, live_game


def _loud(x, rate: int, threshold: float = 0.01, hop: float = 0.01):
    import numpy as np

    h = int(hop * rate)
    n = len(x) // h
    return np.abs(x[: n * h]).reshape(n, h).max(axis=1) > threshold, hop


def percentile(xs: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(-(-q * len(s) // 100)) - 1))
    return s[k]


#: One 4-channel null sink "room" holds every mic and the referee's voice, so that one
#: recording of its monitor has them all on one sample clock.
MIC_CHANNELS = {"dealer": 0, "ann": 1, "bob": 2}
VOICE_CHANNEL = 3


def _room(server) -> None:
    """The mics as remap sources of the room's channels 0-2 (ALSA devices dealer_mic,
    ann_mic, bob_mic) and the referee's output as a remap sink on channel 3."""
    maps = server.sinks["room"].channel_map
    server.split("room", {f"{name}_mic": ch for name, ch in MIC_CHANNELS.items()})
    server._pactl("load-module", "module-remap-sink", "sink_name=referee_out", "master=room",
                  "channels=1", f"master_channel_map={maps[VOICE_CHANNEL]}", "channel_map=mono",
                  "remix=no")


def _tail(wav: Path) -> float:
    """Seconds of silence at the end of a WAV file (after its last loud sample)."""
    import numpy as np

    from referee.audio.wav import read_pcm16

    x, rate = read_pcm16(wav)
    x = x[:, 0]
    loud = np.flatnonzero(np.abs(x) > 0.01 * 32768)
    return (len(x) - (loud[-1] + 1 if len(loud) else 0)) / rate


def measure(rounds: int, engine: str, extra: list[str], log=sys.stderr) -> dict:
    import numpy as np

    pulse_mod, lg = _harness()
    plan = rounds_to_play(rounds)
    work = Path(tempfile.mkdtemp(prefix="referee-latency-"))
    server = pulse_mod.PulseServer(work / "pulse")
    os.environ.update(server.client_env)
    server.start([("room", 4)], default_sink="room", default_source="room.monitor")
    plays = []
    try:
        _room(server)
        rec = server.record("room")
        rec_t0 = time.monotonic()
        mics = ",".join(f"{n}_mic" for n in MIC_CHANNELS)
        ref, overflows = None, 0
        for i in range(rounds):
            if i % GAME_ROUNDS == 0:         # a game (and a referee) for each deck's rounds
                if ref is not None:
                    overflows += _end(ref)
                    time.sleep(QUIET_GAP)
                ref = lg.Referee("play", "stroop", "--names", "dealer,ann,bob", "--devices",
                                 mics, "--json", "--speak-to", "speakers", "--speaker-device",
                                 "referee_out", "--engine", engine, "--scores-every", "1",
                                 *extra, data=work / "data")
                ref.wait_err("referee: journal ", 60)
                time.sleep(1.0)
            deal, who, call = plan[i]
            dwav = lg.voice_wav(work, "dealer", deal)
            cwav = lg.voice_wav(work, who, call)
            talking = i % 2 == 1 and plays and plays[-1] is not None
            if not talking and i % GAME_ROUNDS:
                time.sleep(QUIET_GAP)         # the verdict and the score of the round before are said
            server.play(dwav, "room", channel=MIC_CHANNELS["dealer"])
            if not talking:
                time.sleep(0.8)
            n_before = len(ref.objects("round"))
            t_play = time.monotonic()
            server.play(cwav, "room", channel=MIC_CHANNELS[who])
            t_done = time.monotonic()         # paplay has drained: the call has sounded
            try:
                ref.wait_for(lambda r: len(r.objects("round")) > n_before, 15, "a round")
            except AssertionError:
                print(f"round {i + 1}: no verdict", file=log)
                plays.append(None)
                continue
            t_json = [t for t, line in ref.out if '"round"' in line][-1]
            obj = ref.objects("round")[-1]
            deadline = time.monotonic() + 3.0      # the verdict is printed as it starts to play
            while True:
                said = [(t, s) for t, s in ref.announcements() if t >= t_json and "wins" in s]
                if said or time.monotonic() > deadline:
                    break
                time.sleep(0.01)
            plays.append({"who": who, "call": call, "t_play": t_play, "t_done": t_done,
                          "tail": (tail := _tail(cwav)), "dur": lg.duration(cwav),
                          "t_json": t_json, "t_said": said[0][0] if said else None,
                          "winner": obj.get("winner"), "said": obj.get("call", {}).get("said")})
            print(f"round {i + 1}/{rounds}: {obj.get('winner')} on {obj.get('top')}, printed "
                  f"{(t_json - t_done + tail) * 1000:.0f} ms after the call's end"
                  + (" (referee talking)" if talking else ""), file=log, flush=True)
        overflows += _end(ref)
    finally:
        audio = rec.stop() if "rec" in locals() else None
        server.stop()
    rate, hop = 16000, 0.01
    h = int(hop * rate)
    n = len(audio) // h
    loud = np.abs(audio[: n * h]).reshape(n, h, audio.shape[1]).max(axis=1) > 0.01
    rows, skipped, talked = [], [], []
    for i, p in enumerate(plays):
        if p is None or p["winner"] != p["who"] or p["said"] != p["call"]:
            skipped.append(i + 1)
            continue
        ch = MIC_CHANNELS[p["who"]]
        a = max(0, int((p["t_play"] - rec_t0 - 0.5) / hop))
        onset = np.flatnonzero(loud[a:, ch])
        if not len(onset):
            skipped.append(i + 1)
            continue
        on = a + onset[0]
        quiet = np.flatnonzero(~loud[on:on + int((p["dur"] + 1.0) / hop), ch])
        # the call's end: the start of its last loud stretch's silence that lasts 0.3 s
        end = on
        for q in quiet:
            if not loud[on + q: on + q + int(0.3 / hop), ch].any():
                end = on + q
                break
        # wall-clock anchor for the split: paplay returns once the file has played out
        # (drained), so the call's end sounded the file's trailing silence before that
        t_end_wall = p["t_done"] - p["tail"]
        if loud[max(0, end - int(0.15 / hop)):end + 1, VOICE_CHANNEL].any():
            # the referee was talking as the call ended: timed by the verdict's print
            if p["t_said"] is None:
                skipped.append(i + 1)
            else:
                talked.append({"talking": True, "decided": p["t_json"] - t_end_wall,
                               "rendered": p["t_said"] - p["t_json"], "said": p["t_said"] - t_end_wall})
            continue
        voice = np.flatnonzero(loud[end:end + int(5 / hop), VOICE_CHANNEL])
        if not len(voice):
            skipped.append(i + 1)
            continue
        delay = voice[0] * hop
        rows.append({"delay": delay, "decided": p["t_json"] - t_end_wall,
                     "rendered": (p["t_said"] - p["t_json"]) if p["t_said"] else None,
                     "played": (t_end_wall + delay - p["t_said"]) if p["t_said"] else None})
    return {"rows": rows + talking_rows(talked, rows), "skipped": skipped, "rounds": rounds,
            "overflows": overflows}


def _end(ref) -> int:
    """End the game of ``ref`` (typed "end") and count the input overflows it told."""
    ref.type("end")
    ref.finish(30)
    return sum("input overflowed" in line for _, line in ref.err)


def talking_rows(talked: list[dict], quiet: list[dict]) -> list[dict]:
    """The talking rounds' delays: end of call -> verdict printed, plus the quiet rounds'
    median print -> sound delay (none without a quiet round to take it from)."""
    played = [r["played"] for r in quiet if r.get("played") is not None]
    if not played:
        return []
    lag = statistics.median(played)
    return [{"talking": True, "delay": t["said"] + lag, "played": lag, "decided": t["decided"],
             "rendered": t["rendered"]} for t in talked]


def summary(result: dict, talking: bool = False) -> dict:
    """The figures of the quiet rounds, or (``talking``) of the calls made while the referee talked."""
    rows = [r for r in result["rows"] if bool(r.get("talking")) == talking]
    d = [r["delay"] for r in rows]
    if not d:
        return {}
    med = lambda k: statistics.median([r[k] for r in rows if r[k] is not None])  # noqa: E731
    return {"n": len(d), "p50": percentile(d, 50), "p95": percentile(d, 95), "max": max(d),
            "decided": med("decided"), "rendered": med("rendered"), "played": med("played")}


def section(result: dict, command: str) -> str:
    s, t = summary(result), summary(result, talking=True)
    ms = lambda x: f"{x * 1000:.0f} ms"  # noqa: E731
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [SECTION, "",
             "Written by `referee bench-latency`; do not edit by hand: re-run the command.", "",
             f"- **Command:** `{command}`",
             f"- **Date:** {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
             f"- **Machine:** {platform.system()} {platform.release()}, {os.cpu_count()} cores "
             f"(shared; load average {load:.1f} at the end), Python {platform.python_version()}",
             "- **Set-up:** private PulseAudio server: one 4-channel null sink whose channels "
             "are the dealer's, ann's and bob's mics (remap sources) and the referee's output "
             "(a remap sink), recorded as one stream, so the call's end and the verdict's "
             "start are on one sample clock (10 ms resolution); espeak-ng voices; "
             "`referee play stroop --speak-to speakers --scores-every 1` with PocketSphinx "
             "and the phrase classifier. Every other round, the call is made while the "
             "referee still says the verdict or the score of the round before.",
             f"- **Rounds:** {result['rounds']} played"
             + (f" in {-(-result['rounds'] // GAME_ROUNDS)} games of at most {GAME_ROUNDS} (one "
                "deck less the tens each)" if result["rounds"] > GAME_ROUNDS else "")
             + f", {s.get('n', 0)} measured in quiet, "
             f"{t.get('n', 0)} while the referee talked"
             + (f" (left out, misheard or unmeasurable: rounds {result['skipped']})"
                if result["skipped"] else ""),
             f"- **Input overflows** (audio lost, told by `referee play`): "
             f"{result.get('overflows', 0)}", ""]
    if not s and not t:
        return "\n".join(lines + ["No round could be measured.", ""])
    if not s:
        lines += ["No quiet round could be measured.", ""]
    else:
        lines += _quiet_table(s)
    if t:
        met = "met" if t["p95"] <= TARGET_P95_TALKING else "**missed**"
        lines += ["| Call made while the referee talks: end of call -> start of spoken verdict "
                  "| Target | Measured | Target met? |",
                  "|---|---|---|---|",
                  f"| p50 | – | {ms(t['p50'])} | – |",
                  f"| p95 | ≤ {TARGET_P95_TALKING * 1000:.0f} ms | {ms(t['p95'])} | {met} |",
                  f"| max | – | {ms(t['max'])} | – |", "",
                  "The talking rounds' verdict start is its print time plus the quiet rounds' "
                  f"median print -> sound delay ({ms(t['played'])}); medians: end of call -> "
                  f"verdict decided {ms(t['decided'])}, verdict -> announcement rendered "
                  f"(after cutting short what was being said) {ms(t['rendered'])}.", ""]
    else:
        lines += ["No call made while the referee talked could be measured.", ""]
    return "\n".join(lines)


def _quiet_table(s: dict) -> list[str]:
    ms = lambda x: f"{x * 1000:.0f} ms"  # noqa: E731
    met = "met" if s["p95"] <= TARGET_P95 else "**missed**"
    return ["| End of winning call -> start of spoken verdict | Target | Measured | Target met? |",
            "|---|---|---|---|",
            f"| p50 | – | {ms(s['p50'])} | – |",
            f"| p95 | ≤ {TARGET_P95 * 1000:.0f} ms | {ms(s['p95'])} | {met} |",
            f"| max | – | {ms(s['max'])} | – |", "",
            "Where it goes (medians): end of call -> verdict decided and printed "
            f"{ms(s['decided'])} (recogniser endpointing, watermarks, judge); verdict -> "
            f"announcement rendered {ms(s['rendered'])} (TTS); rendered -> sound in the "
            f"output sink {ms(s['played'])} (player start-up and buffering).", ""]


def write_section(path: Path, text: str) -> None:
    """Rewrite this benchmark's section of the markdown file ``path``."""
    from referee.lab.bench.report import write_section as write

    write(path, text, SECTION)


def run(args: argparse.Namespace) -> int:
    if args.rounds < 1:
        print("referee bench-latency: --rounds must be at least 1", file=sys.stderr)
        return 2
    import shlex

    result = measure(args.rounds, args.engine, shlex.split(args.referee_args))
    command = "referee bench-latency " + " ".join(
        [f"--rounds {args.rounds}"] + ([f"--referee-args {shlex.quote(args.referee_args)}"]
                                       if args.referee_args else [])
        + ([f"--out {args.out}"] if args.out else []))
    text = section(result, command)
    print(text)
    print(json.dumps(summary(result)), file=sys.stderr)
    if args.out:
        write_section(Path(args.out), text)
    return 0
