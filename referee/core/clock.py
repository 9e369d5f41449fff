"""The core's one clock: whole microseconds on the audio clock.

Events carry seconds (the JSON journal and logs stay as they were); every
comparison, difference and deadline of the judge and the games is taken on
this integer clock, so a rival exactly one tie window behind is in the race
at every time, never at the mercy of float rounding (``8.01 + 0.04`` is not
``8.05`` in floats).
"""

from __future__ import annotations

US_PER_SECOND = 1_000_000
US_PER_MS = 1_000


def us(seconds: float) -> int:
    """Seconds on the audio clock -> whole microseconds (the one conversion)."""
    return round(seconds * US_PER_SECOND)


def us_from_ms(ms: float) -> int:
    """A duration in milliseconds (an option such as ``tie_window_ms``) -> microseconds."""
    return round(ms * US_PER_MS)


def seconds(micros: int) -> float:
    """Microseconds -> seconds, for events and messages."""
    return micros / US_PER_SECOND


def ms(micros: int) -> int:
    """Microseconds -> whole milliseconds, for spoken and printed margins."""
    return round(micros / US_PER_MS)
