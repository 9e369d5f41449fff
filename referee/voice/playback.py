"""Playing rendered speech through the audio server (``paplay``, else ``aplay``), checked."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from typing import Callable

import numpy as np

from referee.audio.wav import write_wav
from referee.core.errors import RefereeError
from referee.voice.voices import Audio


class PlaybackError(RefereeError):
    """Rendered audio could not be played."""


class CommandPlayer:
    """Plays audio with ``paplay`` (PulseAudio), falling back to ``aplay``
    (ALSA), and checks that it worked. ``device`` is a PulseAudio sink name
    (or an ALSA device for aplay)."""

    def __init__(self, device: str | None = None, programs: tuple[str, ...] = ("paplay", "aplay")):
        self.device = device
        self._programs = [p for p in programs if shutil.which(p)]
        self._dir = tempfile.mkdtemp(prefix="referee-play-")

    def _command(self, program: str, path: str) -> list[str]:
        if program == "paplay":
            return ["paplay"] + ([f"--device={self.device}"] if self.device else []) + [path]
        return ["aplay", "-q"] + (["-D", self.device] if self.device else []) + [path]

    def start(self) -> None:
        """Play a moment of silence: raise :class:`PlaybackError` now if there
        is no output, and wake the audio server (the first stream to a sink
        can start ~0.8 s late; later ones start within milliseconds)."""
        self.play(Audio(b"\0\0" * 1600, 16000), threading.Event(), lambda: None)

    def play(self, audio: Audio, stop: threading.Event, started: Callable[[], None]) -> bool:
        """Play ``audio`` to the end, or until ``stop`` is set (then return
        ``False``). ``started()`` is called as the player is launched. Raise
        :class:`PlaybackError` if no player works."""
        if not self._programs:
            raise PlaybackError("no audio player (paplay or aplay) installed")
        path = os.path.join(self._dir, "say.wav")
        write_wav(path, np.frombuffer(audio.samples, "<i2"), audio.rate)
        errors = []
        tries = [p for p in self._programs for _ in range(2)]  # each player twice
        for program in tries:
            t0 = time.monotonic()
            proc = subprocess.Popen(self._command(program, path), stdin=subprocess.DEVNULL,
                                    start_new_session=True,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            started()
            limit = audio.duration + 10.0  # a loaded server can be slow to start a stream
            while proc.poll() is None:
                if stop.wait(0.005):
                    proc.kill()
                    proc.wait()
                    proc.stderr.close()
                    return False
                if time.monotonic() - t0 > limit:
                    proc.kill()
                    proc.wait()
                    break
            err = proc.stderr.read().decode(errors="replace").strip()
            proc.stderr.close()
            took = time.monotonic() - t0
            if proc.returncode == 0 and took < audio.duration / 2 - 0.1:
                # paplay/aplay drain before they exit: this one cannot have played it
                errors.append(f"{program}: exited after {took:.2f} s of {audio.duration:.2f} s")
                continue
            if proc.returncode == 0:
                self._programs.remove(program)
                self._programs.insert(0, program)  # keep using the one that works
                return True
            errors.append(f"{program}: {err.splitlines()[-1] if err else f'status {proc.returncode}'}")
        raise PlaybackError("; ".join(errors))

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)
