"""How names and amounts are spoken: names capitalised, numbers in words
(``spoken_number``), lists joined with "and". Shared by the announcer and the
games' own sentences."""

from __future__ import annotations

from referee.core.numbers import spoken_number


def spoken_name(player: str) -> str:
    """``'ann'`` -> ``'Ann'``: names are spoken capitalised."""
    return player[:1].upper() + player[1:]


def spoken_names(players) -> str:
    """``'Ann'``, ``'Ann and Bob'``, ``'Ann, Bob and Cai'``."""
    p = [spoken_name(x) for x in players]
    return p[0] if len(p) == 1 else ", ".join(p[:-1]) + " and " + p[-1]


def amount_words(n: int, unit: str) -> str:
    """``(2, "point")`` -> ``'two points'``; one in the singular."""
    return f"{spoken_number(n)} {unit}" + ("" if n == 1 else "s")
