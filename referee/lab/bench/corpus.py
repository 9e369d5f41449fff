"""The benchmark corpus: card calls, "goop", commands and negatives spoken by
several offline TTS engines (espeak-ng, flite, festival), mixed with noise at
clean, 20, 10 and 5 dB SNR, cached on disk as 16 kHz mono WAV files.

The voices fall into two disjoint sets: ``tuning`` (free to look at while
improving the recogniser) and ``held-out`` (other engines' voices, other
speakers, other sentences, other noise seeds), reported separately.

Everything follows from one seed: ``plan(seed)`` lists the items and every
random choice; ``build(items, dir)`` synthesises and mixes the ones not yet on
disk. The speech itself comes from the TTS programs, which are deterministic.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from referee.audio import wav
from referee.core.cards import full_deck
from referee.core.errors import RefereeError
from referee.lab.bench import mixing
from referee.lab.bench.mixing import RATE

VERSION = 4
"""Bump when the plan or the mixing changes, so old caches are not reused."""

SPLITS = ("tuning", "held-out")
SNRS = ("clean", "20", "10", "5")
"""SNR buckets, as strings (they are keys in reports)."""

NOISE_KINDS = mixing.NOISE_KINDS


class CorpusError(RefereeError, RuntimeError):
    """The corpus could not be made (a TTS program missing or failing)."""


@dataclass(frozen=True)
class Voice:
    """One TTS voice."""

    engine: str
    """``'espeak-ng'``, ``'flite'``, ``'festival'`` or ``'pico'``: the voice family."""
    name: str
    """The engine's name for it, e.g. ``'en-gb-scotland+m2'``, ``'awb'``."""
    split: str
    """``'tuning'`` or ``'held-out'``."""

    @property
    def id(self) -> str:
        return f"{self.engine}:{self.name}"


# Tuning and held-out voices share no speaker: Kal (flite kal/kal16, festival
# kal_diphone) is tuning; AWB, RMS and SLT (flite, festival HTS) are held out;
# espeak-ng's accents and variants are split between the two.
VOICES: tuple[Voice, ...] = (
    Voice("espeak-ng", "en-us+m3", "tuning"),
    Voice("espeak-ng", "en-gb+f2", "tuning"),
    Voice("espeak-ng", "en-gb-x-gbclan+m5", "tuning"),
    Voice("espeak-ng", "en-us+f3", "tuning"),
    Voice("espeak-ng", "en-gb-x-gbcwmd+m1", "tuning"),
    Voice("flite", "kal16", "tuning"),
    Voice("flite", "kal", "tuning"),
    Voice("festival", "kal_diphone", "tuning"),
    Voice("espeak-ng", "en-gb-scotland+m2", "held-out"),
    Voice("espeak-ng", "en-029+f4", "held-out"),
    Voice("espeak-ng", "en-us-nyc+m7", "held-out"),
    Voice("espeak-ng", "en-gb-x-rp+f1", "held-out"),
    Voice("flite", "awb", "held-out"),
    Voice("flite", "rms", "held-out"),
    Voice("flite", "slt", "held-out"),
    Voice("festival", "cmu_us_slt_arctic_hts", "held-out"),
)

#: The near-miss development set: sentences with card or shout words that are no call (none
#: of them the benchmark's), each said by tuning and development voices of every family.
PROBE_NEAR_MISSES = (
    "king in the castle", "queen in the garden", "two in the morning", "nine in the evening",
    "five in a row", "ace in the hole", "seven dwarfs", "three musketeers", "ten pounds please",
    "four seasons", "six pack of beer", "eight legs on a spider", "diamond ring",
    "club sandwich", "heart attack", "the queen is dead", "the king is here", "two of them",
    "four of my friends", "six of one", "I have two hearts", "you have five diamonds",
    "only three clubs left", "a jack of all trades", "queen of the night", "king of kings",
    "ace of cakes", "jack and jill", "the jack was wild", "nine lives", "ten to one",
    "the ace of it", "hearts and minds", "seven of us", "queen bee", "king size bed",
    "three of a kind", "a pair of kings", "that is a good hoop", "go up the stairs",
    "scoop it up", "the soup is cold")

