"""Which games the core knows, and how to set one up from its game line."""

from __future__ import annotations

from .events import GameStart
from .stroop import StroopGame, StroopOptions


class UnknownGame(ValueError):
    """A game name the referee does not serve."""


GAMES = ("stroop",)


def make_game(start: GameStart):
    """The game's state machine for a game line. Raises a ValueError subclass
    for an unknown game, a bad option or a bad player list."""
    if start.game == "stroop":
        return StroopGame(start.players, StroopOptions.from_dict(start.options), start.match_cards)
    raise UnknownGame(f"unknown game {start.game!r} (known: {', '.join(GAMES)})")
