"""The number check: which number 0 to 52, if any, an answer of the Goop count says.

PocketSphinx alone read the count's answers and mixed up numbers that sound alike
("fourteen" and "forty", "sixteen" and "fifteen"). This small network (``models/numbers.npz``,
the phrase classifier's kind, see :mod:`.classifier`) hears a whole segment and gives each
number and ``other`` a probability; the engine weighs it against PocketSphinx's reading (see
:meth:`referee.hearing.engine.backing.Backed.number_heard`). ``python -m referee.lab.train
numbers`` and ``fit --numbers`` rebuild it (figures: docs/model-history.md).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.core.numbers import number_words, parse_number
from referee.hearing.classifier import OTHER, PhraseClassifier, load_check

TOP = 52
"""The largest number the check knows (a pack's cards)."""

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "numbers.npz"


class NumberCheck:
    """A loaded number check: ``probabilities(samples)`` gives each number (0..52) and
    ``None`` (no number) a probability."""

    def __init__(self, model: PhraseClassifier) -> None:
        self.model = model
        self.path = model.path
        #: Each class's number (None for ``other``).
        self.values = [None if c == OTHER else parse_number(c).value for c in model.classes]

    @classmethod
    def load(cls, path: str | Path | None = None) -> NumberCheck:
        """The check at ``path``, else at $REFEREE_NUMBERS, else ``models/numbers.npz``;
        :class:`~referee.hearing.classifier.ClassifierError` names the file when it is not one."""
        return cls(load_check(path, "REFEREE_NUMBERS", MODEL_PATH, "number check", "numbers",
                              {number_words(v) for v in range(TOP + 1)} | {OTHER}))

    def probabilities(self, samples: np.ndarray) -> dict[int | None, float]:
        """Each number's probability (and None's: no number) for int16 ``samples``."""
        return dict(zip(self.values, map(float, self.model.probabilities(samples))))