#: Development sets (``referee bench --dev SET``), to choose settings on without looking at
#: the held-out voices: the tuning split's sentences, noises and seeds said by voices the
#: benchmark does not use, or (near-miss) :data:`PROBE_NEAR_MISSES`. Their items are tuning
#: items, so they are never a held-out figure.
#: They need Debian's non-free voices: mbrola mbrola-us1 mbrola-us2 mbrola-us3 mbrola-en1
#: festvox-us1 festvox-us2 festvox-us3 festvox-en1 festvox-don festvox-rablpc16k
#: libttspico-utils.
DEV_SETS: dict[str, tuple[Voice, ...]] = {
    # diphone recordings of five people; the phrase classifier trained on us1, us3 and RAB
    "diphone": tuple(Voice(e, n, "tuning") for e, n in (
        ("espeak-ng", "mb-us1"), ("espeak-ng", "mb-us2"), ("espeak-ng", "mb-us3"),
        ("espeak-ng", "mb-en1"), ("festival", "rab_diphone"), ("festival", "don_diphone"),
        ("festival", "us1_mbrola"), ("festival", "en1_mbrola"))),
    # only those of the diphone people it never trained on
    "kept-out": tuple(Voice(e, n, "tuning") for e, n in (
        ("espeak-ng", "mb-us2"), ("festival", "us2_mbrola"), ("espeak-ng", "mb-en1"),
        ("festival", "en1_mbrola"), ("festival", "don_diphone"))),
    # SVOX Pico, a family nothing trained on (``-low``: 5 semitones down)
    "pico": tuple(Voice("pico", n, "tuning")
                  for n in ("en-US", "en-GB", "en-US-low", "en-GB-low")),
    # talk with card words that is no call (PROBE_NEAR_MISSES), by voices of every family
    "near-miss": tuple(Voice(e, n, "tuning") for e, n in (
        ("espeak-ng", "en-us+m3"), ("espeak-ng", "en-gb+f2"), ("flite", "kal"),
        ("festival", "kal_diphone"), ("pico", "en-US"), ("pico", "en-GB"),
        ("espeak-ng", "mb-us2"), ("festival", "don_diphone"))),
}


def voices_for(dev: str | None = None) -> tuple[Voice, ...]:
    """The benchmark's voices, or with ``dev`` those of that development set in place of
    the tuning voices."""
    if dev is None:
        return VOICES
    if dev not in DEV_SETS:
        raise CorpusError(f"no development set {dev!r}: choose from {', '.join(DEV_SETS)}")
    return DEV_SETS[dev] + tuple(v for v in VOICES if v.split != "tuning")


def plan_for(seed: int = 1, dev: str | None = None) -> list[Item]:
    """The items of the benchmark (``dev`` None) or of a development set."""
    if dev == "near-miss":
        return plan_near_misses(seed)
    return plan(seed, voices_for(dev))


def plan_near_misses(seed: int = 77) -> list[Item]:
    """The near-miss development set: every sentence of :data:`PROBE_NEAR_MISSES` said by
    each of its voices, conditions in turn over the SNRs and noises."""
    items: list[Item] = []
    for vi, voice in enumerate(DEV_SETS["near-miss"]):
        rng = mixing.rng_for(seed, f"probe/{voice.id}")
        for text in PROBE_NEAR_MISSES:
            snr, noise = _snr_noise(len(items), vi)
            items.append(Item(id=f"probe-{len(items):04d}", split="tuning",
                              category="near-miss", text=text, expect=None, voice=voice.id,
                              family=voice.engine, snr=snr, noise=noise, **_delivery(rng)))
    return items


GOOP_TEXTS = ("goop", "goop!")

#: (what is said, the canonical command the grammar should return).
COMMANDS = {
    "tuning": (("referee score", "score"), ("say that again", "repeat"),
               ("referee undo", "undo"), ("referee new game", "new game")),
    "held-out": (("what's the score", "score"), ("referee repeat", "repeat"),
                 ("referee end game", "end"), ("referee pause", "pause")),
}

