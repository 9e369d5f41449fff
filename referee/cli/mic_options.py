"""The microphone words every command shares: ``--channels`` says *which* channels of the
input (numbers, from 1) and ``--names`` says *who* is on them, in the same order.

An older spelling that used to mean the other thing (``play --channels dealer,ann``,
``listen --players ann,bob``) is refused with the option meant, never read silently.
"""

from __future__ import annotations

import argparse

from referee.cli import UsageError

#: ``--channels``'s help, the same in every command that takes it.
CHANNELS_HELP = "which channels of the input device to use, numbered from 1, one per name"
#: ``--names``'s help.
NAMES_HELP = "who is on each channel, in order"


def names(text: str | None) -> list[str]:
    """``'dealer, ann,bob'`` -> ``['dealer', 'ann', 'bob']``; ``None`` -> ``[]``."""
    return [n.strip() for n in text.split(",") if n.strip()] if text else []


def channel_numbers(text: str | None) -> list[int] | None:
    """The 0-based channels of ``--channels 1,3`` (None when not given). Raises
    :class:`~referee.cli.UsageError` for anything but numbers from 1, and for names
    suggests ``--names``, which is what they used to mean in ``play``."""
    if text is None:
        return None
    parts = [t.strip() for t in text.split(",")]
    if not all(t.isdigit() for t in parts):
        hint = (f"; who is on them is --names: did you mean --names {text}?"
                if any(t and not t.isdigit() for t in parts) else "")
        raise UsageError(f"--channels takes channel numbers like 1,2 (not {text!r}){hint}")
    nums = [int(t) for t in parts]
    if any(n < 1 for n in nums):
        raise UsageError(f"--channels are numbered from 1 (not {text!r})")
    if len(set(nums)) != len(nums):
        raise UsageError(f"--channels gives a channel twice ({text})")
    return [n - 1 for n in nums]


def add_old_players(p: argparse.ArgumentParser) -> None:
    """``--players``, kept only to say that ``--names`` names the channels here (in ``play``,
    ``--players`` is the game's players in seat order)."""
    p.add_argument("--players", dest="old_players", help=argparse.SUPPRESS)


def refuse_old_players(args: argparse.Namespace) -> None:
    """Raise :class:`~referee.cli.UsageError` if the hidden ``--players`` was given."""
    value = getattr(args, "old_players", None)
    if value is not None:
        raise UsageError(f"--players is the game's players (referee play); who is on each "
                         f"channel is --names: did you mean --names {value}?")
