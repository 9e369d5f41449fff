"""Referee a game at the table: listen, judge, speak the verdicts, keep the score.

`referee play stroop` and `referee play goop`; `referee resume` continues a
journaled game after a crash.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys

from referee.cli import mic_options, one_mic_options, voice_options
from referee.voice.speaker import Speaker
from referee.core.announce import VERBOSITY, Announcer
from referee.core.cards import Card, CardError
from referee.core.errors import RefereeError
from referee.core.events import GameStart
from referee.core.games import GAMES, make_game
from referee.core.journal import encode
from referee.core.table import DEALER, TABLE, Table, TableOptions, VirtualDeck

DESCRIPTION = """\
Referee a game at the table: listen, judge, speak the verdicts, keep the score.

Microphones: one per player (and one for the dealer, if any), so the referee
knows who called. --names says who is on the input device's channels, in
order: "dealer" for the dealer's mic, else a player, e.g. --names
dealer,ann,bob for a three-channel device (default: the players in seat
order); --channels says which channels they are (--channels 2,3,4; default
1, 2, 3, ...); --devices gives one device per name instead, separated by
spaces as for `referee listen` (--devices 3 "USB mic" 5).

Swoop is a turn game: by default one microphone ("table") hears the whole
table, and whose turn it is tells the referee who spoke; --names ann,bob,cai
gives each player a mic instead. Plays are said or typed: "seven", "two
sevens", "blind seven", "pick up", "I'm out"; once someone is out the referee
asks each other player for the points (or cards) left in their hand.

Stroop needs cards dealt: --virtual-deck (the referee shuffles its own deck
and announces each card), a "dealer" channel (the dealer names each card as
it is turned), or the dealer types each card (QH, 10d, "queen of hearts")
and Enter. Typed commands work too: score, repeat, undo, pause, resume,
new-game, end, seats or voices (--array, --one-mic).

GOPS: `referee play gops --players ann,bob --setup purple|standard
[--virtual-prizes]`. A player turns each prize and names it ("green five",
"queen of diamonds"), or with --virtual-prizes the referee draws and says it.
After the reveal each bid is said: "ann nine" (anyone may read them all out),
or "nine" / "I bid nine" on the player's own mic or, with one microphone for
the whole table (--names table), in seat order. Bids and prizes can be
typed too ("ann 9", "green 5"). A bid the player cannot make is refused with
the reason and a question; a missing bid is asked for.

