"""Which games the core knows, and how to set one up from its game line."""

from __future__ import annotations

from referee.core.errors import RefereeError
from referee.core.events import GameStart
from referee.core.games.goop import GoopGame, GoopOptions
from referee.core.games.gops import GopsGame, GopsOptions
from referee.core.options import OptionError
from referee.core.games.soccer import SoccerGame, SoccerOptions
from referee.core.games.stroop import StroopGame, StroopOptions
from referee.core.games.swoop import SwoopGame, SwoopOptions


class UnknownGame(RefereeError, ValueError):
    """A game name the referee does not serve."""


GAMES = ("stroop", "goop", "swoop", "gops", "soccer")


def make_game(start: GameStart):
    """The game's state machine for a game line. Raises a ValueError subclass
    for an unknown game, a bad option or a bad player list."""
    if start.game == "stroop":
        return StroopGame(start.players, StroopOptions.from_dict(start.options), start.match_cards)
    if start.game == "goop":
        if start.match_cards:
            raise OptionError("match_cards belong to Stroop, not Goop")
        return GoopGame(start.players, GoopOptions.from_dict(start.options))
    if start.game == "swoop":
        if start.match_cards:
            raise OptionError("match_cards belong to Stroop, not Swoop")
        return SwoopGame(start.players, SwoopOptions.from_dict(start.options))
    if start.game == "gops":
        if start.match_cards:
            raise OptionError("match_cards belong to Stroop, not GOPS")
        return GopsGame(start.players, GopsOptions.from_dict(start.options))
    if start.game == "soccer":
        if start.match_cards:
            raise OptionError("match_cards belong to Stroop, not soccer")
        return SoccerGame(start.players, SoccerOptions.from_dict(start.options))
    raise UnknownGame(f"unknown game {start.game!r} (known: {', '.join(GAMES)})")
