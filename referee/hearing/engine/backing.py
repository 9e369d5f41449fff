"""The classifier backing policy: :class:`Backed`, the phrase classifier and
the suit check beside a decoder, and when each is believed."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import numpy as np

from referee.core.events import CALLS_AND_SHOUTS, UtteranceKind
from referee.core.numbers import number_words, parse_number
from referee.hearing.classifier import OTHER, ClassifierError, PhraseClassifier
from referee.hearing.engine.base import EngineError
from referee.hearing.grammar import Grammar, Match
from referee.hearing.number_check import TOP, NumberCheck
from referee.hearing.partial_check import PartialCheck
from referee.hearing import play_check
from referee.hearing.suits import SuitCheck

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

#: What the phrase classifier may hear: calls, shouts, and prizes named as cards (GOPS's
#: standard set-up: "queen of diamonds"; docs/gops-hearing.md).
CLASSIFIED_KINDS = CALLS_AND_SHOUTS | {UtteranceKind.PRIZE}


@dataclasses.dataclass(frozen=True)
class Backing:
    """The settings of the classifier backing (see :class:`Backed`), made once
    and shared: when the classifier, the suit check and the decoder are each
    believed. Why these values: docs/hearing-decisions.md, docs/partial-calls.md."""

    accept: float = 0.5
    """The classifier's bar for a call or shout at a segment's close."""
    support: float = 0.02
    """Under this from the classifier, the decoder's call or shout is not believed."""
    early: float | None = 0.8
    """The classifier's bar for a call or shout in a segment still open (None: never)."""
    sure: float | None = 0.9
    """From this on, a call or shout needs only :data:`SURE_VOICED_RUN` voiced steps."""
    decide_at_pause: bool = True
    """Whether a call or shout is decided at a short pause in a segment."""
    pause_support: float = 0.15
    """What the decoder's call decided at a pause needs from the classifier."""
    pause_accept: float = 0.6
    """The classifier's bar for a call or shout decided at a short pause."""
    hang: float = 0.21
    """Seconds of pause that close a segment in quiet."""
    hang_noisy: float = 0.36
    """Seconds of pause that close a segment in loud noise."""
    max_outside: float = 0.12
    """Seconds of voiced sound a phrase may leave outside it."""
    suit_bar: float = 0.03
    """What the suit check must give a card call's suit (see :meth:`Backed.suit_holds`)."""
    partial_doubt: float = 0.2
    """A partial call stands only if the classifier gives no full call this much."""
    partial_span: float = 0.7
    """Seconds a partial call's loud part may last, at most; or its speech
    (:func:`checks.speech_span`: noise at a cut keeps the loud part going) where the
    partial-call check gives it ``partial_sure`` or more."""
    partial_sure: float = 0.98
    """See ``partial_span`` (docs/partial-calls.md, session 48)."""
    partial_outside: float = 0.03
    """Seconds of voiced sound a partial call may leave outside it."""
    partial_take: float | None = 0.5
    """From this on from the partial-call check, the decoder's partial call stands without
    the decoder's own checks of it (None: never)."""
    partial_veto: float | None = 0.15
    """Under this from the partial-call check, the decoder's partial call does not stand."""
    partial_alone: float | None = 0.7
    """The partial-call check's bar for a partial call the decoder did not read (None: never)."""
    partial_rest: float | None = 0.95
    """The partial-call check's bar for a partial call in the rest of a segment decided while
    open, read by the decoder or not (None: never; see
    :class:`referee.hearing.engine.segment_stream.SegmentStream`)."""
    bid_alone: float | None = 0.9
    """The partial-call check's bar for a bare bid (GOPS: "seven"), read as the bare rank it
    hears, over the decoder's bare bid or no phrase (None: never; docs/gops-hearing.md)."""
    bid_rank: float | None = 0.7
    """The partial-call check's bar for the rank of a bid of several words ("ann six", "I bid
    six") as it hears the last word alone: over the decoder's rank, or vouching for the
    decoder's rejected reading when it is the same (None: never; docs/gops-hearing.md)."""
    number_take: float | None = 0.5
    """The number check's bar for its own number over the decoder's (None: never)."""
    number_support: float | None = 0.05
    """Under this from the number check, the decoder's number is not believed."""
    number_alone: float | None = 0.7
    """The number check's bar for a number where the decoder read no phrase, or read one the
    check does not believe (None: never)."""
    number_sure: float | None = 0.5
    """From this on from the number check, a number the decoder read (or the check's own in
    its place) stands without the decoder's checks of its words (their lengths, speech
    outside them), over the segment's loud part (None: never)."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name == "decide_at_pause":
                v = bool(v)
            elif v is not None:
                v = float(v)
            object.__setattr__(self, f.name, v)

    def with_options(self, options: dict) -> Backing:
        """These settings with those that ``options`` names taken out of it
        (``options`` keeps the rest: settings of the decoder)."""
        mine = {f.name: options.pop(f.name) for f in dataclasses.fields(self)
                if f.name in options}
        return dataclasses.replace(self, **mine) if mine else self


def _check(kind, given, wanted: bool):
    """The check of class ``kind`` (the suit, number or partial-call check) as ``given``:
    True for the one in models/, a path, a loaded one, or False or None for none; None too
    when it is not ``wanted`` (nothing for it to hear). A file that is no such check is an
    :class:`EngineError` naming it."""
    if not wanted or given in (False, None):
        return None
    if isinstance(given, kind):
        return given
    try:
        return kind.load(None if given is True else given)
    except ClassifierError as e:
        raise EngineError(str(e)) from None


#: The backing of PocketSphinx, the engine used unless a Vosk model is found.
BACKING = Backing()

#: The backing of Vosk: as PocketSphinx's, but partial calls are checked as
#: they were before those settings were tuned (on PocketSphinx only).
VOSK_BACKING = Backing(partial_span=1.0, partial_outside=0.12)


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
    the suit ``suit_bar`` or more, see :meth:`suit_holds`). Where the Goop
    count's numbers are listened for, the number check weighs the decoder's
    number (:meth:`number_heard`) and may find one the decoder did not read
    (:meth:`number_alone`). These settings are the engine's ``backing``
    (:class:`Backing`). With Swoop's grammar, Swoop's play check
    (:mod:`referee.hearing.play_check`) is the classifier, there is no suit check, and
    nothing is decided before a segment ends."""

    name = "backed"
    rate = 16000
    grammar: Grammar
    swoop = False
    """Whether the grammar is Swoop's (see :meth:`_back`)."""
    hearing: frozenset[str] | None = None
    """The grammar's kinds listened for now (see :meth:`listen_for`); None: all of them."""

    def listen_for(self, kinds: Iterable[str] | None) -> None:
        """Hear only the grammar's phrases of ``kinds`` from the next segment on (None: all
        of them); the kinds the grammar lacks are left out. A phrase of another kind is
        heard as talk ("unknown"). :class:`EngineError` if the grammar has none of them."""
        if kinds is None:
            self.hearing = None
            return
        ks = frozenset(kinds) & self.grammar.kinds
        if not ks:
            raise EngineError(f"grammar {self.grammar.name!r} has no phrases of the kinds "
                              f"{', '.join(sorted(kinds))}")
        self.hearing = None if ks == self.grammar.kinds else ks

    @property
    def classifying(self) -> bool:
        """Whether the classifier hears the segments now: always beside calls or shouts; in a
        grammar with neither (GOPS), only while its phrases' kind is listened for (prizes),
        so that bids are decoded as without it (docs/gops-hearing.md)."""
        if self.classifier is None:
            return False
        return bool(self.grammar.kinds & CALLS_AND_SHOUTS) or any(
            k is not None and self.listened(k) for k in self.phrase_kinds.values())

    def listened(self, kind: str) -> bool:
        """Whether phrases of ``kind`` are listened for now (see :meth:`listen_for`)."""
        return self.hearing is None or kind in self.hearing

    def _back(self, classifier: PhraseClassifier | str | bool, suits: SuitCheck | str | bool,
              backing: Backing, numbers: NumberCheck | str | bool = True,
              partials: PartialCheck | str | bool = True) -> None:
        """Load the classifier, the suit check and (where numbers are listened for) the
        number check (see :class:`Backed`) and keep ``backing``, the settings that say
        when each is believed."""
        self.backing = backing
        if classifier is False:
            # The decoder alone: no check of the classifier's kind unless one is named.
            numbers = False if numbers is True else numbers
            partials = False if partials is True else partials
        #: The number check (see :mod:`referee.hearing.number_check`), or None: the
        #: count's answers (0-52) only, Swoop's totals (0-199) are not what it knows.
        self.numbers = _check(NumberCheck, numbers, "number" in self.grammar.kinds
                              and self.grammar.name == "table")
        #: The partial-call check (see :mod:`referee.hearing.partial_check`), or None: for
        #: partial calls, and for GOPS's bare bids, which are bare ranks.
        self.partials = _check(PartialCheck, partials,
                               bool({"partial", "bid"} & self.grammar.kinds))
        #: Swoop's grammar: its play check stands in for the phrase classifier, and a turn
        #: game needs no haste, so nothing is decided before a segment ends.
        self.swoop = swoop = self.grammar.name == play_check.GRAMMAR
        if swoop:
            self.backing = dataclasses.replace(backing, early=None, decide_at_pause=False)
        self.classifier = self._load_classifier(classifier, swoop)
        #: The kind of each of the classifier's phrases in this grammar (None: not in it).
        self.phrase_kinds = {} if self.classifier is None else {
            name: getattr(self.grammar.match(name), "kind", None)
            for name in self.classifier.classes}
        if not any(k in CLASSIFIED_KINDS for k in self.phrase_kinds.values()):
            # None of its phrases is one of this grammar's calls, shouts or prizes.
            self.classifier, self.phrase_kinds = None, {}
        #: The suit check (see :mod:`.suits`), beside the classifier.
        self.suits = _check(SuitCheck, suits, self.classifier is not None and not swoop)

    def partial_holds(self, probs: dict[str, float] | None, span: float) -> bool:
        """Whether a partial call the decoder found may
        stand: it lasts ``partial_span`` seconds at most (and no more
        than ``partial_outside`` seconds of voiced sound lie outside it, which
        the caller checks), and the
        classifier (``probs``) gives no full call or shout ``partial_doubt``
        or more (a call whose suit sank under noise is no miscall)."""
        if span > self.backing.partial_span:
            return False
        if probs is None:
            return True
        doubt = max((v for name, v in probs.items() if name != OTHER), default=0.0)
        return doubt < self.backing.partial_doubt

    def number_probabilities(self, samples: np.ndarray) -> dict[int | None, float] | None:
        """The number check's probabilities for a segment's ``samples`` (asked once per
        segment, for :meth:`number_heard` and :meth:`number_alone`), or None with no check."""
        return None if self.numbers is None else self.numbers.probabilities(samples)

    def number_heard(self, m: Match | None, p: dict[int | None, float] | None
                     ) -> tuple[Match | None, float]:
        """The number the decoder read (``m``, a match of kind ``number``) weighed
        against the number check's probabilities ``p`` for the segment: the check's own
        number when it gives that ``number_take`` or more ("fourteen" read as
        "forty"), None when it gives the decoder's under ``number_support`` (talk
        forced onto a number), else ``m``; and the check's probability of the number
        given (0 when there is none). A correction stays one. Anything but a number,
        or with no number check (``p`` None), is ``m`` as it is."""
        if p is None or m is None or m.kind != "number":
            return m, 0.0
        read = parse_number(m.said)
        if read is None or read.value > TOP:
            return m, 0.0
        best = max(p, key=p.get)
        take, support = self.backing.number_take, self.backing.number_support
        if best is not None and best != read.value and take is not None and p[best] >= take:
            return self.grammar.match(("no " if read.correction else "") + number_words(best)), \
                p[best]
        if support is not None and p.get(read.value, 0.0) < support:
            return None, 0.0
        return m, p.get(read.value, 0.0)

    def number_alone(self, p: dict[int | None, float] | None) -> tuple[Match, float] | None:
        """The number the number check gives ``number_alone`` or more (``p``: its
        probabilities for a segment where the decoder read no phrase, or one it does not
        believe), with its probability; None when it is not that sure, or there is no
        number check (``p`` None)."""
        if p is None or self.backing.number_alone is None:
            return None
        best = max(p, key=p.get)
        if best is None or p[best] < self.backing.number_alone:
            return None
        m = self.grammar.match(number_words(best))
        return None if m is None or m.kind != "number" else (m, p[best])

    def classifier_decides(self) -> bool:
        """Whether a phrase the classifier is sure of is heard without asking the decoder:
        not with Swoop's play check while totals are listened for (it knows none, and took
        "thirty" for a one-card report of a seven)."""
        return not (self.swoop and self.listened("number"))

    def suit_holds(self, said: str, kind: str, samples: np.ndarray, end: float) -> bool:
        """Whether a call ``said`` that ends ``end`` seconds into ``samples``
        ends with its suit word, as the suit check hears it (it gives that
        suit ``suit_bar`` or more): "six of one" taken for "six of clubs"
        does not. Anything but a card call or a prize named as a card
        (``kind``, as the grammar has it), or with no suit check, holds."""
        if self.suits is None or kind not in ("call", "prize") \
                or said.split()[-1] not in self.suits.model.classes:
            return True
        return self.suits.probability(said, samples, end, self.rate) >= self.backing.suit_bar

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
            what = "Swoop play check" if self.swoop else "phrase classifier"
            out += f" + {what} ({self.classifier.path})"
            if self.suits is not None:
                out += f" + suit check ({self.suits.path})"
        if self.numbers is not None:
            out += f" + number check ({self.numbers.path})"
        if self.partials is not None:
            out += f" + partial-call check ({self.partials.path})"
        model = getattr(self, "model_path", None)
        return out + (f"; model {model}" if model else "")

    def _load_classifier(self, classifier, swoop: bool = False) -> PhraseClassifier | None:
        """The phrase classifier (``True``: the one in models/; ``swoop``: Swoop's play
        check), or None when it is turned off or there are no calls, shouts or prizes to
        listen for."""
        if classifier is False or classifier is None \
                or not self.grammar.kinds & CLASSIFIED_KINDS:
            return None
        if isinstance(classifier, PhraseClassifier):
            return classifier
        try:
            if swoop:
                return play_check.load(None if classifier is True else classifier)
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
            kind = self.phrase_kinds.get(name)
            if kind in CLASSIFIED_KINDS and self.listened(kind):
                probs[name] = float(q)
            else:
                probs[OTHER] += float(q)
        best = max(probs, key=probs.get)
        return best, probs[best], probs

    def min_voiced_run(self, q: float) -> int:
        """How many voiced 10 ms steps in a row a call or shout needs when the
        classifier gives it probability ``q`` (see :data:`SURE_VOICED_RUN`)."""
        if self.backing.sure is not None and q >= self.backing.sure:
            return SURE_VOICED_RUN
        return MIN_VOICED_RUN

    def ruled_out(self, said: str, probs: dict[str, float] | None) -> bool:
        """Whether the classifier all but rules out the phrase ``said`` (its
        probability in ``probs`` is under ``support``): the decoder's finding
        it does not count."""
        return probs is not None and said in probs and probs[said] < self.backing.support
