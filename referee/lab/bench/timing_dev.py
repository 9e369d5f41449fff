"""Development harness for call timing (``python -m referee.lab.bench.timing_dev``): synthetic
multi-mic tables made from the TUNING voices only, run through the listener of ``referee
play --audio`` with and without timing from every channel, errors against the truth of
:func:`referee.hearing.timing.truth` on each clean voice.

A table: 3 players, one mic each; every voice leaks into every other mic 10 to 22 dB down
and 1 to 4 ms late; mic gains within +-6 dB; independent noise of one kind on each mic at
one SNR (against the call's level on its own mic). Rounds of one call, or of a call that
starts while a neighbour's call is already going (100 to 450 ms in). ``--learn`` prints the
edge offsets of :mod:`referee.hearing.timing` measured on the clean voices instead.
``--doc docs/timing.md`` writes the figures into that file's marked section. A development
harness, not a benchmark: tuning voices only, figures for choosing the method.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.audio.recording import RecordingSource
from referee.audio.wav import write_wav
from referee.core.cards import full_deck
from referee.hearing import timing
from referee.lab import mixing, synth
from referee.lab.bench import corpus
from referee.lab.mixing import RATE

TEXTS = tuple(c.spoken for c in full_deck())


@dataclass
class Call:
    player: int
    start: float
    end: float
    neighbour: bool  # another player was talking at its start


def tuning_calls(cache: Path, per_voice: int, seed: int) -> list[tuple[str, str, np.ndarray]]:
    """(voice id, text, samples) of calls by the tuning voices, cached as .npy."""
    rng = np.random.default_rng(seed)
    voices = [v for v in corpus.VOICES if v.split == "tuning"]
    out = []
    cache.mkdir(parents=True, exist_ok=True)
    for v in voices:
        for text in rng.choice(TEXTS, per_voice, replace=False):
            f = cache / f"{v.engine}-{v.name}-{text.replace(' ', '_')}.npy"
            if not f.exists():
                np.save(f, synth.synthesize(v, str(text)))
            out.append((v.id, str(text), np.load(f, allow_pickle=False)))
    return out


def every_call(cache: Path) -> list[tuple[str, str, np.ndarray]]:
    """(voice id, text, samples) of all 52 calls by every tuning voice at 0.85, 1.0 and 1.15
    times its speaking rate (the game benchmark's talkers vary theirs), cached as .npy."""
    out = []
    cache.mkdir(parents=True, exist_ok=True)
    for v in (v for v in corpus.VOICES if v.split == "tuning"):
        for rate in (0.85, 1.0, 1.15):
            for text in TEXTS:
                f = cache / f"{v.engine}-{v.name}-{text.replace(' ', '_')}-r{rate}.npy"
                if not f.exists():
                    np.save(f, synth.synthesize(v, text, rate=rate))
                out.append((v.id, text, np.load(f, allow_pickle=False)))
    return out


def table(calls, noise_kind: str, snr: float, rounds: int, seed: int, players: int = 3,
          babble: list[np.ndarray] | None = None) -> tuple[np.ndarray, list[Call], dict]:
    """One table's mics (frames, players), its calls' true times, and its leaks:
    (k, c) -> (gain in dB as mic c hears mic k's talker, delay in seconds)."""
    rng = mixing.rng_for(seed, f"{noise_kind}-{snr}")
    voice_of = rng.choice(sorted({c[0] for c in calls}), players, replace=False)
    by_voice = {v: [c for c in calls if c[0] == v] for v in voice_of}
    dry = []  # (player, at sample, samples)
    truths: list[Call] = []
    t = int(1.0 * RATE)
    for _ in range(rounds):
        p = int(rng.integers(players))
        race = rng.random() < 0.5
        if race:
            q = int((p + rng.integers(1, players)) % players)
            xq = by_voice[voice_of[q]][int(rng.integers(len(by_voice[voice_of[q]])))][2]
            dry.append((q, t, xq))
            tq = timing.truth(xq, RATE)
            truths.append(Call(q, t / RATE + tq[0], t / RATE + tq[1], False))
            t += int(rng.uniform(0.1, 0.45) * RATE) + int(tq[0] * RATE)
        xp = by_voice[voice_of[p]][int(rng.integers(len(by_voice[voice_of[p]])))][2]
        tp = timing.truth(xp, RATE)
        dry.append((p, t - int(tp[0] * RATE), xp))
        truths.append(Call(p, t / RATE, (t - int(tp[0] * RATE)) / RATE + tp[1], race))
        t += len(xp) + int(rng.uniform(1.2, 2.0) * RATE)
    n = t + RATE
    level = 10 ** (-20 / 20)
    own = np.zeros((n, players))
    for p, at, x in dry:
        own[at:at + len(x), p] += x / np.sqrt(mixing.power(x)) * level
    gains = 10 ** (rng.uniform(-6, 6, players) / 20)
    mics = own.copy()
    leaks = {}
    for k in range(players):
        for c in range(players):
            if k != c:
                g = 10 ** (-rng.uniform(10, 22) / 20)
                d = int(rng.integers(int(0.001 * RATE), int(0.004 * RATE) + 1))
                mics[d:, c] += g * own[:n - d, k]
                leaks[k, c] = (20 * np.log10(g * gains[c] / gains[k]), d / RATE)
    pool = babble or [c[2] for c in calls]
    for c in range(players):
        v = mixing.make_noise(noise_kind, n, mixing.rng_for(seed, f"noise{c}"), pool)
        mics[:, c] += v * level * 10 ** (-snr / 20)
    mics *= gains
    top = np.abs(mics).max()
    if top > 0.98:
        mics *= 0.98 / top
    return mics, truths, leaks


def listen(path: Path, players: int, refine: bool):
    from referee.hearing.engine import open_recogniser
    from referee.app.listener import Listener
    rec = open_recogniser("pocketsphinx")
    names = [f"p{i}" for i in range(players)]
    src = RecordingSource(path, names, rate=rec.rate)
    lis = Listener(src, rec, refine=refine)
    return [e for e in lis.events() if hasattr(e, "said") and e.kind == "call"]


def match(heard, truths: list[Call]):
    """(call, heard) pairs: the heard call of that player overlapping it most."""
    out = []
    for c in truths:
        best, ov = None, 0.0
        for u in heard:
            if u.player != f"p{c.player}":
                continue
            o = min(u.end, c.end) - max(u.start, c.start)
            if o > ov:
                best, ov = u, o
        if best is not None:
            out.append((c, best))
    return out


def summary(pairs) -> list[str]:
    """Heard, then start and end error in ms: median and p90 of the magnitude."""
    if not pairs:
        return ["0"] + ["-"] * 4
    s = np.array([u.start - c.start for c, u in pairs]) * 1000
    e = np.array([u.end - c.end for c, u in pairs]) * 1000
    return [str(len(pairs)), f"{np.median(s):+.0f}", f"{np.percentile(np.abs(s), 90):.0f}",
            f"{np.median(e):+.0f}", f"{np.percentile(np.abs(e), 90):.0f}"]


HEADER = ("| noise | SNR dB | neighbour talking | calls | timing | heard | start median | "
          "start p90 abs | end median | end p90 abs |\n|" + "---|" * 10)
MARK = ("<!-- timing_dev -->", "<!-- /timing_dev -->")


def write_doc(path: Path, rows: list[str], command: str) -> None:
    """Put the table between the MARK lines of ``path``."""
    text = path.read_text()
    a, b = text.index(MARK[0]) + len(MARK[0]), text.index(MARK[1])
    body = f"\n`{command}` (errors in ms):\n\n{HEADER}\n" + "\n".join(rows) + "\n"
    path.write_text(text[:a] + body + text[b:])


def _offsets(x: np.ndarray, name: str) -> tuple[list[float], list[float]]:
    """One clean call's seconds from the edge seen at each depth of ``timing.DEPTHS`` (in
    envelope ``name``) out to its SPAN_DB edge: (starts, ends)."""
    sig = timing.band_pass(x, RATE, timing.BROAD if name == "broad" else timing.BAND)
    env = timing.envelope_db(x, RATE)
    envb = timing.envelope_db(sig, RATE)
    t = np.flatnonzero(env >= env.max() - timing.SPAN_DB)
    row_s, row_e = [], []
    for d in timing.DEPTHS:
        on = np.flatnonzero(envb >= envb.max() - d)
        row_s.append((on[0] - t[0]) * timing.HOP)
        row_e.append((t[-1] - on[-1]) * timing.HOP)
    return row_s, row_e


def learn(calls) -> None:
    """Median offsets from the edge seen at each depth to the SPAN_DB edge, clean voices."""
    for name in ("broad", "band"):
        rows = [_offsets(x, name) for _, _, x in calls]
        print(name, "start", tuple(round(float(v), 3) for v in np.median([r[0] for r in rows], axis=0)))
        print(name, "end  ", tuple(round(float(v), 3) for v in np.median([r[1] for r in rows], axis=0)))


def learn_words(calls, out: Path) -> None:
    """The same medians per rank word, for a call's start (how a word begins sets how far
    its edge lies under the noise), written as JSON. Ends keep the one table: per suit word
    they timed the tuning games no better (docs/timing.md)."""
    tables: dict = {"depths": list(timing.DEPTHS), "start": {}, "end": {}}
    for name in ("broad", "band"):
        by_rank: dict[str, list] = {}
        for _, text, x in calls:
            by_rank.setdefault(text.split()[0], []).append(_offsets(x, name)[0])
        tables["start"][name] = {w: [round(float(v), 4) for v in np.median(rows, axis=0)]
                                 for w, rows in sorted(by_rank.items())}
    out.write_text(json.dumps(tables, indent=1) + "\n")
    print(f"wrote {out} ({len(calls)} clean calls)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m referee.lab.bench.timing_dev",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--noise", default="pink,babble,clatter")
    ap.add_argument("--snr", default="25,15,10")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "referee-timing")
    ap.add_argument("--learn", action="store_true")
    ap.add_argument("--learn-words", type=Path, metavar="JSON",
                    help="write the start offsets per rank word, from every card said by "
                         "every tuning voice at three speaking rates, to this file")
    ap.add_argument("--doc", type=Path, help="write the figures into this file's marked section")
    args = ap.parse_args(argv)
    if args.learn_words:
        learn_words(every_call(args.cache / "calls"), args.learn_words)
        return 0
    calls = tuning_calls(args.cache / "calls", 8, args.seed)
    work = args.cache / "work"
    work.mkdir(parents=True, exist_ok=True)
    # table talk of the tuning split's voices and sentences, as in the hearing corpus
    babble = corpus.babble_pool("tuning", args.seed, work, args.cache / "calls")
    if args.learn:
        learn(calls)
        return 0
    rows = []
    for kind in args.noise.split(","):
        for snr in (float(s) for s in args.snr.split(",")):
            mics, truths, _ = table(calls, kind, snr, args.rounds, args.seed, babble=babble)
            path = args.cache / f"table-{kind}-{snr:g}-{args.seed}.wav"
            write_wav(path, mics, RATE)
            for refine in (False, True):
                pairs = match(listen(path, mics.shape[1], refine), truths)
                for nb in (False, True):
                    sel = [(c, u) for c, u in pairs if c.neighbour == nb]
                    row = [kind, f"{snr:g}", "yes" if nb else "no",
                           str(sum(c.neighbour == nb for c in truths)),
                           "all mics" if refine else "before", *summary(sel)]
                    rows.append("| " + " | ".join(row) + " |")
                    print(rows[-1], flush=True)
    if args.doc:
        cmd = "python -m referee.lab.bench.timing_dev " + " ".join(
            a for a in (argv if argv is not None else sys.argv[1:]) if not a.startswith("--doc")
            and a != str(args.doc))
        write_doc(args.doc, rows, cmd.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
