"""Helpers for end-to-end games through the test PulseAudio server: TTS voices for the
dealer and the players, a ``referee play``/``resume`` subprocess whose output lines are
collected with their arrival times, and a look at what the referee said on its output sink.

Voices and phrases were chosen with ``referee transcribe`` (PocketSphinx, bundled model):
espeak-ng ``en-us+m3``, ``en-us+f2`` and ``en-us+m1`` at 150 words per minute are
recognised right for every phrase the tests use.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from speech import synth

from referee.core.cards import Card

RATE = 16000
VOICES = {"dealer": "espeak:en-us+m3", "ann": "espeak:en-us+f2", "bob": "espeak:en-us+m1",
          "cai": "espeak:en-us+m3"}


def voice_wav(tmp_path: Path, who: str, text: str, voice: str | None = None) -> Path:
    """``text`` in ``who``'s voice, a mono 16 kHz WAV with 0.1 s of silence either side."""
    from referee.audio.wav import read_pcm16, write_wav

    name = f"{who}-{text}".replace(" ", "_").replace(",", "")
    p = synth(text, tmp_path / f"{name}.wav", voice=voice or VOICES[who], speed=150)
    x, rate = read_pcm16(p)
    pad = np.zeros((rate // 10, 1), np.int16)
    write_wav(p, np.concatenate([pad, x, pad]), rate)
    return p


def mix_wav(path: Path, parts: list[tuple[int, Path, float]], channels: int) -> Path:
    """One WAV of ``channels`` channels holding each ``(channel, wav, at)`` of ``parts``
    (mono 16 kHz) in that channel from ``at`` seconds on. Played into a sink split into
    mic devices (``PulseServer.split``), it puts speech on several mics exactly as timed
    here, however late the player starts."""
    from referee.audio.wav import read_pcm16, write_wav

    sounds = [(ch, read_pcm16(w)[0][:, 0], int(round(at * RATE))) for ch, w, at in parts]
    x = np.zeros((max(i + len(y) for _, y, i in sounds), channels), np.int16)
    for ch, y, i in sounds:
        x[i:i + len(y), ch] += y
    write_wav(path, x, RATE)
    return path


def duration(wav: Path) -> float:
    from referee.audio.wav import read_pcm16

    x, rate = read_pcm16(wav)
    return len(x) / rate


class Referee:
    """A ``python -m referee ...`` subprocess with stdin open; its stdout and stderr lines
    are kept with their arrival times (``time.monotonic()``)."""

    def __init__(self, *args: str, data: Path, env: dict | None = None,
                 session: bool = False) -> None:
        """``session``: start it in a process group of its own, as a terminal runs a
        command, so that a signal to the group (Ctrl-C) reaches it and its children."""
        self.data = Path(data)
        e = dict(env or os.environ, REFEREE_DATA=str(data), PYTHONUNBUFFERED="1")
        self.args = args
        self.proc = subprocess.Popen([sys.executable, "-m", "referee", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, env=e,
                                     start_new_session=session)
        self.out: list[tuple[float, str]] = []
        self.err: list[tuple[float, str]] = []
        self._cv = threading.Condition()
        for stream, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, sink), daemon=True).start()

    def _read(self, stream, sink) -> None:
        for line in stream:
            with self._cv:
                sink.append((time.monotonic(), line.rstrip("\n")))
                self._cv.notify_all()
        with self._cv:
            self._cv.notify_all()

    def wait_for(self, pred, timeout: float, what: str = "") -> float:
        """Wait until ``pred(self)`` is true; returns the time it became so."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while not pred(self):
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not pred(self)):
                    if self.proc.poll() is not None:
                        time.sleep(0.2)
                        if pred(self):
                            return time.monotonic()
                    raise AssertionError(f"timed out waiting for {what}; stderr:\n{self.stderr}")
                self._cv.wait(min(left, 0.2))
        return time.monotonic()

    def wait_err(self, text: str, timeout: float = 60.0, count: int = 1) -> float:
        def seen(r):
            return sum(text in line for _, line in r.err) >= count
        self.wait_for(seen, timeout, repr(text))
        return [t for t, line in self.err if text in line][count - 1]

    def objects(self, kind: str | None = None) -> list[dict]:
        objs = [json.loads(line) for _, line in list(self.out) if line.startswith("{")]
        return [o for o in objs if kind is None or o["type"] == kind]

    def wait_objects(self, kind: str, n: int, timeout: float) -> list[dict]:
        self.wait_for(lambda r: len(r.objects(kind)) >= n, timeout, f"{n} {kind} object(s)")
        return self.objects(kind)

    def type(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def finish(self, timeout: float = 30.0) -> int:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            time.sleep(0.1)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    @property
    def stderr(self) -> str:
        return "\n".join(line for _, line in list(self.err))

    def announcements(self) -> list[tuple[float, str]]:
        """What the referee said (printed on stderr with --json), with arrival times."""
        return [(t, line[len("referee: "):]) for t, line in list(self.err)
                if line.startswith("referee: ") and not line.startswith(
                    ("referee: listening with", "referee: journal "))]


def journal_lines(data: Path) -> tuple[Path, list[dict]]:
    """The one journal in ``data`` and its objects."""
    files = sorted(Path(data).rglob("*.jsonl"))
    assert len(files) == 1, files
    return files[0], [json.loads(x) for x in files[0].read_text().splitlines() if x.strip()]


def replay_json(journal: Path) -> list[dict]:
    r = subprocess.run([sys.executable, "-m", "referee", "replay", str(journal), "--json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [json.loads(x) for x in r.stdout.splitlines() if x.strip()]


def speech_spans(x: np.ndarray, rate: int = RATE, threshold: float = 0.01,
                 hop: float = 0.02, gap: float = 0.4) -> list[tuple[float, float]]:
    """Stretches of sound in a (mono) recording: (start, end) seconds, pauses shorter than
    ``gap`` bridged."""
    h = int(hop * rate)
    n = len(x) // h
    loud = np.abs(x[: n * h]).reshape(n, h).max(axis=1) > threshold
    spans: list[list[float]] = []
    for i in np.flatnonzero(loud):
        t = i * hop
        if spans and t - spans[-1][1] <= gap:
            spans[-1][1] = t + hop
        else:
            spans.append([t, t + hop])
    return [(a, b) for a, b in spans]


def journal_text(data) -> str:
    """Every journal line under ``data``, for a failure message."""
    files = sorted(Path(data).rglob("*.jsonl"))
    return "\n".join(f"{f}:\n{f.read_text()}" for f in files) or f"no journal under {data}"


def deals(data) -> list[str]:
    return [json.loads(x)["card"] for f in data.rglob("*.jsonl")
            for x in f.read_text().splitlines() if '"type":"deal"' in x]


def stroop_round(room, ref: Referee, data, deal: str, calls, n: int) -> tuple[dict, bool]:
    """On a table heard by one device (``room.play(lines)`` says [(who, text, at)] into
    it): the dealer names ``deal`` (typed if the recogniser misses it, as a dealer would);
    then the ``calls``; waits for round object ``n``. Returns it and whether the deal was
    typed."""
    before = len(deals(data))
    room.play([("dealer", deal, 0.0)])
    card = str(Card.find(deal))
    deadline = time.monotonic() + 2.5
    while time.monotonic() < deadline and len(deals(data)) == before:
        time.sleep(0.05)
    typed = len(deals(data)) == before
    if typed:
        ref.type(card)
        time.sleep(0.5)
    assert deals(data)[-1] == card, f"{ref.stderr}\njournal:\n{journal_text(data)}"
    room.play(calls)
    try:
        rounds = ref.wait_objects("round", n, 25)
    except AssertionError as e:    # what was heard and judged: the journal says
        raise AssertionError(f"{e}\njournal:\n{journal_text(data)}") from None
    return rounds[n - 1], typed
