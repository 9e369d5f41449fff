"""The seam between ``referee play``/``resume`` and the hearing layer: from the command's
options, open the recogniser and the audio (microphones or a ``--audio`` recording) and hand
back the listener's events.

``--names dealer,ann,bob`` says who is on the input's channels in order; they are channels
1, 2, 3 of the default input device (a multi-channel interface), or the channels
``--channels 2,4,5`` gives, of it or of the one ``--devices``. With ``--devices A B C`` and
no ``--channels``, one device per name (each device's first channel; as for ``referee
listen``, names are separated by spaces, since ALSA names like ``hw:1,0`` hold commas; the
older ``--devices A,B,C`` still works when there are several mics). With ``--audio
GAME.wav`` the file's channels are the named mics, in order.
"""

from __future__ import annotations

import argparse
import os
import queue
from dataclasses import replace
from typing import Callable, Iterator

from referee.core.errors import RefereeError
from referee.core.events import Heard, Utterance
from referee.core.mics import MicChange

#: What each game listens for (grammar kinds).
KINDS = {
    "stroop": ("call", "partial", "command"),
    "goop": ("shout", "command", "number"),
    "swoop": ("call", "command", "number"),
    "gops": ("bid", "prize", "command"),
    "soccer": ("call", "play", "command"),
}

#: The grammar file (grammars/NAME.json) a game listens with, when not ``table``.
GRAMMARS = {"swoop": "swoop"}


def table_talk(game: str) -> Callable[[str], bool]:
    """``said -> bool``: true for what ``game``'s grammar marks as table talk (its decoys,
    "pick up the phone") and for speech the recogniser took as no words at all (its garbage
    phones). The table never asks for such talk to be said again."""
    from referee.hearing.engine import GARBAGE_PREFIX
    from referee.hearing.grammar import Grammar, normalise

    decoys = set(Grammar.load(GRAMMARS.get(game, "table")).decoys)

    def is_talk(said: str) -> bool:
        words = normalise(said)
        return words in decoys or all(w.startswith(GARBAGE_PREFIX) for w in words)

    return is_talk


class ListeningError(RefereeError, ValueError):
    """The microphones, recording or recogniser cannot be set up; the message says why."""


class Listening:
    """An open recogniser + source + listener. ``events`` is iterated once (in any one
    thread), after :attr:`ask`; ``stop()`` ends it from another; ``clock()`` is the audio
    clock now. With
    ``changes`` (a queue the microphones put :class:`MicChange` objects in), each mic lost
    or back is among the events, as soon as the next event after it."""

    def __init__(self, listener, source, engine: str, changes: queue.SimpleQueue | None = None,
                 turn: Callable[[Iterator], Iterator] | None = None,
                 ask: Callable | None = None) -> None:
        self.listener = listener
        self.source = source
        self.engine = engine
        self.ask = ask
        self._kinds = None      # what the recogniser was last told to listen for
        """``ask(voice, notify)``, before the game on one live device (``--array``,
        ``--one-mic``): who is who, asked aloud with ``voice``; returns what learns it again
        mid-game ("referee seats"), or None. Raises :class:`ListeningError`."""
        events = listener.events() if turn is None else turn(listener.events())
        self.events: Iterator[Utterance | Heard | MicChange] = (
            events if changes is None else _with_changes(events, changes))

    def clock(self) -> float:
        return self.listener.clock()

    def listen_for(self, kinds) -> None:
        """Hear only phrases of ``kinds`` from the next segment on, as the table wants now
        (``Table.listening_for``; None: all the game's). Told only when it changes."""
        if kinds != self._kinds:
            self._kinds = kinds
            self.listener.recogniser.listen_for(kinds)

    def stop(self) -> None:
        self.listener.stop()

    def close(self) -> None:
        self.listener.stop()
        close = getattr(self.source, "close", None)
        if close is not None:
            close()


def _with_changes(events: Iterator, changes: queue.SimpleQueue) -> Iterator:
    for event in events:
        while not changes.empty():
            yield changes.get()
        yield event


ENROL_AFTER = 0.2
"""Seconds after the last name heard where an array recording's game begins."""


