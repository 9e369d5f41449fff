"""Speech recognisers behind one interface: PocketSphinx (bundled, the default
without a model) and Vosk (when a model is found).

``open_recogniser(engine, model, grammar)`` loads one model; its ``stream()``
gives one :class:`RecogniserStream` per channel. A stream takes int16 mono
samples at ``rate`` and returns :class:`~referee.core.events.Utterance` s whose
times are seconds on the audio clock: ``start + samples_fed / rate``.

Speech outside the grammar comes back as kind ``'unknown'`` (or nothing),
never as a card.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path
from typing import Protocol

import numpy as np

from referee.core.events import Utterance
from referee.hearing import checks
from referee.hearing.classifier import OTHER, ClassifierError, PhraseClassifier
from referee.hearing.denoise import subtract as subtract_noise
from referee.hearing.features import HOP, WINDOW, normalise, raw_log_mel
from referee.hearing.grammar import Grammar
from referee.hearing.segmenter import Segment, Segmenter
from referee.hearing.suits import SuitCheck

#: What transcription and listening listen for unless told otherwise.
DEFAULT_KINDS = ("call", "shout", "command", "partial")

#: Calls and shouts must be voiced (have a pitch) for at least this many 10 ms
#: steps in a row (see :func:`checks.voiced_run`): every word of theirs has a
#: vowel, while a slapped card or a riffle that the grammar forced into "goop"
#: has none.
MIN_VOICED_RUN = 6

#: ... unless the classifier gives the phrase at least ``sure`` (0.9): then
#: this many steps do. Noise breaks the pitch of a deep voice into short runs
#: (a low "goop" in pink noise at 15 dB was thrown out so), while what the
#: classifier is that sure of is not clatter.
SURE_VOICED_RUN = 3

#: dB under its loudest 10 ms where a phrase the classifier heard begins and ends.
CLASSIFIED_SPAN_DB = 25.0

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"


#: The phones of the CMU US English model, for the garbage loop.
PHONES = ("AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH "
          "T TH UH UW V W Y Z ZH").split()
GARBAGE_PREFIX = "phone_"

#: The word that addresses a command to the referee ("referee undo").
ADDRESS = "referee"


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

    @property
    def description(self) -> str:
        """What is in use, for start-up messages and reports."""

    def stream(self, start: float = 0.0, channel: int = 0, player: str | None = None,
               source: str = "") -> RecogniserStream: ...


def _as_int16(samples: np.ndarray) -> np.ndarray:
    a = np.asarray(samples)
    if a.dtype != np.int16:
        raise TypeError(f"recogniser streams take int16 samples, not {a.dtype}")
    return a.reshape(-1)


# ---------------------------------------------------------------------------
# The phrase classifier and the suit check beside a decoder

class Backed:
    """The phrase classifier beside a decoder, for the engines whose streams are
    :class:`SegmentStream` s: it knows only the card calls and "goop" but hears
    them far better in noise. A segment it gives a call or shout with
    probability ``accept`` or more (and that is voiced) is that phrase, without
    asking the decoder; an open segment it is sure of (``early``) is reported
    before it closes, and a call or shout is decided at a short pause in a
    segment (``decide_at_pause``, with its bar at ``pause_accept`` and the
    decoder's call needing ``pause_support`` from it). Anything else is the
    decoder's (:meth:`decode`), except that a call or shout the classifier gives
    less than ``support`` is not believed. A call or shout must be voiced for
    :data:`MIN_VOICED_RUN` steps, or for :data:`SURE_VOICED_RUN` when the
    classifier gives it ``sure`` or more. A card call, whoever found it, must
    end with its suit word as the suit check hears it (``suits``: True for
    the one in models/, a path, a loaded one, or False for none; it must give
    the suit ``suit_bar`` or more, see :meth:`suit_holds`). ``hang``,
    ``hang_noisy``: the segmenter's pauses that close a segment in quiet and
    in loud noise; ``max_outside``: seconds of voiced sound a phrase may leave
    outside it."""

    name = "backed"
    rate = 16000
    grammar: Grammar

    def _back(self, classifier: PhraseClassifier | str | bool = True, accept: float = 0.5,
              support: float = 0.02, early: float | None = 0.8, sure: float | None = 0.9,
              decide_at_pause: bool = True, pause_support: float = 0.15,
              pause_accept: float = 0.6, hang: float = 0.21, hang_noisy: float = 0.36,
              max_outside: float = 0.12, suits: SuitCheck | str | bool = True,
              suit_bar: float = 0.03, partial_doubt: float = 0.2,
              partial_span: float = 1.0, partial_outside: float = 0.12) -> None:
        self.classifier = self._load_classifier(classifier)
        #: The kind of each of the classifier's phrases in this grammar (None: not in it).
        self.phrase_kinds = {} if self.classifier is None else {
            name: getattr(self.grammar.match(name), "kind", None)
            for name in self.classifier.classes}
        self.accept, self.support = float(accept), float(support)
        self.early = None if early is None else float(early)
        self.sure = None if sure is None else float(sure)
        self.decide_at_pause = bool(decide_at_pause)
        self.pause_support = float(pause_support)
        self.pause_accept = float(pause_accept)
        self.hang, self.hang_noisy = float(hang), float(hang_noisy)
        self.max_outside = max_outside
        if not any(k in ("call", "shout") for k in self.phrase_kinds.values()):
            # None of its phrases is one of this grammar's calls or shouts.
            self.classifier, self.phrase_kinds = None, {}
        #: The suit check (see :mod:`.suits`), beside the classifier.
        self.suits = None
        if self.classifier is not None and suits not in (False, None):
            try:
                self.suits = suits if isinstance(suits, SuitCheck) else \
                    SuitCheck.load(None if suits is True else suits)
            except ClassifierError as e:
                raise EngineError(str(e)) from None
        self.suit_bar = float(suit_bar)
        self.partial_doubt, self.partial_span = float(partial_doubt), float(partial_span)
        self.partial_outside = float(partial_outside)

    def partial_holds(self, probs: dict[str, float] | None, span: float) -> bool:
        """Whether a partial call the decoder found may
        stand: its sound lasts ``partial_span`` seconds at most (and no more
        than ``partial_outside`` seconds of voiced sound lie outside it, which
        the caller checks), and the
        classifier (``probs``) gives no full call or shout ``partial_doubt``
        or more (a call whose suit sank under noise is no miscall)."""
        if span > self.partial_span:
            return False
        return probs is None or max(
            (v for name, v in probs.items() if name != OTHER), default=0.0) < self.partial_doubt

    def suit_holds(self, said: str, kind: str, samples: np.ndarray, end: float) -> bool:
        """Whether a call ``said`` that ends ``end`` seconds into ``samples``
        ends with its suit word, as the suit check hears it (it gives that
        suit ``suit_bar`` or more): "six of one" taken for "six of clubs"
        does not. Anything but a card call (``kind``, as the grammar has
        it), or with no suit check, holds."""
        if self.suits is None or kind != "call":
            return True
        return self.suits.probability(said, samples, end, self.rate) >= self.suit_bar

    def decode(self, samples: np.ndarray, noise: np.ndarray | None = None, channel: int = 0,
               probs: dict[str, float] | None = None
               ) -> tuple[str, list[tuple[str, float, float]], float]:
        """One segment's words with (start, end) seconds within it, and a
        confidence in 0..1 (0: rejected)."""
        raise NotImplementedError

    @property
    def description(self) -> str:
        """What is in use, for start-up messages and reports."""
        out = self.name
        if self.classifier is not None:
            out += f" + phrase classifier ({self.classifier.path})"
            if self.suits is not None:
                out += f" + suit check ({self.suits.path})"
        model = getattr(self, "model_path", None)
        return out + (f"; model {model}" if model else "")

    def _load_classifier(self, classifier) -> PhraseClassifier | None:
        """The phrase classifier (``True``: the one in models/), or None when
        it is turned off or there are no calls or shouts to listen for."""
        if classifier is False or classifier is None \
                or not self.grammar.kinds & {"call", "shout"}:
            return None
        if isinstance(classifier, PhraseClassifier):
            return classifier
        try:
            return PhraseClassifier.load(None if classifier is True else classifier)
        except ClassifierError as e:
            raise EngineError(str(e)) from None

    def classify(self, samples: np.ndarray | None = None, feats: np.ndarray | None = None
                 ) -> tuple[str, float, dict[str, float]]:
        """The classifier's answer for a segment (its samples, or its
        features): its best phrase among the kinds listened for (or
        ``OTHER``), that phrase's probability, and every phrase's probability
        (what the kinds not listened for had goes to ``OTHER``)."""
        c = self.classifier
        p = c.probabilities(samples) if feats is None else c.probabilities_of_features(feats)
        probs: dict[str, float] = {OTHER: 0.0}
        for name, q in zip(c.classes, p):
            if self.phrase_kinds.get(name) in ("call", "shout"):
                probs[name] = float(q)
            else:
                probs[OTHER] += float(q)
        best = max(probs, key=probs.get)
        return best, probs[best], probs

    def min_voiced_run(self, q: float) -> int:
        """How many voiced 10 ms steps in a row a call or shout needs when the
        classifier gives it probability ``q`` (see :data:`SURE_VOICED_RUN`)."""
        if self.sure is not None and q >= self.sure:
            return SURE_VOICED_RUN
        return MIN_VOICED_RUN

    def ruled_out(self, said: str, probs: dict[str, float] | None) -> bool:
        """Whether the classifier all but rules out the phrase ``said`` (its
        probability in ``probs`` is under ``support``): the decoder's finding
        it does not count."""
        return probs is not None and said in probs and probs[said] < self.support


# ---------------------------------------------------------------------------
# PocketSphinx

class PocketSphinx(Backed):
    """PocketSphinx with its bundled US English model and a JSGF grammar.

    Speech is cut into segments by voice activity; each segment is decoded
    as a whole (so cepstral mean normalisation sees only the segment, with a
    trace of dither added, and digital silence cannot collapse it). A
    segment whose best path through the grammar is not a whole phrase, or is
    implausibly short or long for it, is reported as ``'unknown'``.

    Beside it works the phrase classifier (:mod:`.classifier`, ``classifier``:
    True for the one in models/, a path, a loaded one, or False for none),
    which knows only the card calls and "goop" but hears them far better in
    noise. A segment it gives a call or shout with probability ``accept`` or
    more (and that is voiced) is that phrase, timed by its loud part, without
    asking PocketSphinx; an open segment it is sure of (``early``) is reported
    before it closes, and a call or shout is decided at a short pause in a
    segment, before it closes (``decide_at_pause``, with the classifier's bar
    at ``pause_accept`` and PocketSphinx's call needing ``pause_support`` from
    it; see :class:`SegmentStream`). Anything else (commands,
    numbers, what it is unsure of) is PocketSphinx's, except that a call or
    shout the classifier gives less than ``support`` is not believed. A call
    or shout must be voiced for :data:`MIN_VOICED_RUN` steps, or for
    :data:`SURE_VOICED_RUN` when the classifier gives it ``sure`` or more.
    Undo, new game and end (the commands said only as "referee ...") count
    only if what follows "referee" fits a command's ending better than
    ``reject_addressed`` against a free phone loop (see
    :meth:`_addressed_score`): talk addressed to the referee is not one of them.

    A partial call ("queen", "hearts", "jack of": kind ``'partial'``) is always
    PocketSphinx's reading (the classifier does not know it) and counts only
    if it is read the same at both dither levels (``partial_agree``), beats
    the phone loop by ``reject_partial``, a "rank of" has an "of" that beats the phone loop by
    ``reject_of`` (see :meth:`_tail_score`), and it passes the checks of
    :meth:`Backed.partial_holds`: talk must not become a miscall
    (docs/partial-calls.md).
    """

    name = "pocketsphinx"
    rate = 16000

    def __init__(self, grammar: Grammar | None = None, model: str | None = None,
                 dither: float | None = 38.0, garbage: float = 0.0, fillers: int = 0,
                 decoys: bool = True, chatter_weight: float = 1.0, max_outside: float = 0.12,
                 reject: float | None = -17.0, reject_command: float | None = -20.0,
                 reject_addressed: float | None = -8.0,
                 max_pause: int = 10, hang: float = 0.21,
                 hang_noisy: float = 0.36, denoise: float | None = 1.0,
                 classifier: PhraseClassifier | str | bool = True,
                 accept: float = 0.5, support: float = 0.02, early: float | None = 0.8,
                 sure: float | None = 0.9, decide_at_pause: bool = True,
                 pause_support: float = 0.15, pause_accept: float = 0.6,
                 suits: SuitCheck | str | bool = True, suit_bar: float = 0.03,
                 partial_doubt: float = 0.2, partial_span: float = 0.7,
                 partial_outside: float = 0.03, reject_partial: float | None = -17.0,
                 reject_of: float | None = -2.5,
                 partial_agree: bool = True,
                 **options) -> None:
        try:
            from pocketsphinx import Decoder, get_model_path
        except ImportError as e:  # pragma: no cover - a broken install
            raise EngineError(f"PocketSphinx is not installed ({e})") from None
        self.grammar = grammar or Grammar.load().subset(DEFAULT_KINDS)
        #: Soccer's plays: a card may go on ("nine of hearts and two of hearts").
        self.plays = "play" in self.grammar.kinds
        if self.plays:
            # Nothing is decided before the segment ends (no race needs the speed), and
            # a pause in a two-card block does not end it.
            early, decide_at_pause, hang = None, False, max(hang, 0.45)
        base = Path(model) if model else Path(get_model_path()) / "en-us"
        hmm = base / "en-us" if (base / "en-us").is_dir() else base
        dic = base / "cmudict-en-us.dict"
        if not (hmm / "mdef").exists() or not dic.exists():
            raise EngineError(f"{base}: not a PocketSphinx model (needs en-us/ and "
                              "cmudict-en-us.dict)")
        # Decoys sound like cards and "goop": listening for numbers only, they
        # just steal numbers ("four" -> "four of"), so they go with those kinds.
        decoys = bool(decoys) and bool(self.grammar.kinds & {"call", "shout"})
        self.fillers, self.decoys, self.chatter_weight = int(fillers), decoys, chatter_weight
        needed = set(self.grammar.words)
        if fillers:
            needed |= set(self.grammar.fillers)
        if decoys:
            needed |= set(self.grammar.decoy_words)
        # Only the words the grammar can produce, not the 130 000 of the full
        # dictionary, and no language model: a decoder per channel then takes
        # 20 ms and a few MB to make instead of 0.4 s and 90 MB.
        self._dict_dir = tempfile.TemporaryDirectory(prefix="referee-ps-")
        small = Path(self._dict_dir.name) / "words.dict"
        prons = self.grammar.arpabet()
        # The grammar's pronunciations go into the same file: words the
        # dictionary lacks, and more ways to say words it has ("goop" as hiss
        # leaves it; a British "score", which has no r).
        known = _write_dictionary(dic, needed, small, prons)
        missing = sorted(w for w in needed if w not in known and w not in prons)
        if missing:
            raise EngineError(f"grammar {self.grammar.name!r}: words not in the PocketSphinx "
                              f"dictionary and no pronunciation given: {', '.join(missing)}")
        # lw 2, 8 Gaussians a frame and a lattice pass: better in noise for these short
        # phrases (figures: docs/hearing-decisions.md).
        self._config = dict(hmm=str(hmm), dict=str(small), lm=None, loglevel="FATAL",
                            bestpath=True, lw=2.0, topn=8)
        self._config.update(options)
        self._garbage = float(garbage)
        self.reject, self.max_pause = reject, int(max_pause)
        self.reject_command = reject_command
        self.reject_addressed = reject_addressed
        self.reject_partial, self.partial_agree = reject_partial, bool(partial_agree)
        self.reject_of = reject_of
        commands = [p for p in self.grammar.phrases if p.kind == "command"]
        #: Commands said only as "referee ...": those that undo or end something.
        self._guarded = {p.said for p in commands} - {
            p.said for p in commands if p.words[:1] != (ADDRESS,)}
        #: What may follow "referee" in a command ("score", "new game").
        self._addressed = sorted({" ".join(p.words[1:]) for p in commands
                                  if len(p.words) > 1 and p.words[0] == ADDRESS})
        self.dither = dither
        self._decoys = set(self.grammar.decoys) if decoys else set()
        self._shouts = [p.said for p in self.grammar.phrases if p.kind == "shout"]
        self.denoise = denoise
        self._Decoder = Decoder
        self._decoders: dict[int, object] = {}
        self.decoder = self.decoder_for(0)
        self._back(classifier, accept, support, early, sure, decide_at_pause, pause_support,
                   pause_accept, hang, hang_noisy, max_outside, suits, suit_bar,
                   partial_doubt, partial_span, partial_outside)

    def decoder_for(self, channel: int):
        """The decoder of one channel, made on first use. Each channel has its
        own: the model's noise removal keeps a running estimate from one
        utterance to the next, and one mic's noise must not colour another's."""
        d = self._decoders.get(channel)
        if d is None:
            d = self._Decoder(**self._config)
            d.add_jsgf_string("grammar", self._jsgf(d, self._garbage))
            if (self.reject, self.reject_command, self.reject_addressed,
                    self.reject_partial, self.reject_of) != (None, None, None, None, None):
                # A free phone loop: the rival explanation of the same audio.
                d.add_allphone_file("phones", None)
            if self.reject_addressed is not None and self._addressed:
                d.add_jsgf_string("addressed", "#JSGF V1.0;\ngrammar addressed;\n"
                                  "public <rest> = " + " | ".join(self._addressed) + ";\n")
            if self.reject_of is not None and "partial" in self.grammar.kinds:
                d.add_jsgf_string("of", "#JSGF V1.0;\ngrammar of;\npublic <of> = of;\n")
            d.activate_search("grammar")
            self._decoders[channel] = d
        return d

    def _jsgf(self, d, garbage: float) -> str:
        """The grammar's phrases, and (``garbage`` > 0) a rival loop of single
        phones with that weight: speech better explained by free phones than
        by any phrase decodes to garbage and is reported as unknown."""
        text = self.grammar.jsgf(self.fillers, self.decoys, self.chatter_weight)
        if garbage <= 0:
            return text
        for ph in PHONES:
            w = GARBAGE_PREFIX + ph.lower()
            if d.lookup_word(w) is None:
                d.add_word(w, ph, False)
        loop = " | ".join(GARBAGE_PREFIX + ph.lower() for ph in PHONES)
        text = text.replace("public <utterance> = <phrase>;",
                            f"<garbage> = {loop};\n"
                            f"public <utterance> = /1/ <phrase> | /{garbage:g}/ <garbage>+;")
        return text

    def stream(self, start: float = 0.0, channel: int = 0, player: str | None = None,
               source: str = "") -> SegmentStream:
        return SegmentStream(self, start, channel, player, source)

    def decode(self, samples: np.ndarray, noise: np.ndarray | None = None, channel: int = 0,
               probs: dict[str, float] | None = None
               ) -> tuple[str, list[tuple[str, float, float]], float]:
        """Decode one segment: its words with (start, end) seconds within it,
        and a confidence in 0..1 (0: rejected, see :meth:`confidence`), with
        the decoder of ``channel``. ``probs``: the classifier's for the
        segment; work whose only outcome is a phrase it rules out (see
        :meth:`ruled_out`) is skipped, and such a phrase has confidence 0.

        When the search ended part-way through the grammar (it can lose its
        way), or found a decoy of one or two words ("hoop" or "king of" for
        "goop"), the segment is tried once more with the dither 8 dB quieter,
        and a phrase found then counts (a longer decoy, "i have four hearts",
        is an answer). If the result is still no phrase, at most one word long
        (a shout is one), and ``noise`` (audio from just before the speech:
        the segment's lead-in) is given, the noise's spectrum is subtracted
        (``denoise`` times over) and the segment decoded again: a *shout*
        found then counts. Hiss masks the /g/ and /p/ of "goop", which then
        sounds like "two" or "soup"; for calls and commands the subtraction
        was measured to turn chatter in noise into cards, so it is not used."""
        d = self.decoder_for(channel)
        levels = [self.dither] if self.dither is None else [self.dither, self.dither + 8.0]
        partial = None  # the first reading, when it was a partial call
        for level in levels:
            text, words, pcm, pause = self._decode(d, samples, level)
            said = " ".join(w for w, _, _ in words)
            m = self.grammar.match(said) if words else None
            if m is not None and m.kind == "partial" and partial is None \
                    and level == levels[0] and len(levels) > 1:
                partial = (text, words, pcm, pause, m)
                continue
            if not words or m or (len(words) > 2 and tuple(said.split()) in self._decoys):
                break
        doubted = False  # a partial call read only once: no phrase
        if partial is not None and (m is None or m.kind == "partial"):
            # A partial call is read so both times, or it is no phrase: a call,
            # shout or command read the second time is taken, as after a decoy.
            if m is not None and m.said == partial[-1].said or not self.partial_agree:
                text, words, pcm, pause, m = partial
            else:
                doubted = True
        if (m is None or m.kind == "partial") and len(words) <= 1 and self.denoise \
                and noise is not None \
                and len(noise) and not all(self.ruled_out(p, probs) for p in self._shouts):
            clean = subtract_noise(samples, noise, self.denoise)
            retry = self._decode(d, clean, self.dither)
            said = " ".join(w for w, _, _ in retry[1])
            m2 = self.grammar.match(said) if retry[1] else None
            if m2 is not None and m2.kind == "shout":
                text, words, pcm, pause = retry
                m = m2
        score, reject = None, None
        if doubted and (m is None or m.kind == "partial"):
            return text, words, 0.0
        if m is not None and m.kind in ("call", "shout") and self.ruled_out(m.said, probs):
            return text, words, 0.0
        if m is not None:
            # GOPS's bids and prizes too: on its tuning voices, table talk taken for one 9 -> 4 of 32
            reject = self.reject_command if m.kind == "command" else \
                self.reject if m.kind in ("call", "shout", "bid", "prize", "play") else \
                self.reject_partial if m.kind == "partial" else None
        if reject is not None:
            score = self._phone_loop(d, pcm)
        if m is not None and m.said in self._guarded and self.reject_addressed is not None \
                and len(words) > 1 and words[0][0] == ADDRESS and self._addressed:
            rest = self._addressed_score(d, pcm[int(words[0][2] * self.rate):])
            if rest is not None and rest <= self.reject_addressed:
                return text, words, 0.0
        if m is not None and m.kind == "partial" and self.reject_of is not None \
                and len(words) > 1 and words[-1][0] == "of":
            rest = self._tail_score(d, "of", pcm[int(words[-2][2] * self.rate):])
            if rest is not None and rest <= self.reject_of:
                return text, words, 0.0
        if m is None or m.kind not in ("call", "partial"):
            pause = 0  # "no, twelve", "referee, new game": a pause is fine there
        return text, words, self.confidence(score, pause, reject)

    def _tail_score(self, d, search: str, pcm: np.ndarray) -> float | None:
        """``pcm`` read by the decoder's search ``search`` against a free phone
        loop, per frame (log base 1.0001); None when too short to tell. The
        "of" of a call cut short ("jack of") fits "of" about as well as free
        phones do; talk forced onto it ("ace it", "five minutes") far worse,
        though the rank before it lifts the score of the whole."""
        if len(pcm) < HOP * 3:
            return None
        try:
            g = _search_score(d, search, pcm)
            p = None if g is None else _search_score(d, "phones", pcm)
            return None if p is None else (g[0] - p[0]) / g[1]
        finally:
            d.activate_search("grammar")

    def _addressed_score(self, d, pcm: np.ndarray) -> float | None:
        """What follows "referee" in a command, ``pcm``, read as one of the
        commands' endings, against a free phone loop on the same audio, per
        frame (log base 1.0001). Talk addressed to the referee ("referee, who
        won?") is forced onto a command as readily as a command is heard, over
        the whole segment, where "referee" itself fits well; on its own, the
        rest fits a command's ending far worse than a command's does."""
        if len(pcm) < HOP * 3:
            return None
        try:
            g = _search_score(d, "addressed", pcm)
            p = None if g is None else _search_score(d, "phones", pcm)
            return None if p is None else (g[0] - p[0]) / g[1]
        finally:
            d.activate_search("grammar")

    def _phone_loop(self, d, pcm: np.ndarray) -> float | None:
        """``c``: the last grammar pass's score minus a free phone loop's on the
        same audio, per frame (log base 1.0001). Low: the grammar had to force
        its phrase onto sounds that are something else."""
        h = d.hyp()
        if h is None:
            return None
        frames = max(1, d.n_frames())
        g = d.logmath.log(h.score)
        try:
            p = _search_score(d, "phones", pcm)
            return None if p is None else (g - p[0]) / frames
        finally:
            d.activate_search("grammar")

    def confidence(self, score: float | None, pause: int, reject: float | None = None
                   ) -> float:
        """0 for a card call with a pause of ``max_pause`` frames or more inside
        it (calls are said fluently; chatter decoded as a call is not), else the
        phone-loop score ``c`` (per frame, log base 1.0001: grammar minus free
        phones) mapped linearly from -50..0 to 0..1; at or below ``reject``
        (``reject`` for calls and shouts, ``reject_command`` for commands) it
        is 0."""
        if self.max_pause and pause >= self.max_pause:
            return 0.0
        if score is None:
            return 1.0
        if reject is not None and score <= reject:
            return 0.0
        return float(min(1.0, max(0.001, (score + 50.0) / 50.0)))

    def _decode(self, d, samples: np.ndarray, dither: float | None):
        x = samples.astype(np.float64)
        if dither is not None:
            # Noise a fixed distance below the speech fills the spectral holes of
            # clean or synthetic speech (and digital silence) that throw the
            # model's features off; in real noise it changes little.
            power = checks.frame_power(x, self.rate)
            level = np.sqrt(np.percentile(power, 95)) if len(power) else 0.0
            sigma = max(3.0, level * 10 ** (-dither / 20))
            # Seeded by the segment, so the same audio always decodes the same.
            x = x + np.random.default_rng(len(x)).normal(0.0, sigma, len(x))
        pcm = np.clip(np.round(x), -32768, 32767).astype(np.int16)
        d.start_utt()
        d.process_raw(pcm.tobytes(), False, True)
        d.end_utt()
        h = d.hyp()
        if h is None:
            return "", [], pcm, 0
        words = []
        pause = run = 0  # longest silence/filler run between phrase words, frames
        for s in d.seg():
            w = s.word
            if w.startswith("("):
                continue  # "(NULL)": a step of the grammar that takes no time
            if w.startswith(("<", "[", "++")):
                if words:
                    run += s.end_frame - s.start_frame + 1
                continue
            pause, run = max(pause, run), 0
            words.append((w.split("(")[0], s.start_frame / 100.0, (s.end_frame + 1) / 100.0))
        return h.hypstr, words, pcm, pause


def _search_score(d, search: str, pcm: np.ndarray) -> tuple[float, int] | None:
    """Decode ``pcm`` with the decoder's search ``search`` (left active): the
    best path's score (log base 1.0001) and the frames read, or None."""
    d.activate_search(search)
    d.start_utt()
    d.process_raw(pcm.tobytes(), False, True)
    d.end_utt()
    h = d.hyp()
    return None if h is None else (d.logmath.log(h.score), max(1, d.n_frames()))


def _write_dictionary(full: Path, words: set[str], out: Path,
                      more: dict[str, list[str]] | None = None) -> set[str]:
    """Copy the entries of ``words`` (with their alternative pronunciations,
    ``word(2)``...) from the dictionary ``full`` to ``out``, then add the
    pronunciations ``more`` gives (word -> ARPAbet strings) that are not there
    yet, numbered after a word's own; return the words found in ``full``."""
    have: dict[str, list[str]] = {}
    with open(full, encoding="utf-8") as src, open(out, "w", encoding="utf-8") as dst:
        for line in src:
            parts = line.split()
            if not parts:
                continue
            word = parts[0].split("(")[0]
            if word in words:
                dst.write(line if line.endswith("\n") else line + "\n")
                have.setdefault(word, []).append(" ".join(parts[1:]))
        found = set(have)
        for word, prons in (more or {}).items():
            said = have.setdefault(word, [])
            for pron in prons:
                if pron not in said:
                    said.append(pron)
                    name = word if len(said) == 1 else f"{word}({len(said)})"
                    dst.write(f"{name} {pron}\n")
    return found


# ---------------------------------------------------------------------------
# Vosk

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
                 **backing) -> None:
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
        self._back(classifier, **backing)

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
        ``min_confidence``, or the phrase is a call or shout the classifier
        all but rules out (``probs``, see :meth:`ruled_out`). ``noise`` is
        not used."""
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
                or (m is not None and m.kind in ("call", "shout") and self.ruled_out(m.said, probs)):
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
# Segment-at-a-time streams (PocketSphinx, and Vosk with the classifier)

class SegmentStream:
    """Cuts speech out by voice activity and decodes each piece whole.

    While a segment is still open (the segmenter waits for the speech to stop,
    which in babble or clatter can be a second or more after a call), the
    classifier looks at what has come so far every ``EARLY_STEP`` seconds; when
    it is sure (``engine.early``) of a call or shout, that is reported at once
    and the rest of the segment is not decoded again.

    In loud noise the segmenter waits longer (``engine.hang_noisy``) before it
    closes a segment, so that a call whose weak parts sink under the noise is
    not cut in two. Once a pause there is as long as one that closes a segment
    in quiet (``settle``, ``engine.hang``), the classifier's bar is the one at
    a close (``engine.accept``): a call it is that sure of is reported then,
    as the shorter wait would have, and talk after the pause does not bury
    it. With no pause at all (talk or babble straight after the call), a call
    the classifier has held at that bar look after look for ``STEADY``
    seconds is reported too, ending where it began to hold it.

    A call need not wait for its segment to close at all
    (``engine.decide_at_pause``): at a pause of ``QUICK_PAUSE`` seconds, in
    quiet or in noise, what has come so far is decided as at a close, with the
    classifier's bar at ``engine.pause_accept``, and once more at a pause as long as
    ``settle`` in a segment that noise holds open, with the bar of a close.
    Only calls and shouts are decided so, and PocketSphinx's only when the
    classifier gives them at least ``engine.pause_support``: a prefix of
    longer talk ("four of my friends") is read as a call more readily than
    the whole, and commands found at pauses were wrong one time in three.
    Anything else waits for the close.

    A pause need not be quiet (``VOICELESS``): a shuffle or slapped cards
    straight after a call hold its segment open for as long as they go on,
    and the call was decided only then, read with all that noise after it,
    and often not heard at all. Once the segment has been without a voice
    (see :class:`~.checks.VoicelessRun`) for ``VOICELESS_PAUSE`` while sound
    goes on, what has come up to ``VOICE_TAIL`` after the voice is decided as
    at the second stage, once, and ends at most ``VOICE_END`` after the
    voice.

    Why these settings, with the figures that chose them: docs/hearing-decisions.md."""

    EARLY_STEP = 0.1
    QUICK_PAUSE = 0.12
    """Seconds of a pause after which what has come so far is decided."""
    EARLY_MIN = 0.3
    """Seconds of speech before the first look."""
    EARLY_WINDOW = 2.5
    """Seconds (the latest) the classifier looks at in an open segment."""
    VOICELESS = True
    """Whether a stretch without voice (see :class:`~.checks.VoicelessRun`)
    ``VOICELESS_PAUSE`` long is a pause, for the decision at a pause, even
    where the segmenter hears sound: card-table clatter after a call."""
    VOICELESS_PAUSE = 0.3
    """Seconds without a voice that make such a pause: longer than ``settle``,
    as a slow voice's unvoiced consonants ("of h", the "ts" of "hearts") can
    last 0.2 s."""
    VOICE_TAIL = 0.3
    """Seconds of sound after the voice kept with what is decided at such a
    pause: a call's last consonants may have no voice."""
    VOICE_END = 0.15
    """Seconds after the voice at which a call decided at such a pause ends,
    at the latest: the clicks after it are as loud as its last consonant and
    would stretch its end (the judge orders races by ends)."""
    STEADY = 0.3
    """Seconds of audio over which the classifier has held one call or shout
    at the bar of a close (``engine.accept``), look after look, before it is
    believed at that bar in a segment still open."""

    def __init__(self, engine: Backed, start: float, channel: int, player: str | None,
                 source: str) -> None:
        self.engine = engine
        self.start, self.channel, self.player, self.source = start, channel, player, source
        self.segmenter = Segmenter(engine.rate, hang=engine.hang, hang_noisy=engine.hang_noisy)
        self._mark = start
        self._decided: int | None = None  # first sample of the open segment already reported
        self._looked = 0  # samples consumed at the last early look
        self._frames_of: int | None = None  # first sample of the segment _frames are of
        self._frames = np.zeros((0, 0))  # its log-mel frames so far (not normalised)
        # (segment's first sample, phrase, samples consumed when it began to
        # lead at the accept bar), or None
        self._leader: tuple[int, str, int] | None = None
        self.settle = engine.hang
        # (segment, pause, stage: 1 at QUICK_PAUSE, 2 at settle) last decided at
        self._paused: tuple[int, int, int] | None = None
        # how long the open segment has been without voice (VOICELESS), and
        # its first sample and frames fed to it so far
        self._voicing = checks.VoicelessRun(engine.rate)
        self._voicing_of: int | None = None
        self._voicing_frames = 0
        # (segment, start) of the last pause in the voice only decided at
        self._unvoiced: tuple[int, int] | None = None

    @property
    def watermark(self) -> float:
        """Audio consumed, or the start of the segment being gathered (unless
        that segment has been reported already: it gives nothing more)."""
        sg = self.segmenter
        since = sg.open_since
        if since is None or (sg.in_speech and self._decided == sg.current_first):
            n = sg.consumed
        else:
            n = since
        self._mark = max(self._mark, self.start + n / self.engine.rate)
        return self._mark

    def feed(self, samples: np.ndarray) -> list[Utterance]:
        out = []
        for seg in self.segmenter.feed(_as_int16(samples)):
            out += self._closed(seg)
        self._track_voicing()
        early = self._early()
        return out + (early or self._at_pause())

    def _track_voicing(self) -> None:
        """Keep ``_voicing`` up with the open segment (see :meth:`_at_pause`)."""
        sg = self.segmenter
        if not self.VOICELESS or not self.engine.decide_at_pause or not sg.in_speech \
                or self._decided == sg.current_first:
            return
        if self._voicing_of != sg.current_first:
            self._voicing_of, self._voicing_frames = sg.current_first, 0
            self._voicing = checks.VoicelessRun(self.engine.rate)
        if len(sg.current) > self._voicing_frames:
            self._voicing.feed(np.concatenate(sg.current[self._voicing_frames:]))
            self._voicing_frames = len(sg.current)

    def _at_pause(self) -> list[Utterance]:
        """At a pause in an open segment: the decision of a close on what has
        come so far, for calls and shouts only (see :meth:`_decode`), once
        when the pause is ``QUICK_PAUSE`` long (the classifier's bar then is
        ``engine.pause_accept``) and once more, in a segment that noise holds
        open, when it is as long as one that closes a segment in quiet
        (``settle``; the bar of a close). A stretch without a voice
        ``VOICELESS_PAUSE`` long is such a pause too (``VOICELESS``), though
        the segmenter hears sound there: what is decided then is what came up
        to ``VOICE_TAIL`` after the voice, and ends ``VOICE_END`` after it at
        the latest. One found is reported (and the segment decided); anything
        else waits for the close."""
        sg, rate, eng = self.segmenter, self.engine.rate, self.engine
        if not eng.decide_at_pause or not sg.in_speech or self._decided == sg.current_first:
            return []
        run = sg.silent_run * sg.frame
        stage = 2 if run >= self.settle * rate else 1 if run >= self.QUICK_PAUSE * rate else 0
        kept = latest = None  # samples of the segment decided on; the latest end (seconds)
        if stage:
            pause = (sg.current_first, sg.consumed - run)
            if self._paused is not None and self._paused[:2] == pause \
                    and self._paused[2] >= stage:
                return []
            self._paused = (*pause, stage)
        else:
            # No quiet, but perhaps no voice either (a shuffle after the call)
            # for VOICELESS_PAUSE: decided once.
            run = self._voicing.run if self._voicing_of == sg.current_first else 0
            pause = (sg.current_first, sg.consumed - run)
            if not self.VOICELESS or run < self.VOICELESS_PAUSE * rate \
                    or self._unvoiced == pause:
                return []
            self._unvoiced, stage = pause, 2
            # The sound after the voice is not the call's.
            kept = max(0, pause[1] - sg.current_first + int(self.VOICE_TAIL * rate))
            latest = self.start + pause[1] / rate + self.VOICE_END
        seg = Segment(np.concatenate(sg.current)[:kept], sg.current_first,
                      max(sg.current_first, sg.current_speech))
        out = self._decode(seg, pause=True,
                           accept=eng.pause_accept if stage == 1 else eng.accept)
        if out:
            self._decided = sg.current_first
        if latest is not None:
            out = [dataclasses.replace(u, end=max(u.start, min(u.end, latest))) for u in out]
        return out

    def close(self) -> list[Utterance]:
        out = []
        for seg in self.segmenter.flush():
            out += self._closed(seg)
        return out

    def _closed(self, seg) -> list[Utterance]:
        if self._decided == seg.first:
            self._decided = None
            return []
        return self._decode(seg)

    def _early(self) -> list[Utterance]:
        eng, sg, rate = self.engine, self.segmenter, self.engine.rate
        if eng.classifier is None or eng.early is None or not sg.in_speech \
                or self._decided == sg.current_first \
                or sg.consumed - sg.current_speech < self.EARLY_MIN * rate \
                or sg.consumed - self._looked < self.EARLY_STEP * rate:
            return []
        self._looked = sg.consumed
        x = np.concatenate(sg.current)
        frames = self._raw_frames(sg.current_first, x)
        skip = max(0, len(frames) - int(self.EARLY_WINDOW * 100))
        best, q, _ = eng.classify(feats=normalise(frames[skip:]))
        if best == OTHER or q < eng.accept:
            self._leader = None
        elif self._leader is None or self._leader[:2] != (sg.current_first, best):
            self._leader = (sg.current_first, best, sg.consumed)
        steady = self._leader is not None and \
            sg.consumed - self._leader[2] >= self.STEADY * rate
        settled = sg.silent_run * sg.frame >= self.settle * rate
        if best == OTHER or q < (min(eng.early, eng.accept) if settled or steady else eng.early):
            return []
        if steady and q < eng.early:
            # It had heard the whole call when it began to hold it: the call
            # ends before that, not where the talk after it does.
            x = x[:self._leader[2] - sg.current_first]
        x = x[skip * HOP:]
        lead = max(0, sg.current_speech - sg.current_first - skip * HOP) / rate
        u = self._utterance(x, sg.current_first + skip * HOP, lead, best, q)
        if u:
            self._decided = sg.current_first
        return u

    def _raw_frames(self, first: int, x: np.ndarray) -> np.ndarray:
        """The log-mel frames (not normalised) of the segment beginning at
        sample ``first`` whose samples so far are ``x``: kept while it grows,
        so each frame is computed once, by the early looks and at its close."""
        if self._frames_of != first:
            self._frames_of, self._frames = first, np.zeros((0, 0))
        done = len(self._frames)
        new = x[done * HOP:]
        if len(new) >= WINDOW:
            more = raw_log_mel(new)
            self._frames = more if not done else np.concatenate([self._frames, more])
        if not len(self._frames):
            return raw_log_mel(x)  # shorter than a window: padded, and not kept
        # (x may be shorter than what was kept: the segment cut at a pause)
        return self._frames[:max(1, 1 + (len(x) - WINDOW) // HOP)]

    def _utterance(self, x: np.ndarray, first: int, lead: float, said: str, q: float
                   ) -> list[Utterance]:
        """The classifier's ``said`` for audio ``x`` (which starts at sample
        ``first`` of the stream, its speech ``lead`` seconds in), timed by its
        loud part; nothing if that part is not voiced."""
        rate = self.engine.rate
        # No word timings here: the phrase is where the sound is within
        # CLASSIFIED_SPAN_DB of its loudest (the lead-in's noise and the tail's
        # breath or reverberation are not).
        a, b = checks.trim(x, rate, max(0.0, lead - 0.1), len(x) / rate, CLASSIFIED_SPAN_DB)
        kind = self.engine.phrase_kinds[said]
        if not self._voiced(x, a, b, q) or not self.engine.suit_holds(said, kind, x, b):
            return []
        t0 = self.start + first / rate
        return [Utterance(kind, said, float(t0 + a), float(t0 + b),
                          round(q, 3), self.channel, self.player, self.source)]

    def _voiced(self, x: np.ndarray, a: float, b: float, q: float) -> bool:
        """Whether ``x`` between ``a`` and ``b`` seconds is voiced long enough for
        a call or shout the classifier gives probability ``q``."""
        rate = self.engine.rate
        return checks.voiced_run(x[int(a * rate):int(b * rate)], rate) \
            >= self.engine.min_voiced_run(q)

    def _decode(self, seg, pause: bool = False, accept: float | None = None
                ) -> list[Utterance]:
        """One segment: the classifier's phrase when it is sure of one (and
        the sound is voiced); otherwise PocketSphinx's reading, whose calls and
        shouts must pass the checks and not be ones the classifier all but
        rules out. ``pause``: the segment so far, at a pause in it (see
        :meth:`_at_pause`): only calls and shouts, and PocketSphinx's only when
        the classifier gives them ``engine.pause_support`` or more.
        ``accept``: the classifier's bar (default ``engine.accept``)."""
        eng, rate = self.engine, self.engine.rate
        accept = eng.accept if accept is None else accept
        t0 = self.start + seg.first / rate
        probs = None
        if eng.classifier is not None:
            best, q, probs = eng.classify(
                feats=normalise(self._raw_frames(seg.first, seg.samples)))
            if best != OTHER and q >= accept:
                u = self._utterance(seg.samples, seg.first, (seg.speech_first - seg.first) / rate,
                                    best, q)
                if u and getattr(eng, "plays", False):
                    # the classifier knows single cards only: a play PocketSphinx reads
                    # in the whole segment ("block with ...", "... and ...") wins
                    read = self._decode(seg, pause, accept=1.01)
                    if read and read[0].kind == "play":
                        return read
                if u:
                    return u
        bar = eng.pause_support if pause and probs is not None else None
        if bar is not None and max(v for name, v in probs.items() if name != OTHER) < bar:
            return []
        lead = seg.samples[:max(0, seg.speech_first - seg.first)]
        text, words, conf = eng.decode(seg.samples, lead[-int(0.25 * rate):], self.channel,
                                       probs)
        if not words:
            return []
        a, b = checks.trim(seg.samples, rate, words[0][1], words[-1][2])
        start, end = float(t0 + a), float(t0 + b)
        said = " ".join(w for w, _, _ in words)
        m = eng.grammar.match(said)
        outside = eng.partial_outside if m is not None and m.kind == "partial" \
            else eng.max_outside
        if m is None or conf <= 0 or not checks.plausible(words, a, b) \
                or checks.speech_outside(seg.samples, rate, a, b) > outside \
                or (m.kind in ("call", "shout", "partial") and not self._voiced(
                    seg.samples, a, b, probs.get(m.said, 0.0) if probs else 0.0)) \
                or (m.kind == "partial" and not eng.partial_holds(probs, b - a)) \
                or not eng.suit_holds(m.said, m.kind, seg.samples, b):
            return [] if pause else [Utterance("unknown", said, start, end, 0.0, self.channel,
                                               self.player, self.source)]
        if pause and (m.kind not in ("call", "shout")
                      or (bar is not None and probs.get(m.said, 0.0) < bar)):
            return []
        return [Utterance(m.kind, m.said, start, end, round(conf, 3), self.channel, self.player,
                          self.source)]


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
