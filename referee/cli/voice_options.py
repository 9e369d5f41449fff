"""The speech options shared by the commands that speak (``play``, ``resume``, ``say``)."""

from __future__ import annotations

from typing import Callable, TextIO

from referee.cli import UsageError
from referee.voice.speaker import Speaker
from referee.voice.voices import DEFAULT_RATE


def add_arguments(parser) -> None:
    """The speech options: ``--speak-to``, ``--speech-rate``, ``--speaker-device``."""
    g = parser.add_argument_group("the referee's voice")
    g.add_argument("--speak-to", metavar="WHERE", default="speakers",
                   help="'speakers' (default), a FILE.wav to write the announcements to at "
                        "their time, or 'text' to print them only")
    g.add_argument("--speech-rate", metavar="WPM", type=int, default=DEFAULT_RATE,
                   help=f"speaking rate in words per minute (default {DEFAULT_RATE})")
    g.add_argument("--speaker-device", metavar="SINK", default=None,
                   help="PulseAudio sink to speak through (default: the default output)")


def from_args(args, *, text: TextIO | None = None,
              clock: Callable[[], float] | None = None) -> Speaker:
    """A :class:`Speaker` for the options of :func:`add_arguments`. Raises
    :class:`~referee.cli.UsageError` naming a bad ``--speak-to`` or
    ``--speech-rate`` (and the speaker's own errors, see :class:`Speaker`)."""
    if not 40 <= args.speech_rate <= 500:
        raise UsageError(f"--speech-rate must be 40 to 500 words per minute, not {args.speech_rate}")
    to = None if args.speak_to == "text" else args.speak_to
    if to not in (None, "speakers") and not to.lower().endswith(".wav"):
        raise UsageError(f"--speak-to takes 'speakers', 'text' or a FILE.wav, not {to!r}")
    return Speaker(to, text=text, clock=clock, rate=args.speech_rate, device=args.speaker_device)
