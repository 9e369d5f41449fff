"""Replaying a log: the same events always give the same verdicts.

The log's lines may come in any order; the judge orders them by time, exactly
as it orders live reports from several microphones by their watermarks.
"""

from __future__ import annotations

from typing import Iterable

from referee.core.judge import Judge
from referee.core.journal import Log, LogError, parse_lines
from referee.core.games import make_game
from referee.core.clock import seconds


def replay(log: Log) -> list:
    """Every verdict of the game in ``log``, in the order they were decided."""
    try:
        game = make_game(log.game)
    except ValueError as e:
        raise LogError(1, str(e)) from None
    judge = Judge(game, ["log"])
    verdicts: list = []
    try:
        keyed = sorted(zip(log.events, log.lines), key=lambda el: game.time_key(el[0]))
    except ValueError as e:
        # time_key refuses events the game does not take: find the first such line.
        for event, line in zip(log.events, log.lines):
            try:
                game.time_key(event)
            except ValueError:
                raise LogError(line, str(e)) from None
        raise
    times = [game.time_key(event)[0] for event, _ in keyed] + [float("inf")]
    for i, (event, line) in enumerate(keyed):
        try:
            verdicts += judge.push("log", event)
            if times[i + 1] > times[i]:     # everything at this instant is in
                verdicts += judge.heard("log", seconds(times[i]))
        except ValueError as e:
            raise LogError(line, str(e)) from None
    return verdicts + judge.finish()


def replay_lines(lines: Iterable[str]) -> list:
    """Parse and replay. Raises :class:`~referee.core.journal.LogError`."""
    return replay(parse_lines(lines))
