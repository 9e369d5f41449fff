"""The referee's voice: announcements spoken by one worker fed by a queue.

:class:`Speaker` takes announcements with :meth:`Speaker.say`, which returns at
once; a single worker thread renders each one to audio with a *voice* and sends
it to one output, chosen when the speaker is made:

* ``to="speakers"``: played live through the audio server (``paplay``, else
  ``aplay``), on the default output or ``device``;
* ``to="FILE.wav"``: placed at its audio-clock time in one WAV file, silence
  between, so a recorded game yields a WAV of what the referee said and when;
* ``to=None``: text only.

Every announcement is also written to a text sink (a file object, default
stdout). If there is no TTS or no audio output, the speaker says so once on
stderr, keeps printing, and never raises into the game.

How each voice is run, and pyttsx3's pitfalls, are in :mod:`referee.voice.voices`.

Live, the output is woken with a moment of silence when the speaker starts
(the first stream to a PulseAudio sink can start ~0.8 s late; later ones
within milliseconds), and each rendering is trimmed of the voice's leading and
trailing silence, so ``start`` and ``end`` are those of the speech.
``say(urgent=True)`` jumps the queue, cuts short a non-urgent announcement
being spoken and drops the waiting ones that were said to be ``droppable``
(a score readout: stale once a verdict or the next card is out); with
``cuts_scores=False`` (the next card) it lets a droppable one that has begun
finish. The WAV sink does the same on its timeline. So an urgent
announcement waits only for the urgent ones before it and for its own
rendering (docs/announcements.md).

Times are seconds on the *audio clock* (the ``clock`` callable given, e.g. the
microphones' sample count; or the ``at`` given to :meth:`Speaker.say`). Each
announcement's :class:`Spoken` record says when it started and ended on that
clock, so the live loop can measure "end of winning call -> start of verdict"
and drop what its own microphones hear of the referee (:meth:`Speaker.echo`).
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, TextIO

from referee.voice.echo import sounds_like
from referee.voice.playback import CommandPlayer, PlaybackError
from referee.voice.sink import SinkError, _Item, _Timeline, _WavSink
from referee.voice.voices import (DEFAULT_RATE, Audio, Voice, default_voice,
                                  trim_silence)

#: A voice that fails this many announcements in a row is given up on.
MAX_FAILURES = 3


@dataclass(frozen=True)
class Spoken:
    """One announcement and what became of it."""

    text: str
    urgent: bool
    asked: float
    """Seconds (audio clock): when :meth:`Speaker.say` was called, or its ``at``."""
    start: float | None = None
    """Seconds (audio clock): when its audio began; ``None`` until it begins,
    and for ever if it was never voiced (text only, or the voice failed)."""
    end: float | None = None
    """Seconds (audio clock): when its audio ended; ``None`` while it plays
    live. (In a WAV file, the end is known at once but an urgent announcement
    can still cut it short: then it is moved earlier.)"""
    interrupted: bool = False
    """Cut short by an urgent announcement."""
    dropped: bool = False
    """Never voiced: it was ``droppable`` and an urgent announcement came before its turn."""


_STOP = object()


class Speaker:
    """The referee's voice: see the module docstring.

    ``to``: ``"speakers"`` (live), a path ending ``.wav`` (WAV file sink) or
    ``None`` (text only). ``text``: where announcements are printed (default
    stdout). ``voice``: a :class:`Voice` (default :func:`default_voice` with
    ``rate``, closed with the speaker; a voice passed in stays the caller's). ``clock``: the audio clock, seconds (default: seconds since
    this speaker was made, a stand-in when the caller has no audio clock).
    ``device``: the PulseAudio sink to play to. ``player``: something with
    the methods of :class:`CommandPlayer` (default: one for ``device``)."""

    def __init__(self, to: str | os.PathLike | None = "speakers", *, text: TextIO | None = None,
                 voice: Voice | None | str = "default", clock: Callable[[], float] | None = None,
                 rate: int = DEFAULT_RATE, device: str | None = None, player=None):
        if to is not None and to != "speakers" and not os.fspath(to).lower().endswith(".wav"):
            raise SinkError(f"speak to 'speakers', a .wav file or nothing, not {to!r}")
        # (a WAV file that cannot be written raises SinkError too, naming it)
        self.mode = "text" if to is None else "live" if to == "speakers" else "wav"
        self.text = text if text is not None else sys.stdout
        self._owns_voice = voice == "default"
        if voice == "default":
            voice = default_voice(rate) if self.mode != "text" else None
        self.voice = voice
        if clock is None:
            t0 = time.monotonic()
            clock = lambda: time.monotonic() - t0  # noqa: E731
        self.clock = clock
        self.problems: list[str] = []
        """What went wrong with the voice or the output, in order."""
        self._wav = _WavSink(to) if self.mode == "wav" else None
        self._player = (player or CommandPlayer(device)) if self.mode == "live" else None
        self._output_lost = False
        self._timeline = _Timeline()
        self._lock = threading.Condition()
        self._queue: list = []
        self._records: list[Spoken] = []
        self._busy = False
        self._playing: _Item | None = None
        self._interrupt = threading.Event()
        self._voice_failures = 0
        self._closed = False
        self._thread = threading.Thread(target=self._work, name="referee-speaker", daemon=True)
        self._thread.start()

    # -- the game's side -------------------------------------------------

    def say(self, text: str, urgent: bool = False, at: float | None = None,
            droppable: bool = False, cuts_scores: bool = True) -> None:
        """Queue an announcement and return at once. ``urgent`` ones go before
        every waiting non-urgent one, cut short a non-urgent one being spoken
        (but a ``droppable`` one only if they ``cuts_scores``) and drop the
        waiting ``droppable`` ones (those are still printed, not voiced).
        ``at``: its audio-clock time (default: the clock now)."""
        if at is None:
            at = self.clock()
        with self._lock:
            if self._closed:
                raise RuntimeError("this speaker is closed")
            item = _Item(len(self._records), str(text), urgent, at, droppable=droppable and not urgent,
                         cuts_scores=cuts_scores)
            self._records.append(Spoken(item.text, urgent, at))
            if urgent and self.mode == "live":
                for q in [q for q in self._queue if q is not _STOP and q.droppable]:
                    self._queue.remove(q)
                    self._records[q.n] = replace(self._records[q.n], dropped=True)
                    self._print(q)
                k = next((i for i, q in enumerate(self._queue) if not q.urgent), len(self._queue))
                self._queue.insert(k, item)
                playing = self._playing
                if playing is not None and not playing.urgent and (cuts_scores or not playing.droppable):
                    self._interrupt.set()
            else:
                self._queue.append(item)
            self._lock.notify_all()

    def history(self) -> list[Spoken]:
        """Every announcement so far, in the order asked."""
        with self._lock:
            return list(self._records)

    def talking(self, at: float | None = None) -> Spoken | None:
        """The announcement being voiced at audio-clock time ``at`` (default now)."""
        if at is None:
            at = self.clock()
        for s in reversed(self.history()):
            if s.start is not None and s.start <= at and (s.end is None or at < s.end):
                return s
        return None

    def echo(self, said: str, start: float, end: float, margin: float = 0.5) -> Spoken | None:
        """The referee's own announcement that an utterance heard from
        ``start`` to ``end`` (audio clock) could be: one voiced during that
        time (widened by ``margin`` seconds for room echo and recogniser
        timing) whose words contain most of ``said`` (:func:`sounds_like`).
        ``None`` if the utterance is not the referee's voice. (A WAV sink
        answers as if its announcements were played in the room at their
        times; text only never matches.)"""
        for s in reversed(self.history()):
            if s.start is None:
                continue
            s_end = math.inf if s.end is None else s.end
            if s.start - margin <= end and start <= s_end + margin and sounds_like(said, s.text):
                return s
        return None

    def speaking(self, start: float, end: float, margin: float = 0.5) -> bool:
        """Whether an announcement was being voiced between ``start`` and ``end`` (audio
        clock, widened by ``margin`` seconds), whatever its words: what the mics heard
        then may be the referee's own voice, misheard."""
        return any(s.start is not None and s.start - margin <= end
                   and start <= (math.inf if s.end is None else s.end) + margin
                   for s in self.history())

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until everything asked so far has been dealt with (spoken,
        written or printed). ``False`` on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._queue and not self._busy, timeout)

    def close(self, until: float | None = None) -> None:
        """Finish what is queued, then stop. A WAV sink is completed (and
        padded with silence up to ``until`` seconds, if given)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.append(_STOP)
            self._lock.notify_all()
        self._thread.join()
        if self._wav is not None:
            self._placed(self._timeline.finish())
            if until is not None:
                self._wav.silence_until(until)
            self._wav.close()
        if self.voice is not None and self._owns_voice:
            self.voice.close()
        if self._player is not None:
            self._player.close()

    def __enter__(self) -> "Speaker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the worker ------------------------------------------------------

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        print(f"referee: {message}", file=sys.stderr, flush=True)

    def _record(self, n: int, **changes) -> None:
        with self._lock:
            self._records[n] = replace(self._records[n], **changes)

    def _print(self, item: _Item) -> None:
        try:
            print(f"referee: {item.text}", file=self.text, flush=True)
        except (OSError, ValueError) as e:  # a closed or broken text sink
            self._problem(f"cannot print announcements: {e}")

    def _render(self, item: _Item) -> Audio | None:
        if self.voice is None or not item.text.strip():
            return None
        try:
            audio = self.voice.render(item.text)
        except Exception as e:  # noqa: BLE001 - a voice must never stop the game
            self._voice_failures += 1
            if self._voice_failures >= MAX_FAILURES:
                self._problem(f"voice failed {MAX_FAILURES} times in a row ({e}); "
                              "announcements are printed only from now on")
                if self._owns_voice:
                    try:
                        self.voice.close()
                    except Exception:  # noqa: BLE001
                        pass
                self.voice = None
            else:
                self._problem(f"voice failed ({e}); this announcement is printed only")
            return None
        trimmed = trim_silence(audio)
        if trimmed is None:  # e.g. pyttsx3 now and then writes an empty file
            self._voice_failures += 1
            self._problem(f"voice rendered no speech for {item.text!r}; printed only")
            return None
        self._voice_failures = 0
        return trimmed

    def _work(self) -> None:
        if self.voice is not None and hasattr(self.voice, "start"):
            try:
                self.voice.start()  # errors show again at the first announcement
            except Exception:  # noqa: BLE001
                pass
        if self._player is not None:
            try:
                self._player.start()
            except PlaybackError as e:
                self._no_output(e)
            except Exception as e:  # noqa: BLE001
                self._no_output(PlaybackError(f"{type(e).__name__}: {e}"))
        while True:
            with self._lock:
                self._lock.wait_for(lambda: self._queue)
                item = self._queue.pop(0)
                self._busy = item is not _STOP
            if item is _STOP:
                return
            try:
                if self.mode == "live":
                    self._speak_live(item)
                elif self.mode == "wav":
                    self._print(item)
                    item.audio = self._render(item)
                    if item.audio is not None:
                        self._placed(self._timeline.add(item))
                else:
                    self._print(item)
            except Exception as e:  # noqa: BLE001 - keep the worker alive whatever happens
                self._problem(f"announcement {item.text!r} failed: {type(e).__name__}: {e}")
            finally:
                with self._lock:
                    self._busy = False
                    self._lock.notify_all()

    def _placed(self, finished: list[tuple[_Item, float, float, bool]]) -> None:
        for item in self._timeline.dropped:
            self._record(item.n, dropped=True)
        self._timeline.dropped.clear()
        for item, start, end, interrupted in finished:
            self._wav.place(item.audio, start, end)
            self._record(item.n, start=start, end=end, interrupted=interrupted)
        if self._timeline.current is not None:  # its start is final; its end may yet be cut
            item, start, end = self._timeline.current
            self._record(item.n, start=start, end=end)

    def _no_output(self, e: Exception) -> None:
        self._problem(f"no audio output ({e}); announcements are printed only from now on")
        self._player.close()
        self._player = None

    def _speak_live(self, item: _Item) -> None:
        audio = self._render(item)
        self._print(item)
        if audio is None or self._player is None:
            return
        with self._lock:
            if not item.urgent and any(q is not _STOP and q.urgent for q in self._queue):
                # an urgent one came while this was rendered: not a moment of it is played
                self._records[item.n] = replace(self._records[item.n], interrupted=True,
                                                dropped=item.droppable)
                return
            self._playing = item
            self._interrupt.clear()
        try:
            finished = self._player.play(
                audio, self._interrupt, lambda: self._record(item.n, start=self.clock()))
        except PlaybackError as e:
            # it worked before (start() checked): the audio server may be restarting, so
            # each announcement tries again, and only the first failure is told
            if not self._output_lost:
                self._problem(f"audio output lost ({e}); announcements are printed until it is back")
            self._output_lost = True
            self._record(item.n, start=None)
            return
        finally:
            with self._lock:
                self._playing = None
        if self._output_lost:
            self._output_lost = False
            print("referee: audio output is back", file=sys.stderr, flush=True)
        self._record(item.n, end=self.clock(), interrupted=not finished)
