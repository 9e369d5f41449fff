"""``kill -9`` at random points of ``referee play --audio``, then ``referee resume --audio``
on the same recording: does the game end with the rounds and scores of a run never killed?

The recording is a short Stroop game made here: a dealer and two players (espeak-ng voices,
each leaking into the other mics at -16 dB), four rounds with a miscall, a race and a round
nobody wins. A kill point is a journal length (a random line count, from the game line to
one before the end) and a random 0-40 ms after it is reached, so that kills land between
lines and inside the work between them, not only right after a write.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

RATE = 16000
CHANNELS = "dealer,ann,bob"
#: (channel, words, seconds into the recording)
LINES = [(0, "seven of diamonds", 0.5), (2, "queen of hearts", 2.5), (1, "two of clubs", 3.8),
         (0, "four of spades", 6.0), (2, "nine of hearts", 8.0), (1, "jack of clubs", 8.02),
         (0, "ten of clubs", 10.5), (1, "three of hearts", 12.3),
         (0, "six of clubs", 15.0), (2, "eight of spades", 17.0), (1, "five of clubs", 17.2)]
#: How loud each voice is on the other mics.
LEAK = 0.15


def recorded_game(path: Path, lines: list[tuple[int, str, float]] = LINES) -> Path:
    """Write a 3-channel recording of ``lines`` (the game's by default) to ``path``: each
    (channel, words, seconds) said by one espeak-ng voice on its channel, leaking into the
    other two at ``LEAK``."""
    from referee.audio.wav import resample, write_wav
    from referee.voice.voices import EspeakVoice

    voice = EspeakVoice(rate=150, voice="en-us")
    parts = []
    for ch, text, at in lines:
        a = voice.render(text)
        x = resample(np.frombuffer(a.samples, "<i2") / 32768.0, a.rate, RATE)
        parts.append((ch, int(at * RATE), x))
    m = np.zeros((max(i + len(x) for _, i, x in parts) + RATE, 3))
    for ch, i, x in parts:
        for c in range(3):
            m[i:i + len(x), c] += x * (1.0 if c == ch else LEAK)
    write_wav(path, m, RATE)
    return path


def referee(data: Path, *args: str, stdout=subprocess.DEVNULL) -> subprocess.Popen:
    """``referee ARGS`` with its journals in ``data``, saying nothing aloud; stderr piped."""
    env = dict(os.environ, REFEREE_DATA=str(data))
    return subprocess.Popen([sys.executable, "-m", "referee", *args, "--speak-to", "text",
                             "--engine", "pocketsphinx"], stdout=stdout,
                            stderr=subprocess.PIPE, text=True, env=env)


def journal_path(data: Path) -> Path | None:
    found = sorted(data.rglob("*.jsonl"))
    return found[0] if found else None


def journal(data: Path) -> list[dict]:
    """The objects of the one journal in ``data`` (a torn last line left out)."""
    from referee.app.journal_file import read_journal

    path = journal_path(data)
    return list(read_journal(path).objects) if path else []


def outcome(objs: list[dict]) -> list:
    """The rounds (number, top card, winner, scores) and the final scores."""
    return [(o["round"], o["top"], o["winner"], o["scores"]) if o["type"] == "round"
            else ("final", o["scores"]) for o in objs if o["type"] in ("round", "final")]


def play(data: Path, wav: Path) -> tuple[int, str]:
    p = referee(data, "play", "stroop", "--audio", str(wav), "--names", CHANNELS)
    _, err = p.communicate(timeout=600)
    return p.returncode, err


@dataclass
class KillResult:
    kills: int = 0
    same: int = 0
    """Resumed games that ended with the uninterrupted run's rounds and scores."""
    named: int = 0
    """Kills before the game's first event, resumed by naming the journal."""
    ended_first: int = 0
    """Kills that came after the game had ended (nothing to resume)."""
    failures: list[str] = field(default_factory=list)
    """What differed, or how the resume failed, per kill that did not end the same."""
    lines: list[int] = field(default_factory=list)
    """The journal lengths killed at."""
    seconds: float = 0.0
    whole_seconds: float = 0.0


def kill_and_resume(folder: Path, kills: int, seed: int = 0, log=print,
                    wav: Path | None = None) -> KillResult:
    """``kills`` killed and resumed runs of the game (``wav``: its recording, else made
    here), against one run never killed."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    wav = wav or recorded_game(folder / "game.wav")
    t0 = time.monotonic()
    code, err = play(folder / "whole", wav)
    result = KillResult(whole_seconds=time.monotonic() - t0)
    if code != 0:
        raise RuntimeError(f"the uninterrupted run failed ({code}): {err[-500:]}")
    whole = journal(folder / "whole")
    want = outcome(whole)
    t0 = time.monotonic()
    for k in range(kills):
        data = folder / f"kill{k}"
        at, extra = rng.randint(1, len(whole) - 1), rng.uniform(0.0, 0.04)
        p = referee(data, "play", "stroop", "--audio", str(wav), "--names", CHANNELS)
        while p.poll() is None and len(journal_lines(data)) < at:
            time.sleep(0.002)
        time.sleep(extra)
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=60)
        result.kills += 1
        result.lines.append(at)
        if p.returncode != -signal.SIGKILL or any(o["type"] == "final" for o in journal(data)):
            result.ended_first += 1      # it had ended by itself (or journaled its end)
            got = outcome(journal(data))
        else:
            r = referee(data, "resume", "--audio", str(wav))
            _, rerr = r.communicate(timeout=600)
            if "no unfinished game" in rerr and len(journal(data)) == 1:
                # killed before its first event: plain `resume` passes a game line alone over
                result.named += 1
                r = referee(data, "resume", str(journal_path(data)), "--audio", str(wav))
                _, rerr = r.communicate(timeout=600)
            if r.returncode != 0 or "Traceback" in rerr:
                result.failures.append(f"kill at line {at}: resume exit {r.returncode}: {rerr[-300:]}")
                log(f"kill {k + 1}/{kills} at journal line {at}: resume failed")
                continue
            got = outcome(journal(data))
        if got == want:
            result.same += 1
        else:
            result.failures.append(f"kill at line {at}: {got} instead of {want}")
        log(f"kill {k + 1}/{kills} at journal line {at}: "
            f"{'same' if got == want else 'DIFFERENT'}")
    result.seconds = time.monotonic() - t0
    return result


def journal_lines(data: Path) -> list[bytes]:
    path = journal_path(data)
    return path.read_bytes().splitlines() if path else []
