"""Synthetic multi-channel Stroop games for ``referee bench --games``: a dealer and 2 to 5
players, one mic each, every voice leaking into every other mic, table noise, table talk
between calls, and rounds of every kind the rules distinguish.

The truth is the generator's own: each utterance's start and end are those of the clean
voice alone (the first and last 10 ms frame, 1 ms hop, within 40 dB of its loudest frame),
and the verdicts are the core's (:func:`referee.core.replay.replay`) on those events.

Everything follows from one seed; the voices, sentences and noises are the hearing corpus's
(:mod:`referee.lab.bench.corpus`, :mod:`referee.lab.mixing`), tuning and held-out voices in
separate games. Games are cached as multi-channel WAV files with a JSON file of truth.
"""

from __future__ import annotations

import enum
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from referee.audio.wav import read_wav, resample
from referee.core.cards import Card, full_deck
from referee.core.events import Call, Deal, GameStart
from referee.core.journal import encode, encode_verdict, parse_lines
from referee.core.replay import replay
from referee.lab import mixing, sentences, synth
from referee.lab.bench import corpus
from referee.lab.mixing import RATE

VERSION = 2
"""Bump when the plan or the mixing changes, so old caches are not reused."""

NAMES = ("ann", "bob", "cat", "dan", "eve")
NOISES = ("babble", "clatter", "pink", "reverb")
"""The noise of a game (``reverb``: the voices in a reverberant room, over pink room noise)."""
PARTIALS = ("queen", "hearts", "jack of", "five", "spades", "king of")


class RoundKind(str, enum.Enum):
    """What happens in a round."""

    SINGLE = "single"
    """One qualifying call."""
    RACE = "race"
    """Two qualifying calls, ends 60 to 300 ms apart: the first to finish wins."""
    TIE_START = "tie-start"
    """Ends within 20 ms, starts 80 ms or more apart: the earlier start wins."""
    TIE_DRAW = "tie-draw"
    """Ends within 20 ms and starts within 15 ms: a draw."""
    MISCALL_WIN = "miscall-win"
    """A miscall, then another player's qualifying call wins."""
    INACTIVE_BEATEN = "inactive-beaten"
    """A miscall; the miscaller's later qualifying call finishes first but counts for nothing."""
    RESET = "all-miscalled"
    """Every player miscalls (all are active again), then one wins."""
    PARTIAL = "partial"
    """A partial call ("queen", "jack of") puts its caller out; another player wins."""
    SILENCE = "silence"
    """Nobody calls: the pile carries to the next round."""


class Speech(str, enum.Enum):
    """What an utterance is in the game."""

    DEAL = "deal"
    """The dealer naming the card turned."""
    CALL = "call"
    """A full card called by a player."""
    PARTIAL = "partial"
    """A bare rank, a bare suit or a call cut short."""
    CHATTER = "chatter"
    """Table talk with no card words."""


@dataclass
class Utt:
    """One utterance in a game, with its truth times (seconds, the clean voice's span)."""

    speaker: str
    """``'dealer'`` or a player's name: whose mic it is said into."""
    kind: str
    """A :class:`Speech` value."""
    text: str
    voice: str
    start: float = 0.0
    end: float = 0.0
    file: str = ""
    """The clean utterance in the cache's ``utt`` directory."""
    round: int = 0


@dataclass
class Game:
    """One synthetic game: its table, conditions, utterances and the core's verdicts."""

    id: str
    split: str
    players: list[str]
    voices: dict[str, str]
    """Talker (dealer or player) -> voice id."""
    noise: str
    snr: float
    """dB: each mic's own voice over its noise."""
    kinds: list[str]
    """The kind of each round, in order."""
    leak_db: dict[str, dict[str, float]] = field(default_factory=dict)
    """leak_db[talker][mic]: how far down the talker is on another's mic (dB)."""
    leak_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    mic_gain_db: dict[str, float] = field(default_factory=dict)
    utts: list[Utt] = field(default_factory=list)
    rounds: list[dict] = field(default_factory=list)
    """The core's round objects for the true events (as ``referee replay --json``)."""
    final: dict = field(default_factory=dict)
    duration: float = 0.0
    file: str = ""

    @property
    def channels(self) -> list[str]:
        return ["dealer", *self.players]

    def family(self, talker: str) -> str:
        return self.voices[talker].split(":", 1)[0]

    def log_lines(self) -> list[str]:
        """The true events as a log (a game line, deals and calls)."""
        return [json.dumps(o) for o in (encode(self.start()), *map(encode, self.events()))]

    def start(self) -> GameStart:
        return GameStart("stroop", tuple(self.players), {"tie_window_ms": 40.0}, {})

    def events(self) -> list:
        out: list = []
        for u in self.utts:
            if u.kind == Speech.DEAL:
                out.append(Deal(Card.parse(u.text), round(u.start, 6)))
            elif u.kind in (Speech.CALL, Speech.PARTIAL):
                out.append(Call(u.speaker, u.text, round(u.start, 6), round(u.end, 6)))
        return out


