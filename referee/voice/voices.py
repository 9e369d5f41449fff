"""Voices: text in, speech audio out (pyttsx3 in a child process of its own, or espeak-ng's
command line), and the trimming of a rendering to its speech.

pyttsx3's Linux pitfalls, and what this module does about them:

* ``runAndWait`` can hang, and the engine must live in one thread: the pyttsx3 engine lives in
  a child process of its own (:class:`Pyttsx3Voice`) that only renders to WAV files; a render
  that does not answer in time kills the child and the next announcement starts a new one.
* ``say()`` plays through ``aplay`` and ignores its failure: pyttsx3 is never asked to play
  (:mod:`referee.voice.playback` plays and checks the player's exit status).
* pyttsx3 prints to stdout when it saves a file: the child's stdout is not the game's.
* the speaking rate varies unless set: every voice takes ``rate`` (words per minute).
* now and then a run writes no file, or an empty one: the child tries again, and a render
  with no speech in it is a failure, not silence played.
"""

from __future__ import annotations

import io
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from referee.audio.wav import AudioFileError, decode_pcm16
from referee.core.errors import RefereeError

#: Words per minute, set explicitly on every voice (pyttsx3's own default
#: differs between drivers and versions).
DEFAULT_RATE = 165

#: Sample rate of the WAV file sink (espeak-ng's native rate).
WAV_RATE = 22050


class VoiceError(RefereeError):
    """A voice could not render an announcement."""


@dataclass(frozen=True)
class Audio:
    """Rendered speech: 16-bit signed little-endian mono PCM."""

    samples: bytes
    rate: int
    """Samples per second."""

    @property
    def duration(self) -> float:
        """Seconds."""
        return len(self.samples) / 2 / self.rate


class Voice(Protocol):
    """Text-to-speech as the speaker uses it: text in, audio out. (It may
    also have ``start()``, which the speaker calls first, to get ready.)"""

    def render(self, text: str) -> Audio:
        """Raise :class:`VoiceError` if it cannot."""

    def close(self) -> None: ...


def read_wav(path_or_file) -> Audio:
    """Read a WAV file (a path or a binary file object) as :class:`Audio`: mono, 16-bit."""
    try:
        data = path_or_file.read() if hasattr(path_or_file, "read") else open(path_or_file, "rb").read()
        x, rate = decode_pcm16(data, getattr(path_or_file, "name", str(path_or_file)))
    except (OSError, AudioFileError) as e:
        raise VoiceError(f"no usable WAV: {e}") from None
    if x.shape[1] != 1:
        raise VoiceError(f"expected a mono WAV, got {x.shape[1]} channels")
    return Audio(x[:, 0].astype("<i2").tobytes(), rate)