Soccer (two players; the first named attacks first): the attacker names
each forward ("five of spades"), the defender the block ("block with five
of diamonds", "nine of diamonds and four of diamonds", "no block"); after a
goalie forward, "penalty queen of hearts" or "no penalty". --names table
is one microphone for the whole table (whose turn it is tells who speaks);
--names ann,bob one per player. Plays can be typed too: 5S, block 9D 4D,
no block, penalty QH, no penalty.

Recorded games: --audio GAME.wav runs the same referee on a recording, one
channel per mic in the order of --names, faster than real time; --json
prints the objects of `referee replay --json`; --speak-to FILE.wav writes
what the referee says, at its time, to a WAV file.

One mic array in the middle of the table instead of a mic per player
(Stroop, Goop): --array. Live, every channel of the input device (or of the
one --devices names) is the array; the referee asks each name of --names
(default: the players) aloud, in turn, to say "NAME here", learns their seats
from it, and asks two seats it cannot tell apart to move. "referee seats"
learns them again mid-game; `referee resume` asks for them again. With
--audio, the recording begins with each name saying "NAME here" in order
(docs/one-device.md). One mic for the whole table: --one-mic, the same way,
each name saying "NAME here" and --enrol-cards card names (their voice;
"referee learn our voices" asks again); --known-voices uses the voices kept.

Every event and verdict is journaled (fsynced per line) in the data
directory ($REFEREE_DATA, else ~/.local/share/referee/games).
"""


class SetupError(RefereeError, ValueError):
    """Options that do not make a game."""


_names = mic_options.names


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", choices=GAMES, help="which game")
    add_table_arguments(p)
    g = p.add_argument_group("the game")
    g.add_argument("--players", metavar="A,B,..", help="player names in seat order "
                   "(default: the non-dealer names of --names)")
    g.add_argument("--virtual-deck", action="store_true", help="Stroop: the referee deals from its own deck")
    g.add_argument("--seed", type=int, help="shuffle the virtual deck with this seed")
    g.add_argument("--tie-window-ms", type=float, default=40.0,
                   help="calls whose ends (then starts) are this close are simultaneous (default 40)")
    g.add_argument("--two-player-miscall", choices=("inactive", "forfeit"), default="inactive",
                   help="Stroop, two players: a miscall puts the caller out (default) or forfeits the round")
    g.add_argument("--match-cards", metavar="P=CARD,..", help="Stroop's match-card variant, e.g. ann=9S,bob=KH")
    g.add_argument("--target", type=int, default=100, help="Goop: points that end the game (default 100)")
    g.add_argument("--decks", type=int, default=0, help="Swoop: decks in play (default one per two players)")
    g.add_argument("--rounds", type=int, default=5, help="Swoop: rounds to play; lowest total wins (default 5)")
    g.add_argument("--setup", default="purple", metavar="purple|standard|FILE.json",
                   help="GOPS: Purple Rules (14 clubs of two colours, hands of seven; 2-5 players), "
                   "standard (13 diamonds, a suit each; 2-3 players), or your own deck: "
                   '{"prizes": {"red seven": 7, ...}, "hand": [1, 2, ...], "players": [2, 4]}')
    g.add_argument("--virtual-prizes", action="store_true",
                   help="GOPS: the referee shuffles the prize pile itself and announces each prize")
    g.add_argument("--failed-block", choices=("retry", "goal"), default="retry",
                   help="soccer: a failed block may be retried or conceded (default), or is a goal")


def add_table_arguments(p: argparse.ArgumentParser) -> None:
    """Listening, speaking and showing: shared by play and resume."""
    g = p.add_argument_group("listening")
    g.add_argument("--names", metavar="NAMES", help=mic_options.NAMES_HELP +
                   ": dealer, players, or table for one shared mic")
    g.add_argument("--channels", metavar="1,2,..", help=mic_options.CHANNELS_HELP +
                   " (default 1, 2, ...)")
    g.add_argument("--devices", metavar="DEV", nargs="+",
                   help="one input device per channel name, by index or name, separated by spaces")
    g.add_argument("--audio", metavar="GAME.wav", help="referee a recording instead of microphones")
    g.add_argument("--array", action="store_true",
                   help="one mic array (a device of two or more channels) hears the table: each "
                        "of --names (default: the players) says \"NAME here\" in turn (asked "
                        "aloud; with --audio, the recording begins so), which teaches the "
                        "referee each seat")
    one_mic_options.add_arguments(g)
    g.add_argument("--engine", choices=("vosk", "pocketsphinx"), help="force a recogniser")
    g.add_argument("--model", metavar="DIR", help="Vosk model directory")
    g.add_argument("--json", action="store_true", help="print round/final objects as JSON Lines")
    g.add_argument("--no-screen", action="store_true", help="no live terminal view")
    t = p.add_argument_group("announcements")
    t.add_argument("--verbosity", choices=VERBOSITY, default="normal",
                   help="terse: only who won and the next card; quiet: wins and the end; "
                   "normal: also undo, pause; verbose: also every miscall")
    t.add_argument("--scores-every", type=int, default=None, metavar="N",
                   help="say the scores every N decided rounds (0: only when asked; "
                   "default 1, or 0 with --verbosity terse)")
    t.add_argument("--lock-reminder", type=float, default=0.0, metavar="S",
                   help="Goop, three players: remind the table of the lock rule after S quiet seconds")
    voice_options.add_arguments(p)


def game_start(args: argparse.Namespace) -> GameStart:
    channels = _names(args.names)
    players = _names(args.players) or [c for c in channels if c not in (DEALER, TABLE)]
    if len(players) < 2:
        raise SetupError("name at least two players with --players (or --names)")
    options: dict = {"tie_window_ms": args.tie_window_ms}
    match: dict = {}
    if args.game == "swoop":
        options = {"decks": args.decks, "rounds": args.rounds}
        if args.virtual_deck:
            raise SetupError("--virtual-deck is for Stroop")
    elif args.game == "stroop":
        options["two_player_miscall"] = args.two_player_miscall
        for item in _names(args.match_cards):
            player, _, card = item.partition("=")
            if player not in players:
                raise SetupError(f"--match-cards: unknown player {player!r}")
            try:
                match[player] = Card.parse(card)
            except CardError as e:
                raise SetupError(f"--match-cards: {e}") from None
        if args.virtual_deck and DEALER in channels:
            raise SetupError("--virtual-deck and a dealer channel: choose one way to deal")
    elif args.game == "gops":
        options = {"setup": _setup(args.setup), "virtual_prizes": bool(args.virtual_prizes)}
        if args.virtual_deck:
            raise SetupError("--virtual-deck is for Stroop (GOPS: --virtual-prizes)")
    elif args.game == "soccer":
        options = {"failed_block": args.failed_block}
        if args.virtual_deck:
            raise SetupError("--virtual-deck is for Stroop")
    else:
        options["target"] = args.target
        if args.virtual_deck:
            raise SetupError("--virtual-deck is for Stroop")
    start = GameStart(args.game, tuple(players), options, match)
    make_game(start)     # validates the options and players
    return start


def _setup(value: str):
    """A set-up's name, or the set-up object read from a JSON file."""
    if value in ("purple", "standard"):
        return value
    try:
        with open(value, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise SetupError(f"--setup: {value}: not purple, standard or a readable file ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise SetupError(f"--setup: {value}: not valid JSON ({e.msg} at line {e.lineno})") from None


def mic_channels(args: argparse.Namespace) -> None:
    """Check ``--channels`` (numbers; names there get "did you mean --names?") fits the rest."""
    numbers = mic_options.channel_numbers(args.channels)
    if getattr(args, "array", False) and numbers is not None:
        raise SetupError("--array uses every channel of the array; --channels picks mics")
    one_mic_options.check(args)
    if numbers is not None and args.audio:
        raise SetupError("--channels picks channels of a microphone device; a recording's "
                         "channels are the --names in order")


def channel_names(args: argparse.Namespace, start: GameStart) -> list[str]:
    # Swoop is a turn game: one mic for the whole table unless the mics are named.
    default = [TABLE] if start.game == "swoop" else list(start.players)
    names = _names(args.names) or default
    for n in names:
        if n not in (DEALER, TABLE) and n not in start.players:
            raise SetupError(f"--names: {n!r} is neither 'dealer' nor a player ({', '.join(start.players)})")
    if len(set(names)) != len(names):
        raise SetupError("--names gives the same name twice")
    if getattr(args, "array", False) and TABLE in names:
        raise SetupError("--array learns a seat per talker: name them (--names dealer,ann,..), "
                         "not 'table'")
    if getattr(args, "one_mic", False) and TABLE in names:
        raise SetupError("--one-mic learns each talker's voice: name them (--names "
                         "dealer,ann,..), not 'table'")
    if TABLE not in names:
        # each player's mic tells who spoke: a player without one would go unheard
        missing = [p for p in start.players if p not in names]
        if missing:
            raise SetupError(f"--names: no microphone for {', '.join(missing)}: name one for "
                             f"every player (or 'table' for one shared mic)")
    return names


def run(args: argparse.Namespace) -> int:
    try:
        mic_channels(args)
        start = game_start(args)
        channels = channel_names(args, start)
    except RefereeError as e:  # SetupError, or the game's own (OptionError...)
        print(f"referee play: {e}", file=sys.stderr)
        return 2
    # The seed is journaled, so that a resumed game deals on from the same deck.
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    deck = VirtualDeck(seed) if args.virtual_deck else None
    setup = {"channels": channels, "virtual_deck": bool(args.virtual_deck), "seed": seed}
    if args.devices and not args.audio:
        setup["devices"] = args.devices      # resume listens on the same mics
    if getattr(args, "array", False):
        setup["array"] = True
    if (one := one_mic_options.kept(args)) is not None:   # resume hears it as one mic again
        setup["one_mic"] = one
    if args.channels and not args.audio:
        setup["mic_channels"] = args.channels
    return referee(args, start, channels, deck=deck, setup=setup)


def _sigterm_as_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def referee(args, start: GameStart, channels: list[str], *, deck=None, setup=None,
            journal=None, history=None, offset: float = 0.0, journaled=None,
            start_at: float = 0.0, rehear: bool = False) -> int:
    """Set up the devices and run the table until the game ends. ``start_at``: seconds into
    the --audio recording where hearing begins; ``rehear``: from a little before where the
    journal stops, on the recording the game was played on."""
    import signal

    signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
    # Ctrl-C stops the referee even when it was started with SIGINT ignored (from a
    # script or a job control-less shell, as a background job is)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from referee.app.journal_file import JournalFile, JournalFileError
    from referee.app.inputs import open_listening, table_talk
    from referee.app.session import ListeningFailed, run_live, run_recording

    try:
        grammar = None
        if start.game == "gops":
            from referee.hearing.gops_grammar import gops_grammar
            grammar = gops_grammar(start.players, make_game(start).setup)
        listening = open_listening(
            args, channels, start.game,
            notify=lambda line: print(f"referee: {line}", file=sys.stderr, flush=True),
            grammar=grammar, start_at=start_at,
            numbers=mic_options.channel_numbers(args.channels))
        if args.audio and journal is None and setup is not None:
            from referee.app.recorded import identity
            setup["audio"] = identity(args.audio)   # `resume --audio` checks it is the same
    except (RefereeError, OSError) as e:  # ListeningError, AudioFileError, MicError...
        print(f"referee: {e}", file=sys.stderr)
        return 2
    print(f"referee: listening with {listening.engine}", file=sys.stderr)
    recorded = bool(args.audio)
    shown = not (args.no_screen or args.json or recorded) and sys.stdout.isatty()
    # with the live view, what is said is shown there: the terminal is the view's
    text_sink = open(os.devnull, "w") if shown else sys.stderr if args.json else sys.stdout
    speak_to = None if args.speak_to == "text" else args.speak_to
    if recorded and speak_to == "speakers":
        speak_to = None        # a recording is refereed silently unless --speak-to FILE.wav
    try:
        # The speaker's clock is the table's: the audio clock plus a resumed game's offset.
        voice = Speaker(speak_to, text=text_sink,
                                    clock=lambda: listening.clock() + offset,
                                    rate=args.speech_rate, device=args.speaker_device)
    except (RefereeError, OSError) as e:  # SinkError, VoiceError
        listening.close()
        print(f"referee: --speak-to: {e}", file=sys.stderr)
        return 2
    screen = table = None
    reseat = None
    if listening.ask is not None:       # one live device: who is who, asked aloud first
        try:
            reseat = listening.ask(voice, lambda line: print(f"referee: {line}",
                                                             file=sys.stderr, flush=True))
        except (RefereeError, KeyboardInterrupt) as e:      # ListeningError
            listening.close()
            voice.close()
            if isinstance(e, KeyboardInterrupt):
                return 130
            print(f"referee: {e}", file=sys.stderr)
            return 2
    else:       # a recording's seats or voices come from its start, once
        reseat = one_mic_options.recording_reseat(args)
    if shown:
        from referee.app.screen import Screen
        screen = Screen()
    try:
        def new_game():
            """A fresh journal (and deck) for the "new game" command."""
            fresh = dict(setup or {})
            deck_ = None
            if fresh.get("virtual_deck"):
                fresh["seed"] = random.randrange(2**31)
                deck_ = VirtualDeck(fresh["seed"])
            j = JournalFile.new(start.game)
            j.append({**encode(start), "setup": fresh})
            print(f"referee: new game, journal {j.path}", file=sys.stderr)
            return j, deck_

        if journal is None:
            journal = JournalFile.new(start.game)
            journal.append({**encode(start), "setup": setup or {}})
        print(f"referee: journal {journal.path}", file=sys.stderr)
        table = Table(start, channels, speaker=voice, journal=journal,
                      json_out=sys.stdout if args.json else None, screen=screen,
                      announcer=Announcer(args.verbosity, args.scores_every), deck=deck,
                      options=TableOptions(offset=offset, lock_reminder=args.lock_reminder,
                                           hears_itself=not recorded,
                                           prize_seed=(setup or {}).get("seed", 0),
                                           settle=getattr(args, "settle", 0.0),
                                           rehear=start_at if rehear else None,
                                           table_talk=table_talk(start.game) if start.game == "swoop" else None),
                      history=history, write_start=False, new_game=new_game, reseat=reseat)
        if history and journaled is not None:
            table.journal_missing(journaled)
        if history:      # heard again, the table stands where the recording is heard from
            where = Table(start, channels, history=history) if rehear else table
            voice.say("Resuming. " + " ".join(where.standing()), at=table.now)
        if recorded:
            run_recording(table, listening.events, follow=listening.listen_for)
        else:
            run_live(table, listening.events, keyboard=sys.stdin, stop=listening.stop, errors=sys.stderr,
                     follow=listening.listen_for)
    except JournalFileError as e:
        print(f"referee: {e}", file=sys.stderr)
        return 2
    except ListeningFailed as e:
        print(f"referee: listening failed ({e}); the game is journaled unfinished: "
              "`referee resume` continues it", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # Ctrl-C (or SIGTERM) stops the referee, not the game: "referee end game" ends it
        if journal is not None:
            print("referee: stopped; the game is journaled unfinished: `referee resume` "
                  "continues it", file=sys.stderr)
        return 130
    finally:
        listening.close()
        voice.close(until=listening.clock() if recorded else None)
        if screen is not None:
            screen.close()
            text_sink.close()
        if journal is not None:
            journal.close()
        if table is not None and table.journal is not journal:
            table.journal.close()     # a game started by "new game"
    return 0
