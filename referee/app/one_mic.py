"""``--one-mic``: one microphone for the whole table; who said what is told by the voice
(issue 29, mode 2; :mod:`referee.hearing.voiceprints`).

The recording begins with each name of ``--names`` in turn saying "NAME here" and then
``--enrol-cards`` card names, a pause after each (live, each is asked for them aloud:
:mod:`referee.app.one_mic_live`). From those the referee learns a voice profile per talker;
the game is heard from 0.2 s after the last of them, on one recogniser, and each utterance is
given to the talker whose voice it is:

* sure of one voice (at least ``confident`` likely): that talker's;
* two voices in it (two calls at once), by the two-voices check
  (:mod:`referee.hearing.overlaps`) or by the profiles finding two enrolled voices each
  clearly holding a part of it: it counts for nobody and the table is asked (the default), or
  with ``overlap='draw'`` and two enrolled players found, both are given the same call at the
  same time, which the game's own rules judge a tie ("too close to call");
* otherwise a call or a shout counts for nobody (:class:`referee.core.events.Unattributed`:
  "Who was that? Say it again."), while a command or a number goes to the likeliest talker,
  since who said it changes nothing.

Each talker's enrolment is kept under their name in the data directory's ``voices/``; with
``--known-voices`` a later game needs none (:func:`keep`, :func:`kept`). See
docs/one-device.md.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from referee.audio.blocks import Block
from referee.audio.wav import WavReader, resample
from referee.core.events import Heard, Unattributed, Utterance, UtteranceKind
from referee.core.table import DEALER
from referee.hearing.overlaps import MARGIN, OverlapCheck
from referee.hearing.seats import voice_runs
from referee.hearing.voiceprints import RATE, Attribution, VoiceBook, VoicesError, features

ENROL_CARDS = 3
"""Card names each talker says after their name, by default."""
ENROL_WITHIN = 180.0
"""Seconds at the start of a recording in which the enrolment is looked for."""
CONFIDENT = 0.9
"""Probability of the likeliest voice at or over which a call is given to it."""
TWO_BAR = 0.6
"""Probability of two voices (:mod:`referee.hearing.overlaps`) at or over which a call is
taken for two at once."""
KEEP = 30.0
"""Seconds of audio kept to tell voices apart (an utterance is never longer)."""
#: What counts for a player, so needs to know which one.
RACING = frozenset({UtteranceKind.CALL, UtteranceKind.PARTIAL, UtteranceKind.SHOUT,
                    UtteranceKind.PLAY, UtteranceKind.BID})


def enrol(path: str, names: list[str], cards: int = ENROL_CARDS
          ) -> tuple[VoiceBook, list[tuple[str, float, float]]]:
    """The voice profiles of ``names`` from the start of the recording ``path``: the first
    ``len(names) * (cards + 1)`` stretches of voice, in turn. Raises
    :class:`~referee.hearing.voiceprints.VoicesError` (too few stretches, too little voice)
    or :class:`~referee.audio.wav.AudioFileError`."""
    f = WavReader(path)
    try:
        a = f.read_pcm16(0, int(ENROL_WITHIN * f.rate))[:, 0].astype(np.float64) / 32768.0
        rate = f.rate
    finally:
        f.close()
    if rate != RATE:
        a = resample(a, rate, RATE)
    per = cards + 1
    found = voice_runs(a, RATE)
    if len(found) < len(names) * per:
        raise VoicesError(
            f"heard {len(found)} stretches of voice at the start, not the {len(names) * per} "
            f"of the enrolment: each of {', '.join(names)} in turn says their name, then "
            f"{cards} card name{'s' if cards > 1 else ''}, with a pause after each")
    spans = [(names[k // per], s, e) for k, (s, e) in enumerate(found[:len(names) * per])]
    return VoiceBook.learn(a, RATE, spans), spans


def _voice_file(directory: Path, name: str) -> Path | None:
    """Where ``name``'s voice is kept; None for a name that is no plain file name."""
    return directory / f"{name}.npz" if re.fullmatch(r"[A-Za-z0-9_-]+", name) else None


def keep(book: VoiceBook, directory: Path) -> list[str]:
    """Each talker's enrolment frames written to ``directory``/NAME.npz (replacing an older
    one); the names kept. Raises OSError when the directory cannot be written."""
    directory.mkdir(parents=True, exist_ok=True)
    done = []
    for name, frames in book.frames.items():
        path = _voice_file(directory, name)
        if path is None:
            continue
        tmp = path.with_name(f".{path.name}.tmp")
        with open(tmp, "wb") as f:
            np.savez(f, frames=frames)
        os.replace(tmp, path)
        done.append(name)
    return done


