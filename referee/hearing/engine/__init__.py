"""Speech recognisers behind one interface: PocketSphinx (bundled, the default
without a model) and Vosk (when a model is found).

``open_recogniser(engine, model, grammar)`` loads one model; its ``stream()``
gives one :class:`RecogniserStream` per channel. A stream takes int16 mono
samples at ``rate`` and returns :class:`~referee.core.events.Utterance` s whose
times are seconds on the audio clock: ``start + samples_fed / rate``.

Speech outside the grammar comes back as kind ``'unknown'`` (or nothing),
never as a card.

A module per job: :mod:`.base` (the protocols and shared names),
:mod:`.backing` (the classifier backing policy), :mod:`.pocketsphinx`,
:mod:`.vosk`, :mod:`.segment_stream`; this one re-exports them and holds the
factory, :func:`open_recogniser`.
"""

from __future__ import annotations

from referee.hearing.engine.backing import (
    BACKING, MIN_VOICED_RUN, SURE_VOICED_RUN, VOSK_BACKING, Backed, Backing)
from referee.hearing.engine.base import (
    DEFAULT_KINDS, MODELS_DIR, EngineError, Recogniser, RecogniserStream)
from referee.hearing.engine.pocketsphinx import ADDRESS, GARBAGE_PREFIX, PHONES, PocketSphinx
from referee.hearing.engine.segment_stream import CLASSIFIED_SPAN_DB, SegmentStream
from referee.hearing.engine.vosk import Vosk, VoskStream, find_vosk_model
from referee.hearing.grammar import Grammar

__all__ = [
    "ADDRESS", "BACKING", "CLASSIFIED_SPAN_DB", "DEFAULT_KINDS", "ENGINES", "GARBAGE_PREFIX",
    "MIN_VOICED_RUN", "MODELS_DIR", "PHONES", "SURE_VOICED_RUN", "VOSK_BACKING", "Backed",
    "Backing", "EngineError", "PocketSphinx", "Recogniser", "RecogniserStream", "SegmentStream",
    "Vosk", "VoskStream", "find_vosk_model", "open_recogniser",
]

ENGINES = {"pocketsphinx": PocketSphinx, "vosk": Vosk}


def open_recogniser(engine: str | None = None, model: str | None = None,
                    grammar: Grammar | None = None) -> Recogniser:
    """Load a recogniser. ``engine`` None: Vosk when a model is found
    (``model``, $REFEREE_VOSK_MODEL, models/), else PocketSphinx."""
    if engine is not None and engine not in ENGINES:
        raise EngineError(f"unknown engine {engine!r}: choose {' or '.join(ENGINES)}")
    if engine is None:
        engine = "vosk" if find_vosk_model(model) is not None else "pocketsphinx"
    return ENGINES[engine](grammar=grammar, model=model)
