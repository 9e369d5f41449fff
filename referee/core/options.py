"""House-rule options, checked the same way for every game."""

from __future__ import annotations

from typing import Mapping

from referee.core.errors import RefereeError


class OptionError(RefereeError, ValueError):
    """A house-rule option that does not exist or has a bad value."""


def check_known(game: str, options: Mapping, known: set[str]) -> None:
    unknown = sorted(set(options) - known)
    if unknown:
        raise OptionError(f"unknown {game} option {unknown[0]!r} (known: {', '.join(sorted(known))})")


def tie_window_ms(options: Mapping, default: float) -> float:
    """The ``tie_window_ms`` option: milliseconds within which two ends (or
    starts) count as the same moment."""
    window = options.get("tie_window_ms", default)
    if isinstance(window, bool) or not isinstance(window, (int, float)) or not 0 <= window <= 5000:
        raise OptionError(f"tie_window_ms must be a number of milliseconds from 0 to 5000, not {window!r}")
    return float(window)
