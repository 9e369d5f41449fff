"""What every recogniser shares: the :class:`Recogniser` and
:class:`RecogniserStream` protocols, :class:`EngineError`, the kinds listened
for by default and where the models live."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

import numpy as np

from referee.core.errors import RefereeError
from referee.core.events import Utterance

#: What transcription and listening listen for unless told otherwise.
DEFAULT_KINDS = ("call", "shout", "command", "partial")

MODELS_DIR = Path(__file__).resolve().parents[3] / "models"


class EngineError(RefereeError, ValueError):
    """A recogniser that cannot be opened; the message says why and what to do."""


class RecogniserStream(Protocol):
    def feed(self, samples: np.ndarray) -> list[Utterance]: ...

    @property
    def watermark(self) -> float: ...

    def close(self) -> list[Utterance]: ...


class Recogniser(Protocol):
    name: str
    rate: int

    @property
    def description(self) -> str:
        """What is in use, for start-up messages and reports."""

    def stream(self, start: float = 0.0, channel: int = 0, player: str | None = None,
               source: str = "") -> RecogniserStream: ...

    def listen_for(self, kinds: Iterable[str] | None) -> None:
        """Hear only the grammar's phrases of ``kinds`` from the next segment on; None: all."""


def _as_int16(samples: np.ndarray) -> np.ndarray:
    a = np.asarray(samples)
    if a.dtype != np.int16:
        raise TypeError(f"recogniser streams take int16 samples, not {a.dtype}")
    return a.reshape(-1)
