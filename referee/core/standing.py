"""Where a game stands, in sentences: said when a game is resumed, and on "referee
repeat". Pure: the game (and the count or report dialogue, if one is on) in, sentences out.
"""

from __future__ import annotations

from typing import Any

from referee.core.announce import scores_sentence, sentence, top_card_sentence
from referee.core.games import gops, gops_talk, soccer_talk, stroop, swoop
from referee.core.games.swoop_words import standings


def scores(game: Any) -> dict:
    """Every player's score (cards, points or goals) in seat order."""
    return dict(getattr(game, "scores", None) or getattr(game, "totals", {}))


def score_sentence(game: Any) -> str:
    """The score, as "referee score" says it."""
    if isinstance(game, swoop.SwoopGame):
        return f"Score: {standings(scores(game))}."
    return scores_sentence(scores(game))


def standing(game: Any, dialogue: Any = None) -> list[str]:
    """Sentences that say where the game stands (for a resumed game): the score, then
    what is going on."""
    out = [score_sentence(game)]
    if isinstance(game, stroop.StroopGame) and game.top is not None and game.phase != stroop.SETTLED:
        out.append(top_card_sentence(game.round, game.top))
    if isinstance(game, swoop.SwoopGame) and game.phase == "playing":
        out.append(f"Round {game.round}: {game.pile} cards on the pile. {game.turn}'s turn.")
    if isinstance(game, gops.GopsGame) and game.phase != gops.OVER:
        out.append(gops_talk.standing(game))
    if isinstance(game, soccer_talk.SoccerGame):
        out += soccer_talk.standing(game)
    if dialogue is not None and dialogue.asking:
        out.append(dialogue.question())
    return out


def state(game: Any, dialogue: Any = None, dealer: bool = True) -> list[str]:
    """What "referee repeat" says: in Stroop the top card, then the score (before the
    first card, with ``dealer`` (no virtual deck), that the dealer is awaited); in the
    other games, as :func:`standing`."""
    if not isinstance(game, stroop.StroopGame):
        return standing(game, dialogue)
    out = []
    if game.top is not None:
        out.append(sentence("state-top-card", top_card=game.top.spoken))
    elif dealer and not game.ended:
        out.append(sentence("waiting-for-dealer"))
    return out + [score_sentence(game)]
