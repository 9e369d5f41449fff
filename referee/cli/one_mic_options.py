"""``--one-mic`` and its settings, shared by ``play`` and ``resume`` (issue 29, mode 2; see
referee/app/one_mic.py): the options, their checks, and how the journal keeps them; and
what "referee seats" does on a recording of one device (``--array`` or ``--one-mic``)."""

from __future__ import annotations

import argparse
import sys

from referee.cli import UsageError


def add_arguments(g) -> None:
    """The options, into the argument group ``g``."""
    g.add_argument("--one-mic", action="store_true",
                   help="one mic hears the whole table (the first channel of the input device, "
                        "or a mono --audio recording): each of --names (default: the players) "
                        "says \"NAME here\" and --enrol-cards card names in turn (asked aloud; "
                        "with --audio, the recording begins so), which teaches the referee "
                        "each voice")
    g.add_argument("--known-voices", action="store_true",
                   help="--one-mic: no enrolment (none asked for, or none at the start of the "
                        "recording); use the voices kept from earlier --one-mic games of the "
                        "same names (resume: of a game played with --one-mic)")
    g.add_argument("--enrol-cards", type=int, default=3, metavar="N",
                   help="--one-mic: card names each says after their name (default 3)")
    g.add_argument("--voice-confidence", type=float, default=0.9, metavar="P",
                   help="--one-mic: how sure of a voice the referee must be to count a call "
                        "(0-1, default 0.9); under it, it asks \"Who was that?\"")
    g.add_argument("--overlap", choices=("ask", "draw"), default="ask",
                   help="--one-mic: two voices in one call: ask who it was (default), or "
                        "call it a tie (too close to call)")


def check(args: argparse.Namespace) -> None:
    """Raise :class:`~referee.cli.UsageError` for settings that do not go together."""
    one = getattr(args, "one_mic", False)
    if one and getattr(args, "array", False):
        raise UsageError("--one-mic and --array: one device is either one mic or an array")
    if getattr(args, "known_voices", False) and not one:
        raise UsageError("--known-voices is for --one-mic")
    if one and getattr(args, "channels", None):
        raise UsageError("--one-mic hears the first channel of one device; --channels picks mics")
    if one and not 0 <= args.voice_confidence <= 1:
        raise UsageError(f"--voice-confidence {args.voice_confidence}: give a probability, 0 to 1")
    if one and not 1 <= args.enrol_cards <= 10:
        raise UsageError(f"--enrol-cards {args.enrol_cards}: give 1 to 10 card names")


def kept(args: argparse.Namespace) -> dict | None:
    """The journal's ``setup["one_mic"]``: what ``resume`` needs to hear the recording as one
    mic again (None without ``--one-mic``)."""
    if not getattr(args, "one_mic", False):
        return None
    return {"enrol_cards": args.enrol_cards, "confidence": args.voice_confidence,
            "overlap": args.overlap, "known_voices": bool(args.known_voices)}


def deferred(args: argparse.Namespace) -> bool:
    """``resume``'s ``--known-voices``, taken out of ``args`` before :func:`check`: whether
    the game was a one-mic game is known only from its journal (:func:`restore`)."""
    known = bool(getattr(args, "known_voices", False))
    args.known_voices = False
    return known


def restore(setup: dict, args: argparse.Namespace, known: bool = False) -> None:
    """``args`` as the game was started, from a checked ``setup`` (resume); ``known``:
    ``--known-voices`` given to resume (the kept voices, none asked for). Raises
    :class:`~referee.cli.UsageError` for ``known`` when the game was no one-mic game."""
    one = setup.get("one_mic")
    if known and not isinstance(one, dict):
        raise UsageError("--known-voices is for a game played with --one-mic; this one was not")
    if isinstance(one, dict) and not args.one_mic:
        args.one_mic = True
        args.enrol_cards = one.get("enrol_cards", args.enrol_cards)
        args.voice_confidence = one.get("confidence", args.voice_confidence)
        args.overlap = one.get("overlap", args.overlap)
        args.known_voices = one.get("known_voices", False)
    args.known_voices = bool(args.known_voices or known)


def recording_reseat(args: argparse.Namespace):
    """The "seats" command on a recording of one device (``--array``, ``--one-mic`` with
    ``--audio``): who is who stays as learnt from its start; said on stderr. None otherwise."""
    what = ("seats", "array") if getattr(args, "array", False) else \
        ("voices", "one mic") if getattr(args, "one_mic", False) else None
    if what is None:
        return None

    def reseat() -> None:
        print(f"referee: \"referee seats\" on a recording: its {what[0]} stay those learnt "
              f"from its start (they are learnt again only on a live {what[1]})",
              file=sys.stderr, flush=True)

    return reseat
