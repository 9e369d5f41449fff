"""The benchmark corpus: card calls, "goop", commands and negatives spoken by
several offline TTS engines (espeak-ng, flite, festival), mixed with noise at
clean, 20, 10 and 5 dB SNR, cached on disk as 16 kHz mono WAV files.

The voices fall into two disjoint sets: ``tuning`` (free to look at while
improving the recogniser) and ``held-out`` (other engines' voices, other
speakers, other sentences, other noise seeds), reported separately. What they
say is in :mod:`referee.lab.sentences`; they say it through :mod:`referee.lab.synth`.

Everything follows from one seed: ``plan(seed)`` lists the items and every
random choice; ``build(items, dir)`` synthesises and mixes the ones not yet on
disk. The speech itself comes from the TTS programs, which are deterministic.
"""

from __future__ import annotations

import json
import os
import tempfile
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from referee.core.cards import full_deck
from referee.core.errors import RefereeError
from referee.lab import mixing
from referee.lab.mixing import RATE
from referee.lab.sentences import (ADDRESSED, BABBLE, CHATTER, COMMANDS, GOOP_TEXTS,
                                   NEAR_MISSES, PARTIAL_CHATTER, PARTIALS, PROBE_NEAR_MISSES,
                                   UNADDRESSED)
from referee.lab.synth import Voice, spoken_pool, synthesize, write_wav
from referee.lab.cache import bench_dir

VERSION = 5
"""Bump when the plan or the mixing changes, so old caches are not reused."""

SPLITS = ("tuning", "held-out")
SNRS = ("clean", "20", "10", "5")
"""SNR buckets, as strings (they are keys in reports)."""

NOISE_KINDS = mixing.NOISE_KINDS


class CorpusError(RefereeError, RuntimeError):
    """No such corpus: a development set that does not exist was asked for."""


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
    # SVOX Pico's British voice (``-low``: 5 semitones down); its American one is a
    # training voice since session 51 (docs/model-history.md)
    "pico": tuple(Voice("pico", n, "tuning") for n in ("en-GB", "en-GB-low")),
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
            snr, noise = snr_noise(len(items), vi)
            items.append(Item(id=f"probe-{len(items):04d}", split="tuning",
                              category="near-miss", text=text, expect=None, voice=voice.id,
                              family=voice.engine, snr=snr, noise=noise, **delivery(rng)))
    return items


@dataclass
class Item:
    """One corpus item: what is said, by whom, in what noise, and the result
    of mixing it (filled in by ``build``)."""

    id: str
    split: str
    category: str
    """``'call'``, ``'shout'``, ``'command'``, ``'partial'`` (a bare rank or suit, or a
    call cut short), ``'chatter'``, ``'near-miss'``, ``'noise'``, ``'addressed'``,
    ``'partial-chatter'`` or ``'unaddressed'`` (the last six are negatives; ``'addressed'``
    is talk to the referee that is no command, "referee, who won that one";
    ``'partial-chatter'``, talk with a bare rank or suit in it, "five minutes";
    ``'unaddressed'``, talk in a command's words not said to the referee, "what's the
    score")."""
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


def snr_noise(i: int, offset: int) -> tuple[str, str]:
    """The SNR bucket and the noise of a voice's ``i``-th sentence of one category: the
    buckets in turn, and the noises in turn from ``offset`` (the voice's place), so that
    every voice meets every condition."""
    snr = SNRS[i % 4]
    if snr == "clean":
        return snr, ("silence", "room")[(i // 4 + offset) % 2]
    return snr, NOISE_KINDS[(i // 4 + offset) % 4]


def every_other(item: Item) -> bool:
    """True for every other item of a plan, by the number its id ends in
    (``gops-tuning-0012``): talk a game may hear in either of two phases is heard half in each."""
    return int(item.id.rsplit("-", 1)[1]) % 2 == 0


def delivery(rng: np.random.Generator) -> dict:
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
    too, so that the items before them, and a cache of them, are as before; then per voice
    its split's 4 sentences in a command's words not said to the referee ("what's the
    score"), drawn apart too."""
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
                snr, noise = snr_noise(i, vi)
                add(category=category, text=text, expect=expect, voice=voice.id,
                    family=voice.engine, snr=snr, noise=noise, **delivery(rng))
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
                snr, noise = snr_noise(i, vi)
                add(category="addressed", text=str(text), expect=None, voice=voice.id,
                    family=voice.engine, snr=snr, noise=noise, **delivery(rng))
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
                snr, noise = snr_noise(i, vi)
                add(category=category, text=text, expect=expect, voice=voice.id,
                    family=voice.engine, snr=snr, noise=noise, **delivery(rng))
        for vi, voice in enumerate(speakers):
            rng = mixing.rng_for(seed, f"plan/unaddressed/{voice.id}")
            for i, text in enumerate(rng.permutation(UNADDRESSED[split])):
                snr, noise = snr_noise(i, vi)
                add(category="unaddressed", text=str(text), expect=None, voice=voice.id,
                    family=voice.engine, snr=snr, noise=noise, **delivery(rng))
    return items


# Building ------------------------------------------------------------------

def default_dir(seed: int = 1, dev: str | None = None) -> Path:
    """Where the corpus is cached: ``$REFEREE_CACHE`` or ``~/.cache/referee``,
    then ``bench/corpus-v{VERSION}-s{seed}`` (a development set's:
    ``bench/dev-{dev}-v{VERSION}-s{seed}``)."""
    return bench_dir(f"corpus-v{VERSION}-s{seed}" if dev is None else f"dev-{dev}-v{VERSION}-s{seed}")


def babble_pool(split: str, seed: int, workdir: Path, cache: Path,
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
                pools[item.split] = babble_pool(item.split, seed, wd, directory / "babble",
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
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp")   # one per process: no race
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
