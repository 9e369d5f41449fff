"""Where a verdict's wait goes, offline and repeatable: the game benchmark's tuning games
(their cached WAVs) through the listener of ``referee play stroop --audio`` in 50 ms blocks
(as the mics give them) and a table, logging for each round's winning call, on the audio
clock: its true end, when its recogniser reported it, when timing confirmed it (every
channel's audio far enough past its end), when the listener passed it on, when the common
watermark passed its end plus the tie window, and when the table decided the round; and,
while the watermark held the race, what held it.

Audio-clock seconds only: the compute time of a live run comes on top. Tuning games only
(``--games``: ids ``tuning-NN``). Figures: docs/timing.md, "Verdict latency".

    python -m referee.lab.bench.verdict_wait [--games tuning-00,tuning-02] [--clean] [--paced]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import queue
from collections import Counter
from pathlib import Path

from referee.app.listener import Listener


class TracedListener(Listener):
    """The listener, noting when each utterance passes each stage (lab only)."""

    def __init__(self, *a, **k) -> None:
        super().__init__(*a, **k)
        self.stages: dict[tuple, dict] = {}  # recogniser's utterance -> stage -> position
        self.passed: list[tuple] = []  # (utterance passed on, its recogniser's key)
        self.marks: list[tuple[float, float, str]] = []  # (position, common mark, what held)

    @staticmethod
    def _key(u) -> tuple:
        return (u.channel, round(u.start, 6), round(u.end, 6), u.said)

    def _take(self, heard):
        for u in heard:
            self.stages.setdefault(self._key(u), {"closed": self.position, "u": u})
        return super()._take(heard)

    def _timed_to(self, u, heard_to):
        ok = super()._timed_to(u, heard_to)
        if ok:
            self.stages.setdefault(self._key(u), {}).setdefault("confirmed", self.position)
        return ok

    def _attribute(self, u, final):
        got = super()._attribute(u, final)
        if got is not None:
            for v in got:
                self.passed.append((v, self._key(u), self.position))
        return got

    def _watermarks(self):
        out = super()._watermarks()
        if self.crosstalk and len(self._streams) == len(self.channels):
            self.marks.append((self.position, self._sent.get(self.channels[0].name, -1.0),
                               self._holder()))
        return out

    def _holder(self) -> str:
        """What the common watermark is held by now: a pending utterance, or the channel
        whose recogniser may still report from the earliest (with a segment open, or
        just behind)."""
        terms = [(self._held_from(ch), ch) for ch in self._streams]
        terms += [(u.start - self.earlier, -1) for u in self._pending]
        ch = min(terms)[1]
        if ch < 0:
            return "pending"
        opened = self._streams[ch].watermark < (self._ct_end or 0) / self.rate - 0.02
        return f"{self.channels[ch].name}:{'open' if opened else 'behind'}"


def trace_game(game, wav: Path, window: float = 0.04, block: float = 0.05,
               paced: bool = False) -> list[dict]:
    """Each won round of ``game``: the stages of its winning call (audio-clock seconds).
    With ``paced``, the blocks come at the pace of the audio and the listener runs in a
    thread of its own, as live (``session.run_live``); ``wall`` is then when the table
    decided, in seconds since the first block was due (compute and threads included)."""
    from referee.audio.recording import RecordingSource
    from referee.core.events import GameStart
    from referee.core.games import stroop
    from referee.core.table import Table
    from referee.hearing.engine import open_recogniser
    from referee.hearing.grammar import Grammar
    from referee.app.inputs import KINDS

    grammar = Grammar.load("table").subset(kinds=set(KINDS["stroop"]))
    rec = open_recogniser(None, None, grammar)
    src = (_Paced if paced else RecordingSource)(str(wav), players=game.channels, rate=rec.rate,
                                                 block_seconds=block)
    lis = TracedListener(src, rec)
    start = GameStart("stroop", tuple(game.players), {"tie_window_ms": window * 1000})
    table = Table(start, game.channels)
    decided: dict[int, float] = {}
    wall: dict[int, float] = {}
    seen = 0
    if paced:
        q: queue.Queue = queue.Queue()
        lis.start(q)
        events = iter(q.get, None)
    else:
        events = lis.events()
    for ev in events:
        table.hear(ev)
        for v in table.verdicts[seen:]:
            if isinstance(v, stroop.RoundOver):
                decided[v.round] = lis.position
                if paced:
                    wall[v.round] = time.monotonic() - src.t0
        seen = len(table.verdicts)
        if table.over:
            break
    table.finish()
    out = []
    for v in table.verdicts:
        if not isinstance(v, stroop.RoundOver) or v.winning_call is None:
            continue
        c = v.winning_call
        truth = [u for u in game.utts if u.speaker == c.player and u.kind == "call"
                 and u.start < c.end + 0.15 and u.end > c.start - 0.15]
        true_end = min((u.end for u in truth), key=lambda e: abs(e - c.end), default=None)
        hit = next(((p, k, at) for p, k, at in lis.passed
                    if p.player == c.player and abs(p.end - c.end) < 2e-6), None)
        st = lis.stages.get(hit[1], {}) if hit else {}
        deadline = c.end + window
        past = next(((t, m) for t, m, _ in lis.marks if m >= deadline), None)
        held = [h for t, m, h in lis.marks
                if hit and m < deadline and t >= hit[2]]
        out.append({
            "game": game.id, "round": v.round, "by": v.decided_by, "player": c.player,
            "true_end": true_end, "end": c.end, "rec_end": st["u"].end if "u" in st else None,
            "closed": st.get("closed"), "confirmed": st.get("confirmed"),
            "passed": hit[2] if hit else None, "marked": past[0] if past else None,
            "decided": decided.get(v.round), "wall": wall.get(v.round),
            "held_by": Counter(held).most_common(1)[0][0] if held else None,
            "held_blocks": len(held),
        })
    return out


class _Paced:
    """A recording's blocks, each given when its audio would have been heard."""

    def __init__(self, *a, **k) -> None:
        from referee.audio.recording import RecordingSource

        self._src = RecordingSource(*a, **k)
        self.channels = self._src.channels
        self.t0 = time.monotonic()

    def __iter__(self):
        self.t0 = time.monotonic()
        for b in self._src:
            time.sleep(max(0.0, self.t0 + b.end - time.monotonic()))
            yield b

    def stop(self) -> None:
        self._src.stop()


