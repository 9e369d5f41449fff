"""The two-voices check: whether a stretch heard on one mic holds one voice or two.

With one mic for the whole table, two players calling at once reach the recogniser as one
utterance, and the voice profiles (:mod:`.voiceprints`) may give the blend to one of them.
This small network (``models/overlaps.npz``, the phrase classifier's kind, see
:mod:`.classifier`) hears the utterance and gives "two voices" and ``other`` a probability;
it knows no player, so it needs no enrolment. ``python -m referee.lab.train overlaps`` and
``fit --overlaps`` rebuild it (:mod:`referee.lab.train.overlaps`; figures:
docs/one-device.md).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.hearing.classifier import OTHER, PhraseClassifier, load_check

TWO = "two voices"
MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "overlaps.npz"
MARGIN = 0.05
"""Seconds either side of an utterance that the check hears (as it was trained)."""


class OverlapCheck:
    """A loaded two-voices check."""

    def __init__(self, model: PhraseClassifier) -> None:
        self.model = model
        self.path = model.path

    @classmethod
    def load(cls, path: str | Path | None = None) -> "OverlapCheck":
        """The check at ``path``, else at $REFEREE_OVERLAPS, else ``models/overlaps.npz``;
        :class:`~referee.hearing.classifier.ClassifierError` names the file when it is not
        one."""
        return cls(load_check(path, "REFEREE_OVERLAPS", MODEL_PATH, "two-voices check",
                              "overlaps", {TWO, OTHER}))

    def probability(self, samples: np.ndarray) -> float:
        """How likely int16 (or int16-scaled) mono ``samples`` hold two voices."""
        p = self.model.probabilities(np.asarray(samples))
        return float(p[self.model.classes.index(TWO)])
