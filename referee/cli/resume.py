"""``referee resume``: continue a game after a crash with the same scores."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from referee.cli import mic_options, one_mic_options
from referee.cli.play import add_table_arguments, mic_channels, referee
from referee.core.clock import seconds
from referee.core.errors import RefereeError
from referee.core.games import make_game
from referee.core.journal import LogError, parse_lines
from referee.core.table import VirtualDeck

#: Seconds a resumed game waits, once it has said where it stands, before it deals.
SETTLE = 5.0

DESCRIPTION = """\
Continue a game after a crash (or Ctrl-C) with the same scores.

Reads the game's journal (by default the latest unfinished one in the data
directory), rebuilds the game from it silently, and goes on listening,
appending to the same journal. The listening options (--names, --channels,
--devices) default to those the game was started with. What was still open
when the game stopped is settled as it would have been; a verdict the journal
lacks (a crash between an event and its verdict) is journaled then, once. The
referee says the score and the top card, then waits --settle seconds before it
deals on.

A game played on a recording (`referee play --audio GAME.wav`) is resumed on the
same recording: `referee resume --audio GAME.wav` goes on in it where the
journal stops, so the game ends as if it had never stopped. It hears again the
half-minute before that (with the referee's own deck, from the recording's
start, for the deals' times), judges nothing twice and does not wait --settle.
A different file (other channels, rate or length) or other --names than the
game's is refused, naming what differs; --continuation takes the file as what
came after the journal instead, its clock going on a second after the
journal's last time (as --audio does for a game played on microphones).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("journal", nargs="?", help="the journal to continue (default: the latest unfinished)")
    add_table_arguments(p)
    p.add_argument("--continuation", action="store_true",
                   help="--audio holds what came after the journal, not the recording the "
                   "game was played on")
    p.add_argument("--settle", type=float, default=SETTLE, metavar="SECONDS",
                   help="after saying the score and the top card, wait this long before the "
                   f"virtual deck deals (default {SETTLE:g}); an open round stays open")


def run(args: argparse.Namespace) -> int:
    from referee.app.journal_file import JournalFile, JournalFileError, latest_unfinished, read_journal

    if args.settle < 0:
        print(f"referee resume: --settle must be 0 or more seconds, not {args.settle:g}", file=sys.stderr)
        return 2
    known = one_mic_options.deferred(args)     # --known-voices: checked against the journal
    try:
        mic_channels(args)
    except RefereeError as e:
        print(f"referee resume: {e}", file=sys.stderr)
        return 2
    try:
        path = Path(args.journal) if args.journal else latest_unfinished()
        if path is None:
            print("referee resume: no unfinished game to resume", file=sys.stderr)
            return 2
        contents = read_journal(path)
        lines = [json.dumps(o, ensure_ascii=False) for o in contents.objects]
        log = parse_lines(lines)
        if contents.finished:
            print(f"referee resume: {path}: that game has ended", file=sys.stderr)
            return 2
    except (JournalFileError, LogError, OSError) as e:
        print(f"referee resume: {e}", file=sys.stderr)
        return 2
    from referee.app.journal_setup import check_channels, checked_setup
    try:
        setup = checked_setup(path, contents.objects, log.game)
        one_mic_options.restore(setup, args, known)
        channels = check_channels(mic_options.names(args.names) or setup.get("channels")
                                  or list(log.game.players), log.game)
    except RefereeError as e:       # SetupLineError: a field resume cannot use
        print(f"referee resume: {e}", file=sys.stderr)
        return 2
    if not args.devices and not args.audio and not args.names and not args.channels:
        args.devices = setup.get("devices")      # the mics the game was started with
        args.channels = setup.get("mic_channels")
    if setup.get("array") and not args.channels:
        args.array = True       # an array's seats are asked for again (docs/one-device.md)
    deck = None
    if setup.get("virtual_deck"):
        deck = VirtualDeck(setup.get("seed"))
        dealt = {str(e.card) for e in log.events if type(e).__name__ == "Deal"}
        deck.cards = [c for c in deck.cards if str(c) not in dealt]
    game = make_game(log.game)
    last = seconds(max((game.time_key(e)[0] for e in log.events), default=0))
    played = setup.get("audio")
    rehear = bool(args.audio) and isinstance(played, dict) and not args.continuation
    if rehear:      # the recording the game was played on: go on in it where the journal stops
        from referee.app.recorded import check_same, resume_point

        try:
            check_same(args.audio, played)
        except RefereeError as e:      # NotTheRecording, AudioFileError
            print(f"referee resume: {e}", file=sys.stderr)
            return 2
        if channels != setup.get("channels", channels):
            print(f"referee resume: --names {','.join(channels)}: the game was played on "
                  f"{played.get('file')} with --names {','.join(setup['channels'])}",
                  file=sys.stderr)
            return 2
    elif args.continuation and not args.audio:
        print("referee resume: --continuation is for an --audio recording", file=sys.stderr)
        return 2
    journal = JournalFile.reopen(path)
    if journal.dropped:
        print(f"referee resume: cut off a torn last line: {journal.dropped[:80]!r}", file=sys.stderr)
    if rehear:
        return referee(args, log.game, channels, deck=deck, journal=journal, setup=setup,
                       history=list(log.events), journaled=contents.objects,
                       start_at=0.0 if deck is not None else resume_point(last), rehear=True)
    return referee(args, log.game, channels, deck=deck, journal=journal, setup=setup,
                   history=list(log.events), offset=last + 1.0, journaled=contents.objects)
