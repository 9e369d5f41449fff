"""The PulseAudio (or PipeWire) source behind an ALSA input device, and how many channels it
really has.

PortAudio's ALSA devices of type ``pulse`` (``pulse``, ``default`` under an audio server, and
any ``pcm.NAME { type pulse; device "SOURCE" }`` of an asoundrc) offer 32 input channels
whatever the source has; the server fills the extra ones with copies of the real ones. So
"channel 5" of a mono mic would be the one mic again, heard as five players. This module
reads the device's ALSA definition (through libasound) and asks the server (``pactl``) for
the source's channel count. Anything it cannot find out gives None: the caller then
trusts PortAudio.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import shutil
import subprocess

_SPEC = re.compile(r"\b(\d+)ch\b")


def alsa_pcm(name: str) -> dict[str, str] | None:
    """The string fields ``type`` and ``device`` of ALSA's ``pcm.NAME`` definition (those
    present), or None when there is no such definition or no libasound."""
    if not name or "." in name or not name.isprintable():
        return None
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("asound") or "libasound.so.2")
    except OSError:
        return None
    search, get = lib.snd_config_search, lib.snd_config_get_string
    search.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    get.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p)]
    if lib.snd_config_update() < 0:
        return None
    node = ctypes.c_void_p()
    if search(ctypes.c_void_p.in_dll(lib, "snd_config"), f"pcm.{name}".encode(),
              ctypes.byref(node)) < 0:
        return None
    fields = {}
    for key in ("type", "device"):
        leaf, text = ctypes.c_void_p(), ctypes.c_char_p()
        if search(node, key.encode(), ctypes.byref(leaf)) >= 0 and get(leaf, ctypes.byref(text)) >= 0:
            fields[key] = text.value.decode(errors="replace")
    return fields


def _pactl(*args: str) -> str | None:
    if shutil.which("pactl") is None:
        return None
    try:
        r = subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 else None


def source_of(device_name: str) -> str | None:
    """The PulseAudio source an ALSA ``pulse`` device records, or None if the device is not
    one (or the server cannot say). A device with no source of its own records
    ``PULSE_SOURCE``, else the server's default source."""
    pcm = alsa_pcm(device_name)
    if not pcm or pcm.get("type") != "pulse":
        return None
    device = pcm.get("device", "")
    if device and not device.startswith("$"):       # "$DEVICE": an argument left unset
        return device
    if os.environ.get("PULSE_SOURCE"):
        return os.environ["PULSE_SOURCE"]
    for line in (_pactl("info") or "").splitlines():
        if line.startswith("Default Source:"):
            return line.split(":", 1)[1].strip() or None
    return None


def source_channels(source: str) -> int | None:
    """How many channels the PulseAudio source ``source`` has, or None if unknown."""
    for line in (_pactl("list", "short", "sources") or "").splitlines():
        cols = line.split("\t")
        if len(cols) >= 4 and cols[1] == source:
            m = _SPEC.search(cols[3])
            return int(m.group(1)) if m else None
    return None


def real_channels(device_name: str) -> tuple[str, int] | None:
    """``(source, channels)`` for an ALSA ``pulse`` device, or None if not one (or unknown)."""
    source = source_of(device_name)
    if source is None:
        return None
    n = source_channels(source)
    return None if n is None else (source, n)
