"""The partial-call check: whether a segment is a bare rank or suit, or a call cut short
("queen", "hearts", "jack of"), and which.

A partial call is a miscall in Stroop, and PocketSphinx alone read them: it misread most in
noise ("spades" as "start a"), and its checks that keep talk from becoming a miscall threw out
many that were said (docs/partial-calls.md). This small network (``models/partials.npz``, the
phrase classifier's kind, see :mod:`.classifier`) hears a whole segment and gives each partial
call, ``call`` (any whole card call) and ``other`` a probability; the engine weighs it against
PocketSphinx's reading (see :class:`referee.hearing.engine.segment_stream.SegmentStream`).
``python -m referee.lab.train partials`` and ``fit --partials`` rebuild it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.core.cards import RANK_WORDS, Suit
from referee.hearing.classifier import OTHER, PhraseClassifier, load_check

CALL = "call"
"""The class of every whole card call."""
RANKS = tuple(RANK_WORDS[n] for n in sorted(RANK_WORDS))
PARTIALS = (*RANKS, *(s.word for s in Suit), *(f"{r} of" for r in RANKS))
"""The partial calls the check knows, as the grammar's canonical ``said``."""

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "partials.npz"


class PartialCheck:
    """A loaded partial-call check: ``heard(samples)`` gives its likeliest partial call and
    how likely it is that the segment is one (any of them)."""

    def __init__(self, model: PhraseClassifier) -> None:
        self.model = model
        self.path = model.path
        self._partial = np.array([c in PARTIALS for c in model.classes])
        self._rank = np.array([c in RANKS for c in model.classes])

    @classmethod
    def load(cls, path: str | Path | None = None) -> PartialCheck:
        """The check at ``path``, else at $REFEREE_PARTIALS, else ``models/partials.npz``;
        :class:`~referee.hearing.classifier.ClassifierError` names the file when it is not one."""
        return cls(load_check(path, "REFEREE_PARTIALS", MODEL_PATH, "partial-call check",
                              "partials", {*PARTIALS, CALL, OTHER}))

    def heard(self, samples: np.ndarray) -> tuple[str, float]:
        """For int16 ``samples``: the likeliest partial call, and the probability that the
        segment is a partial call at all (the sum over every partial call)."""
        p = self.model.probabilities(samples)
        q = np.where(self._partial, p, -1.0)
        return self.model.classes[int(np.argmax(q))], float(p[self._partial].sum())

    def rank(self, samples: np.ndarray) -> tuple[str, float]:
        """For int16 ``samples`` of one word: the likeliest bare rank and its probability."""
        p = np.where(self._rank, self.model.probabilities(samples), -1.0)
        k = int(np.argmax(p))
        return self.model.classes[k], float(p[k])