def judge(game: Game) -> None:
    """Fill in ``game.rounds`` and ``game.final`` from the core's verdicts on its events."""
    objs = [encode_verdict(v) for v in replay(parse_lines(game.log_lines()))]
    game.rounds = [o for o in objs if o["type"] == "round"]
    game.final = next(o for o in objs if o["type"] == "final")


# --- Planning ---------------------------------------------------------------------

#: Voices of the unseen development games: the people and the family no model trained on
#: (corpus.DEV_SETS "kept-out" and "pico").
UNSEEN = corpus.DEV_SETS["kept-out"] + corpus.DEV_SETS["pico"]


def unseen_plan(seed: int = 1) -> list[dict]:
    """The tuning games said by voices no model trained on (:data:`UNSEEN`): same rounds,
    talk, noise and SNR, ids ``unseen-NN``; a development set for unseen voices that is never
    a held-out figure (docs/game-benchmark.md)."""
    out = []
    for spec in plan(seed):
        if spec["split"] != "tuning":
            continue
        g = int(spec["id"].rsplit("-", 1)[1])
        rng = mixing.rng_for(seed, f"games/unseen/{g}")
        talkers = rng.permutation(len(UNSEEN))[: len(spec["voices"])]
        out.append({**spec, "id": f"unseen-{g:02d}",
                    "voices": {t: UNSEEN[i].id for t, i in zip(spec["voices"], talkers)}})
    return out


def plan(seed: int = 1, quick: bool = False) -> list[dict]:
    """The games' specs (split, players, voices, noise, SNR, round kinds), deterministic in
    ``seed``: tuning and held-out games alternate; every game has each kind of round once
    (quick: 2 games a split, fewer players)."""
    per_split = 2 if quick else 12
    specs = []
    snr_bands = ((15.0, 25.0), (8.0, 10.0), (10.0, 15.0))
    for split in corpus.SPLITS:
        voices = [v for v in corpus.VOICES if v.split == split]
        for g in range(per_split):
            rng = mixing.rng_for(seed, f"games/{split}/{g}")
            players = 2 + (g % 2 if quick else g % 4)
            talkers = rng.permutation(len(voices))[: players + 1]
            lo, hi = snr_bands[g % 3]
            kinds = [RoundKind(k).value for k in rng.permutation([k.value for k in RoundKind])]
            specs.append({
                "id": f"{split}-{g:02d}", "split": split, "players": list(NAMES[:players]),
                "voices": {t: voices[i].id for t, i in zip(["dealer", *NAMES[:players]], talkers)},
                "noise": NOISES[(g + (split == "held-out")) % len(NOISES)],
                "snr": round(float(rng.uniform(lo, hi)), 1), "kinds": kinds,
                "seed": int(rng.integers(2**31)),
            })
    return specs


def qualifying(top: Card) -> list[Card]:
    """Cards that qualify on ``top``: another rank, the other colour, the same class."""
    return [c for c in full_deck() if c.rank != top.rank and c.colour != top.colour
            and c.is_court == top.is_court]


def miscalls(top: Card) -> list[Card]:
    """Full cards that do not qualify on ``top``."""
    q = set(qualifying(top))
    return [c for c in full_deck() if c not in q]


# --- Synthesis --------------------------------------------------------------------

class Voices:
    """Clean utterances, synthesised once and cached by voice, text, rate and pitch."""

    def __init__(self, directory: Path, workdir: Path) -> None:
        self.dir = directory
        self.workdir = workdir
        self.by_id = {v.id: v for v in (*corpus.VOICES, *UNSEEN)}

    def say(self, voice: str, text: str, rate: float, pitch: int) -> tuple[str, np.ndarray]:
        key = hashlib.sha1(f"{voice}|{text}|{rate:.3f}|{pitch}".encode()).hexdigest()[:16]
        name = f"{key}.wav"
        path = self.dir / name
        if path.exists():
            x, _ = read_wav(path)
            return name, x[:, 0].astype(np.float64)
        x = synth.synthesize(self.by_id[voice], text, rate, pitch, self.workdir)
        synth.write_wav(path, x)
        x, _ = read_wav(path)       # as stored: 16-bit
        return name, x[:, 0].astype(np.float64)

    def stretched(self, name: str, x: np.ndarray, length: int) -> tuple[str, np.ndarray]:
        """``x`` played faster or slower so that its active span is ``length`` samples."""
        a, b = span(x)
        dst = int(round(RATE * length / max(1, b - a)))
        out = f"{name[:-4]}-{dst}.wav"
        path = self.dir / out
        if not path.exists():
            synth.write_wav(path, resample(x.astype(np.float32), RATE, dst).astype(np.float64))
        y, _ = read_wav(path)
        return out, y[:, 0].astype(np.float64)


