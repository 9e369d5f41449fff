"""Vosk: :class:`Vosk`, backed by the classifier or alone with its own
endpointing (:class:`VoskStream`), and :func:`find_vosk_model`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from referee.core.events import Utterance
from referee.hearing.classifier import PhraseClassifier
from referee.hearing.engine import base
from referee.hearing.engine.backing import CLASSIFIED_KINDS, VOSK_BACKING, Backed, Backing
from referee.hearing.engine.base import DEFAULT_KINDS, EngineError, _as_int16
from referee.hearing.engine.segment_stream import SegmentStream
from referee.hearing.grammar import Grammar
from referee.hearing.number_check import NumberCheck
from referee.hearing.partial_check import PartialCheck
from referee.hearing.suits import SuitCheck

class Vosk(Backed):
    """Vosk (Kaldi) with a phrase-list grammar and ``[unk]``.

    Vosk turns a phrase list into a bigram model, so each result is checked
    against the grammar afterwards; results with ``[unk]``, low word
    confidence or words that are not a phrase come back as ``'unknown'``.

    When the grammar has calls or shouts the phrase classifier knows (an
    English one), the phrase classifier works beside Vosk as beside
    PocketSphinx (see :class:`Backed`; ``classifier`` and ``backing``, its
    settings): speech is cut into segments by :class:`SegmentStream`, the
    classifier decides the calls and shouts it is sure of, and Vosk decodes
    the rest, a segment at a time (:meth:`decode`), with the same checks on
    the audio. Otherwise Vosk listens alone, with its own endpointing
    (:class:`VoskStream`).
    """

    name = "vosk"
    rate = 16000

    def __init__(self, grammar: Grammar | None = None, model: str | None = None,
                 min_confidence: float = 0.6, classifier: PhraseClassifier | str | bool = True,
                 suits: SuitCheck | str | bool = True,
                 numbers: NumberCheck | str | bool = True,
                 partials: PartialCheck | str | bool = True, backing: Backing = VOSK_BACKING,
                 **settings) -> None:
        path = find_vosk_model(model)
        if path is None:
            raise EngineError("no Vosk model found: give --model DIR, set REFEREE_VOSK_MODEL, "
                              "or run 'referee models download'")
        try:
            import vosk
        except ImportError as e:  # pragma: no cover
            raise EngineError(f"Vosk is not installed ({e})") from None
        vosk.SetLogLevel(-1)
        self.grammar = grammar or Grammar.load().subset(DEFAULT_KINDS)
        self.model_path = path
        try:
            self.model = vosk.Model(str(path))
        except Exception as e:
            raise EngineError(f"{path}: cannot load Vosk model ({e})") from None
        self._vosk = vosk
        vocab = None
        words_txt = path / "graph" / "words.txt"
        if words_txt.exists():
            vocab = {line.split()[0] for line in words_txt.read_text("utf-8").splitlines()
                     if line.strip()}
        self.phrases = self.grammar.phrase_list(vocab)
        self.grammar_json = json.dumps(self.phrases, ensure_ascii=False)
        self.min_confidence = min_confidence
        #: channel -> (its recogniser of segments, samples fed to it)
        self._recognisers: dict[int, tuple[object, int]] = {}
        options = dict(settings)
        backing = backing.with_options(options)
        if options:
            raise TypeError(f"Vosk: unknown settings {', '.join(sorted(options))}")
        self._back(classifier, suits, backing, numbers, partials)

    def stream(self, start: float = 0.0, channel: int = 0, player: str | None = None,
               source: str = "") -> SegmentStream | VoskStream:
        if self.classifier is not None:
            return SegmentStream(self, start, channel, player, source)
        return VoskStream(self, start, channel, player, source)

    def decode(self, samples: np.ndarray, noise: np.ndarray | None = None, channel: int = 0,
               probs: dict[str, float] | None = None
               ) -> tuple[str, list[tuple[str, float, float]], float]:
        """One segment decoded whole by the recogniser of ``channel``: its
        words with (start, end) seconds within it, and the least of their
        confidences, or 0 when a word is ``[unk]``, one is under
        ``min_confidence``, or the phrase is a call, shout or prize the classifier
        all but rules out (``probs``, see :meth:`ruled_out`). A phrase of a kind not
        listened for is no phrase to the stream (``SegmentStream._decode``). ``noise``
        is not used."""
        rec, fed = self._recognisers.get(channel) or (None, 0)
        if rec is None:
            # One per channel, made once: Vosk logs each word the model lacks
            # whenever a recogniser is made.
            rec = self._vosk.KaldiRecognizer(self.model, self.rate, self.grammar_json)
            rec.SetWords(True)
        pcm = _as_int16(samples)
        # Its word times count from its first sample, across segments.
        self._recognisers[channel] = (rec, fed + len(pcm))
        offset = fed / self.rate
        found = []
        if rec.AcceptWaveform(pcm.tobytes()):
            found += json.loads(rec.Result()).get("result") or []
        found += json.loads(rec.FinalResult()).get("result") or []
        words = [(w["word"], float(w["start"]) - offset, float(w["end"]) - offset)
                 for w in found]
        text = " ".join(w for w, _, _ in words)
        if not words:
            return text, [], 0.0
        conf = min(float(w.get("conf", 1.0)) for w in found)
        m = self.grammar.match(text)
        if "[unk]" in text.split() or conf < self.min_confidence \
                or (m is not None and m.kind in CLASSIFIED_KINDS and self.ruled_out(m.said, probs)):
            return text, words, 0.0
        return text, words, conf


class VoskStream:
    def __init__(self, engine: Vosk, start: float, channel: int, player: str | None,
                 source: str) -> None:
        self.engine = engine
        self.start, self.channel, self.player, self.source = start, channel, player, source
        self.rec = engine._vosk.KaldiRecognizer(engine.model, engine.rate, engine.grammar_json)
        self.rec.SetWords(True)
        self.fed = 0
        self.last_end = 0.0  # stream seconds: end of the last final result
        self.open = False
        self._mark = start

    @property
    def watermark(self) -> float:
        """Audio consumed; while Vosk holds a partial result, the end of the last
        final one (the words in progress end later than that). Never goes back."""
        t = self.last_end if self.open else self.fed / self.engine.rate
        self._mark = max(self._mark, self.start + t)
        return self._mark

    def feed(self, samples: np.ndarray) -> list[Utterance]:
        pcm = _as_int16(samples)
        self.fed += len(pcm)
        if self.rec.AcceptWaveform(pcm.tobytes()):
            self.open = False
            return self._result(self.rec.Result())
        partial = json.loads(self.rec.PartialResult()).get("partial", "")
        self.open = bool(partial)
        return []

    def close(self) -> list[Utterance]:
        self.open = False
        return self._result(self.rec.FinalResult())

    def _result(self, text: str) -> list[Utterance]:
        r = json.loads(text)
        words = r.get("result") or []
        if not words:
            return []
        self.last_end = max(self.last_end, words[-1]["end"])
        said = " ".join(w["word"] for w in words)
        conf = min(float(w.get("conf", 1.0)) for w in words)
        m = self.engine.grammar.match(said)
        if m is None or "[unk]" in said or conf < self.engine.min_confidence \
                or not self.engine.listened(m.kind):
            kind, canon = "unknown", said
        else:
            kind, canon = m.kind, m.said
        return [Utterance(kind, canon, self.start + words[0]["start"],
                          self.start + words[-1]["end"], round(conf, 3), self.channel,
                          self.player, self.source)]


def find_vosk_model(model: str | None = None) -> Path | None:
    """The Vosk model to use: ``model`` (must exist), else $REFEREE_VOSK_MODEL,
    else the first model directory under ``models/`` (the repository's or the
    working directory's)."""
    def is_model(p: Path) -> bool:
        return p.is_dir() and ((p / "am").is_dir() or (p / "conf" / "model.conf").exists())

    if model:
        p = Path(model)
        if not is_model(p):
            raise EngineError(f"{model}: not a Vosk model directory (no am/ or conf/model.conf)")
        return p
    env = os.environ.get("REFEREE_VOSK_MODEL")
    if env:
        p = Path(env)
        if not is_model(p):
            raise EngineError(f"REFEREE_VOSK_MODEL={env}: not a Vosk model directory")
        return p
    for d in (Path.cwd() / "models", base.MODELS_DIR):
        if d.is_dir():
            for p in sorted(d.iterdir()):
                if is_model(p):
                    return p
    return None