def _array_source(audio: str | None, channels: list[str], rate: int, start_at: float,
                  notify: Callable[[str], None] | None, device: str | None = None,
                  on_change: Callable | None = None):
    """A source with one channel per seat of ``channels``, from the array recording ``audio``
    (:mod:`referee.app.array_input`), or without it from the live array ``device`` (every
    channel of it; :mod:`referee.app.array_live`: silent until its seats are learnt); and the
    two seats of a recording too alike to tell apart, if any (a live array asks to move)."""
    from referee.app.array_input import seat_channels
    from referee.audio.recording import RecordingSource
    from referee.hearing.seats import SeatMap, SeatsError

    if not audio:
        return _live_array(channels, device, rate, notify, on_change), ()
    try:
        path, seats, spans = seat_channels(audio, channels)
    except SeatsError as e:
        raise ListeningError(f"--array: {audio}: {e}") from None
    try:
        # the game is heard from after the names ("bob here" may pass for "pause")
        from referee.app.array_input import HEAR
        twins = [] if HEAR is None else [f"{c}/heard" for c in channels]
        source = RecordingSource(path, players=channels + twins, rate=rate,
                                 start=max(start_at, spans[-1][1] + ENROL_AFTER))
    finally:
        os.unlink(path)          # the source holds it open
    if notify is not None:
        notify("seats learnt: " + ", ".join(f"{n} at {s:.1f} s" for n, (s, _) in
                                            zip(seats.names, spans)))
    close = seats.too_close()
    if close is None:
        return source, ()
    # live, they are asked to move; a recording is refereed all the same, and says so
    if notify is not None:
        notify(SeatMap.alike_line(close))
    return source, (close[:2],)


def _one_mic_source(args, audio: str | None, channels: list[str], rate: int, start_at: float,
                    notify: Callable[[str], None] | None, device: str | None = None,
                    on_change: Callable | None = None):
    """The one mic of ``audio``, or without it of the live ``device`` (its voices kept to tell
    apart), the turn of the listener's events into the table's (:mod:`referee.app.one_mic`),
    and what asks for the voices before a live game (else None)."""
    from referee.app.journal_file import data_dir
    from referee.app.one_mic import VoiceTap, attributed, enrol, kept
    from referee.audio.recording import RecordingSource
    from referee.audio.wav import WavReader
    from referee.hearing.classifier import ClassifierError
    from referee.hearing.overlaps import OverlapCheck
    from referee.hearing.voiceprints import VoicesError

    try:
        check = OverlapCheck.load()
    except ClassifierError as e:
        raise ListeningError(str(e)) from None
    voices = data_dir() / "voices"
    known = bool(getattr(args, "known_voices", False))
    if not audio:
        return _live_one_mic(args, channels, rate, device, notify, on_change, voices, check)
    f = WavReader(audio)
    f.close()
    if f.channels != 1:
        raise ListeningError(f"--one-mic: {audio} has {f.channels} channels: one mic's "
                             "recording has one")
    try:
        if known:
            book, begin = kept(channels, voices), start_at
        else:
            book, spans = enrol(audio, channels, args.enrol_cards)
            # the game is heard from after the enrolment ("bob here" may pass for "pause")
            begin = max(start_at, spans[-1][2] + ENROL_AFTER)
    except VoicesError as e:
        raise ListeningError(f"--one-mic: {audio}: {e}") from None
    source = RecordingSource(audio, players=["table"], rate=rate, start=begin)
    if not known and notify is not None:
        notify("voices learnt: " + ", ".join(f"{n} at {s:.1f} s"
                                             for n, s, _ in spans[::args.enrol_cards + 1]))
    if not known:
        _keep_voices(book, voices, notify)
    tap = VoiceTap(source)
    return tap, lambda events: attributed(events, tap, book, channels, check,
                                          args.voice_confidence, args.overlap), None


def _keep_voices(book, voices, notify: Callable[[str], None] | None) -> None:
    """Each talker's voice written under their name for later games (``--known-voices``)."""
    from referee.app.one_mic import keep

    try:
        said = f"voices kept in {voices} for later games: {', '.join(keep(book, voices))}"
    except OSError as e:
        said = f"voices not kept for later games: {voices}: {e.strerror or e}"
    if notify is not None:
        notify(said)


