"""``--one-mic`` on a live device: one mic for the whole table, who said what told by the
voice (issue 29, mode 2).

The mic is read by a :class:`~referee.app.live_source.OneMicSource`: silence for the listener
until the voices are learnt. :func:`enrol` asks each talker aloud, in turn, to say their name
and then a few card names, finds their voice in the mic's audio after the question was spoken
(:func:`~referee.app.live_source.ask_and_hear`), asks again when too little voice is heard,
learns the profiles (:meth:`~referee.hearing.voiceprints.VoiceBook.learn` of every answer's
stretches of voice, as a recording's enrolment does) and lets the mic through. From then on
each utterance is given to its talker as on a recording (:func:`referee.app.one_mic.attributed`).
"referee seats" (or "referee learn our voices") asks everyone again (:func:`voices_again`).
See docs/one-device.md.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from referee.app.live_source import RATE, OneMicSource, ask_and_hear
from referee.app.one_mic import ENROL_CARDS
from referee.core.announce import sentence
from referee.core.spoken import amount_words, spoken_name
from referee.hearing.voiceprints import ENOUGH, VoiceBook, VoicesError, features

QUIET_AFTER = 0.8
"""Seconds without voice after the last card name expected before the answer is taken."""
PAUSE_END = 2.5
"""Seconds without voice that end an answer of fewer stretches than expected (names said
without pauses run together)."""
ANSWER_WITHIN = 8.0
"""Seconds a talker has to begin their answer once asked."""
LONGEST = 30.0
"""Seconds after the question by which an answer must be done."""
ASKS = 3
"""How often a talker is asked before the referee gives up."""


def enrol(source: OneMicSource, say: Callable[[str], None], names: Sequence[str],
          cards: int = ENROL_CARDS, notify: Callable[[str], None] | None = None,
          answer_within: float = ANSWER_WITHIN) -> VoiceBook:
    """Ask each of ``names`` aloud to say "NAME here" and ``cards`` card names (``say``
    speaks a sentence and returns once it is spoken), learn their voices from the mic's
    audio, and let ``source`` through. Raises
    :class:`~referee.hearing.voiceprints.VoicesError` when a talker gives too little voice
    after :data:`ASKS` questions."""
    source.use(None)
    clips, spans, t = [], [], 0.0
    for name in names:
        clip, runs = _hear_voice(source, say, name, cards, answer_within, notify)
        spans += [(name, t + s, t + e) for s, e in runs]
        clips.append(clip)
        t += len(clip) / RATE
    book = VoiceBook.learn(np.concatenate(clips), RATE, spans)
    source.use(True)
    if notify is not None:
        notify("voices learnt: " + ", ".join(
            f"{n} ({len(book.frames[n]) / 100:.1f} s of voice)" for n in names))
    say(sentence("voices-learnt"))
    return book


def voices_by_voice(source: OneMicSource, voice: Any, names: Sequence[str], cards: int,
                    notify: Callable[[str], None]) -> VoiceBook:
    """:func:`enrol` with ``voice`` (a :class:`~referee.voice.speaker.Speaker`) asking."""
    def say(text: str) -> None:
        voice.say(text, urgent=True)
        voice.wait(30)

    return enrol(source, say, names, cards, notify)


def voices_again(source: OneMicSource, voice: Any, names: Sequence[str], cards: int,
                 notify: Callable[[str], None], learnt: Callable[[VoiceBook], None]
                 ) -> Callable[[], None]:
    """``revoice()``, for "referee seats" mid-game: every talker asked for their voice again
    as at the start (:func:`voices_by_voice`; the mic is silence meanwhile, so nothing is
    judged), the new profiles handed to ``learnt``. When a talker gives too little voice it is
    said, and the voices learnt before are kept."""
    def revoice() -> None:
        try:
            book = voices_by_voice(source, voice, names, cards, notify)
        except VoicesError as e:
            notify(f"voices not learnt again ({e}); the voices as they were")
            source.use(True)
            voice.say(sentence("voices-kept"), urgent=True)
            return
        learnt(book)

    return revoice


def _hear_voice(source: OneMicSource, say: Callable[[str], None], name: str, cards: int,
                within: float, notify: Callable[[str], None] | None
                ) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """The mic's audio of ``name``'s answer, asked for aloud, and its stretches of voice."""
    for ask in range(ASKS):
        heard = ask_and_hear(
            source, say, sentence("voice-ask" if ask == 0 else "voice-unheard",
                                  player=spoken_name(name), cards=amount_words(cards, "card")),
            within, lambda runs, now: now - runs[-1][1] >= (
                QUIET_AFTER if len(runs) >= cards + 1 else PAUSE_END),
            notify, f"listening for {name}: \"{name} here\" and {amount_words(cards, 'card')}",
            longest=LONGEST)
        if heard is None:
            continue
        a, runs = heard
        first = int(runs[0][0] * RATE)
        clip = a[first: int(runs[-1][1] * RATE), 0]
        voiced = len(features(clip, RATE))
        if voiced >= ENOUGH:
            return clip, [(s - runs[0][0], e - runs[0][0]) for s, e in runs]
        if notify is not None:
            notify(f"{name}: {voiced / 100:.1f} s of voice heard, {ENOUGH / 100:.0f} s needed")
    raise VoicesError(f"too little of {name}'s voice heard: asked {ASKS} times to say "
                      f"\"{name} here\" and {amount_words(cards, 'card name')}")
