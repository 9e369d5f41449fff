"""Recognise card calls, shouts and commands in WAV recordings.

Each channel of a file is one player's microphone (``--names ann,bob`` says who
is on them, in channel order). With ``--json``, one JSON object per line per
utterance: ``{"file", "channel", "player", "kind", "said", "start", "end",
"confidence"}``, times in seconds from the start of the file.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO

from referee.audio.wav import AudioFileError, check_hearable, read_wav
from referee.cli import UsageError, mic_options
from referee.core.events import Utterance
from referee.hearing.engine import DEFAULT_KINDS, EngineError, open_recogniser
from referee.hearing.grammar import KINDS, Grammar, GrammarError
from referee.hearing.transcribe import transcribe_audio

DESCRIPTION = __doc__


def as_json(u: Utterance) -> str:
    return json.dumps({"file": u.source, "channel": u.channel, "player": u.player,
                       "kind": u.kind, "said": u.said, "start": round(u.start, 3),
                       "end": round(u.end, 3), "confidence": round(u.confidence, 3)})


def as_text(u: Utterance) -> str:
    who = u.player or f"ch{u.channel}"
    return f"{u.source} {u.start:8.2f}-{u.end:6.2f}  {who:>8}  {u.kind:<8} {u.said}"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE.wav", help="recordings (any rate, any "
                   "channel count; each channel one player's microphone)")
    p.add_argument("--names", metavar="A,B,..", help=mic_options.NAMES_HELP + " (the file's)")
    mic_options.add_old_players(p)
    p.add_argument("--engine", choices=("pocketsphinx", "vosk"),
                   help="force an engine (default: Vosk if a model is found, else PocketSphinx)")
    p.add_argument("--model", help="model directory (Vosk; or a PocketSphinx model)")
    p.add_argument("--grammar", default="table", help="grammar name in grammars/ or a JSON path")
    p.add_argument("--kinds", default=",".join(DEFAULT_KINDS),
                   help=f"phrase kinds to listen for, from {','.join(KINDS)} "
                   f"(default {','.join(DEFAULT_KINDS)})")
    p.add_argument("--unknown", action="store_true",
                   help="also report speech outside the grammar (kind 'unknown')")
    p.add_argument("--no-crosstalk", action="store_true",
                   help="keep copies of a call heard on other players' microphones")
    p.add_argument("--json", action="store_true", help="one JSON object per line")


def run(args: argparse.Namespace, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    players = mic_options.names(args.names) or None
    try:
        mic_options.refuse_old_players(args)
        grammar = Grammar.load(args.grammar).subset(
            k.strip() for k in args.kinds.split(",") if k.strip())
        rec = open_recogniser(args.engine, args.model, grammar)
    except (UsageError, GrammarError, EngineError) as e:
        print(f"referee transcribe: {e}", file=err)
        return 2
    print(f"referee: listening with {rec.description}", file=err)
    status = 0
    for path in args.files:
        try:
            audio, rate = read_wav(path)
            check_hearable(path, len(audio), rate)
        except AudioFileError as e:
            print(f"referee transcribe: {e}", file=err)
            status = 2
            continue
        if players is not None and len(players) < audio.shape[1]:
            print(f"referee transcribe: {path}: {audio.shape[1]} channels but only "
                  f"{len(players)} named in --names", file=err)
            status = 2
            continue
        for u in transcribe_audio(rec, audio, rate, path, players, not args.no_crosstalk):
            if u.kind == "unknown" and not args.unknown:
                continue
            print(as_json(u) if args.json else as_text(u), file=out, flush=True)
    return status