def _live_one_mic(args, channels: list[str], rate: int, device: str | None,
                  notify: Callable[[str], None] | None, on_change: Callable | None, voices,
                  check):
    """``--one-mic`` on a live mic (:mod:`referee.app.one_mic_live`): silent until the
    voices are learnt, asked aloud (or kept ones, ``--known-voices``)."""
    from referee.app.live_source import RATE, OneMicSource
    from referee.app.one_mic import VoiceTap, attributed, kept
    from referee.app.one_mic_live import voices_again, voices_by_voice
    from referee.audio.mic import MicrophoneSource
    from referee.audio.mic_devices import Input, MicError
    from referee.hearing.voiceprints import VoicesError

    if rate != RATE:
        raise ListeningError(f"--one-mic hears voices at {RATE} Hz; the recogniser hears at {rate}")
    book = None
    if getattr(args, "known_voices", False):
        try:
            book = kept(channels, voices)
        except VoicesError as e:
            raise ListeningError(f"--one-mic: {e}") from None
    try:
        dev = None if device is None else int(device) if device.isdigit() else device

        def mic_changed(change) -> None:
            """The mic's device lost or back: every talker's stream with it."""
            if on_change is not None:
                for name in channels:
                    on_change(replace(change, stream=name))

        mic = MicrophoneSource(inputs=[Input(dev, (0,))], rate=RATE, notify=notify,
                               on_change=mic_changed)
        source = OneMicSource(mic)
        source.start()
    except MicError as e:
        raise ListeningError(f"--one-mic: {e}") from None
    if notify is not None:
        notify(f"one mic ({device or 'default input'}); "
               + ("the voices kept are used" if book is not None
                  else "the voices are learnt before the game"))
    learnt = {"book": book}

    def use(book, notify: Callable[[str], None]) -> None:
        learnt["book"] = book
        _keep_voices(book, voices, notify)

    def ask(voice, notify: Callable[[str], None]) -> Callable[[], None]:
        """The voices asked for aloud and kept (none asked for with kept ones); then what
        asks for them again ("referee seats")."""
        if learnt["book"] is None:
            try:
                use(voices_by_voice(source, voice, channels, args.enrol_cards, notify), notify)
            except VoicesError as e:
                raise ListeningError(f"--one-mic: {e}") from None
        else:
            source.use(True)
        return voices_again(source, voice, channels, args.enrol_cards, notify,
                            lambda book: use(book, notify))

    def turn(events):
        # the voices are learnt (ask) before the events are read, and may be learnt again
        yield from attributed(events, tap, lambda: learnt["book"], channels, check,
                              args.voice_confidence, args.overlap)

    tap = VoiceTap(source)
    return tap, turn, ask


def _live_array(channels: list[str], device: str | None, rate: int,
                notify: Callable[[str], None] | None, on_change: Callable | None):
    from referee.app.array_live import RATE, ArraySource
    from referee.audio.mic import MicrophoneSource
    from referee.audio.mic_devices import Input, MicError, input_channels

    if rate != RATE:
        raise ListeningError(f"--array splits seats at {RATE} Hz; the recogniser hears at {rate}")
    try:
        dev = None if device is None else int(device) if device.isdigit() else device
        mics = input_channels(dev)
        if mics < 2:
            raise ListeningError(f"--array: the input device {device or '(default)'} has "
                                 f"{mics} channel; an array needs two or more")
        def seats_changed(change) -> None:
            """The array's device lost or back: every seat's channel with it."""
            if on_change is not None and change.stream == "ch0":
                for name in channels:
                    on_change(replace(change, stream=name))

        mic = MicrophoneSource(inputs=[Input(dev, tuple(range(mics)))], rate=RATE,
                               notify=notify, on_change=seats_changed)
        from referee.app.array_input import HEAR
        source = ArraySource(mic, channels, hear=HEAR)
        source.start()
    except MicError as e:
        raise ListeningError(f"--array: {e}") from None
    if notify is not None:
        notify(f"array of {mics} channels ({device or 'default input'}); the seats are "
               "learnt before the game")
    return source


def _ask_seats(source, channels: list[str], listener) -> Callable:
    """``ask(voice, notify)`` for a live array: the seats asked for aloud, then what asks
    for them again ("referee seats"); ``listener`` is told the seats still too alike."""
    def ask(voice, notify: Callable[[str], None]) -> Callable:
        from referee.app.array_live import seats_by_voice
        from referee.hearing.seats import SeatsError

        reseat = seats_by_voice(source, voice, channels, notify, listener.seats_alike)
        try:
            reseat(first=True)
        except SeatsError as e:
            raise ListeningError(f"--array: {e}") from None
        return reseat

    return ask


def device_list(value: str | list[str] | None, mics: int) -> list[str]:
    """The devices of ``--devices`` (a list, or a string from an older journal) for ``mics``
    named mics. A single value with commas is split when there are several mics (the older
    form, ``ann-mic,bob-mic``); for one mic it is one name (``hw:1,0``)."""
    if not value:
        return []
    items = [value] if isinstance(value, str) else list(value)
    if len(items) == 1 and mics > 1 and "," in items[0]:
        items = items[0].split(",")
    return [d.strip() for d in items if d.strip()]


