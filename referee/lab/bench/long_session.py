"""A long session, faster than real time: a recorded game looped for ``hours`` of audio
through the real listener (PocketSphinx, cross-talk, leaks, timing) and a real table that
journals every event, a new game at each pass of the loop (one deck per game).

Sampled along the way, per stretch of audio: the process's resident memory, CPU per block
and per second of audio, and how far past a call's end the audio had been read when the call
came out of the listener (the hearing part of verdict latency, on the audio clock). Every
pass must give the same rounds: a pass that gives fewer lost an event.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from referee.audio.blocks import Block
from referee.audio.recording import RecordingSource


class LoopedRecording:
    """A recording's blocks, the whole file again and again, on one clock that goes on."""

    def __init__(self, path: Path, players, rate: int, loops: int) -> None:
        self.path, self.players, self.rate, self.loops = path, list(players), rate, loops
        probe = RecordingSource(path, players=self.players, rate=rate)
        self.channels = probe.channels
        self.seconds = probe.duration
        probe._close_files()
        self.blocks = 0
        self._stop = False

    def stop(self) -> None:
        self._stop = True

    def __iter__(self) -> Iterator[Block]:
        step = int(round(self.seconds * self.rate))
        for k in range(self.loops):
            with RecordingSource(self.path, players=self.players, rate=self.rate) as src:
                for b in src:
                    if self._stop:
                        return
                    self.blocks += 1
                    yield Block(b.channel, b.samples, b.index + k * step, b.rate, b.player, b.source)


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


@dataclass
class Sample:
    audio_minutes: float
    rss_mb: float
    cpu_ms_per_block: float
    cpu_per_audio_second: float
    """CPU seconds per second of audio: 1 / how many times faster than real time, on one core."""
    late_ms: float | None
    """Median over the stretch's calls: audio read past a call's end when it came out."""


@dataclass
class LongResult:
    hours: float
    passes: int
    wall_seconds: float
    samples: list[Sample] = field(default_factory=list)
    rounds_per_pass: list[int] = field(default_factory=list)
    passes_different: int = 0
    """Passes whose rounds (top card, winner) differ from the first pass's."""
    peak_rss_mb: float = 0.0


def long_session(wav: Path, channels: list[str], hours: float, samples: int = 12,
                 log=print) -> LongResult:
    from referee.app.journal_file import JournalFile
    from referee.app.listener import Listener
    from referee.core.events import GameStart, Heard, Utterance
    from referee.core.table import Table
    from referee.hearing.engine import open_recogniser
    from referee.hearing.grammar import Grammar

    from referee.app.inputs import KINDS

    folder = Path(tempfile.mkdtemp(prefix="referee-long-"))
    grammar = Grammar.load("table").subset(kinds=set(KINDS["stroop"]))
    recogniser = open_recogniser("pocketsphinx", None, grammar)
    probe = LoopedRecording(wav, channels, recogniser.rate, 1)
    loops = max(1, int(round(hours * 3600 / probe.seconds)))
    source = LoopedRecording(wav, channels, recogniser.rate, loops)
    listener = Listener(source, recogniser)
    start = GameStart("stroop", tuple(c for c in channels if c != "dealer"),
                      {"tie_window_ms": 40.0})

    def new_game():
        j = JournalFile.new("stroop", folder=folder)
        j.append({"type": "game", "game": "stroop", "players": list(start.players)})
        return j, None

    journal, _ = new_game()
    table = Table(start, channels, journal=journal, write_start=False, new_game=new_game)
    result = LongResult(hours=loops * probe.seconds / 3600, passes=loops, wall_seconds=0.0)
    every = loops * probe.seconds / samples
    next_at, last_cpu, last_blocks, last_pos = every, time.process_time(), 0, 0.0
    late: list[float] = []
    rounds: list[list] = [[]]
    t0 = time.monotonic()
    for ev in listener.events():
        t = ev.upto if isinstance(ev, Heard) else ev.start
        if t >= len(rounds) * probe.seconds and len(rounds) < loops:
            table.type("new game")        # the next pass: the same deck again
            rounds.append([])
        if isinstance(ev, Utterance):
            late.append(listener.position - ev.end)
        n = len(table.verdicts)
        table.hear(ev)
        for v in table.verdicts[n:]:
            if type(v).__name__ == "RoundOver":
                rounds[-1].append((str(v.top), v.winner))
        if listener.position >= next_at:
            cpu, pos = time.process_time(), listener.position
            blocks = source.blocks - last_blocks
            result.samples.append(Sample(
                pos / 60, rss_mb(), 1000 * (cpu - last_cpu) / max(1, blocks),
                (cpu - last_cpu) / max(1e-9, pos - last_pos),
                1000 * statistics.median(late) if late else None))
            log(f"{pos / 60:.1f} min of audio: {result.samples[-1].rss_mb:.0f} MB, "
                f"{result.samples[-1].cpu_per_audio_second:.3f} CPU s per audio s")
            next_at += every
            last_cpu, last_blocks, last_pos, late = cpu, source.blocks, pos, []
    table.finish()
    table.journal.close()
    result.wall_seconds = time.monotonic() - t0
    result.rounds_per_pass = [len(r) for r in rounds]
    result.passes_different = sum(r != rounds[0] for r in rounds[1:])
    result.peak_rss_mb = max((s.rss_mb for s in result.samples), default=rss_mb())
    for p in folder.glob("*.jsonl"):
        p.unlink()
    folder.rmdir()
    return result
