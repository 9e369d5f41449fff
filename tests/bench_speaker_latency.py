"""How soon the referee's voice is heard after ``Speaker.say``: a benchmark, not a test.

    .venv/bin/python tests/bench_speaker_latency.py [--rounds 30]

Starts a private PulseAudio server (tests/helpers/pulse.py) whose null sink
``speaker`` stands in for the loudspeaker, and a ``parec`` tap on its monitor
that timestamps every 10 ms of sound as it arrives. For each announcement it
measures, on one monotonic clock:

* say -> start: ``say()`` returned until the speaker's ``Spoken.start`` (the
  voice rendered it and the player was launched);
* say -> heard: ``say()`` until the first sound at the sink's monitor (the
  tap's arrival time, so it includes the tap's own latency: an upper bound);
* start error: heard minus ``Spoken.start`` (how far the recorded start is
  from the sound);
* end error: ``Spoken.end`` minus the last sound;
* urgent cut-in: ``say(urgent=True)`` during a long announcement until the
  urgent one is heard.

The referee is idle when each announcement is asked for (the usual case for a
verdict: the round's calls are over).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "helpers"))

from pulse import PulseServer  # noqa: E402

from referee.voice.speaker import Speaker  # noqa: E402
from referee.voice.voices import Pyttsx3Voice  # noqa: E402

SENTENCES = [
    "Bob wins two cards.",
    "Ann, by a hair: she finished first.",
    "Cai is out this round.",
    "Draw: the pile stays.",
    "Bob wins five cards with the queen of hearts.",
    "Scores: Ann twelve, Bob nine, Cai four.",
]


class Tap:
    """parec on a monitor, each 10 ms block timestamped on arrival."""

    def __init__(self, env: dict, device: str, rate: int = 16000):
        self.rate = rate
        self.proc = subprocess.Popen(
            ["parec", f"--device={device}", "--raw", "--format=s16le", f"--rate={rate}",
             "--channels=1", "--latency-msec=10"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.blocks: list[tuple[float, float]] = []  # (time the block began, rms)
        self._t = threading.Thread(target=self._read, daemon=True)
        self._t.start()

    def _read(self) -> None:
        n = self.rate // 100 * 2
        buf = b""
        while True:
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                return
            now = time.monotonic()
            buf += chunk
            k = len(buf) // n
            for i in range(k):
                x = np.frombuffer(buf[i * n:(i + 1) * n], "<i2") / 32768
                began = now - (len(buf) - i * n) / 2 / self.rate
                self.blocks.append((began, float(np.sqrt(np.mean(x ** 2)))))
            buf = buf[k * n:]

    def sound(self, t0: float, t1: float, level: float = 0.01) -> tuple[float, float] | None:
        """First and last loud block between t0 and t1."""
        loud = [t for t, r in list(self.blocks) if t0 <= t <= t1 and r > level]
        return (loud[0], loud[-1] + 0.01) if loud else None

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def pct(xs: list[float], p: float) -> float:
    return float(np.percentile(np.array(xs), p)) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    rows = {"say -> start": [], "say -> heard": [], "start error": [], "end error": [],
            "urgent cut-in": []}
    with PulseServer() as pulse:
        os.environ.update(pulse.client_env)
        pulse.start([("speaker", 1)], default_sink="speaker")
        tap = Tap(pulse.env, "speaker.monitor")
        time.sleep(1.0)
        voice = Pyttsx3Voice(rate=170)
        with Speaker("speakers", voice=voice, clock=time.monotonic,
                     text=open(os.devnull, "w")) as s:
            s.wait()
            time.sleep(1.0)  # the speaker's start-up (waking the output) is not measured
            for i in range(args.rounds):
                text = SENTENCES[i % len(SENTENCES)]
                asked = time.monotonic()
                s.say(text)
                s.wait()
                time.sleep(0.4)
                r = s.history()[-1]
                heard = tap.sound(asked, time.monotonic())
                if heard is None or r.start is None:
                    print(f"round {i}: not heard ({s.problems})", file=sys.stderr)
                    continue
                rows["say -> start"].append(r.start - asked)
                rows["say -> heard"].append(heard[0] - asked)
                rows["start error"].append(heard[0] - r.start)
                rows["end error"].append(r.end - heard[1])
            for i in range(max(5, args.rounds // 3)):
                s.say("Scores: Ann twelve, Bob nine, Cai seven, Dee four, Eve two.")
                time.sleep(1.0)
                asked = time.monotonic()
                s.say("Bob wins.", urgent=True)
                s.wait()
                time.sleep(0.4)
                r = s.history()[-1]
                # the urgent one's sound: after the cut (a gap), find its first block
                heard = tap.sound(r.start, time.monotonic()) if r.start else None
                if heard is None:
                    print(f"urgent {i}: not heard ({s.problems})", file=sys.stderr)
                    continue
                rows["urgent cut-in"].append(heard[0] - asked)
        voice.close()
        tap.stop()
    print("| Measure (n) | p50 ms | p95 ms | max ms |\n|---|---|---|---|")
    for name, xs in rows.items():
        if xs:
            print(f"| {name} ({len(xs)}) | {pct(xs, 50):.0f} | {pct(xs, 95):.0f} | "
                  f"{max(xs) * 1000:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