def clean_wav(game, directory: Path, out: Path) -> Path:
    """``game``'s deals and calls alone, each on its own mic at its own time: no leaks, no
    noise, no chatter (as ``referee bench-latency``'s private PulseAudio room hears them)."""
    import numpy as np

    from referee.audio.wav import read_wav, write_wav
    from referee.lab.bench.games import span
    from referee.lab.bench.games_table import PEAK_DBFS
    from referee.lab.mixing import RATE

    n = int(game.duration * RATE)
    x = np.zeros((n, len(game.channels)))
    for u in game.utts:
        if u.kind not in ("deal", "call", "partial"):
            continue
        y, _ = read_wav(directory / "utt" / u.file)
        y = y[:, 0].astype(np.float64)
        a, _b = span(y)
        y = y * 10 ** (PEAK_DBFS / 20) / max(float(np.max(np.abs(y))), 1e-9)
        s = int(round(u.start * RATE)) - a
        e = min(n, s + len(y))
        x[s:e, game.channels.index(u.speaker)] += y[: e - s]
    write_wav(out, x, RATE)
    return out


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{1000 * x:.0f}"


def summarise(rows: list[dict]) -> str:
    """A table of the medians (and p90) of each stage's delay from the one before."""
    steps = [("true end -> recogniser's end", "true_end", "rec_end"),
             ("true end -> timed end", "true_end", "end"),
             ("true end -> reported (recogniser closed it)", "true_end", "closed"),
             ("reported -> timing confirmed", "closed", "confirmed"),
             ("confirmed -> passed on", "confirmed", "passed"),
             ("passed on -> watermark past end + window", "passed", "marked"),
             ("true end -> watermark past end + window", "true_end", "marked"),
             ("true end -> verdict decided", "true_end", "decided"),
             ("true end -> verdict decided, in real time (--paced)", "true_end", "wall")]
    lines = ["| step | n | median ms | p90 ms |", "|---|---|---|---|"]
    for name, a, b in steps:
        d = sorted(r[b] - r[a] for r in rows if r.get(a) is not None and r.get(b) is not None)
        if not d:
            continue
        p90 = d[min(len(d) - 1, int(0.9 * len(d)))]
        lines.append(f"| {name} | {len(d)} | {_ms(statistics.median(d))} | {_ms(p90)} |")
    held = Counter((r["held_by"] or "").split(":")[-1] or "nothing" for r in rows)
    lines.append("")
    lines.append("Held after being passed on by: " + ", ".join(
        f"{k} {n}" for k, n in held.most_common()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from referee.lab.bench import games_run, games_table

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", default="", help="tuning game ids (default: all 12)")
    p.add_argument("--json", help="write every round's stages here (JSON lines)")
    p.add_argument("--rows", action="store_true", help="print every round")
    p.add_argument("--paced", action="store_true",
                   help="at the pace of the audio, the listener in a thread (as live)")
    p.add_argument("--clean", action="store_true",
                   help="the deals and calls alone on their own mics (no leaks, no noise)")
    a = p.parse_args(argv)
    d = games_run.default_dir(1)
    ids = a.games.split(",") if a.games else [f"tuning-{k:02d}" for k in range(12)]
    if any(not i.startswith("tuning-") for i in ids):
        p.error("tuning games only")
    rows = []
    for gid in ids:
        game = games_table.load(json.loads((d / f"{gid}.json").read_text())["game"])
        if a.clean:
            with tempfile.TemporaryDirectory() as td:
                got = trace_game(game, clean_wav(game, d, Path(td) / game.file), paced=a.paced)
        else:
            got = trace_game(game, d / game.file, paced=a.paced)
        rows += got
        if a.rows:
            for r in got:
                print(r["game"], r["round"], r["by"], *(f"{k}={_ms(r[k] - r['true_end'])}" for k in
                      ("rec_end", "end", "closed", "confirmed", "passed", "marked", "decided",
                       "wall")
                      if r[k] is not None and r["true_end"] is not None), r["held_by"],
                      flush=True)
    if a.json:
        Path(a.json).write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(summarise(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
