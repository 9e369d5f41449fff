"""Say something in the referee's voice (for checking the voice and the speakers).

Speaks the words through the default output (or --speaker-device), or writes
them to a WAV file with --speak-to FILE.wav, and prints them. Exits 1 if the
voice or the audio output did not work (the announcement is printed anyway).
"""

from __future__ import annotations

import argparse
import sys

from referee.cli import voice_options
from referee.core.errors import RefereeError

DESCRIPTION = """\
Say something in the referee's voice, for checking the voice and the speakers.

  referee say "Bob wins two cards"                 through the default output
  referee say --speaker-device NAME "Bob wins"     through one PulseAudio sink
  referee say --speak-to bob.wav "Bob wins"        into a WAV file
  referee say --speech-rate 200 "Bob wins"         faster (words per minute)

The words are printed too. Exit status 1 (with the reason on stderr) if the
voice or the audio output did not work.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("words", nargs="+", help="what to say")
    voice_options.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    try:
        voice = voice_options.from_args(args, text=sys.stdout)
    except (RefereeError, OSError) as e:  # UsageError, SinkError, VoiceError
        print(f"referee say: {e}", file=sys.stderr)
        return 2
    with voice:
        voice.say(" ".join(args.words), at=0.0)
    return 1 if voice.problems else 0
