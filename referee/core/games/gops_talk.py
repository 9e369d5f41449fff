"""GOPS at the table: reading spoken (or typed) bids and prizes into game events,
the questions the referee asks, and what it says about each verdict. Pure.

Whose bid is it? On a player's own mic, that player's, whatever name is heard with
it: players bid their own cards, and a misheard name ("ann six" heard as "bob six")
must not give another player a card. On the one mic of the table, or typed, the
player it names ("ann nine"), else the first player in seat order whose bid of this
stage is still missing: after the reveal the players say their bids in seat order.
Nobody is guessed at: a bid that cannot be made, or a missing bid, gets a spoken
question ("Ann, your nine is in the discard pile. Which card?", "Cai, your bid?").

With the referee's own prize pile (``virtual``) the talk turns each prize when
one is due, ``pause`` seconds after the last decision, drawing from the cards
the game says the next prize comes from (``random.Random`` seeded with the
game's seed and the number of prizes turned, so a resumed game draws on).
"""

from __future__ import annotations

import random
import re

from referee.core import announce
from referee.core.announce import scores_sentence
from referee.core.spoken import amount_words, spoken_name, spoken_names
from referee.core.numbers import spoken_number
from referee.core.cards import RANK_WORDS
from referee.core.games import gops
from referee.core.games.turns import Say

#: Every word or digit that names a rank, for typed and heard bids.
RANKS = {**{w: v for v, w in RANK_WORDS.items()}, **{str(v): v for v in RANK_WORDS},
         "a": 1, "one": 1, "j": 11, "q": 12, "k": 13}
#: Words around a bid that mean nothing ("I bid seven", "ann bids nine").
NOISE = {"i", "bid", "bids", "my", "is", "for", "me", "of", "the", "prize"}

WHERE = {
    "discard": "is in the discard pile",
    "in place": "is already in place",
}


def parse(text: str, setup: gops.Setup, players) -> list:
    """What a phrase names: ``('prize', name)`` or ``('bid', player or None, value)``
    items (several for "ann nine, bob queen"); ``[]`` for anything else."""
    words = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in NOISE]
    joined = " ".join(words)
    named = {p.lower(): p for p in players}
    for name in setup.prizes:
        if joined in _prize_forms(name):
            return [("prize", name)]
    out: list = []
    player = None
    for w in words:
        if w in named:
            if player is not None:
                return []
            player = named[w]
        elif w in RANKS:
            out.append(("bid", player, RANKS[w]))
            player = None
        else:
            return []
    return out if player is None else []


def _prize_forms(name: str) -> tuple[str, str]:
    """``'green five'`` and ``'green 5'``; ``'five diamonds'`` and ``'5 diamonds'``."""
    words = [w for w in name.split() if w not in NOISE]
    return " ".join(words), " ".join(str(RANKS[w]) if w in RANKS else w for w in words)


class GopsTalk:
    def __init__(self, players, setup: gops.Setup, virtual: bool = False, seed: int = 0,
                 pause: float = 1.5, ask_after: float = 10.0) -> None:
        self.players = tuple(players)
        self.setup = setup
        self.virtual = virtual
        self.seed = seed
        self.pause = pause
        self.ask_after = ask_after
        self.pending: list[gops.Bid] = []
        """Bids sent to the judge and not yet judged."""
        self.turned = 0
        """Prizes turned so far (for the virtual pile's draws)."""
        self.prize_due: float | None = 0.0 if virtual else None
        self.quiet_since = 0.0
        self.asked_at = float("-inf")

    def resume(self, history, now: float) -> None:
        """A resumed game: count the prizes turned, wait before the next question."""
        self.turned = sum(isinstance(h, gops.PrizeTurned) for h in history)
        self.quiet_since = now
        if self.virtual:
            self.prize_due = now + self.pause

    def hint(self) -> str:
        """How to type a bid and a prize, for a line that was neither."""
        prize = next(iter(self.setup.prizes))
        return (f"players: {', '.join(self.players)}; a bid is '{self.players[0]} 9' or '9', "
                f"a prize '{prize}'")

    # --- in -------------------------------------------------------------------
    def heard(self, game: gops.GopsGame, player: str | None, said: str, at: float) -> list:
        """A phrase from ``player``'s mic (None: the table's one mic) at ``at``."""
        items = parse(said, self.setup, self.players)
        if not items:
            return []
        self.quiet_since = at
        out: list = []
        for item in items:
            if item[0] == "prize":
                if self.virtual:
                    out.append(Say("I turn the prizes in this game.", at))
                else:
                    out.append(gops.PrizeTurned(item[1], at))
                continue
            _, named, value = item
            who = player or named or self._next(game)
            if who is None:
                out.append(Say(f"Whose {RANK_WORDS[value]}?" if game.phase == gops.BIDS
                               else "No prize is up.", at))
                continue
            bid = gops.Bid(who, value, at)
            self.pending.append(bid)
            out.append(bid)
        return out

    def _next(self, game: gops.GopsGame) -> str | None:
        waiting = [p for p in game.waiting_for if p not in {b.player for b in self.pending}]
        return waiting[0] if waiting else None

    def tick(self, game: gops.GopsGame, now: float) -> list:
        """The mics have heard up to ``now``: turn a due prize, ask for missing bids."""
        if game.phase == gops.OVER or game.paused:
            return []
        if game.phase == gops.PRIZE and self.virtual and self.prize_due is not None \
                and now >= self.prize_due and not self.pending:
            cards = sorted(game.next_prizes())
            if cards:
                self.prize_due = None
                card = random.Random(self.seed * 1000 + self.turned).choice(cards)
                self.quiet_since = now
                return [gops.PrizeTurned(card, now)]
        if self.pending or now - max(self.quiet_since, self.asked_at) < self.ask_after:
            return []
        self.asked_at = now
        if game.phase == gops.BIDS:
            return [Say(f"{spoken_name(game.waiting_for[0])}, your bid?", now)]
        if game.phase == gops.PRIZE and not self.virtual:
            return [Say("Next prize?", now)]
        return []

    def verdict(self, game: gops.GopsGame, v, now: float) -> list:
        """Keep track of what the game decided."""
        if isinstance(v, (gops.BidTaken, gops.BidRefused)):
            self.pending = [b for b in self.pending if (b.player, b.value) != (v.player, v.value)]
            self.quiet_since = now
        if isinstance(v, gops.PrizeUp):
            self.turned += 1
            self.quiet_since = now
        if isinstance(v, gops.PrizeRefused) and self.virtual:
            self.prize_due = now + self.pause
        if isinstance(v, (gops.PrizeWon, gops.Tied, gops.TieStands, gops.GopsUndone)):
            self.quiet_since = now
            if self.virtual and game.phase == gops.PRIZE:
                self.prize_due = now + self.pause
        return []


