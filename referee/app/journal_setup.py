"""The set-up a journal's first line keeps (``"setup"``: the mics' channels and devices,
the virtual deck and its seed, the recording played), checked before ``referee resume``
uses it: a field of the wrong kind, or channels naming no player, is one line naming it,
not a traceback."""

from __future__ import annotations

import json
import os

from referee.core.errors import RefereeError
from referee.core.events import GameStart

#: Channels that are not players.
SHARED = ("dealer", "table")


class SetupLineError(RefereeError, ValueError):
    """A journal's set-up that resume cannot use; the message names the field."""


def _strs(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def checked_setup(path: str | os.PathLike, objects: tuple | list, game: GameStart) -> dict:
    """The ``setup`` object of the journal at ``path`` (whose objects are ``objects``), each
    field it has of the kind resume needs."""
    setup = objects[0].get("setup", {}) if objects else {}

    def bad(what: str, value) -> SetupLineError:
        return SetupLineError(f"{os.fspath(path)}: line 1: \"setup\" {what}, not "
                              f"{json.dumps(value, ensure_ascii=False)[:60]}")

    if not isinstance(setup, dict):
        raise bad("must be an object", setup)
    if "channels" in setup:
        check_channels(setup["channels"], game, lambda: bad("\"channels\" must name players, "
                                                            "'dealer' or 'table', each once",
                                                            setup["channels"]))
    devices = setup.get("devices")
    if devices is not None and not (isinstance(devices, str) or _strs(devices)):
        raise bad("\"devices\" must be a name or a list of names", devices)
    numbers = setup.get("mic_channels")
    if numbers is not None and not isinstance(numbers, str):
        raise bad("\"mic_channels\" must be the --channels given, as text", numbers)
    one = setup.get("one_mic")
    if one is not None and not (
            isinstance(one, dict) and type(one.get("enrol_cards")) is int and 1 <= one["enrol_cards"] <= 10
            and type(one.get("confidence")) in (int, float) and 0 <= one["confidence"] <= 1
            and one.get("overlap") in ("ask", "draw")
            and isinstance(one.get("known_voices", False), bool)):
        raise bad("\"one_mic\" must hold enrol_cards (1-10), confidence (0-1), overlap "
                  "(ask or draw) and known_voices (true or false)", one)
    if not isinstance(setup.get("virtual_deck", False), bool):
        raise bad("\"virtual_deck\" must be true or false", setup["virtual_deck"])
    seed = setup.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise bad("\"seed\" must be a whole number", seed)
    audio = setup.get("audio")
    if audio is not None and not (isinstance(audio, dict) and isinstance(audio.get("file"), str)
                                  and all(isinstance(audio.get(k), int) and audio[k] > 0
                                          for k in ("channels", "rate", "frames"))):
        raise bad("\"audio\" must hold the recording's file, channels, rate and frames", audio)
    return setup


def check_channels(channels, game: GameStart, error=None) -> list[str]:
    """``channels`` if they are names of ``game``'s players, 'dealer' or 'table', each once;
    else raise ``error()`` (default: a SetupLineError naming them)."""
    ok = (_strs(channels) and len(set(channels)) == len(channels) and channels
          and all(c in SHARED or c in game.players for c in channels))
    if not ok:
        raise (error() if error else SetupLineError(
            f"channels {channels!r}: each must be 'dealer', 'table' or a player "
            f"({', '.join(game.players)}), each once"))
    return channels
