"""The referee's voice: announcements spoken by one worker fed by a queue.

:class:`Speaker` takes announcements with :meth:`Speaker.say`, which returns at
once; a single worker thread renders each one to audio with a *voice* and sends
it to one output, chosen when the speaker is made:

* ``to="speakers"``: played live through the audio server (``paplay``, else
  ``aplay``), on the default output or ``device``;
* ``to="FILE.wav"``: placed at its audio-clock time in one WAV file, silence
  between, so a recorded game yields a WAV of what the referee said and when;
* ``to=None``: text only.

Every announcement is also written to a text sink (a file object, default
stdout). If there is no TTS or no audio output, the speaker says so once on
stderr, keeps printing, and never raises into the game.

pyttsx3's Linux pitfalls, and what this module does about them:

* ``runAndWait`` can hang, and the engine must live in one thread: the pyttsx3
  engine lives in a child process of its own (:class:`Pyttsx3Voice`) that only
  renders to WAV files; a render that does not answer in time kills the child
  and the next announcement starts a new one.
* ``say()`` plays through ``aplay`` and ignores its failure: pyttsx3 is never
  asked to play. The speaker plays the rendered audio itself and checks the
  player's exit status.
* pyttsx3 prints to stdout when it saves a file: the child's stdout is not
  the game's.
* the speaking rate varies unless set: every voice takes ``rate`` (words per
  minute) and sets it.
* now and then a run writes no file, or an empty one: the child tries again,
  and a render with no speech in it is a failure, not silence played.

Live, the output is woken with a moment of silence when the speaker starts
(the first stream to a PulseAudio sink can start ~0.8 s late; later ones
within milliseconds), and each rendering is trimmed of the voice's leading and
trailing silence, so ``start`` and ``end`` are those of the speech.
``say(urgent=True)`` jumps the queue and cuts short a non-urgent announcement
being spoken (the WAV sink does the same on its timeline).

Times are seconds on the *audio clock* (the ``clock`` callable given, e.g. the
microphones' sample count; or the ``at`` given to :meth:`Speaker.say`). Each
announcement's :class:`Spoken` record says when it started and ended on that
clock, so the live loop can measure "end of winning call -> start of verdict"
and drop what its own microphones hear of the referee (:meth:`Speaker.echo`).
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import wave
from dataclasses import dataclass, replace
from typing import Callable, Protocol, TextIO

#: Words per minute, set explicitly on every voice (pyttsx3's own default
#: differs between drivers and versions).
DEFAULT_RATE = 165

#: Sample rate of the WAV file sink (espeak-ng's native rate).
WAV_RATE = 22050

#: A voice that fails this many announcements in a row is given up on.
MAX_FAILURES = 3


class VoiceError(Exception):
    """A voice could not render an announcement."""


class PlaybackError(Exception):
    """Rendered audio could not be played."""


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


@dataclass(frozen=True)
class Spoken:
    """One announcement and what became of it."""

    text: str
    urgent: bool
    asked: float
    """Seconds (audio clock): when :meth:`Speaker.say` was called, or its ``at``."""
    start: float | None = None
    """Seconds (audio clock): when its audio began; ``None`` until it begins,
    and for ever if it was never voiced (text only, or the voice failed)."""
    end: float | None = None
    """Seconds (audio clock): when its audio ended; ``None`` while it plays
    live. (In a WAV file, the end is known at once but an urgent announcement
    can still cut it short: then it is moved earlier.)"""
    interrupted: bool = False
    """Cut short by an urgent announcement."""


class Voice(Protocol):
    """Text-to-speech as the speaker uses it: text in, audio out. (It may
    also have ``start()``, which the speaker calls first, to get ready.)"""

    def render(self, text: str) -> Audio:
        """Raise :class:`VoiceError` if it cannot."""

    def close(self) -> None: ...


def read_wav(path_or_file) -> Audio:
    """Read a 16-bit mono WAV file (what the voices write)."""
    with wave.open(path_or_file, "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise VoiceError(f"expected 16-bit mono WAV, got {w.getsampwidth() * 8}-bit "
                             f"{w.getnchannels()}-channel")
        return Audio(w.readframes(w.getnframes()), w.getframerate())


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
        return [sys.executable, "-m", "referee.speaker", "--pyttsx3-child",
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
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
        with open(os.path.join(self._dir, "child.log"), "ab") as log:  # what pyttsx3 prints
            self._proc = subprocess.Popen(self._command(), stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=log, env=env)
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
        except (OSError, EOFError, wave.Error) as e:
            raise VoiceError(f"pyttsx3 wrote no usable WAV: {e}") from e
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
        with wave.open(path, "rb") as w:
            return w.getnframes()
    except (OSError, EOFError, wave.Error):
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
        try:
            return read_wav(io.BytesIO(out))
        except (EOFError, wave.Error) as e:
            raise VoiceError(f"{self.program} wrote no usable WAV: {e}") from e

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
    import numpy as np

    x = np.frombuffer(audio.samples, "<i2")
    loud = np.flatnonzero(np.abs(x) > level * 32768)
    if len(loud) == 0:
        return None
    pad = round(keep * audio.rate)
    a, b = max(0, loud[0] - pad), min(len(x), loud[-1] + 1 + pad)
    return Audio(x[a:b].tobytes(), audio.rate)


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
        with wave.open(path, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(audio.rate)
            w.writeframes(audio.samples)
        errors = []
        tries = [p for p in self._programs for _ in range(2)]  # each player twice
        for program in tries:
            t0 = time.monotonic()
            proc = subprocess.Popen(self._command(program, path), stdin=subprocess.DEVNULL,
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


_NUMBERS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty").split()


def words(text: str) -> list[str]:
    """Lower-case words, digits spelled out (0-20), punctuation dropped."""
    out = []
    for w in re.findall(r"[^\W_]+", text.lower()):
        out.append(_NUMBERS[int(w)] if w.isdigit() and int(w) <= 20 else w)
    return out


def sounds_like(said: str, announcement: str, share: float = 0.6) -> bool:
    """Whether a recognised phrase could be the referee's own announcement
    heard back: at least ``share`` of its words occur, in order, in the
    announcement (a recogniser drops and changes words)."""
    a, b = words(said), words(announcement)
    if not a:
        return False
    # longest common subsequence
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1] >= max(1, math.ceil(share * len(a)))


@dataclass
class _Item:
    n: int
    text: str
    urgent: bool
    at: float
    audio: Audio | None = None


class _Timeline:
    """Where announcements fall on the audio clock when nothing real plays
    them (the WAV sink): one at a time, in order asked, urgent ones first,
    and an urgent one cuts short a non-urgent one that is playing, as the
    live speaker does. Pure bookkeeping, so a recorded game gives the same
    WAV however fast it is processed."""

    def __init__(self):
        self.current: tuple[_Item, float, float] | None = None
        self.pending: list[_Item] = []
        self.last_at = 0.0

    def add(self, item: _Item) -> list[tuple[_Item, float, float, bool]]:
        """Add an item with audio; return the items that finished by its time
        as ``(item, start, end, interrupted)``, in order of start."""
        at = max(item.at, self.last_at)
        self.last_at = at
        done = self._advance(at)
        cur = self.current
        if cur and item.urgent and not cur[0].urgent and cur[2] > at:
            done.append((cur[0], cur[1], max(at, cur[1]), True))
            self.current = None
        if item.urgent:
            k = next((i for i, p in enumerate(self.pending) if not p.urgent), len(self.pending))
            self.pending.insert(k, item)
        else:
            self.pending.append(item)
        if self.current is None:
            self._start_next(at)
        return done

    def finish(self) -> list[tuple[_Item, float, float, bool]]:
        return self._advance(math.inf)

    def _start_next(self, t: float) -> None:
        if self.pending:
            nxt = self.pending.pop(0)
            start = max(t, nxt.at)
            self.current = (nxt, start, start + nxt.audio.duration)

    def _advance(self, t: float) -> list[tuple[_Item, float, float, bool]]:
        done = []
        while self.current and self.current[2] <= t:
            item, start, end = self.current
            done.append((item, start, end, False))
            self.current = None
            self._start_next(end)
        return done


class _WavSink:
    """One mono 16-bit WAV; audio is written at its audio-clock position."""

    def __init__(self, path: str, rate: int = WAV_RATE):
        self.rate = rate
        try:
            self._file = open(path, "wb")
        except OSError as e:
            raise ValueError(f"cannot write the announcements to {os.fspath(path)!r}: "
                             f"{e.strerror}") from None
        self._w = wave.open(self._file, "wb")
        self._w.setnchannels(1)
        self._w.setsampwidth(2)
        self._w.setframerate(rate)
        self._written = 0  # samples

    def _resampled(self, audio: Audio) -> bytes:
        if audio.rate == self.rate:
            return audio.samples
        import numpy as np

        x = np.frombuffer(audio.samples, dtype="<i2").astype(np.float64)
        n = round(len(x) * self.rate / audio.rate)
        y = np.interp(np.arange(n) * audio.rate / self.rate, np.arange(len(x)), x)
        return np.round(y).astype("<i2").tobytes()

    def silence_until(self, t: float) -> None:
        n = round(t * self.rate) - self._written
        if n > 0:
            self._w.writeframes(b"\0\0" * n)
            self._written += n

    def place(self, audio: Audio, start: float, end: float) -> None:
        self.silence_until(start)
        data = self._resampled(audio)
        n = max(0, min(len(data) // 2, round(end * self.rate) - self._written))
        self._w.writeframes(data[: 2 * n])
        self._written += n

    def close(self) -> None:
        self._w.close()
        self._file.close()


_STOP = object()


class Speaker:
    """The referee's voice: see the module docstring.

    ``to``: ``"speakers"`` (live), a path ending ``.wav`` (WAV file sink) or
    ``None`` (text only). ``text``: where announcements are printed (default
    stdout). ``voice``: a :class:`Voice` (default :func:`default_voice` with
    ``rate``, closed with the speaker; a voice passed in stays the caller's). ``clock``: the audio clock, seconds (default: seconds since
    this speaker was made, a stand-in when the caller has no audio clock).
    ``device``: the PulseAudio sink to play to. ``player``: something with
    the methods of :class:`CommandPlayer` (default: one for ``device``)."""

    def __init__(self, to: str | os.PathLike | None = "speakers", *, text: TextIO | None = None,
                 voice: Voice | None | str = "default", clock: Callable[[], float] | None = None,
                 rate: int = DEFAULT_RATE, device: str | None = None, player=None):
        if to is not None and to != "speakers" and not os.fspath(to).lower().endswith(".wav"):
            raise ValueError(f"speak to 'speakers', a .wav file or nothing, not {to!r}")
        # (a WAV file that cannot be written raises ValueError too, naming it)
        self.mode = "text" if to is None else "live" if to == "speakers" else "wav"
        self.text = text if text is not None else sys.stdout
        self._owns_voice = voice == "default"
        if voice == "default":
            voice = default_voice(rate) if self.mode != "text" else None
        self.voice = voice
        if clock is None:
            t0 = time.monotonic()
            clock = lambda: time.monotonic() - t0  # noqa: E731
        self.clock = clock
        self.problems: list[str] = []
        """What went wrong with the voice or the output, in order."""
        self._wav = _WavSink(to) if self.mode == "wav" else None
        self._player = (player or CommandPlayer(device)) if self.mode == "live" else None
        self._timeline = _Timeline()
        self._lock = threading.Condition()
        self._queue: list = []
        self._records: list[Spoken] = []
        self._busy = False
        self._playing: _Item | None = None
        self._interrupt = threading.Event()
        self._voice_failures = 0
        self._closed = False
        self._thread = threading.Thread(target=self._work, name="referee-speaker", daemon=True)
        self._thread.start()

    # -- the game's side -------------------------------------------------

    def say(self, text: str, urgent: bool = False, at: float | None = None) -> None:
        """Queue an announcement and return at once. ``urgent`` ones go before
        every waiting non-urgent one and cut short a non-urgent one being
        spoken. ``at``: its audio-clock time (default: the clock now)."""
        if at is None:
            at = self.clock()
        with self._lock:
            if self._closed:
                raise RuntimeError("this speaker is closed")
            item = _Item(len(self._records), str(text), urgent, at)
            self._records.append(Spoken(item.text, urgent, at))
            if urgent and self.mode == "live":
                k = next((i for i, q in enumerate(self._queue) if not q.urgent), len(self._queue))
                self._queue.insert(k, item)
                if self._playing is not None and not self._playing.urgent:
                    self._interrupt.set()
            else:
                self._queue.append(item)
            self._lock.notify_all()

    def history(self) -> list[Spoken]:
        """Every announcement so far, in the order asked."""
        with self._lock:
            return list(self._records)

    def talking(self, at: float | None = None) -> Spoken | None:
        """The announcement being voiced at audio-clock time ``at`` (default now)."""
        if at is None:
            at = self.clock()
        for s in reversed(self.history()):
            if s.start is not None and s.start <= at and (s.end is None or at < s.end):
                return s
        return None

    def echo(self, said: str, start: float, end: float, margin: float = 0.5) -> Spoken | None:
        """The referee's own announcement that an utterance heard from
        ``start`` to ``end`` (audio clock) could be: one voiced during that
        time (widened by ``margin`` seconds for room echo and recogniser
        timing) whose words contain most of ``said`` (:func:`sounds_like`).
        ``None`` if the utterance is not the referee's voice. (A WAV sink
        answers as if its announcements were played in the room at their
        times; text only never matches.)"""
        for s in reversed(self.history()):
            if s.start is None:
                continue
            s_end = math.inf if s.end is None else s.end
            if s.start - margin <= end and start <= s_end + margin and sounds_like(said, s.text):
                return s
        return None

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until everything asked so far has been dealt with (spoken,
        written or printed). ``False`` on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._queue and not self._busy, timeout)

    def close(self, until: float | None = None) -> None:
        """Finish what is queued, then stop. A WAV sink is completed (and
        padded with silence up to ``until`` seconds, if given)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.append(_STOP)
            self._lock.notify_all()
        self._thread.join()
        if self._wav is not None:
            self._placed(self._timeline.finish())
            if until is not None:
                self._wav.silence_until(until)
            self._wav.close()
        if self.voice is not None and self._owns_voice:
            self.voice.close()
        if self._player is not None:
            self._player.close()

    def __enter__(self) -> "Speaker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the worker ------------------------------------------------------

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        print(f"referee: {message}", file=sys.stderr, flush=True)

    def _record(self, n: int, **changes) -> None:
        with self._lock:
            self._records[n] = replace(self._records[n], **changes)

    def _print(self, item: _Item) -> None:
        try:
            print(f"referee: {item.text}", file=self.text, flush=True)
        except (OSError, ValueError) as e:  # a closed or broken text sink
            self._problem(f"cannot print announcements: {e}")

    def _render(self, item: _Item) -> Audio | None:
        if self.voice is None or not item.text.strip():
            return None
        try:
            audio = self.voice.render(item.text)
        except Exception as e:  # noqa: BLE001 - a voice must never stop the game
            self._voice_failures += 1
            if self._voice_failures >= MAX_FAILURES:
                self._problem(f"voice failed {MAX_FAILURES} times in a row ({e}); "
                              "announcements are printed only from now on")
                if self._owns_voice:
                    try:
                        self.voice.close()
                    except Exception:  # noqa: BLE001
                        pass
                self.voice = None
            else:
                self._problem(f"voice failed ({e}); this announcement is printed only")
            return None
        trimmed = trim_silence(audio)
        if trimmed is None:  # e.g. pyttsx3 now and then writes an empty file
            self._voice_failures += 1
            self._problem(f"voice rendered no speech for {item.text!r}; printed only")
            return None
        self._voice_failures = 0
        return trimmed

    def _work(self) -> None:
        if self.voice is not None and hasattr(self.voice, "start"):
            try:
                self.voice.start()  # errors show again at the first announcement
            except Exception:  # noqa: BLE001
                pass
        if self._player is not None:
            try:
                self._player.start()
            except PlaybackError as e:
                self._no_output(e)
            except Exception as e:  # noqa: BLE001
                self._no_output(PlaybackError(f"{type(e).__name__}: {e}"))
        while True:
            with self._lock:
                self._lock.wait_for(lambda: self._queue)
                item = self._queue.pop(0)
                self._busy = item is not _STOP
            if item is _STOP:
                return
            try:
                if self.mode == "live":
                    self._speak_live(item)
                elif self.mode == "wav":
                    self._print(item)
                    item.audio = self._render(item)
                    if item.audio is not None:
                        self._placed(self._timeline.add(item))
                else:
                    self._print(item)
            except Exception as e:  # noqa: BLE001 - keep the worker alive whatever happens
                self._problem(f"announcement {item.text!r} failed: {type(e).__name__}: {e}")
            finally:
                with self._lock:
                    self._busy = False
                    self._lock.notify_all()

    def _placed(self, finished: list[tuple[_Item, float, float, bool]]) -> None:
        for item, start, end, interrupted in finished:
            self._wav.place(item.audio, start, end)
            self._record(item.n, start=start, end=end, interrupted=interrupted)
        if self._timeline.current is not None:  # its start is final; its end may yet be cut
            item, start, end = self._timeline.current
            self._record(item.n, start=start, end=end)

    def _no_output(self, e: Exception) -> None:
        self._problem(f"no audio output ({e}); announcements are printed only from now on")
        self._player.close()
        self._player = None

    def _speak_live(self, item: _Item) -> None:
        audio = self._render(item)
        self._print(item)
        if audio is None or self._player is None:
            return
        with self._lock:
            self._playing = item
            self._interrupt.clear()
            if item.urgent is False and any(q is not _STOP and q.urgent for q in self._queue):
                self._interrupt.set()
        try:
            finished = self._player.play(
                audio, self._interrupt, lambda: self._record(item.n, start=self.clock()))
        except PlaybackError as e:
            self._no_output(e)
            self._record(item.n, start=None)
            return
        finally:
            with self._lock:
                self._playing = None
        self._record(item.n, end=self.clock(), interrupted=not finished)


