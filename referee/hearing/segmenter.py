"""Cutting a stream of samples into stretches of speech (voice activity).

A :class:`Segmenter` takes int16 mono samples in blocks of any size and hands
back :class:`Segment` s: the samples of one stretch of speech with a little
audio either side, and the index of its first sample. Decisions are made per
30 ms frame by the WebRTC voice-activity detector that ships with
PocketSphinx, with an energy gate over the noise floor on top so that steady background
noise does not hold a segment open.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np


@dataclass
class Segment:
    samples: np.ndarray
    """int16 mono."""
    first: int
    """Index of the first sample in the stream."""
    speech_first: int
    """Index of the first frame judged speech (``first`` plus the lead-in)."""
    forced: bool = False
    """Cut because it grew too long, not because speech stopped."""


ONSET_FRAMES = 4
"""Frames before a rise in level (see ``rise_db``) taken as the new voice's speech: its
weak first consonant comes before the vowel that rises."""


class Segmenter:
    """Voice-activity segmentation with a lead-in and a hang-over.

    ``start_frames`` of the last ``start_window`` frames must be speech to
    open a segment; ``hang`` seconds of non-speech frames in a row close it,
    or ``hang_noisy`` seconds while the segment's loudest frame is less than
    ``noisy_db`` above the noise floor: in loud noise the weak parts of a call
    (the "of", a final "s") sink under the floor, and a short hang would cut
    one call into two pieces that neither recogniser can read.

    A frame ``rise_db`` louder than every frame of a segment open for ``rise_after``
    seconds or more starts a new segment there (:meth:`_restart`): a player's call straight
    after a neighbour's faint leak or the room's babble, which held the segment open, is
    then read on its own (docs/hearing-decisions.md). ``rise_db`` None: never.
    """

    CUT_WINDOW = 1.5
    """Seconds at the end of a segment grown too long within which it is cut (see
    :meth:`_cut`)."""

    def __init__(self, rate: int = 16000, frame_ms: int = 30, lead_in: float = 0.3,
                 hang: float = 0.21, start_frames: int = 3, start_window: int = 5,
                 max_length: float = 6.0, mode: int = 2, energy_margin_db: float = 5.0,
                 tail_db: float = 20.0, hang_noisy: float = 0.36, noisy_db: float = 24.0,
                 rise_db: float | None = 12.0, rise_after: float = 0.3) -> None:
        from pocketsphinx import Vad

        self.rate = rate
        self.vad = Vad(mode, rate, frame_ms / 1000.0)
        self.frame = self.vad.frame_bytes // 2
        self.lead = max(1, int(round(lead_in * rate / self.frame)))
        self.end_frames = max(1, int(round(hang * rate / self.frame)))
        self.end_frames_noisy = max(self.end_frames, int(round(hang_noisy * rate / self.frame)))
        self.noisy = 10 ** (noisy_db / 10)
        self.start_frames, self.start_window = start_frames, start_window
        self.max_frames = int(max_length * rate / self.frame)
        self.margin = 10 ** (energy_margin_db / 10)
        self.tail = 10 ** (-tail_db / 10)
        self.pending = np.zeros(0, np.int16)
        self.consumed = 0  # samples framed so far
        self.history: deque = deque(maxlen=self.lead + start_window)
        self.recent: deque = deque(maxlen=start_window)
        self.current: list[np.ndarray] | None = None
        self.current_first = 0
        self.current_speech = 0
        self.silent_run = 0
        self.noise = 1.0  # noise-floor power
        self.peak = 1.0  # loudest frame power of the open segment
        self.powers: deque = deque(maxlen=int(4.0 * rate / self.frame))
        self.rise = None if rise_db is None else 10 ** (rise_db / 10)
        self.rise_after = int(round(rise_after * rate / self.frame))
        self._levels: list[float] = []  # the power of each frame of the open segment
        self._before = 0.0  # the loudest of them but the last ONSET_FRAMES

    @property
    def in_speech(self) -> bool:
        return self.current is not None

    @property
    def open_since(self) -> int | None:
        """First sample of the segment being gathered, if any."""
        if self.current is not None:
            return self.current_first
        # Frames in the start window that may yet open a segment.
        if any(self.recent):
            return self.consumed - len(self.history) * self.frame
        return None

    def _is_speech(self, f: np.ndarray) -> bool:
        p = float(np.mean(f.astype(np.float64) ** 2)) + 1.0
        self.powers.append(p)
        # The floor: a low percentile of the last few seconds of frame powers,
        # which a call of a second or two does not move.
        self.noise = float(np.percentile(self.powers, 20))
        voiced = self.vad.is_speech(f.tobytes())
        if self.current is not None:
            # Hysteresis: inside speech, a voiced frame a little above the floor
            # (a weak final fricative) or any clearly loud frame keeps it going,
            # but not a tail ``tail_db`` under the segment's loudest frame.
            self.peak = max(self.peak, p)
            if p < self.peak * self.tail:
                return False
            return p > self.noise * self.margin or (voiced and p > self.noise * self.margin ** 0.5)
        self.peak = p
        return voiced and p > self.noise * self.margin

    def feed(self, samples: np.ndarray) -> list[Segment]:
        out: list[Segment] = []
        buf = np.concatenate([self.pending, np.asarray(samples, np.int16)])
        n = len(buf) // self.frame
        for i in range(n):
            f = buf[i * self.frame:(i + 1) * self.frame]
            speech = self._is_speech(f)
            start = self.consumed
            self.consumed += self.frame
            if self.current is None:
                self.history.append(f)
                self.recent.append(speech)
                if sum(self.recent) >= self.start_frames:
                    self.current = list(self.history)
                    self._levels = list(self.powers)[-len(self.history):]
                    self._before = max(self._levels[:-ONSET_FRAMES], default=0.0)
                    self.current_first = self.consumed - len(self.history) * self.frame
                    self.current_speech = start - (sum(self.recent) - 1) * self.frame
                    self.silent_run = 0
                    self.history.clear()
                    self.recent.clear()
            else:
                began = self._risen(start) if speech else None
                if began is not None:
                    out.append(self._restart(began))
                self.current.append(f)
                self._levels.append(self.powers[-1])
                self._before = max(self._before, self._levels[-1 - ONSET_FRAMES]) \
                    if len(self._levels) > ONSET_FRAMES else self._before
                self.silent_run = 0 if speech else self.silent_run + 1
                noisy = self.peak < self.noise * self.noisy
                if self.silent_run >= (self.end_frames_noisy if noisy else self.end_frames):
                    out.append(self._close())
                elif len(self.current) >= self.max_frames:
                    out.append(self._cut())
        self.pending = buf[n * self.frame:].copy()
        return out

    def _cut(self) -> Segment:
        """A segment grown to ``max_length`` (noise or talk held it open): closed at the
        quietest frame of its last ``CUT_WINDOW`` seconds, and what follows that frame
        goes on as the open segment, so that a call said as the length ran out is not
        cut in two (docs/hearing-decisions.md)."""
        n = len(self.current)
        w = min(n - 1, int(round(self.CUT_WINDOW * self.rate / self.frame)))
        p = np.array(self._levels[n - w:]) - 1.0
        smooth = np.convolve(p, np.ones(3) / 3, mode="same")
        k = n - w + int(np.argmin(smooth))
        rest = self.current[k:]
        first = self.current_first + k * self.frame
        self.current = self.current[:k]
        seg = self._close(forced=True)
        if rest:
            self.current, self.current_first = rest, first
            self._keep_from(k)
            self.current_speech = first
            self.peak = max(self._levels)
            self.silent_run = 0
        return seg

    def _risen(self, at: int) -> int | None:
        """Where a rise begins, when the frame just judged (from sample ``at``) is
        ``rise_db`` over every frame of the open segment before the last
        :data:`ONSET_FRAMES` (a voice's onset rises over a few frames): the first of those
        last frames and this one that is, if that is ``rise_after`` or more into the
        segment's speech (a loud part that began before then is the speech's own)."""
        bar = self._before * self.rise if self.rise is not None else None
        if bar is None or self.powers[-1] <= bar:
            return None
        recent = self._levels[-ONSET_FRAMES:]
        first = next((i for i, p in enumerate(recent) if p > bar), len(recent))
        began = at - (len(recent) - first) * self.frame
        return began if began - self.current_speech >= self.rise_after * self.frame else None

    def _keep_from(self, k: int) -> None:
        """The open segment's frame levels from its frame ``k`` on."""
        self._levels = self._levels[k:]
        self._before = max(self._levels[:-ONSET_FRAMES], default=0.0)

    def _restart(self, at: int) -> Segment:
        """A voice ``rise_db`` louder than all of the open segment so far begins at sample
        ``at`` (at most :data:`ONSET_FRAMES` before the frame about to be added, so within
        the lead-in kept below): what came before (a neighbour's leak, the
        room's talk) is closed as a segment of its own, and a new one opens with the last
        lead-in's worth of it as its lead-in, its speech from a little before ``at`` (the
        voice's weak first consonant)."""
        n = len(self.current)
        k = max(1, n - self.lead)
        rest = self.current[k:]
        first = self.current_first + k * self.frame
        self.current = self.current[:k]
        seg = self._close()
        self.current, self.current_first = rest, first
        self._keep_from(k)
        self.current_speech = max(first, at - ONSET_FRAMES * self.frame)
        self.peak = max(self._levels + [self.powers[-1]])
        return seg

    def so_far(self, forced: bool = False) -> Segment:
        """The open segment as it is now (a segment must be open)."""
        return Segment(np.concatenate(self.current), self.current_first,
                       max(self.current_first, self.current_speech), forced)

    def _close(self, forced: bool = False) -> Segment:
        seg = self.so_far(forced)
        self.current = None
        self.silent_run = 0
        return seg

    def split(self, at: int) -> bool:
        """Start the open segment afresh at sample ``at`` (rounded up to a frame): what came
        before is dropped, as already decided. False (nothing done) when no segment is open
        or it has no frame from ``at`` on yet."""
        if self.current is None:
            return False
        k = max(0, -(-(at - self.current_first) // self.frame))
        if k >= len(self.current):
            return False
        self.current = self.current[k:]
        self._keep_from(k)
        self.current_first += k * self.frame
        self.current_speech = max(self.current_speech, self.current_first)
        # the hysteresis goes by the loudest frame of what is left, not of the call cut off
        self.peak = max(self._levels)
        return True

    def flush(self) -> list[Segment]:
        """End of input: close any open segment."""
        if self.current is not None:
            if len(self.pending):
                self.current.append(self.pending)
                self.consumed += len(self.pending)
                self.pending = np.zeros(0, np.int16)
            return [self._close()]
        return []
