"""Real speech for tests, synthesised by the TTS engines Debian ships (espeak-ng,
flite, festival), and noise mixing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from referee.audio.wav import read_wav, resample, to_int16, write_wav

#: voice name -> engine; espeak-ng voices take '+variant'.
VOICES = {
    "espeak:en-us": "espeak", "espeak:en-gb+m3": "espeak", "espeak:en-us+f2": "espeak",
    "espeak:en-gb-scotland+m2": "espeak", "espeak:en-us+f4": "espeak",
    "flite:kal": "flite", "flite:slt": "flite", "flite:rms": "flite", "flite:awb": "flite",
    "festival:kal_diphone": "festival", "festival:cmu_us_slt_arctic_hts": "festival",
}


def synth(text: str, path: Path, voice: str = "espeak:en-us", rate: int = 16000,
          speed: int | None = None, pitch: int | None = None) -> Path:
    """Speak ``text`` into a mono 16-bit WAV at ``rate`` Hz."""
    engine, name = voice.split(":", 1)
    path = Path(path)
    raw = path.with_suffix(".raw.wav")
    if engine == "espeak":
        cmd = ["espeak-ng", "-v", name, "-w", str(raw)]
        if speed:
            cmd += ["-s", str(speed)]
        if pitch is not None:
            cmd += ["-p", str(pitch)]
        subprocess.run(cmd + [text], check=True, capture_output=True)
    elif engine == "flite":
        subprocess.run(["flite", "-voice", name, "-t", text, "-o", str(raw)], check=True,
                       capture_output=True)
    elif engine == "festival":
        subprocess.run(["text2wave", "-eval", f"(voice_{name})", "-o", str(raw)],
                       input=text.encode(), check=True, capture_output=True)
    else:
        raise ValueError(voice)
    x, r = read_wav(raw)
    raw.unlink()
    x = resample(x[:, 0], r, rate)
    write_wav(path, x, rate)
    return path


def load(path: Path, rate: int = 16000) -> np.ndarray:
    x, r = read_wav(path)
    return resample(x[:, 0], r, rate)


def pad(x: np.ndarray, before: float, after: float, rate: int = 16000,
        noise: float = 0.0, seed: int = 0) -> np.ndarray:
    """Silence (``noise`` = 0: digital zeros) or white noise of that RMS around speech."""
    rng = np.random.default_rng(seed)
    b = rng.normal(0, noise, int(before * rate)) if noise else np.zeros(int(before * rate))
    a = rng.normal(0, noise, int(after * rate)) if noise else np.zeros(int(after * rate))
    return np.concatenate([b, x, a]).astype(np.float32)


def place(n: int, x: np.ndarray, at: float, rate: int = 16000) -> np.ndarray:
    """``x`` placed ``at`` seconds into ``n`` samples of silence (cut at the end)."""
    out = np.zeros(n)
    i = int(at * rate)
    out[i:i + len(x)] = x[:n - i]
    return out


def mix_snr(speech: np.ndarray, noise: np.ndarray, snr_db: float) -> np.ndarray:
    """Speech plus noise scaled to ``snr_db`` (speech power over its active part)."""
    n = np.resize(noise, speech.shape)
    active = speech[np.abs(speech) > 0.02 * np.abs(speech).max()]
    ps = np.mean(active ** 2) if active.size else np.mean(speech ** 2)
    pn = np.mean(n ** 2) or 1.0
    return (speech + n * np.sqrt(ps / (pn * 10 ** (snr_db / 10)))).astype(np.float32)


def pink(n: int, seed: int = 0) -> np.ndarray:
    """Pink noise, peak 0.5. Not mixing.pink: several hearing tests show a mechanism on the
    noise this one draws for their seed (the /g/ of "goop" masked, say)."""
    rng = np.random.default_rng(seed)
    spec = np.fft.rfft(rng.normal(size=n))
    f = np.arange(len(spec))
    spec[1:] /= np.sqrt(f[1:])
    spec[0] = 0
    x = np.fft.irfft(spec, n)
    return (x / np.abs(x).max() * 0.5).astype(np.float32)


def speech_bounds(x: np.ndarray, rate: int = 16000, rel_db: float = -25.0) -> tuple[float, float]:
    """Seconds of the first and last 10 ms frame within ``rel_db`` of the loudest."""
    a = np.asarray(x, np.float64)
    f = rate // 100
    n = len(a) // f
    e = 10 * np.log10(np.mean(a[: n * f].reshape(n, f) ** 2, axis=1) + 1e-12)
    on = np.flatnonzero(e > e.max() + rel_db)
    return on[0] / 100.0, (on[-1] + 1) / 100.0


_CACHE: dict = {}


def cached(key, make):
    """One object per ``key`` for the whole test session, made by ``make()``
    the first time it is asked for."""
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def feed(stream, x: np.ndarray, block: int = 1600, timed: bool = False, rate: int = 16000):
    """Feed ``x`` (float in [-1, 1], or int16) to a recogniser ``stream`` in
    blocks of ``block`` samples, then close it: everything it heard, in order.
    ``timed``: as (seconds of audio fed when it came out, utterance)."""
    pcm = to_int16(x)
    got = []
    for i in range(0, len(pcm), block):
        got += [((i + block) / rate, u) for u in stream.feed(pcm[i:i + block])]
    got += [(len(pcm) / rate, u) for u in stream.close()]
    return got if timed else [u for _, u in got]


def corpus(directory: Path, phrases: dict[str, str]) -> dict[str, np.ndarray]:
    """name -> float32 16 kHz speech, for ``{name: 'voice|text'}``, synthesised once
    per test session (kept in ``directory``)."""
    out = {}
    for name, spec in phrases.items():
        key = (str(directory), name, spec)
        if key not in _CACHE:
            voice, text = spec.split("|", 1)
            _CACHE[key] = load(synth(text, Path(directory) / f"{len(_CACHE)}.wav", voice))
        out[name] = _CACHE[key]
    return out


ROOM_TALK = {
    "t1": "flite:awb|my sister wants to paint the kitchen a brighter colour before winter",
    "t2": "flite:slt|did anyone see where I left the biscuits this afternoon",
    "t3": "flite:kal|the traffic on the way over was terrible, we sat on the bridge for ages",
    "t4": "espeak:en-us+m3|we should book the cottage by the lake again next summer",
}


def room_talk(directory: Path, seconds: float, seed: int = 5) -> np.ndarray:
    """``seconds`` of four people talking at once (the benchmarks' babble, from
    :data:`ROOM_TALK`), unit power, at 16 kHz."""
    from referee.lab.mixing import babble
    talk = corpus(directory, ROOM_TALK)
    return babble(list(talk.values()), int(seconds * 16000), np.random.default_rng(seed))


def recogniser(engine: str = "pocketsphinx", **kw):
    """One loaded recogniser per engine and options for the whole session."""
    from referee.hearing.engine import open_recogniser
    return cached(("rec", engine, tuple(sorted(kw.items()))),
                  lambda: open_recogniser(engine, **kw))
