"""Speech synthesis for the lab: a text said by one offline TTS voice (espeak-ng, flite,
festival or SVOX Pico) as float samples at 16 kHz, trimmed to its speech, and pools of
such talk kept on disk. The benchmark corpus and the training data both speak through it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from referee.audio import wav
from referee.core.errors import RefereeError
from referee.lab import mixing
from referee.lab.mixing import RATE


class SynthError(RefereeError, RuntimeError):
    """A voice could not say its text (a TTS program missing or failing, or silence)."""


@dataclass(frozen=True)
class Voice:
    """One TTS voice."""

    engine: str
    """``'espeak-ng'``, ``'flite'``, ``'festival'`` or ``'pico'`` (training adds ``'hibari'``
    and ``'piper'``): the voice family."""
    name: str
    """The engine's name for it, e.g. ``'en-gb-scotland+m2'``, ``'awb'``."""
    split: str
    """``'tuning'`` or ``'held-out'`` (the benchmark's), or ``'train'``."""

    @property
    def id(self) -> str:
        return f"{self.engine}:{self.name}"


def _run(cmd: list[str], what: str, stdin: str | None = None) -> None:
    try:
        r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise SynthError(f"{cmd[0]} is not installed (needed for {what}); "
                         f"run `bash .ci/setup`") from None
    if r.returncode != 0:
        raise SynthError(f"{what} failed: {' '.join(cmd)}: {r.stderr.strip()[:300]}")


def read_mono16(path: Path) -> np.ndarray:
    """A 16 kHz 16-bit mono WAV as float samples; a :class:`SynthError` if it is not one."""
    x, rate = wav.read_pcm16(path)
    if x.shape[1] != 1 or rate != RATE:
        raise SynthError(f"{path}: expected 16-bit mono at {RATE} Hz")
    return x[:, 0].astype(np.float64) / 32768.0


def write_wav(path: Path, x: np.ndarray) -> None:
    """Write float mono ``x`` as a 16 kHz 16-bit WAV (whole or not at all: processes making
    the same cached utterance at once each write their own temporary file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
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
            raise SynthError(f"unknown TTS engine: {voice.engine!r}")
        _run(["sox", "-R", "-D", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", "-e", "signed-integer",
              str(out), *effects], "sox")
        x = read_mono16(out)
    finally:
        if own:
            shutil.rmtree(wd, ignore_errors=True)
    return speech_only(x, voice, text)


def speech_only(x: np.ndarray, voice: Voice, text: str) -> np.ndarray:
    """``x`` (what ``voice`` made of ``text``) trimmed to its active span plus
    20 ms each side; a :class:`SynthError` if it is silent."""
    a, b = mixing.active_span(x)
    if b <= a:
        raise SynthError(f"{voice.id} produced silence for {text!r}")
    pad = int(0.02 * RATE)
    return x[max(0, a - pad): b + pad]


def spoken_pool(lines: Iterable[tuple[Voice, str, Path | None]], rate: Callable[[], float],
                say: Callable[..., np.ndarray] = synthesize, skip_failures: bool = False
                ) -> list[np.ndarray]:
    """Talk for babble and leaks: each of ``lines`` (voice, text, file) said by
    ``say(voice, text, rate=rate())``. With a file, what is said is kept there
    and read back (int16), and a file that exists is read without saying it
    (nor drawing a rate); without one, ``say``'s samples are kept as they are.
    ``skip_failures``: a voice that cannot say its text is left out
    (:class:`SynthError`). ``lines`` may be drawn lazily, from the same
    random source as ``rate``: each line is taken before its rate."""
    pool = []
    for voice, text, path in lines:
        if path is not None and path.exists():
            pool.append(read_mono16(path))
            continue
        try:
            x = say(voice, text, rate=rate())
        except SynthError:
            if not skip_failures:
                raise
            continue
        if path is None:
            pool.append(x)
        else:
            write_wav(path, x)
            pool.append(read_mono16(path))
    return pool