#: Talk with no card words in it.
CHATTER = {
    "tuning": (
        "pass me the water please", "did you see the match last night",
        "hold on a second", "I think it might rain later",
        "where did you park the car", "that was a long week",
        "can I have some of those crisps", "my sister is coming over tomorrow",
    ),
    "held-out": (
        "who wants another drink", "let me sit over there",
        "I forgot my glasses at home", "it is getting late already",
        "the kettle has just boiled", "we should do this more often",
        "turn the music down a bit", "have you finished your homework",
    ),
}

#: Card and shout words in sentences that are not calls.
NEAR_MISSES = {
    "tuning": (
        "I have four hearts", "queen of the castle", "hearts are red",
        "king of the hill", "diamonds are forever", "the two of us",
        "a good group", "seven days a week",
    ),
    "held-out": (
        "jack in the box", "spades are for digging", "she is the queen",
        "ten out of ten", "my heart is yours", "three clubs in town",
        "the goose is loose", "an ace up my sleeve",
    ),
}

#: Talk addressed to the referee that is no command (and no card words).
ADDRESSED = {
    "tuning": (
        "referee who won that one", "referee he cheated", "referee it is my go",
        "referee that was a foul", "referee are you listening", "referee what happened there",
        "referee look at this", "referee hold on a minute",
    ),
    "held-out": (
        "referee is that allowed", "referee she peeked at the deck",
        "referee how many points do I have", "referee was that fair",
        "referee tell him to stop", "referee I think you missed one",
        "referee what are the rules", "referee can you speak up",
    ),
}

#: Partial calls, (what is said, the canonical partial call): a bare rank or suit, or a
#: call cut short. A miscall in Stroop.
PARTIALS = {
    "tuning": (("queen", "queen"), ("five", "five"), ("hearts", "hearts"),
               ("jack of", "jack of"), ("ten", "ten"), ("spades", "spades"),
               ("king", "king"), ("seven of", "seven of")),
    "held-out": (("nine", "nine"), ("clubs", "clubs"), ("queen of", "queen of"),
                 ("six", "six"), ("diamonds", "diamonds"), ("jack", "jack"),
                 ("eight", "eight"), ("three of", "three of")),
}

#: Table talk with a bare rank or suit in it, that must not become a partial call.
PARTIAL_CHATTER = {
    "tuning": (
        "I have four kids", "five minutes", "hearts are trumps", "queen of the castle",
        "give me five", "the king is tired", "seven o'clock", "two more",
        "spades for the garden", "ace it",
    ),
    "held-out": (
        "three more minutes", "diamonds are trumps", "I saw the queen", "nine o'clock",
        "four of us went", "the jack is loose", "clubs are open late", "six is enough",
        "give it ten", "eight of them came",
    ),
}

#: What the babble talkers say (no card, shout or command words).
BABBLE = {
    "tuning": (
        "so anyway we drove all the way to the coast", "no I never said that",
        "the train was late again this morning", "she bought a new bike last month",
        "what are you doing at the weekend", "I really like this song",
    ),
    "held-out": (
        "then he told me the whole story again", "maybe we could go out for dinner",
        "the garden looks lovely this time of year", "I am not sure that is right",
        "they moved to a bigger flat in town", "could you open the window",
    ),
}


