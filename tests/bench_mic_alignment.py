"""How well several microphone devices are placed on one clock: a benchmark, not a test.

    .venv/bin/python tests/bench_mic_alignment.py [--starts 30] [--align 5,10,20]
                                                   [--out BENCHMARKS.md]

Starts a private PulseAudio server (tests/helpers/pulse.py) with one 3-channel null sink split into
three mono devices (``split``): three PortAudio streams, as three USB mics would be, that
carry one file's channels to the sample. For each start a ``MicrophoneSource`` opens the
three devices while a beep is played into all three channels at once (sound arriving while
the streams start, the hard case); the spread is the latest onset minus the earliest, on
the source's shared clock. It is measured for each ``align_blocks`` asked for (how many
50 ms callbacks of each device place it). With ``--out`` it rewrites that file's
"Microphone alignment" section.
"""

from __future__ import annotations

import argparse
import inspect
import os
import platform
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
    ap.add_argument("--starts", type=int, default=30)
    ap.add_argument("--align", default="5,10,20", help="align_blocks values, comma-separated")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    aligns = [int(a) for a in args.align.split(",")]

    work = Path(tempfile.mkdtemp(prefix="referee-align-"))
    server = PulseServer(work / "pulse")
    os.environ.update(server.client_env)
    server.start([("mic1", 1), ("speaker", 2)], default_sink="speaker",
                 default_source="mic1.monitor")
    try:
        server.add_split_sink("table", DEVICES)
        import sounddevice as sd

        from referee.audio.mic import Input, MicrophoneSource
        from test_mic import capture, onsets

        x = np.zeros((int(1.5 * RATE), len(DEVICES)))
        b = tone(1000, 0.3)
        x[int(0.1 * RATE):int(0.1 * RATE) + len(b), :] = b[:, None]
        wav = work / "beep.wav"
        write_wav(wav, x, RATE)
        spreads: dict[int, list[float]] = {}
        for n in aligns:
            got = spreads.setdefault(n, [])
            for i in range(args.starts):
                src = MicrophoneSource(sd, inputs=[Input(d) for d in DEVICES],
                                       players=["a", "b", "c"], align_blocks=n)
                y = capture(src, lambda: server.play(wav, "table"))
                on = [onsets(y[ch]) for ch in range(len(DEVICES))]
                if all(on):
                    got.append(max(o[0] for o in on) - min(o[0] for o in on))
                print(f"align_blocks {n} start {i + 1}: "
                      f"{'-' if not all(on) else round(got[-1] * 1000)} ms",
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
         "at each "
         "start a beep plays into all three at once, as the streams start. Spread: latest "
         "onset minus earliest on the source's clock (1 ms resolution).", "",
         "| Callbacks that place each device | Starts | Median | Max | Over 5 ms |",
         "|---|---|---|---|---|"]
    for n, got in spreads.items():
        ms = sorted(round(v * 1000) for v in got)
        if not ms:
            L.append(f"| {n} ({n * 50} ms) | 0 | – | – | – |")
            continue
        L.append(f"| {n} ({n * 50} ms) | {len(ms)} | {ms[len(ms) // 2]} ms | {ms[-1]} ms | "
                 f"{sum(v > 5 for v in ms)} |")
    text = "\n".join(L) + "\n"
    print(text)
    if args.out:
        write_section(args.out, text, HEADING)


if __name__ == "__main__":
    main()