def span(x: np.ndarray) -> tuple[int, int]:
    """The truth span of a clean utterance: first and last 10 ms frame, 1 ms hop, within
    40 dB of its loudest."""
    return mixing.active_span(x, floor_db=-40.0, frame_s=0.01, hop_s=0.001)


# --- Scheduling -------------------------------------------------------------------

@dataclass
class Placed:
    """A clean utterance ready to place: its samples and truth span within them."""

    name: str
    x: np.ndarray
    a: int
    b: int

    @property
    def length(self) -> float:
        return (self.b - self.a) / RATE


def talk_settings(spec: dict, rng: np.random.Generator | None = None
                  ) -> dict[str, tuple[float, int]]:
    """Each talker's speaking rate and pitch shift (cents) for the whole game: the first
    draws of the game's own generator (``rng``, or a new one from the spec's seed)."""
    rng = rng if rng is not None else np.random.default_rng(spec["seed"])
    return {t: (round(float(rng.uniform(0.9, 1.15)), 2), int(rng.integers(-200, 201)) // 50 * 50)
            for t in spec["voices"]}


class Schedule:
    """Lays out one game's utterances on the shared clock."""

    def __init__(self, spec: dict, voices: Voices) -> None:
        self.spec = spec
        self.voices = voices
        self.rng = np.random.default_rng(spec["seed"])
        self.talk = talk_settings(spec, self.rng)
        self.utts: list[Utt] = []
        self.expect: list[dict] = []

    def prepare(self, talker: str, text: str) -> Placed:
        rate, pitch = self.talk[talker]
        name, x = self.voices.say(self.spec["voices"][talker], text, rate, pitch)
        return Placed(name, x, *span(x))

    def fit(self, p: Placed, length: float) -> Placed:
        """``p`` stretched so its span lasts ``length`` seconds."""
        name, x = self.voices.stretched(p.name, p.x, int(round(length * RATE)))
        return Placed(name, x, *span(x))

    def put(self, talker: str, kind: Speech, text: str, p: Placed, at: float, rnd: int) -> Utt:
        s = round(at * RATE)
        u = Utt(talker, kind.value, text, self.spec["voices"][talker], start=s / RATE,
                end=(s + p.b - p.a) / RATE, file=p.name, round=rnd)
        self.utts.append(u)
        return u

    def call(self, talker: str, card: Card | str, at: float, rnd: int,
             p: Placed | None = None) -> Utt:
        text = card.spoken if isinstance(card, Card) else card
        kind = Speech.CALL if isinstance(card, Card) else Speech.PARTIAL
        return self.put(talker, kind, text, p or self.prepare(talker, text), at, rnd)

    def pick(self, cards: list[Card]) -> Card:
        return cards[int(self.rng.integers(len(cards)))]

    def lay_out(self) -> float:
        """Every round and the talk between them; returns the game's length, seconds."""
        rng, players = self.rng, self.spec["players"]
        deck = [full_deck()[i] for i in rng.permutation(52)]
        t = float(rng.uniform(0.6, 1.2))
        for rnd, kind in enumerate(self.spec["kinds"], start=1):
            top = deck[rnd - 1]
            deal = self.put("dealer", Speech.DEAL, top.spoken,
                            self.prepare("dealer", top.spoken), t, rnd)
            t0 = deal.end + float(rng.uniform(0.35, 0.9))
            order = [players[i] for i in rng.permutation(len(players))]
            end, winner = self.round(RoundKind(kind), top, order, t0, rnd)
            self.expect.append({"round": rnd, "kind": kind, "top": str(top), "winner": winner})
            t = max(end, t0) + float(rng.uniform(0.7, 1.3))
            if rng.random() < 0.6:
                who = self.pick_player(order)
                text = str(rng.choice(sentences.CHATTER[self.spec["split"]]))
                u = self.put(who, Speech.CHATTER, text, self.prepare(who, text), t, rnd)
                t = u.end + float(rng.uniform(0.6, 1.1))
        return t + 1.0

    def pick_player(self, order: list[str]) -> str:
        return order[int(self.rng.integers(len(order)))]

    def round(self, kind: RoundKind, top: Card, order: list[str], t0: float, rnd: int
              ) -> tuple[float, str | None]:
        """Say one round's calls from ``t0``; returns (when the last ends, expected winner)."""
        rng = self.rng
        a, b = order[0], order[1]
        gap = lambda: float(rng.uniform(0.2, 0.5))          # noqa: E731
        if kind == RoundKind.SILENCE:
            return t0, None
        if kind == RoundKind.SINGLE:
            return self.call(a, self.pick(qualifying(top)), t0, rnd).end, a
        if kind == RoundKind.RACE:
            ca, cb = self.pick(qualifying(top)), self.pick(qualifying(top))
            pa, pb = self.prepare(a, ca.spoken), self.prepare(b, cb.spoken)
            ea = t0 + pa.length
            eb = ea + float(rng.uniform(0.06, 0.3))
            shift = max(0.0, t0 - (eb - pb.length))
            self.call(a, ca, t0 + shift, rnd, pa)
            self.call(b, cb, eb - pb.length + shift, rnd, pb)
            return eb + shift, a
        if kind in (RoundKind.TIE_START, RoundKind.TIE_DRAW):
            return self.tie(kind, top, a, b, t0, rnd)
        if kind == RoundKind.MISCALL_WIN:
            u = self.call(a, self.pick(miscalls(top)), t0, rnd)
            return self.call(b, self.pick(qualifying(top)), u.end + gap(), rnd).end, b
        if kind in (RoundKind.INACTIVE_BEATEN, RoundKind.PARTIAL):
            first = (self.pick(miscalls(top)) if kind == RoundKind.INACTIVE_BEATEN
                     else str(rng.choice(PARTIALS)))
            u = self.call(a, first, t0, rnd)
            ua = self.call(a, self.pick(qualifying(top)), u.end + gap(), rnd)
            pb = self.prepare(b, (cb := self.pick(qualifying(top))).spoken)
            eb = ua.end + float(rng.uniform(0.1, 0.35))
            return self.call(b, cb, eb - pb.length, rnd, pb).end, b
        if kind == RoundKind.RESET:
            t = t0
            for p in order:
                t = self.call(p, self.pick(miscalls(top)), t, rnd).end + gap()
            return self.call(order[-1], self.pick(qualifying(top)), t, rnd).end, order[-1]
        raise ValueError(f"no such round kind: {kind!r}")

    def tie(self, kind: RoundKind, top: Card, a: str, b: str, t0: float, rnd: int
            ) -> tuple[float, str | None]:
        """Two qualifying calls ending within 20 ms, begun 80 ms or more apart (TIE_START) or
        within 15 ms (TIE_DRAW). Of six cards for ``b``, the one whose length needs the least
        change is taken; any change is shared by both calls (played a little faster or
        slower; their truth is measured after)."""
        rng = self.rng
        ca = self.pick(qualifying(top))
        pa = self.prepare(a, ca.spoken)
        if kind == RoundKind.TIE_START:
            de, ds, want = float(rng.uniform(-0.018, 0.018)), 0.0, None
        else:
            de, ds, want = 0.0, float(rng.uniform(-0.008, 0.008)), float(rng.uniform(-0.006, 0.006))
        best = None
        for cb in [self.pick(qualifying(top)) for _ in range(6)]:
            pb = self.prepare(b, cb.spoken)
            la, lb = pa.length, pb.length
            d = lb - la
            if want is None:      # lengths 100 to 350 ms apart: starts >= 80 ms apart
                d = float(np.sign(d) or 1.0) * min(max(abs(d), 0.105), 0.35)
            else:
                d = want
            mid = (la + lb) / 2
            la2, lb2 = mid - d / 2, mid + d / 2
            if want is None and 0.105 <= abs(lb - la) <= 0.35:
                la2, lb2 = la, lb
            cost = max(abs(np.log(la2 / la)), abs(np.log(lb2 / lb)))
            if best is None or cost < best[0]:
                best = (cost, cb, pb, la2, lb2)
        _, cb, pb, la2, lb2 = best
        if abs(la2 - pa.length) > 0.0005:
            pa = self.fit(pa, la2)
        if abs(lb2 - pb.length) > 0.0005:
            pb = self.fit(pb, lb2)
        ea = t0 + pa.length
        sb = (ea + de - pb.length) if kind == RoundKind.TIE_START else t0 + ds
        shift = max(0.0, t0 - sb)
        ua = self.call(a, ca, t0 + shift, rnd, pa)
        ub = self.call(b, cb, sb + shift, rnd, pb)
        first = a if ua.start < ub.start else b
        return max(ua.end, ub.end), (first if kind == RoundKind.TIE_START else None)
