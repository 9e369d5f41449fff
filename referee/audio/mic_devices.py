"""Which microphones there are and which to open: the input devices sounddevice (PortAudio)
lists, how many channels each really has, the inputs a command line asks for, and the errors
that name a device that cannot be used. The streams themselves: :mod:`referee.audio.mic`.

sounddevice is passed in or imported on first use, never at import of this module: it lists
the devices once, when imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from referee.audio.pulse_source import real_channels
from referee.core.errors import RefereeError


#: What to try when no input device is found at all.
NO_INPUT_HINT = ("no sound card or audio server gives an input here. Is PulseAudio or PipeWire "
                 "running (`pactl info`)? `referee listen --list-devices` lists the inputs; "
                 "--devices picks one by number or name, or PULSE_SOURCE=NAME picks the "
                 "PulseAudio source (`pactl list short sources`); --audio FILE.wav referees a "
                 "recording instead")


class MicError(RefereeError, ValueError):
    """A device or channel that cannot be used; the message says which and why."""


class MicAbsent(MicError):
    """A listed device that cannot be opened now (an audio server's source not there yet):
    with other mics open, the game starts without it and it is tried again."""


@dataclass(frozen=True)
class Input:
    """One device to open and the channels of it to use."""

    device: int | str | None = None
    """sounddevice device: index, name (substring) or None for the default input."""
    channels: tuple[int, ...] = (0,)
    """0-based channels of the device, each becoming one channel of the source."""


def load_sounddevice(sd: Any | None) -> Any:
    """``sd`` if given, else the sounddevice module (a MicError if PortAudio is missing)."""
    if sd is not None:
        return sd
    try:
        import sounddevice
    except OSError as e:  # PortAudio library missing
        raise MicError(f"cannot use microphones: {e}") from None
    return sounddevice


def list_devices(sd: Any | None = None) -> list[dict]:
    """Input devices: ``{'index', 'name', 'channels', 'rate', 'default'}`` each."""
    sd = load_sounddevice(sd)
    try:
        default = sd.default.device[0]
    except Exception:
        default = None
    if default is None or default < 0:
        try:
            default = sd.query_hostapis(0)["default_input_device"]
        except Exception:
            default = -1
    out = []
    for i, d in enumerate(sd.query_devices()):
        if d["max_input_channels"] > 0:
            out.append({"index": i, "name": d["name"], "channels": d["max_input_channels"],
                        "rate": d["default_samplerate"], "default": i == default})
    return out


def query_input(device: int | str | None, sd: Any) -> dict:
    """PortAudio's record of input ``device`` (None: the default input); a MicError naming
    it when there is none."""
    try:
        return sd.query_devices(device, "input")
    except Exception as e:
        if device is None:
            raise MicError(f"no microphone: {NO_INPUT_HINT}") from None
        raise MicError(f"no input device {device_label(device)}: {e}") from None


def real_inputs(info: dict) -> tuple[int, str | None]:
    """How many input channels the device of ``info`` really has, and the PulseAudio source
    behind it (None: not an audio server's device): an audio server's ALSA device offers 32,
    copies of its source's real ones (see :mod:`referee.audio.pulse_source`)."""
    have = int(info["max_input_channels"])
    source = real_channels(info["name"]) if have > 1 else None
    return (min(have, source[1]), source[0]) if source is not None else (have, None)


def check_channels(info: dict, need: int) -> None:
    """A MicError unless the device of ``info`` has ``need`` input channels."""
    if need <= 1 and int(info["max_input_channels"]) >= 1:
        return      # no need to ask the audio server
    have, source = real_inputs(info)
    if need > have:
        behind = f" (PulseAudio source {source})" if source else ""
        raise MicError(f"device {info['name']!r}{behind} has {have} input channel(s); "
                       f"channel {need} was asked for")


def input_channels(device: int | str | None = None, sd: Any | None = None) -> int:
    """How many input channels ``device`` (None: the default input) really has."""
    return real_inputs(query_input(device, load_sounddevice(sd)))[0]


def plan_inputs(devices: Sequence[str] | None = None,
                channels: Sequence[int] | None = None) -> list[Input]:
    """The inputs of ``referee listen --devices ... --channels ...``: one device with the
    given 0-based channels, or several devices with their first channel each."""
    devs: list[int | str | None] = [_device_arg(d) for d in devices] if devices else [None]
    if channels is not None:
        if len(devs) != 1:
            raise MicError("--channels selects channels of one device; with several "
                           "--devices each device is one channel")
        if not channels:
            raise MicError("--channels is empty")
        if any(c < 0 for c in channels):
            raise MicError(f"channels are numbered from 1: {[c + 1 for c in channels]}")
        if len(set(channels)) != len(channels):
            raise MicError("a channel is given twice in --channels")
        return [Input(devs[0], tuple(channels))]
    return [Input(d, (0,)) for d in devs]


def _device_arg(text: str) -> int | str:
    t = text.strip()
    if not t:
        raise MicError("empty device name")
    return int(t) if t.isdigit() else t


def device_label(device: int | str | None) -> str:
    """A device as people read it in messages."""
    return "default" if device is None else str(device)
