"""How well several microphone devices are placed on one clock: a benchmark, not a test.

    .venv/bin/python tests/bench_mic_alignment.py [--starts 20] [--align 20]
                                                   [--refine 0,600] [--busy 0,4]
                                                   [--out BENCHMARKS.md]

Starts a private PulseAudio server (tests/helpers/pulse.py) with one 3-channel null sink split into
three mono devices (``split``): three PortAudio streams, as three USB mics would be, that
carry one file's channels to the sample. For each start a ``MicrophoneSource`` opens the
three devices while a beep is played into all three channels at once (sound arriving while
the streams start, the hard case), and a second beep follows 3 s later; the spread of each
beep is the latest onset minus the earliest, on the source's shared clock. It is measured
for each ``align_blocks`` asked for (how many 50 ms callbacks of each device place it), each
``refine_blocks`` (0: devices are never placed again after that) and each ``--busy`` (that
many processes spinning on the 2 cores from before the streams open until 2 s after, as a
machine loading models or running other work). With ``--out`` it rewrites that file's
"Microphone alignment" section.
"""

from __future__ import annotations

import argparse
import inspect
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "helpers"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "live"))     # test_mic's capture

from pulse import PulseServer, tone  # noqa: E402

from referee.audio.wav import write_wav

from referee.lab.bench.report import write_section  # noqa: E402

HEADING = "# Microphone alignment"
DEVICES = ["mic_a", "mic_b", "mic_c"]
RATE = 16000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--align", default="20", help="align_blocks values, comma-separated")
    ap.add_argument("--refine", default="0,600",
                    help="refine_blocks values, comma-separated (0: never placed again)")
    ap.add_argument("--busy", default="0,4",
                    help="busy processes during each start, comma-separated values")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    aligns = [int(a) for a in args.align.split(",")]
    refines = [int(a) for a in args.refine.split(",")]
    busies = [int(a) for a in args.busy.split(",")]

    work = Path(tempfile.mkdtemp(prefix="referee-align-"))
    server = PulseServer(work / "pulse")
    os.environ.update(server.client_env)
    server.start([("mic1", 1), ("speaker", 2)], default_sink="speaker",
                 default_source="mic1.monitor")
    rows: dict[tuple[int, int, int], tuple[list[float], list[float]]] = {}
    try:
        server.add_split_sink("table", DEVICES)
        import sounddevice as sd

        from referee.audio.mic import MicrophoneSource
        from referee.audio.mic_devices import Input
        from test_mic import capture, onsets

        x = np.zeros((int(3.8 * RATE), len(DEVICES)))
        b = tone(1000, 0.3)
        for at in (0.1, 3.1):
            x[int(at * RATE):int(at * RATE) + len(b), :] = b[:, None]
        wav = work / "beep.wav"
        write_wav(wav, x, RATE)
        for busy in busies:
            for n in aligns:
                for r in refines:
                    first, later = rows.setdefault((busy, n, r), ([], []))
                    for i in range(args.starts):
                        hogs = [subprocess.Popen([sys.executable, "-c", SPIN, "3"])
                                for _ in range(busy)]
                        src = MicrophoneSource(sd, inputs=[Input(d) for d in DEVICES],
                                               players=["a", "b", "c"], align_blocks=n,
                                               refine_blocks=r)
                        y = capture(src, lambda: server.play(wav, "table"))
                        for h in hogs:
                            h.wait()
                        on = [onsets(y[ch]) for ch in range(len(DEVICES))]
                        for k, got in enumerate((first, later)):
                            if all(len(o) == 2 for o in on):
                                got.append(max(o[k] for o in on) - min(o[k] for o in on))
                        print(f"busy {busy} align_blocks {n} refine_blocks {r} start {i + 1}: "
                              + (" / ".join(f"{1000 * g[-1]:.0f}" for g in (first, later))
                                 if all(len(o) == 2 for o in on) else "-") + " ms",
                              file=sys.stderr, flush=True)
    finally:
        server.stop()

    cmd = "python tests/bench_mic_alignment.py " + " ".join(sys.argv[1:])
    load = os.getloadavg()[0]
    L = [HEADING, "", "Written by `tests/bench_mic_alignment.py`; re-run it rather than edit.", "",
         f"- **Command:** `{cmd.strip()}`",
         f"- **Date:** {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
         f"- **Machine:** {platform.system()} {platform.release()}, {os.cpu_count()} cores "
         f"(load average {load:.1f} at the end)",
         "- **Set-up:** three mono devices split from one 3-channel null sink of a private "
         "PulseAudio server (three PortAudio streams fed to the sample by one file, input "
         f"buffering {inspect.signature(MicrophoneSource).parameters['latency'].default} s); "
         "at each start a beep plays into all three at once, as the streams start, and another "
         "3 s later. Spread: latest onset minus earliest on the source's clock (1 ms "
         "resolution). Busy: processes spinning on the machine's cores from before the "
         "streams open until 2 s after.", "",
         "| Busy | Callbacks that place each device | Placed again for | Starts "
         "| First beep: median / max / over 5 ms | Beep 3 s later: median / max / over 5 ms |",
         "|---|---|---|---|---|---|"]
    for (busy, n, r), (first, later) in rows.items():
        cells = []
        for got in (first, later):
            ms = sorted(round(v * 1000) for v in got)
            cells.append(f"{ms[len(ms) // 2]} / {ms[-1]} ms / {sum(v > 5 for v in ms)}"
                         if ms else "–")
        again = f"{r} callbacks ({r * 50 / 1000:g} s)" if r else "never"
        L.append(f"| {busy} | {n} ({n * 50} ms) | {again} | {len(first)} | {cells[0]} "
                 f"| {cells[1]} |")
    text = "\n".join(L) + "\n"
    print(text)
    if args.out:
        write_section(args.out, text, HEADING)


#: A process that spins for argv[1] seconds.
SPIN = "import sys, time\nend = time.time() + float(sys.argv[1])\nwhile time.time() < end: pass"


if __name__ == "__main__":
    main()
