"""``referee play --audio`` on a recording as long as a game night: the peak memory of the
whole ``referee play`` process on the same recorded game padded to a short and to a long
file. The recording is streamed a block at a time, so the long file must cost no more than
the short one beyond what its longer journal and clock need (issue 31: within 50 MB for two
hours against two minutes).

The file is the short recorded Stroop game of :mod:`.kill_resume` (its 4 rounds) on four
mics, as the issue asks (a fourth player who says nothing: their mic hears the others'
leaks), then quiet room noise (pink, 60 dB under full scale, each mic its own) up to the
length asked: what a table's mics pick up once the players have gone quiet. Both runs must give the same
rounds and scores, or the long one lost something.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.audio.wav import WavReader, WavWriter
from referee.lab.mixing import pink

NOISE_DBFS = -60.0
"""Level of the room noise after the game, dB under full scale."""
BLOCK = 60
"""Seconds of padding written at a time."""
#: Runs a command and prints its peak resident memory (KiB) and its exit status.
_MEASURE = ("import resource, subprocess, sys\n"
            "code = subprocess.run(sys.argv[1:]).returncode\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)\n")


@dataclass
class Run:
    minutes: float
    """Length of the recording."""
    peak_mb: float
    """Peak resident memory of the ``referee play`` process."""
    seconds: float
    """Wall time of the run."""
    code: int
    """Its exit status."""
    rounds: list
    """Each round's (top card, winner, pile), from its journal."""
    scores: dict
    """The final scores, from its journal."""


def padded(game: Path, out: Path, minutes: float, seed: int = 1, mics: int = 0) -> Path:
    """``game`` then quiet noise, ``minutes`` long in all, written a block at a time; with
    ``mics`` more than the game's channels, the extra mics hear the game's voices leaked
    (:data:`~referee.lab.bench.kill_resume.LEAK` of each) and say nothing."""
    from referee.lab.bench.kill_resume import LEAK

    src = WavReader(game)
    try:
        rate, channels, frames = src.rate, src.channels, src.frames
        head = src.read_pcm16(0, frames)
    finally:
        src.close()
    if mics > channels:
        extra = np.clip(head.astype(np.float64).sum(axis=1) * LEAK, -32768, 32767)
        head = np.concatenate([head, np.repeat(extra[:, None], mics - channels, axis=1)
                               .astype(np.int16)], axis=1)
        channels = mics
    total = int(minutes * 60 * rate)
    rng = np.random.default_rng(seed)
    level = 10 ** (NOISE_DBFS / 20)
    with WavWriter(out, rate, channels) as w:
        w.write(head[:total])
        left = total - min(total, frames)
        while left > 0:
            n = min(left, BLOCK * rate)
            w.write(np.stack([pink(n, rng) * level for _ in range(channels)], axis=1))
            left -= n
    return out


def play(wav: Path, names: str, data: Path, minutes: float) -> Run:
    """``referee play stroop --audio wav`` in a child process, its journals in ``data``."""
    data.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, REFEREE_DATA=str(data))
    cmd = [sys.executable, "-c", _MEASURE, sys.executable, "-m", "referee", "play", "stroop",
           "--audio", str(wav), "--names", names, "--speak-to", "text",
           "--engine", "pocketsphinx"]
    t = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - t
    last = p.stdout.strip().splitlines()[-1].split() if p.stdout.strip() else ["0", "-1"]
    rounds, scores = _journal(data)
    return Run(minutes, int(last[0]) / 1024, seconds, int(last[1]), rounds, scores)


def _journal(data: Path) -> tuple[list, dict]:
    """Rounds and final scores of the one journal under ``data``."""
    rounds, scores = [], {}
    for path in sorted(data.rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            o = json.loads(line)
            if o.get("type") == "round":
                rounds.append((o.get("top"), o.get("winner"), o.get("pile")))
            elif o.get("type") == "final":
                scores = o.get("scores", {})
    return rounds, scores


def long_file(work: Path, game: Path, names: str, short: float = 2.0, long: float = 120.0,
              log=lambda line: None) -> tuple[Run, Run]:
    """The short and the long run (``short`` and ``long`` minutes), a mic per name of
    ``names``; each file is removed once played."""
    out = []
    for minutes in (short, long):
        wav = padded(game, work / f"padded-{minutes:g}min.wav", minutes,
                     mics=len(names.split(",")))
        log(f"{minutes:g} minutes: {wav.stat().st_size / 1e6:.0f} MB written; playing it")
        out.append(play(wav, names, work / f"data-{minutes:g}min", minutes))
        wav.unlink()
        r = out[-1]
        log(f"{minutes:g} minutes: peak {r.peak_mb:.0f} MB, {r.seconds:.0f} s, exit {r.code}, "
            f"{len(r.rounds)} rounds")
    return out[0], out[1]
