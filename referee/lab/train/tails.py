"""Training data for the suit check: the end of a call, where its suit word
is, or the end of talk that is no call.

The phrase classifier hears a whole segment, and talk that begins like a call
("six of one", "jack in the box", "two of them") it can take for one: the
rank and "of" are there, and the last word is a small part of the whole. The
suit check (:mod:`referee.hearing.suits`) hears only the last
:data:`~referee.hearing.suits.TAIL` seconds of what was taken for a call and
says which suit word, if any, ends it. Its examples are cut from utterances
planned and mixed as the phrase classifier's are (:func:`.data.plan`,
:func:`.data.mix_one`), at the end of the phrase's speech, moved by up to
0.12 s earlier or 0.06 s later (the engine knows a call's end from its loud
part, which the weak final "s" may not reach); each is labelled with the suit
word the text ends with, or ``other`` ("i have four hearts" ends with one;
"hearts are trumps" does not).
"""

from __future__ import annotations

import numpy as np

from referee.audio.wav import to_int16
from referee.hearing.classifier import OTHER
from referee.hearing.features import log_mel
from referee.hearing.suits import AFTER, SUITS, TAIL
from referee.lab.train import data

RATE = data.RATE
CLASSES = [*SUITS, OTHER]


def label(text: str) -> str:
    """The suit word ``text`` ends with ("queen of heart" too), or ``OTHER``."""
    words = text.lower().strip(" !?.,").split()
    last = words[-1] if words else ""
    for s in SUITS:
        if last in (s, s[:-1]):
            return s
    return OTHER


def tails(job: data.Job, speech: np.ndarray, copies: int = 2
          ) -> list[tuple[np.ndarray, str, str]]:
    """(features, label, condition) of the end of each of ``copies`` mixes."""
    rng = np.random.default_rng(job.seed)
    out = []
    for c in range(copies):
        m, cond, _ = data.mix_one(job, speech, rng, c)
        end = m.speech_end + int(rng.uniform(-0.12, 0.06) * RATE)
        x = m.audio[max(0, end - int(TAIL * RATE)):end + int(AFTER * RATE)]
        out.append((log_mel(to_int16(x)).astype(np.float16), label(job.text), cond))
    return out


def work(job: data.Job):
    """A job's examples for :func:`.data.build`."""
    speech = data.speech_of(job)
    return job, [] if speech is None else tails(job, speech)