@dataclass
class Item:
    """One corpus item: what is said, by whom, in what noise, and the result
    of mixing it (filled in by ``build``)."""

    id: str
    split: str
    category: str
    """``'call'``, ``'shout'``, ``'command'``, ``'partial'`` (a bare rank or suit, or a
    call cut short), ``'chatter'``, ``'near-miss'``, ``'noise'``, ``'addressed'`` or
    ``'partial-chatter'`` (the last five are negatives; ``'addressed'`` is talk to the
    referee that is no command, "referee, who won that one"; ``'partial-chatter'``, talk
    with a bare rank or suit in it, "five minutes")."""
    text: str
    """What the voice says ('' for noise only)."""
    expect: str | None
    """The canonical phrase a correct recogniser returns; None for negatives."""
    voice: str
    """Voice id (``'flite:awb'``), or '' for noise only."""
    family: str
    """TTS engine, or '' for noise only."""
    snr: str
    """``'clean'``, ``'20'``, ``'10'`` or ``'5'``."""
    noise: str
    """``'babble'``, ``'clatter'``, ``'pink'``, ``'white'``; for clean items
    ``'silence'`` (digital zeros) or ``'room'`` (pink noise 50 dB down)."""
    rate: float
    """Speaking-rate factor (1 = the voice's default)."""
    pitch: int
    """Pitch shift, cents."""
    peak_dbfs: float
    """Peak level of the speech (noise only: RMS level of the noise)."""
    lead: float
    """Seconds of lead-in before the speech."""
    trail: float
    """Seconds after the speech."""
    seed: int
    file: str = ""
    """Path of the WAV, relative to the corpus directory."""
    speech_start: float = 0.0
    """Seconds: start of the speech's active span in the file."""
    speech_end: float = 0.0
    """Seconds: end of the speech's active span in the file."""
    duration: float = 0.0
    """Seconds: length of the file."""
    snr_measured: float | None = None
    """dB, measured on the mixed components (None when there is no noise)."""
    extra: dict = field(default_factory=dict)

    @property
    def negative(self) -> bool:
        return self.expect is None


