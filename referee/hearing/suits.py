"""The suit check: which suit word, if any, ends what was taken for a call.

The phrase classifier and PocketSphinx hear a whole segment; talk that begins
like a call ("six of one", "jack in the box", "two of them") can pass for one,
as its rank and "of" are right and its last word is a small part of the
whole. This small network (``models/suits.npz``, the phrase classifier's kind,
see :mod:`.classifier`) hears only the last :data:`TAIL` seconds of the call,
up to :data:`AFTER` past its end, and gives each suit word and ``other`` a
probability; a call whose own suit it gives less than the engine's bar is no
call. ``python -m referee.lab.train tails`` and ``fit --suits`` rebuild it (see
:mod:`referee.lab.train.tails`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.core.cards import Suit
from referee.hearing.classifier import OTHER, PhraseClassifier, load_check

TAIL = 0.7
"""Seconds before a call's end that the check hears: its suit word, whole."""
AFTER = 0.1
"""Seconds after a call's end that it hears too (its end may be set early)."""

SUITS = tuple(s.word for s in Suit)
"""The suit words the check tells apart (besides ``OTHER``)."""

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "suits.npz"


class SuitCheck:
    """A loaded suit check. ``probability(said, samples, end)``: how sure it is
    that the call ``said`` ends with its suit word at ``end``."""

    def __init__(self, model: PhraseClassifier) -> None:
        self.model = model
        self.path = model.path

    @classmethod
    def load(cls, path: str | Path | None = None) -> SuitCheck:
        """The check at ``path``, else at $REFEREE_SUITS, else ``models/suits.npz``;
        :class:`~referee.hearing.classifier.ClassifierError` names the file when it is not one."""
        return cls(load_check(path, "REFEREE_SUITS", MODEL_PATH, "suit check", "tails",
                              {*SUITS, OTHER}))

    def probabilities(self, samples: np.ndarray, end: float, rate: int = 16000
                      ) -> dict[str, float]:
        """Each suit word's probability (and ``other``'s) for int16 ``samples``
        whose call ends ``end`` seconds in."""
        b = int(round(end * rate))
        x = samples[max(0, b - int(TAIL * rate)):b + int(AFTER * rate)]
        return dict(zip(self.model.classes, map(float, self.model.probabilities(x))))

    def probability(self, said: str, samples: np.ndarray, end: float, rate: int = 16000
                    ) -> float:
        """The probability of the suit word that ends the call ``said``."""
        return self.probabilities(samples, end, rate).get(said.split()[-1], 0.0)
