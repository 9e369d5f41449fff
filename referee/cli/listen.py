"""Listen on the microphones and print what is heard, live (for checking a set-up).

Prints one line per utterance as soon as it is recognised; Ctrl-C stops.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading

from referee.cli import mic_options
from referee.core.errors import RefereeError

DESCRIPTION = """\
Listen on the microphones and print what is heard, live, for checking a set-up.

Each microphone channel is one player's mic:

  referee listen                                 the default input, one channel
  referee listen --channels 1,2 --names ann,bob
                                                 channels 1 and 2 of one device
  referee listen --devices 3 --channels 1,2,3 --names dealer,ann,bob
                                                 channels of device 3
  referee listen --devices "USB mic" 5 --names ann,bob
                                                 two devices, one mic each
  referee listen --list-devices                  show the input devices

Devices are given by index or by (part of) their name, as --list-devices
shows them; --channels says which channels (numbered from 1), --names who is
on them, as in `referee play`. With several devices their sample
counts are placed on one clock at start. Times printed are seconds on that
clock. Cross-talk (one player's call picked up by a neighbour's mic) is
credited to the mic where it is loudest. Ctrl-C stops.

--json prints one object per line: {"channel", "player", "kind", "said",
"start", "end", "confidence", "source"}; with --watermarks also
{"heard": stream, "upto": seconds} lines.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--names", metavar="A,B,..", help=mic_options.NAMES_HELP)
    p.add_argument("--channels", metavar="1,2,..", help=mic_options.CHANNELS_HELP +
                   " (default: channel 1)")
    mic_options.add_old_players(p)
    p.add_argument("--devices", metavar="DEV", nargs="+", help="input device(s), by index or "
                   "name; several devices: one mic each (default: the default input)")
    p.add_argument("--engine", choices=("vosk", "pocketsphinx"), help="force a recogniser")
    p.add_argument("--model", metavar="DIR", help="Vosk model directory")
    p.add_argument("--kinds", default="call,shout,command,partial", metavar="K,..",
                   help="what to listen for: call, shout, command, number, partial (a bare "
                   "rank or suit, or a call cut short) (default call,shout,command,partial)")
    p.add_argument("--json", action="store_true", help="JSON Lines output")
    p.add_argument("--watermarks", action="store_true",
                   help="also print how far each stream has been heard")
    p.add_argument("--rate", type=int, default=16000, help="sample rate to ask of the devices")
    p.add_argument("--list-devices", action="store_true", help="list input devices and exit")


def _fail(msg: str) -> int:
    print(f"referee listen: {msg}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace, out=None, err=None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    from referee.audio.blocks import parse_players
    from referee.audio.mic import MicrophoneSource
    from referee.audio.mic_devices import NO_INPUT_HINT, MicError, list_devices, plan_inputs

    if args.list_devices:
        try:
            devices = list_devices()
        except MicError as e:
            return _fail(str(e))
        if not devices:
            return _fail(f"no input devices: {NO_INPUT_HINT}")
        for d in devices:
            mark = "*" if d["default"] else " "
            print(f"{mark} {d['index']:3d}  {d['name']}  ({d['channels']} in, "
                  f"{d['rate']:g} Hz)", file=out)
        return 0

    try:
        mic_options.refuse_old_players(args)
        inputs = plan_inputs(args.devices, mic_options.channel_numbers(args.channels))
        n = sum(len(i.channels) for i in inputs)
        players = parse_players(args.names, n if args.names else None)
        if not args.names:
            players = [None] * n
    except RefereeError as e:  # MicError, PlayersError, UsageError
        return _fail(str(e))

    from referee.hearing.engine import open_recogniser
    from referee.hearing.grammar import Grammar
    from referee.app.listener import Listener

    kinds = {k.strip() for k in args.kinds.split(",") if k.strip()}
    try:
        grammar = Grammar.load().subset(kinds=kinds)
        recogniser = open_recogniser(args.engine, args.model, grammar)
        source = MicrophoneSource(
            inputs=inputs, players=players, rate=args.rate,
            notify=lambda line: print(f"referee listen: {line}", file=err, flush=True))
        source.start()
    except (RefereeError, OSError) as e:  # EngineError, GrammarError, MicError...
        return _fail(str(e))

    listener = Listener(source, recogniser)

    # Ctrl-C (or SIGTERM) stops the source; the recognisers are flushed and the last
    # utterances printed before exit.
    def stop(signum, frame):
        listener.stop()

    old = {}
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGINT, signal.SIGTERM):
            old[s] = signal.signal(s, stop)
    where = ", ".join(f"{c.name}={c.source}:{c.source_channel + 1}" for c in source.channels)
    print(f"referee listen: {recogniser.name} listening on {where} (Ctrl-C to stop)",
          file=err, flush=True)
    try:
        for ev in listener.events():
            line = _format(ev, args.json, args.watermarks)
            if line is not None:
                print(line, file=out, flush=True)
    finally:
        source.close()
        for s, h in old.items():
            signal.signal(s, h)
    if source.overflows:
        print(f"referee listen: input overflowed {source.overflows} time(s): audio was lost",
              file=err)
    return 0


def _format(ev, as_json: bool, watermarks: bool) -> str | None:
    from referee.core.events import Heard

    if isinstance(ev, Heard):
        if not watermarks:
            return None
        if as_json:
            return json.dumps({"heard": ev.stream, "upto": round(ev.upto, 3)})
        return f"{'':>16}  {ev.stream}: heard up to {ev.upto:.2f}"
    if as_json:
        return json.dumps({"channel": ev.channel, "player": ev.player, "kind": ev.kind,
                           "said": ev.said, "start": round(ev.start, 3),
                           "end": round(ev.end, 3), "confidence": round(ev.confidence, 3),
                           "source": ev.source})
    who = ev.player or f"ch{ev.channel}"
    return (f"{ev.start:7.2f}-{ev.end:7.2f}  {who:<8} {ev.kind:<8} {ev.said}"
            f"  ({ev.confidence:.2f})")
