"""Speech recognisers behind one interface: PocketSphinx (bundled, the default
without a model) and Vosk (when a model is found).

``open_recogniser(engine, model, grammar)`` loads one model; its ``stream()``
gives one :class:`RecogniserStream` per channel. A stream takes int16 mono
samples at ``rate`` and returns :class:`~referee.events.Utterance` s whose
times are seconds on the audio clock: ``start + samples_fed / rate``.

Speech outside the grammar comes back as kind ``'unknown'`` (or nothing),
never as a card.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Protocol

import numpy as np

from ..events import Utterance
from .grammar import Grammar
from .segmenter import Segmenter

#: What transcription and listening listen for unless told otherwise.
DEFAULT_KINDS = ("call", "shout", "command")

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"


class EngineError(ValueError):
    """A recogniser that cannot be opened; the message says why and what to do."""


class RecogniserStream(Protocol):
    def feed(self, samples: np.ndarray) -> list[Utterance]: ...

    @property
    def watermark(self) -> float: ...

    def close(self) -> list[Utterance]: ...


class Recogniser(Protocol):
    name: str
    rate: int

    def stream(self, start: float = 0.0, channel: int = 0, player: str | None = None,
               source: str = "") -> RecogniserStream: ...


def _as_int16(samples: np.ndarray) -> np.ndarray:
    a = np.asarray(samples)
    if a.dtype != np.int16:
        raise TypeError(f"recogniser streams take int16 samples, not {a.dtype}")
    return a.reshape(-1)


# ---------------------------------------------------------------------------
# PocketSphinx

class PocketSphinx:
    """PocketSphinx with its bundled US English model and a JSGF grammar.

    Speech is cut into segments by voice activity; each segment is decoded
    as a whole (so cepstral mean normalisation sees only the segment, with a
    trace of dither added, and digital silence cannot collapse it). A
    segment whose best path through the grammar is not a whole phrase, or is
    implausibly short or long for it, is reported as ``'unknown'``.
    """

    name = "pocketsphinx"
    rate = 16000

    def __init__(self, grammar: Grammar | None = None, model: str | None = None,
                 dither: float = 3.0, **options) -> None:
        try:
            from pocketsphinx import Decoder, get_model_path
        except ImportError as e:  # pragma: no cover - a broken install
            raise EngineError(f"PocketSphinx is not installed ({e})") from None
        self.grammar = grammar or Grammar.load().subset(DEFAULT_KINDS)
        base = Path(model) if model else Path(get_model_path()) / "en-us"
        hmm = base / "en-us" if (base / "en-us").is_dir() else base
        dic = base / "cmudict-en-us.dict"
        if not (hmm / "mdef").exists() or not dic.exists():
            raise EngineError(f"{base}: not a PocketSphinx model (needs en-us/ and "
                              "cmudict-en-us.dict)")
        config = dict(hmm=str(hmm), dict=str(dic), loglevel="FATAL", bestpath="no")
        config.update(options)
        self.decoder = Decoder(**config)
        self.added = []
        for word, prons in self.grammar.arpabet().items():
            if self.decoder.lookup_word(word) is None:
                self.decoder.add_word(word, prons[0], False)
                self.added.append(word)
        missing = [w for w in self.grammar.words if self.decoder.lookup_word(w) is None]
        if missing:
            raise EngineError(f"grammar {self.grammar.name!r}: words not in the PocketSphinx "
                              f"dictionary and no pronunciation given: {', '.join(missing)}")
        self.decoder.add_jsgf_string("grammar", self.grammar.jsgf(fillers=False))
        self.decoder.activate_search("grammar")
        self.dither = dither
        self._rng = np.random.default_rng(0)

    def stream(self, start: float = 0.0, channel: int = 0, player: str | None = None,
               source: str = "") -> SegmentStream:
        return SegmentStream(self, start, channel, player, source)

    def decode(self, samples: np.ndarray) -> tuple[str, list[tuple[str, float, float]], float]:
        """Decode one segment: its words with (start, end) seconds within it."""
        x = samples.astype(np.float64)
        if self.dither:
            x = x + self._rng.normal(0.0, self.dither, len(x))
        pcm = np.clip(np.round(x), -32768, 32767).astype(np.int16)
        d = self.decoder
        d.start_utt()
        d.process_raw(pcm.tobytes(), False, True)
        d.end_utt()
        h = d.hyp()
        if h is None:
            return "", [], 0.0
        words = []
        for s in d.seg():
            w = s.word
            if w.startswith("<") or w.startswith("[") or w.startswith("++"):
                continue
            words.append((w.split("(")[0], s.start_frame / 100.0, (s.end_frame + 1) / 100.0))
        return h.hypstr, words, 1.0


# ---------------------------------------------------------------------------
# Vosk

class Vosk:
    """Vosk (Kaldi) with a phrase-list grammar and ``[unk]``.

    Vosk turns a phrase list into a bigram model, so each result is checked
    against the grammar afterwards; results with ``[unk]``, low word
    confidence or words that are not a phrase come back as ``'unknown'``.
    """

    name = "vosk"
    rate = 16000

    def __init__(self, grammar: Grammar | None = None, model: str | None = None,
                 min_confidence: float = 0.6) -> None:
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

    def stream(self, start: float = 0.0, channel: int = 0, player: str | None = None,
               source: str = "") -> VoskStream:
        return VoskStream(self, start, channel, player, source)


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

    @property
    def watermark(self) -> float:
        t = self.last_end if self.open else self.fed / self.engine.rate
        return self.start + t

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
        if m is None or "[unk]" in said or conf < self.engine.min_confidence:
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
    for d in (Path.cwd() / "models", MODELS_DIR):
        if d.is_dir():
            for p in sorted(d.iterdir()):
                if is_model(p):
                    return p
    return None


# ---------------------------------------------------------------------------
# Segment-at-a-time streams (PocketSphinx)

class SegmentStream:
    """Cuts speech out by voice activity and decodes each piece whole."""

    def __init__(self, engine: PocketSphinx, start: float, channel: int, player: str | None,
                 source: str) -> None:
        self.engine = engine
        self.start, self.channel, self.player, self.source = start, channel, player, source
        self.segmenter = Segmenter(engine.rate)

    @property
    def watermark(self) -> float:
        since = self.segmenter.open_since
        n = self.segmenter.consumed if since is None else since
        return self.start + n / self.engine.rate

    def feed(self, samples: np.ndarray) -> list[Utterance]:
        out = []
        for seg in self.segmenter.feed(_as_int16(samples)):
            out += self._decode(seg)
        return out

    def close(self) -> list[Utterance]:
        out = []
        for seg in self.segmenter.flush():
            out += self._decode(seg)
        return out

    def _decode(self, seg) -> list[Utterance]:
        text, words, conf = self.engine.decode(seg.samples)
        if not words:
            return []
        t0 = self.start + seg.first / self.engine.rate
        start, end = t0 + words[0][1], t0 + words[-1][2]
        said = " ".join(w for w, _, _ in words)
        m = self.engine.grammar.match(said)
        if m is None or not _plausible(words):
            return [Utterance("unknown", said, start, end, 0.0, self.channel, self.player,
                              self.source)]
        return [Utterance(m.kind, m.said, start, end, round(conf, 3), self.channel, self.player,
                          self.source)]


def _plausible(words: list[tuple[str, float, float]]) -> bool:
    """Word durations a person could say: 60 ms to 1.2 s each ('of' may be short)."""
    for w, s, e in words:
        d = e - s
        if d > 1.2 or (d < 0.06 and w not in ("of", "a", "the")):
            return False
    return True


# ---------------------------------------------------------------------------

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