def kept(names: list[str], directory: Path) -> VoiceBook:
    """The profiles of ``names`` from the voices kept in ``directory`` by earlier games.
    Raises :class:`~referee.hearing.voiceprints.VoicesError` naming whoever has none."""
    frames, missing = {}, []
    for name in names:
        path = _voice_file(directory, name)
        try:
            with np.load(path, allow_pickle=False) as z:
                frames[name] = np.asarray(z["frames"], np.float64)
        except (OSError, TypeError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
            missing.append(name)        # none, or not one the referee wrote
    if missing:
        raise VoicesError(f"no voice kept for {', '.join(missing)} in {directory}: play a game "
                          "with an enrolment first (each says their name and card names)")
    return VoiceBook.from_features(frames)


class VoiceTap:
    """A one-channel source passed through, its last :data:`KEEP` seconds kept."""

    def __init__(self, source) -> None:
        self.source = source
        self.channels = source.channels
        self._blocks: deque[Block] = deque()

    def __iter__(self) -> Iterator[Block]:
        for b in self.source:
            self._blocks.append(b)
            while self._blocks and self._blocks[-1].end - self._blocks[0].end > KEEP:
                self._blocks.popleft()
            yield b

    def audio(self, start: float, end: float) -> np.ndarray:
        """Floats in [-1, 1] at :data:`RATE` from ``start`` to ``end`` seconds (what is kept)."""
        parts = [b for b in self._blocks if b.end > start and b.start < end]
        if not parts:
            return np.zeros(0)
        x = np.concatenate([b.samples for b in parts]).astype(np.float64) / 32768.0
        if parts[0].rate != RATE:
            x = resample(x, parts[0].rate, RATE)
        a = max(0, int(round((start - parts[0].start) * RATE)))
        return x[a: a + int(round((end - start) * RATE))]

    def stop(self) -> None:
        self.source.stop()

    def close(self) -> None:
        close = getattr(self.source, "close", None)
        if close is not None:
            close()


def decide(at: Attribution, two: float, confident: float = CONFIDENT, bar: float = TWO_BAR
           ) -> str:
    """``counted`` (for ``at.player``), ``two`` (two voices at once) or ``asked`` (not sure
    whose voice): the rule of the module's doc, given the profiles' ``at`` and the
    two-voices check's probability ``two``."""
    if at.overlap or two >= bar:
        return "two"
    if at.player is not None and at.confidence >= confident:
        return "counted"
    return "asked"


def heard_by(audio: Callable[[float, float], np.ndarray], book: VoiceBook, check: OverlapCheck,
             start: float, end: float) -> tuple[Attribution, float]:
    """The profiles' attribution of ``start``-``end`` seconds and the two-voices
    probability; ``audio(a, b)``: the mic's floats from ``a`` to ``b`` seconds."""
    x = audio(max(0.0, start - MARGIN), end + MARGIN)
    m = int(round(min(MARGIN, start) * RATE))
    at = book.attribute_features(features(x[m: m + int(round((end - start) * RATE))], RATE))
    return at, check.probability(x * 32768.0)


def attributed(events: Iterable, tap: VoiceTap, book: VoiceBook | Callable[[], VoiceBook],
               names: list[str], check: OverlapCheck, confident: float = CONFIDENT,
               overlap: str = "ask") -> Iterator:
    """The listener's ``events`` (one stream) as the table's: each watermark for every name,
    each utterance given to a talker (see the module's doc) or turned into an
    :class:`~referee.core.events.Unattributed`. ``book``: the profiles, or what gives the
    profiles at each utterance (live, they are learnt again on "referee seats")."""
    players = [n for n in names if n != DEALER]
    profiles = book if callable(book) else lambda: book
    for e in events:
        book = profiles()
        if isinstance(e, Heard):
            for n in names:
                yield Heard(n, e.upto)
            continue
        if not isinstance(e, Utterance):
            yield e
            continue
        if e.kind not in RACING:        # the likeliest voice; two at once changes nothing
            at = book.attribute_features(features(tap.audio(e.start, e.end), RATE))
            yield replace(e, player=at.player or names[0])
            continue
        at, two = heard_by(tap.audio, book, check, e.start, e.end)
        verdict = decide(at, two, confident)
        if verdict == "counted":
            yield replace(e, player=at.player)
        elif verdict == "two" and overlap == "draw" and len(at.voices) == 2 \
                and all(v in players for v in at.voices):
            # two calls at once: the same call, at the same time, for each (a tie)
            for v in at.voices:
                yield replace(e, player=v)
        else:
            yield Unattributed(e.kind, e.said, e.start, e.end, at.player, at.confidence,
                               verdict == "two")