# -- command-line options shared by the commands that speak ----------------

def add_arguments(parser) -> None:
    """The speech options: ``--speak-to``, ``--speech-rate``, ``--speaker-device``."""
    g = parser.add_argument_group("the referee's voice")
    g.add_argument("--speak-to", metavar="WHERE", default="speakers",
                   help="'speakers' (default), a FILE.wav to write the announcements to at "
                        "their time, or 'text' to print them only")
    g.add_argument("--speech-rate", metavar="WPM", type=int, default=DEFAULT_RATE,
                   help=f"speaking rate in words per minute (default {DEFAULT_RATE})")
    g.add_argument("--speaker-device", metavar="SINK", default=None,
                   help="PulseAudio sink to speak through (default: the default output)")


def from_args(args, *, text: TextIO | None = None,
              clock: Callable[[], float] | None = None) -> Speaker:
    """A :class:`Speaker` for the options of :func:`add_arguments`. Raises
    ``ValueError`` naming a bad ``--speak-to`` or ``--speech-rate``."""
    if not 40 <= args.speech_rate <= 500:
        raise ValueError(f"--speech-rate must be 40 to 500 words per minute, not {args.speech_rate}")
    to = None if args.speak_to == "text" else args.speak_to
    if to not in (None, "speakers") and not to.lower().endswith(".wav"):
        raise ValueError(f"--speak-to takes 'speakers', 'text' or a FILE.wav, not {to!r}")
    return Speaker(to, text=text, clock=clock, rate=args.speech_rate, device=args.speaker_device)


if __name__ == "__main__" and sys.argv[1:2] == ["--pyttsx3-child"]:
    _pyttsx3_child(int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "")
