"""PocketSphinx: :class:`PocketSphinx`, its decoders and their rival phone
loops, and the writer of its small dictionary."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from referee.core.events import CALLS_AND_SHOUTS, UtteranceKind
from referee.hearing import checks
from referee.hearing.classifier import PhraseClassifier
from referee.hearing.denoise import subtract as subtract_noise
from referee.hearing.engine.backing import BACKING, CLASSIFIED_KINDS, Backed, Backing
from referee.hearing.engine.base import DEFAULT_KINDS, EngineError
from referee.hearing.engine.segment_stream import SegmentStream
from referee.hearing.features import HOP
from referee.hearing.grammar import Grammar
from referee.hearing.number_check import NumberCheck
from referee.hearing.partial_check import PartialCheck
from referee.hearing.suits import SuitCheck

#: The phones of the CMU US English model, for the garbage loop.
PHONES = ("AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH "
          "T TH UH UW V W Y Z ZH").split()
GARBAGE_PREFIX = "phone_"

#: The word that addresses a command to the referee ("referee undo").
ADDRESS = "referee"

#: The kinds held to ``reject`` against the phone loop: the calls, shouts and
#: GOPS's and soccer's card phrases.
_CARD_KINDS = CALLS_AND_SHOUTS | {UtteranceKind.BID, UtteranceKind.PRIZE, UtteranceKind.PLAY}


def _decoys_beside(kinds) -> bool:
    """Whether a grammar's decoys go in a search of phrases of ``kinds``: beside any card
    phrase, not beside numbers and commands alone, where they only steal numbers ("four"
    -> "four of")."""
    return bool(set(kinds) & _CARD_KINDS)


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
    shout the classifier gives less than ``support`` is not believed, and that
    the Goop count's numbers are weighed against the number check (``numbers``:
    True for the one in models/, a path, a loaded one, or False for none; see
    :meth:`Backed.number_heard` and :meth:`Backed.number_alone`). A call
    or shout must be voiced for :data:`MIN_VOICED_RUN` steps, or for
    :data:`SURE_VOICED_RUN` when the classifier gives it ``sure`` or more.
    (Those bars are the settings of ``backing``, a :class:`Backing`; each may
    also be given by name.) A command (said only as "referee ...": "referee score") counts
    only if what follows "referee" fits that command's endings better than
    ``reject_addressed`` against a free phone loop (see
    :meth:`_addressed_score`): talk addressed to the referee is not one of them.

    A partial call ("queen", "hearts", "jack of": kind ``'partial'``) is always
    PocketSphinx's reading (the classifier does not know it) and counts only
    if it begins with the same word at both dither levels (``partial_agree``: "ten" and
    "ten of" are both a miscall), beats
    the phone loop by ``reject_partial``, a "rank of" has an "of" that beats the phone loop by
    ``reject_of`` (see :meth:`_tail_score`; without it, the bare rank is what was said, when
    ``of_fallback``), and it passes the checks of
    :meth:`Backed.partial_holds`: talk must not become a miscall
    (docs/partial-calls.md). The partial-call check (``partials``: True for the one in
    models/, a path, a loaded one, or False for none) may let a partial call the decoder
    read stand without those checks, rule it out, or find one the decoder did not read
    (see :meth:`SegmentStream._partial_weighed`).
    """

    name = "pocketsphinx"
    rate = 16000

    def __init__(self, grammar: Grammar | None = None, model: str | None = None,
                 dither: float | None = 38.0, garbage: float = 0.0, fillers: int = 0,
                 decoys: bool = True, chatter_weight: float = 1.0,
                 reject: float | None = -17.0, reject_command: float | None = -20.0,
                 reject_addressed: float | None = -8.0,
                 max_pause: int = 10, denoise: float | None = 1.0,
                 classifier: PhraseClassifier | str | bool = True,
                 suits: SuitCheck | str | bool = True,
                 numbers: NumberCheck | str | bool = True,
                 partials: PartialCheck | str | bool = True, backing: Backing = BACKING,
                 reject_partial: float | None = -17.0,
                 reject_of: float | None = -2.5,
                 partial_agree: bool = True, of_fallback: bool = True,
                 **options) -> None:
        # Any of the backing's settings may be given by name ("early=0.99");
        # the other options are the decoder's (lw, topn...).
        backing = backing.with_options(options)
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
            backing = dataclasses.replace(backing, early=None, decide_at_pause=False,
                                          hang=max(backing.hang, 0.45))
        base = Path(model) if model else Path(get_model_path()) / "en-us"
        hmm = base / "en-us" if (base / "en-us").is_dir() else base
        dic = base / "cmudict-en-us.dict"
        if not (hmm / "mdef").exists() or not dic.exists():
            raise EngineError(f"{base}: not a PocketSphinx model (needs en-us/ and "
                              "cmudict-en-us.dict)")
        decoys = bool(decoys) and _decoys_beside(self.grammar.kinds)
        self.fillers, self.decoys, self.chatter_weight = int(fillers), decoys, chatter_weight
        needed = set(self.grammar.words)
        if fillers:
            needed |= set(self.grammar.fillers)
        if decoys:
            needed |= set(self.grammar.decoy_words)
        # Only the words the grammar can produce, and no language model: a decoder
        # per channel is then quick and small to make (docs/hearing-decisions.md).
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
        self.of_fallback = bool(of_fallback)
        commands = [p for p in self.grammar.phrases if p.kind == "command"]
        #: Commands said only as "referee ...": all of the table's (issue 25).
        self._guarded = {p.said for p in commands} - {
            p.said for p in commands if p.words[:1] != (ADDRESS,)}
        #: What may follow "referee" in each command ("score", "what's the score").
        self._addressed: dict[str, list[str]] = {}
        for p in commands:
            if len(p.words) > 1 and p.words[0] == ADDRESS:
                self._addressed.setdefault(p.said, []).append(" ".join(p.words[1:]))
        #: The decoder search that reads each command's endings.
        self._addressed_search = {said: f"addressed{k}"
                                  for k, said in enumerate(sorted(self._addressed))}
        self.dither = dither
        self._decoys = set(self.grammar.decoys) if decoys else set()
        self._shouts = [p.said for p in self.grammar.phrases if p.kind == "shout"]
        self.denoise = denoise
        self._Decoder = Decoder
        self._decoders: dict[int, object] = {}
        #: The search of the kinds listened for (:meth:`listen_for`), and each decoder's
        #: searches of the grammar so far (by the decoder's id).
        self._search = "grammar"
        self._searches: dict[int, set[str]] = {}
        self.decoder = self.decoder_for(0)
        self._back(classifier, suits, backing, numbers, partials)

    def decoder_for(self, channel: int):
        """The decoder of one channel, made on first use. Each channel has its
        own: the model's noise removal keeps a running estimate from one
        utterance to the next, and one mic's noise must not colour another's."""
        d = self._decoders.get(channel)
        if d is None:
            d = self._Decoder(**self._config)
            d.add_jsgf_string("grammar", self._jsgf(d, self._garbage, self.grammar))
            if (self.reject, self.reject_command, self.reject_addressed,
                    self.reject_partial, self.reject_of) != (None, None, None, None, None):
                # A free phone loop: the rival explanation of the same audio.
                d.add_allphone_file("phones", None)
            if self.reject_addressed is not None:
                for said, rests in self._addressed.items():
                    d.add_jsgf_string(self._addressed_search[said],
                                      "#JSGF V1.0;\ngrammar addressed;\n"
                                      "public <rest> = " + " | ".join(sorted(rests)) + ";\n")
            if self.reject_of is not None and "partial" in self.grammar.kinds:
                d.add_jsgf_string("of", "#JSGF V1.0;\ngrammar of;\npublic <of> = of;\n")
            d.activate_search("grammar")
            self._decoders[channel] = d
        return d

    def listen_for(self, kinds: Iterable[str] | None) -> None:
        """Hear only the grammar's phrases of ``kinds`` from the next segment on (None: all of
        them): each decoder searches that part of the grammar alone, so a play is not read
        as a total ("four eights" as "forty eight") while no totals are asked for."""
        super().listen_for(kinds)
        self._search = "grammar" if self.hearing is None else \
            "grammar:" + ",".join(sorted(self.hearing))

    def _grammar_search(self, d) -> None:
        """Make the search of the kinds listened for (see :meth:`listen_for`) the active one
        of decoder ``d``, adding it on first use."""
        added = self._searches.setdefault(id(d), {"grammar"})
        if self._search not in added:
            d.add_jsgf_string(self._search, self._jsgf(d, self._garbage,
                                                       self.grammar.subset(self.hearing)))
            added.add(self._search)
        d.activate_search(self._search)

    def _jsgf(self, d, garbage: float, grammar: Grammar) -> str:
        """``grammar``'s phrases, and (``garbage`` > 0) a rival loop of single
        phones with that weight: speech better explained by free phones than
        by any phrase decodes to garbage and is reported as unknown."""
        decoys = self.decoys and _decoys_beside(grammar.kinds)
        text = grammar.jsgf(self.fillers, decoys, self.chatter_weight)
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
            if m is not None and m.kind == "partial" and \
                    m.said.split()[0] == partial[-1].said.split()[0] or not self.partial_agree:
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
        if m is not None and m.kind in CLASSIFIED_KINDS and self.ruled_out(m.said, probs):
            return text, words, 0.0
        if m is not None:
            # GOPS's bids and prizes too: on its tuning voices, table talk taken for one 9 -> 4 of 32
            reject = self.reject_command if m.kind == "command" else \
                self.reject if m.kind in _CARD_KINDS else \
                self.reject_partial if m.kind == "partial" else None
        if reject is not None:
            score = self._phone_loop(d, pcm)
        if m is not None and m.said in self._guarded and self.reject_addressed is not None \
                and len(words) > 1 and words[0][0] == ADDRESS and m.said in self._addressed:
            rest = self._addressed_score(d, m.said, pcm[int(words[0][2] * self.rate):])
            if rest is not None and rest <= self.reject_addressed:
                return text, words, 0.0
        if m is not None and m.kind == "partial" and self.reject_of is not None \
                and len(words) > 1 and words[-1][0] == "of":
            rest = self._tail_score(d, "of", pcm[int(words[-2][2] * self.rate):])
            if rest is not None and rest <= self.reject_of:
                if not self.of_fallback or len(words) != 2:
                    return text, words, 0.0
                # no "of" after the rank: a bare rank, which is as much a miscall
                words = words[:1]
                text = words[0][0]
                m = self.grammar.match(text)
                if m is None or m.kind != "partial":
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
            self._grammar_search(d)

    def _addressed_score(self, d, said: str, pcm: np.ndarray) -> float | None:
        """What follows "referee" in the command ``said``, ``pcm``, read as that
        command's endings, against a free phone loop on the same audio, per
        frame (log base 1.0001). Talk addressed to the referee ("referee, who
        won?") is forced onto a command as readily as a command is heard, over
        the whole segment, where "referee" itself fits well; on its own, the
        rest fits a command's ending far worse than a command's does. (Only
        that command's: with every command's, "it is my go" fit "say that
        again" well enough to pass as "undo".)"""
        if len(pcm) < HOP * 3:
            return None
        try:
            g = _search_score(d, self._addressed_search[said], pcm)
            p = None if g is None else _search_score(d, "phones", pcm)
            return None if p is None else (g[0] - p[0]) / g[1]
        finally:
            self._grammar_search(d)

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
            self._grammar_search(d)

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
        self._grammar_search(d)
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