# --- What the referee says ------------------------------------------------------------

def _w(value: int) -> str:
    return RANK_WORDS[value]


def _versus(bids, players) -> str:
    sums = sorted({sum(b) for b in bids.values()}, reverse=True)
    return " to ".join(spoken_number(s) for s in sums[:2])


def sentence(v, scores_after: bool = True) -> str | None:
    """The spoken sentence for a GOPS verdict (None: nothing to say)."""
    if isinstance(v, gops.PrizeUp):
        return (f"Tie-break prize: the {v.prize}. Everyone, a second card." if v.tie_break
                else f"Prize: the {v.prize}.")
    if isinstance(v, gops.Reshuffled):
        return "The prize pile is used up: shuffle the prize discard pile into a new one."
    if isinstance(v, gops.BidTaken):
        # a bid that replaces one: read back, so that a misheard name is caught
        if v.replaced is None or v.replaced == v.value:
            return None
        return f"{spoken_name(v.player)}: {_w(v.value)}, not {_w(v.replaced)}."
    if isinstance(v, gops.BidRefused):
        if v.reason in WHERE:
            return f"{spoken_name(v.player)}, your {_w(v.value)} {WHERE[v.reason]}. Which card?"
        if v.reason == "not held":
            return f"{spoken_name(v.player)}, you have no {_w(v.value)}. Which card?"
        if v.reason == "no prize":
            return "No prize is up yet."
        return None
    if isinstance(v, gops.PrizeRefused):
        if not v.prize:
            return None
        if v.waiting:
            return f"Not yet: {spoken_name(v.waiting[0])}, your bid?"
        return f"The {v.prize} {v.reason}. Which prize?" if v.reason.startswith(("is", "was")) \
            else f"Not yet: {v.reason}."
    if isinstance(v, gops.PrizeWon):
        bids = v.bids[v.winner]
        how = f"with {' and '.join(_w(b) for b in bids)}" if len(bids) == 1 else \
            f"{_versus(v.bids, None)}"
        text = f"{spoken_name(v.winner)} wins the {' and the '.join(v.prizes)}, {how}."
        return text + (" " + scores_sentence(v.totals) if scores_after else "")
    if isinstance(v, gops.Tied):
        head = f"Tie between {spoken_names(v.players)}!"
        if v.then == "tie break":
            return head + " Leave your bids. Next prize."
        return head + f" No prize is left: take your bids back and bid again for the {v.prize}."
    if isinstance(v, gops.TieStands):
        return (f"Tied again, {spoken_names(v.players)}! Both prizes go to the prize discard pile. "
                "Take your bid cards back.")
    if isinstance(v, gops.HandsBack):
        return f"{spoken_names(v.players)}: pick up your bid cards."
    if isinstance(v, gops.GopsUndone):
        return f"Undone: {v.what}." if v.what else "Nothing to undo."
    if isinstance(v, gops.GopsPaused):
        return "Paused." if v.paused else "Resumed."
    if isinstance(v, gops.GopsOver):
        best = max(v.totals.values())
        amount = amount_words(best, "point")
        head = (announce.sentence("game-won", winner=spoken_name(v.winners[0]), amount=amount)
                if len(v.winners) == 1 else
                announce.sentence("game-tied", players=spoken_names(v.winners), amount=amount))
        return head + " " + scores_sentence(v.totals)
    return None


def standing(game: gops.GopsGame) -> str:
    """Where the game stands, for a resumed game."""
    if game.phase == gops.BIDS:
        return (f"Bidding for the {' and the '.join(game.up)}; waiting for "
                f"{spoken_names(game.waiting_for)}.")
    if game.up:
        return f"Tie break for the {game.up[0]}: bids stay in place. Next prize."
    return f"{len(game.pile)} prizes in the pile. Next prize."