class Pyttsx3Voice:
    """pyttsx3 (espeak-ng on Linux), run in a child process that only renders
    WAV files, so a hung ``runAndWait`` or a crashing driver costs one
    announcement, not the game."""

    def __init__(self, rate: int = DEFAULT_RATE, voice: str | None = None,
                 timeout: float = 10.0):
        self.rate = rate
        self.voice = voice
        self.timeout = timeout
        """Seconds to wait for the child to start or to render one announcement."""
        self._proc: subprocess.Popen | None = None
        self._buf = b""
        self._dir: str | None = None
        self._n = 0

    def _command(self) -> list[str]:
        return [sys.executable, "-m", "referee.voice.voices", "--pyttsx3-child",
                str(self.rate), self.voice or ""]

    def start(self) -> None:
        """Start the child now rather than at the first announcement (it takes
        ~0.2 s); raise :class:`VoiceError` if it cannot start."""
        if self._proc is None or self._proc.poll() is not None:
            self._start()

    def _start(self) -> None:
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="referee-voice-")
        env = dict(os.environ)  # the child finds this referee even when it is not installed
        here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
        with open(os.path.join(self._dir, "child.log"), "ab") as log:  # what pyttsx3 prints
            self._proc = subprocess.Popen(self._command(), stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=log, env=env,
                                          start_new_session=True)  # Ctrl-C is the referee's
        self._buf = b""
        reply = self._reply(self.timeout)
        if "error" in reply:
            self._kill()
            raise VoiceError(f"pyttsx3 did not start: {reply['error']}")

    def _reply(self, timeout: float) -> dict:
        proc = self._proc
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                self._kill()
                raise VoiceError(f"pyttsx3 did not answer within {timeout:g} s (killed)")
            ready, _, _ = select.select([proc.stdout], [], [], left)
            if ready:
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    code = proc.wait()
                    self._proc = None
                    raise VoiceError(f"pyttsx3 child exited (status {code})")
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def render(self, text: str) -> Audio:
        self.start()
        self._n += 1
        path = os.path.join(self._dir, f"{self._n}.wav")
        try:
            self._proc.stdin.write(json.dumps({"text": text, "path": path}).encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            self._kill()
            raise VoiceError(f"pyttsx3 child is gone: {e}") from e
        reply = self._reply(self.timeout + 0.05 * len(text))
        if "error" in reply:
            raise VoiceError(f"pyttsx3: {reply['error']}{self._log_tail()}")
        try:
            return read_wav(path)
        finally:
            if os.path.exists(path):
                os.remove(path)

    def _log_tail(self) -> str:
        try:
            with open(os.path.join(self._dir, "child.log"), "rb") as f:
                lines = [l for l in f.read().decode(errors="replace").splitlines()
                         if l.strip() and not l.startswith("Audio saved to")]
        except OSError:
            return ""
        return f" (it said: {lines[-1].strip()})" if lines else ""

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None

    def close(self) -> None:
        if self._proc is not None:
            try:
                self._proc.stdin.close()
                self._proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self._kill()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _frames(path: str) -> int:
    try:
        return len(read_wav(path).samples) // 2
    except VoiceError:
        return -1


def _pyttsx3_child(rate: int, voice: str) -> None:
    """The child's side of :class:`Pyttsx3Voice`: one JSON request per line
    on stdin (``text``, ``path``), one JSON reply per line."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # pyttsx3 prints "Audio saved to ..."; keep it off the protocol
    try:
        import pyttsx3

        engine = pyttsx3.init()
        engine.setProperty("rate", rate)
        if voice:
            # setProperty is queued and fails only inside runAndWait: check first
            known = {v.id for v in engine.getProperty("voices")}
            known |= {v.name for v in engine.getProperty("voices")}
            if voice not in known:
                raise ValueError(f"no voice {voice!r} (see: espeak-ng --voices)")
            engine.setProperty("voice", voice)
    except Exception as e:  # noqa: BLE001 - reported to the parent
        proto.write(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")
        return
    proto.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        try:
            for attempt in range(3):  # now and then a run writes no file, or an empty one
                if os.path.exists(req["path"]):
                    os.remove(req["path"])
                # the rate again with every request: now and then the one set at the start
                # was not applied to the first file (a rate-90 voice rendered at the default)
                engine.setProperty("rate", rate)
                engine.save_to_file(req["text"], req["path"])
                engine.runAndWait()
                frames = _frames(req["path"])
                print(f"pyttsx3: {frames} frames for {req['text']!r}", file=sys.stderr, flush=True)
                if frames > 0 or not req["text"].strip():
                    break
            else:
                raise RuntimeError("pyttsx3 wrote no speech, 3 times")
            proto.write(json.dumps({"ok": True}) + "\n")
        except Exception as e:  # noqa: BLE001
            proto.write(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")


class EspeakVoice:
    """espeak-ng's command line, for machines without pyttsx3."""

    def __init__(self, rate: int = DEFAULT_RATE, voice: str | None = None,
                 timeout: float = 10.0, program: str = "espeak-ng"):
        self.rate, self.voice, self.timeout, self.program = rate, voice, timeout, program

    def render(self, text: str) -> Audio:
        cmd = [self.program, "-s", str(self.rate), "--stdout"]
        if self.voice:
            cmd += ["-v", self.voice]
        try:
            out = subprocess.run(cmd + ["--", text], capture_output=True,
                                 timeout=self.timeout, check=True).stdout
        except (OSError, subprocess.SubprocessError) as e:
            raise VoiceError(f"{self.program}: {e}") from e
        return read_wav(io.BytesIO(out))

    def close(self) -> None:
        pass


def default_voice(rate: int = DEFAULT_RATE, voice: str | None = None) -> Voice | None:
    """pyttsx3 if installed, else espeak-ng's command line, else ``None``."""
    try:
        import importlib.util

        if importlib.util.find_spec("pyttsx3") is not None:
            return Pyttsx3Voice(rate, voice)
    except (ImportError, ValueError):
        pass
    if shutil.which("espeak-ng"):
        return EspeakVoice(rate, voice)
    return None


def trim_silence(audio: Audio, level: float = 0.005, keep: float = 0.03) -> Audio | None:
    """``audio`` without the silence a voice puts before and after the speech
    (espeak-ng adds ~0.35 s at the end), keeping ``keep`` seconds either side,
    so an announcement's start and end are those of its speech. ``level`` is
    a fraction of full scale. ``None`` if nothing in it is that loud."""
    x = np.frombuffer(audio.samples, "<i2")
    loud = np.flatnonzero(np.abs(x) > level * 32768)
    if len(loud) == 0:
        return None
    pad = round(keep * audio.rate)
    a, b = max(0, loud[0] - pad), min(len(x), loud[-1] + 1 + pad)
    return Audio(x[a:b].tobytes(), audio.rate)


if __name__ == "__main__" and sys.argv[1:2] == ["--pyttsx3-child"]:
    _pyttsx3_child(int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "")