def open_listening(args: argparse.Namespace, channels: list[str], game: str,
                   notify: Callable[[str], None] | None = None, grammar=None,
                   start_at: float = 0.0, numbers: list[int] | None = None) -> Listening:
    """Open what ``args`` asks for (``audio``, ``devices``, ``engine``, ``model``), with one
    listening stream per name in ``channels`` ('dealer' or a player). ``notify`` gets the
    microphones' lines for people (see :class:`~referee.audio.mic.MicrophoneSource`).
    ``grammar``: the game's own grammar (GOPS: with the players' names), else table.json's.
    ``start_at``: seconds into the ``audio`` recording where hearing begins. ``numbers``:
    the 0-based channels of the device that carry ``channels`` (``--channels``)."""
    from referee.hearing.engine import EngineError, open_recogniser
    from referee.hearing.grammar import Grammar, GrammarError
    from referee.app.listener import Listener

    try:
        if grammar is None:
            grammar = Grammar.load(GRAMMARS.get(game, "table")).subset(
                kinds=set(KINDS.get(game, ("call", "shout", "command"))))
        recogniser = open_recogniser(getattr(args, "engine", None), getattr(args, "model", None),
                                     grammar)
    except (EngineError, GrammarError) as e:
        raise ListeningError(str(e)) from None
    audio = getattr(args, "audio", None)
    changes = turn = None
    ask = None
    alike: tuple[tuple[str, str], ...] = ()
    one_mic = bool(getattr(args, "one_mic", False))
    if one_mic or getattr(args, "array", False):
        devices = device_list(getattr(args, "devices", None), 1)
        if len(devices) > 1:
            raise ListeningError(f"{'--one-mic' if one_mic else '--array'} listens to one "
                                 "device: give one --devices")
        device = devices[0] if devices else None
        changes = None if audio else queue.SimpleQueue()
        on_change = None if changes is None else changes.put
    if one_mic:
        source, turn, ask = _one_mic_source(args, audio, channels, recogniser.rate, start_at,
                                            notify, device, on_change)
    elif getattr(args, "array", False):
        source, alike = _array_source(audio, channels, recogniser.rate, start_at, notify,
                                      device, on_change)
    elif audio:
        from referee.audio.recording import RecordingSource

        # a file it cannot read, or a channel count that differs from the names, raises
        # an AudioFileError or PlayersError that names the file
        source = RecordingSource(audio, players=channels, rate=recogniser.rate, start=start_at)
    else:
        from referee.audio.mic import MicrophoneSource
        from referee.audio.mic_devices import NO_INPUT_HINT, Input, MicError, plan_inputs
        devices = device_list(getattr(args, "devices", None), len(channels))
        if numbers is not None and len(numbers) != len(channels):
            raise ListeningError(f"--channels gives {len(numbers)} channel(s) for "
                                 f"{len(channels)} names ({', '.join(channels)})")
        if devices and numbers is None and len(devices) != len(channels):
            raise ListeningError(f"--devices names {len(devices)} device(s) for "
                                 f"{len(channels)} mics ({', '.join(channels)})")
        changes = queue.SimpleQueue()
        try:
            if numbers is not None:
                inputs = plan_inputs(devices or None, numbers)
            elif devices:
                inputs = [Input(int(d) if d.isdigit() else d, (0,)) for d in devices]
            else:
                inputs = [Input(None, tuple(range(len(channels))))]
            source = MicrophoneSource(inputs=inputs, players=channels, rate=recogniser.rate,
                                      notify=notify, on_change=changes.put)
            source.start()
        except MicError as e:
            hint = "" if NO_INPUT_HINT in str(e) else (
                " (microphones: `referee listen --list-devices` shows what there is; --devices "
                "picks them; --audio FILE.wav referees a recording instead)")
            raise ListeningError(f"{e}{hint}") from None
    # an array's seat channels are masks of one sound, not a mic's delayed leaks into the
    # next: the leak canceller only adds phantoms there (docs/one-device.md)
    array = bool(getattr(args, "array", False))
    from referee.app.array_input import COPY_DB, HEAR
    twins = array and HEAR is not None
    options = {"copy_db": COPY_DB} if array and COPY_DB is not None else {}
    if alike:
        options["alike"] = alike
    listener = Listener(source, recogniser, cancel=not array, twins=twins, **options)
    if array and not audio:
        ask = _ask_seats(source, channels, listener)
    return Listening(listener, source, recogniser.description, changes, turn, ask)
