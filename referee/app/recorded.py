"""A game played on a recording, resumed on the same recording.

``referee play --audio GAME.wav`` journals what the recording is (its channels, rate and
length). ``referee resume --audio GAME.wav`` checks that it is given that recording again
and goes on in it where the journal stops: hearing it again from :data:`REHEAR` seconds
before the journal's last happening, so that speech the crash cut off is heard whole and
heard as it was before the crash; the table does not judge twice
what the journal already holds (:mod:`referee.core.rehear`).
"""

from __future__ import annotations

import os

from referee.audio.wav import WavReader
from referee.core.errors import RefereeError

#: Seconds of the recording heard again before the journal's last happening: what the
#: hearing learns as it goes (each decoder's mean spectrum, the noise floor, the leaks between
#: mics) needs some calls and pauses to come back to what it was, or a call can be heard
#: differently than before the crash.
REHEAR = 30.0


class NotTheRecording(RefereeError, ValueError):
    """A resume on a recording other than the one the game was played on; the message says
    what differs."""


def identity(path: str | os.PathLike) -> dict:
    """What the journal keeps of a recording: its file name, channels, rate and frames.
    Raises :class:`~referee.audio.wav.AudioFileError` for a file it cannot read."""
    f = WavReader(path)
    try:
        return {"file": os.path.basename(os.fspath(path)), "channels": f.channels,
                "rate": f.rate, "frames": f.frames}
    finally:
        f.close()


def check_same(path: str | os.PathLike, played: dict) -> None:
    """Raise :class:`NotTheRecording` unless ``path`` has the channels, rate and length of
    ``played`` (an :func:`identity` from the journal)."""
    now = identity(path)
    differs = []
    if now["channels"] != played.get("channels"):
        differs.append(f"{now['channels']} channel(s), not {played.get('channels')}")
    if now["rate"] != played.get("rate"):
        differs.append(f"a rate of {now['rate']} Hz, not {played.get('rate')} Hz")
    elif now["frames"] != played.get("frames"):
        rate = now["rate"]
        differs.append(f"{now['frames'] / rate:.2f} s of audio ({now['frames']} frames), not "
                       f"{played.get('frames', 0) / rate:.2f} s ({played.get('frames')} frames)")
    if differs:
        raise NotTheRecording(
            f"{os.fspath(path)} is not the recording this game was played on "
            f"({played.get('file')}): it has {' and '.join(differs)}. Give that recording, or "
            "--continuation if this one holds what came after the journal")


def resume_point(last: float) -> float:
    """Seconds into the recording where a resumed game starts hearing again, for a journal
    whose last happening is at ``last`` seconds."""
    return max(0.0, last - REHEAR)