def _snr_noise(i: int, offset: int) -> tuple[str, str]:
    snr = SNRS[i % 4]
    if snr == "clean":
        return snr, ("silence", "room")[(i // 4 + offset) % 2]
    return snr, NOISE_KINDS[(i // 4 + offset) % 4]


def _delivery(rng: np.random.Generator) -> dict:
    """How one sentence is said and placed: rate, pitch, level, lead-in,
    trail and mixing seed, drawn in that order."""
    return dict(rate=round(float(rng.uniform(0.85, 1.2)), 3),
                pitch=int(rng.integers(-300, 301)),
                peak_dbfs=round(float(rng.uniform(-26, -3)), 1),
                lead=round(float(rng.uniform(0.3, 1.5)), 3),
                trail=round(float(rng.uniform(0.8, 1.6)), 3),
                seed=int(rng.integers(2**31)))


def plan(seed: int = 1, voices: tuple[Voice, ...] = VOICES) -> list[Item]:
    """Every item of the corpus of ``voices``, deterministic in ``seed``. Per voice: the 52
    cards (13 per SNR bucket), "goop" 8 times, 4 commands, 4 chatter and 4
    near-miss negatives; per split, 26 noise-only items; then per voice 4
    sentences addressed to the referee (drawn apart, so the items before them
    are as in version 3); then per voice its split's 8 partial calls ("queen", "jack of")
    and 10 sentences of table talk with bare card words ("five minutes"), drawn apart
    too, so that the items before them, and a cache of them, are as before."""
    items: list[Item] = []
    deck = [c.spoken for c in full_deck()]
    for split in SPLITS:
        n = 0

        def add(**kw) -> None:
            nonlocal n
            items.append(Item(id=f"{split}-{n:04d}", split=split, **kw))
            n += 1

        speakers = [v for v in voices if v.split == split]
        for vi, voice in enumerate(speakers):
            rng = mixing.rng_for(seed, f"plan/{voice.id}")
            lines: list[tuple[str, str, str | None]] = []
            for card in rng.permutation(deck):
                lines.append(("call", str(card), str(card)))
            for k in range(8):
                lines.append(("shout", GOOP_TEXTS[k % 2], "goop"))
            for text, said in COMMANDS[split]:
                lines.append(("command", text, said))
            chat = rng.permutation(CHATTER[split])[:4]
            near = rng.permutation(NEAR_MISSES[split])[:4]
            lines += [("chatter", str(t), None) for t in chat]
            lines += [("near-miss", str(t), None) for t in near]
            per_cat: dict[str, int] = {}
            for category, text, expect in lines:
                i = per_cat.get(category, 0)
                per_cat[category] = i + 1
                snr, noise = _snr_noise(i, vi)
                add(category=category, text=text, expect=expect, voice=voice.id,
                    family=voice.engine, snr=snr, noise=noise, **_delivery(rng))
        rng = mixing.rng_for(seed, f"plan/noise/{split}")
        for snr in SNRS:
            kinds = ("silence", "room") if snr == "clean" else NOISE_KINDS
            for kind in kinds:
                for _ in range(1 if snr == "clean" else 2):
                    level = -20.0 - (50.0 if snr == "clean" else float(snr))
                    add(category="noise", text="", expect=None, voice="", family="",
                        snr=snr, noise=kind, rate=1.0, pitch=0, peak_dbfs=level,
                        lead=round(float(rng.uniform(2.0, 4.0)), 3), trail=0.0,
                        seed=int(rng.integers(2**31)))
        for vi, voice in enumerate(speakers):
            rng = mixing.rng_for(seed, f"plan/addressed/{voice.id}")
            for i, text in enumerate(rng.permutation(ADDRESSED[split])[:4]):
                snr, noise = _snr_noise(i, vi)
                add(category="addressed", text=str(text), expect=None, voice=voice.id,
                    family=voice.engine, snr=snr, noise=noise, **_delivery(rng))
        for vi, voice in enumerate(speakers):
            rng = mixing.rng_for(seed, f"plan/partial/{voice.id}")
            lines = [("partial", str(t), str(said)) for t, said in
                     rng.permutation(PARTIALS[split])]
            lines += [("partial-chatter", str(t), None) for t in
                      rng.permutation(PARTIAL_CHATTER[split])]
            per_cat = {}
            for category, text, expect in lines:
                i = per_cat.get(category, 0)
                per_cat[category] = i + 1
                snr, noise = _snr_noise(i, vi)
                add(category=category, text=text, expect=expect, voice=voice.id,
                    family=voice.engine, snr=snr, noise=noise, **_delivery(rng))
    return items


# TTS -----------------------------------------------------------------------

def _run(cmd: list[str], what: str, stdin: str | None = None) -> None:
    try:
        r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise CorpusError(f"{cmd[0]} is not installed (needed for {what}); "
                          f"run `bash .ci/setup`") from None
    if r.returncode != 0:
        raise CorpusError(f"{what} failed: {' '.join(cmd)}: {r.stderr.strip()[:300]}")


def _read_mono16(path: Path) -> np.ndarray:
    x, rate = wav.read_pcm16(path)
    if x.shape[1] != 1 or rate != RATE:
        raise CorpusError(f"{path}: expected 16-bit mono at {RATE} Hz")
    return x[:, 0].astype(np.float64) / 32768.0


def write_wav(path: Path, x: np.ndarray) -> None:
    """Write float mono ``x`` as a 16 kHz 16-bit WAV."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    wav.write_wav(tmp, x, RATE)
    os.replace(tmp, path)


def synthesize(voice: Voice, text: str, rate: float = 1.0, pitch: int = 0,
               workdir: Path | None = None) -> np.ndarray:
    """``text`` spoken by ``voice`` as float samples at 16 kHz, trimmed to its
    active span (plus 20 ms each side). ``rate`` scales the speaking rate;
    ``pitch`` shifts the pitch in cents."""
    own = workdir is None
    wd = Path(tempfile.mkdtemp(prefix="referee-tts-")) if own else workdir
    try:
        raw, out = wd / "raw.wav", wd / "out.wav"
        effects: list[str] = []
        if voice.engine == "espeak-ng":
            _run(["espeak-ng", "-v", voice.name, "-s", str(int(175 * rate)),
                  "-p", str(int(np.clip(50 + pitch / 10, 0, 99))), "-w", str(raw), text],
                 "espeak-ng")
        elif voice.engine == "flite":
            _run(["flite", "-voice", voice.name, "--setf", f"duration_stretch={1 / rate:.3f}",
                  "-t", text, "-o", str(raw)], "flite")
            effects = ["pitch", str(pitch)] if pitch else []
        elif voice.engine == "pico":
            low = voice.name.endswith("-low")
            _run(["pico2wave", "-l", voice.name.removesuffix("-low"), "-w", str(raw), text],
                 "pico2wave (Debian non-free libttspico-utils)")
            effects = ["tempo", "-s", f"{rate:.3f}"]
            if pitch or low:
                effects += ["pitch", str(pitch - (500 if low else 0))]
        elif voice.engine == "festival":
            script = (f"(voice_{voice.name})\n"
                      f"(Parameter.set 'Duration_Stretch {1 / rate:.3f})\n"
                      f"(utt.save.wave (SynthText {json.dumps(text)}) {json.dumps(str(raw))} 'riff)\n")
            (wd / "say.scm").write_text(script)
            _run(["festival", "--batch", str(wd / "say.scm")], "festival")
            effects = ["pitch", str(pitch)] if pitch else []
        else:
            raise CorpusError(f"unknown TTS engine: {voice.engine!r}")
        _run(["sox", "-R", "-D", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", "-e", "signed-integer",
              str(out), *effects], "sox")
        x = _read_mono16(out)
    finally:
        if own:
            shutil.rmtree(wd, ignore_errors=True)
    return speech_only(x, voice, text)


def speech_only(x: np.ndarray, voice: Voice, text: str) -> np.ndarray:
    """``x`` (what ``voice`` made of ``text``) trimmed to its active span plus
    20 ms each side; a :class:`CorpusError` if it is silent."""
    a, b = mixing.active_span(x)
    if b <= a:
        raise CorpusError(f"{voice.id} produced silence for {text!r}")
    pad = int(0.02 * RATE)
    return x[max(0, a - pad): b + pad]


# Building ------------------------------------------------------------------

def default_dir(seed: int = 1, dev: str | None = None) -> Path:
    """Where the corpus is cached: ``$REFEREE_CACHE`` or ``~/.cache/referee``,
    then ``bench/corpus-v{VERSION}-s{seed}`` (a development set's:
    ``bench/dev-{dev}-v{VERSION}-s{seed}``)."""
    root = Path(os.environ.get("REFEREE_CACHE") or Path.home() / ".cache" / "referee")
    name = f"corpus-v{VERSION}-s{seed}" if dev is None else f"dev-{dev}-v{VERSION}-s{seed}"
    return root / "bench" / name


def spoken_pool(lines: Iterable[tuple[Voice, str, Path | None]], rate: Callable[[], float],
                say: Callable[..., np.ndarray] = synthesize, skip_failures: bool = False
                ) -> list[np.ndarray]:
    """Talk for babble and leaks: each of ``lines`` (voice, text, file) said by
    ``say(voice, text, rate=rate())``. With a file, what is said is kept there
    and read back (int16), and a file that exists is read without saying it
    (nor drawing a rate); without one, ``say``'s samples are kept as they are.
    ``skip_failures``: a voice that cannot say its text is left out
    (:class:`CorpusError`). ``lines`` may be drawn lazily, from the same
    random source as ``rate``: each line is taken before its rate."""
    pool = []
    for voice, text, path in lines:
        if path is not None and path.exists():
            pool.append(_read_mono16(path))
            continue
        try:
            x = say(voice, text, rate=rate())
        except CorpusError:
            if not skip_failures:
                raise
            continue
        if path is None:
            pool.append(x)
        else:
            write_wav(path, x)
            pool.append(_read_mono16(path))
    return pool


def _babble_pool(split: str, seed: int, workdir: Path, cache: Path,
                 voices: tuple[Voice, ...] = VOICES) -> list[np.ndarray]:
    """The babble of ``split``: each of its :data:`BABBLE` sentences said by
    each of its voices, kept in ``cache``."""
    rng = mixing.rng_for(seed, f"babble/{split}")
    lines = ((v, text, cache / f"babble-{split}-{k}-{v.engine}-{v.name}.wav")
             for k, text in enumerate(BABBLE[split]) for v in voices if v.split == split)
    return spoken_pool(lines, lambda: float(rng.uniform(0.9, 1.15)),
                       lambda v, text, rate: synthesize(v, text, rate=rate, workdir=workdir))


def build(items: list[Item], directory: Path, seed: int = 1,
          progress=None, voices: tuple[Voice, ...] = VOICES) -> list[Item]:
    """Make the WAV of every item in ``items`` (said by ``voices``) that is not yet in
    ``directory`` and return the items with their measured fields filled in (also saved
    in ``directory/index.json``). ``progress(done, total)`` is called per item."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    index_path = directory / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    if index.get("version") != VERSION or index.get("seed") != seed:
        index = {"version": VERSION, "seed": seed, "items": {}}
    by_id = {v.id: v for v in voices}
    pools: dict[str, list[np.ndarray]] = {}
    out: list[Item] = []
    with tempfile.TemporaryDirectory(prefix="referee-tts-") as td:
        wd = Path(td)
        for done, item in enumerate(items):
            rel = f"{item.split}/{item.id}.wav"
            meta = index["items"].get(item.id)
            if meta and meta.get("text") == item.text and (directory / rel).exists():
                out.append(Item(**{**asdict(item), **meta}))
                if progress:
                    progress(done + 1, len(items))
                continue
            rng = mixing.rng_for(item.seed, item.id)
            if item.noise == "babble" and item.split not in pools:
                pools[item.split] = _babble_pool(item.split, seed, wd, directory / "babble",
                                                 voices)
            if item.category == "noise":
                n = int(item.lead * RATE)
                if item.noise == "silence":
                    audio = np.zeros(n)
                else:
                    kind = "pink" if item.noise == "room" else item.noise
                    audio = mixing.noise_only(
                        mixing.make_noise(kind, n, rng, pools.get(item.split)), item.peak_dbfs)
                start = end = 0
                snr_measured = None
            else:
                speech = synthesize(by_id[item.voice], item.text, item.rate, item.pitch, wd)
                lead, trail = int(item.lead * RATE), int(item.trail * RATE)
                n = lead + len(speech) + trail
                if item.noise == "silence":
                    noise, snr = None, None
                elif item.noise == "room":
                    noise, snr = mixing.pink(n, rng), 50.0
                else:
                    noise = mixing.make_noise(item.noise, n, rng, pools.get(item.split))
                    snr = float(item.snr)
                m = mixing.mix(speech, noise, snr, lead=lead, trail=trail,
                               peak_dbfs=item.peak_dbfs)
                audio, start, end = m.audio, m.speech_start, m.speech_end
                snr_measured = (round(mixing.measured_snr(m.speech, m.noise, start, end), 2)
                                if noise is not None else None)
            write_wav(directory / rel, audio)
            meta = {"text": item.text, "file": rel, "speech_start": start / RATE,
                    "speech_end": end / RATE, "duration": len(audio) / RATE,
                    "snr_measured": snr_measured}
            index["items"][item.id] = meta
            out.append(Item(**{**asdict(item), **meta}))
            if progress:
                progress(done + 1, len(items))
            if done % 50 == 49:
                _save(index_path, index)
    _save(index_path, index)
    return out


def _save(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=0, sort_keys=True))
    os.replace(tmp, path)


def select(items: list[Item], split: str = "both", quick: bool = False) -> list[Item]:
    """The items of ``split`` (``'tuning'``, ``'held-out'`` or ``'both'``); with
    ``quick``, about one in five calls and one in three of the rest, taken evenly from each voice and
    category, always including some of every category."""
    chosen = [i for i in items if split in ("both", i.split)]
    if not quick:
        return chosen
    counts: dict[tuple[str, str], int] = {}
    keep = []
    for it in chosen:
        k = (it.voice, it.category)
        c = counts.get(k, 0)
        counts[k] = c + 1
        step = 5 if it.category == "call" else 3
        if (c + hash_id(it.voice)) % step == 0:
            keep.append(it)
    return keep


def hash_id(s: str) -> int:
    """A small stable integer from a string (for spreading choices over voices)."""
    return zlib.crc32(s.encode("utf-8")) % 97
