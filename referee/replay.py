"""Replaying a log: the same events always give the same verdicts.

The log's lines may come in any order; the judge orders them by time, exactly
as it orders live reports from several microphones by their watermarks.
"""

from __future__ import annotations

from typing import Iterable

from .judge import Judge
from .journal import Log, LogError, parse_lines
from .games import make_game


def replay(log: Log) -> list:
    """Every verdict of the game in ``log``, in the order they were decided."""
    try:
        game = make_game(log.game)
    except ValueError as e:
        raise LogError(1, str(e)) from None
    judge = Judge(game, ["log"])
    verdicts: list = []
    for event, line in zip(log.events, log.lines):
        try:
            verdicts += judge.push("log", event)
        except ValueError as e:
            raise LogError(line, str(e)) from None
    return verdicts + judge.finish()


def replay_lines(lines: Iterable[str]) -> list:
    """Parse and replay. Raises :class:`~referee.journal.LogError`."""
    return replay(parse_lines(lines))
