"""The events the core is fed and the shell produces.

Every time is in seconds on the audio clock: the clock that counts samples
from the start of the session (or of a recording), shared by every channel.
No event carries wall-clock time.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from referee.core.cards import Card


@dataclass(frozen=True)
class GameStart:
    """The first event of every log and journal."""

    game: str
    """Which game: ``'stroop'``, ``'goop'``, ..."""
    players: tuple[str, ...]
    """Player names in seat order."""
    options: dict = field(default_factory=dict)
    """House-rule options, as given (each game validates its own)."""
    match_cards: dict[str, Card] = field(default_factory=dict)
    """Stroop's match-card variant: player name to match card."""


@dataclass(frozen=True)
class Deal:
    """The dealer turned a card face up onto the stake pile."""

    card: Card
    at: float
    """Seconds: when players could first see the card."""


@dataclass(frozen=True)
class Call:
    """A player said something in play: the words heard, whatever they are."""

    player: str
    said: str
    start: float
    """Seconds: when the player began to speak."""
    end: float
    """Seconds: when the player finished; the call takes effect then."""


@dataclass(frozen=True)
class Shout:
    """A player shouted (Goop's "Goop!")."""

    player: str
    said: str
    start: float
    """Seconds: when the shout began."""
    end: float
    """Seconds: when it was completed; it takes effect then."""


@dataclass(frozen=True)
class Count:
    """A number a player reported in an end-of-hand count (Goop)."""

    player: str
    field: str
    """``'centre'`` (cards in the centre) or ``'left'`` (cards left in the Goop pile)."""
    value: int
    at: float
    """Seconds: when it was heard (or typed)."""


@dataclass(frozen=True)
class Tally:
    """The count is done: score the hand."""

    at: float
    """Seconds."""


#: Commands the players can give by voice. ``undo``, ``pause``, ``resume`` and
#: ``end`` change the game; ``score``, ``repeat`` and ``new-game`` are for the
#: shell (it journals them too, so the log shows what was asked).
COMMANDS = ("score", "repeat", "undo", "pause", "resume", "new-game", "end", "seats")

#: Other ways to say a command -> its name.
COMMAND_ALIASES = {"end game": "end", "end-game": "end", "new game": "new-game", "scores": "score",
                   "voices": "seats"}


def command_name(text: str) -> str | None:
    """The command that ``text`` names, or None."""
    t = " ".join(text.lower().split())
    name = COMMAND_ALIASES.get(t, t.replace(" ", "-"))
    return name if name in COMMANDS else None


@dataclass(frozen=True)
class Command:
    """A command given at the table, by voice or keyboard."""

    name: str
    """One of :data:`COMMANDS`."""
    at: float
    """Seconds: when it was completed."""
    player: str | None = None
    """Who gave it, when known."""


@dataclass(frozen=True)
class Asked:
    """A verdict: a command for the shell (score, repeat, new-game) has come
    up in time order, after every event before it was judged."""

    command: Command


@dataclass(frozen=True)
class Heard:
    """A watermark: ``stream`` has reported every event whose time is at or
    before ``upto``, so no later report from it can end earlier.

    A recogniser's watermark is the audio time it has consumed, or the start
    of the speech it is still decoding, whichever is earlier."""

    stream: str
    upto: float
    """Seconds."""


@dataclass(frozen=True)
class Unattributed:
    """Something said at the table's one mic whose voice the referee could not put a name
    to (issue 29, mode 2): it counts for nobody, and the table is asked who it was."""

    kind: str
    """An :class:`UtteranceKind` value."""
    said: str
    start: float
    """Seconds on the audio clock."""
    end: float
    """Seconds on the audio clock."""
    likeliest: str | None = None
    """The talker whose voice it most likely was, if any voice was found in it."""
    likelihood: float = 0.0
    """How likely that talker's voice it was (0-1)."""
    two: bool = False
    """Two voices were found in it at once."""

    def doubt(self) -> str:
        """Why it counts for nobody, in a few words."""
        if self.two:
            return "two voices at once"
        if self.likeliest is None:
            return "whose voice it was is not sure"
        return (f"whose voice it was is not sure ({self.likeliest}'s at "
                f"{100 * self.likelihood:.0f} %)")


class UtteranceKind(enum.StrEnum):
    """What the hearing layer says an utterance is (a grammar phrase's kind, or
    ``unknown``); equal to, and written to JSON as, its value."""

    CALL = "call"
    """A full card name."""
    PARTIAL = "partial"
    """Part of a card: a bare rank or suit, or a call cut short ("jack of");
    a call all the same, and a miscall in Stroop."""
    SHOUT = "shout"
    """Goop's "Goop!"."""
    COMMAND = "command"
    """One of :data:`COMMANDS`."""
    NUMBER = "number"
    """A number in Goop's count."""
    BID = "bid"
    """GOPS: a player's bid."""
    PRIZE = "prize"
    """GOPS: the prize card turned up, named as it is."""
    PLAY = "play"
    """Soccer: one or more cards played ("nine of hearts and two of hearts")."""
    UNKNOWN = "unknown"
    """Speech outside the grammar."""


#: The kinds that race and that the phrase classifier knows: a full card call
#: and a shout ("goop").
CALLS_AND_SHOUTS = frozenset({UtteranceKind.CALL, UtteranceKind.SHOUT})


@dataclass(frozen=True)
class Utterance:
    """What the hearing layer recognised on one channel: the edge between a
    recogniser's vendor format and the core."""

    kind: str
    """An :class:`UtteranceKind` (or its value): ``'call'``, ``'partial'``,
    ``'shout'``, ``'command'``, ``'number'``, ``'bid'``, ``'prize'``, ``'play'``
    or ``'unknown'``."""
    said: str
    """The phrase in its canonical grammar form, e.g. ``'queen of hearts'``."""
    start: float
    """Seconds on the audio clock."""
    end: float
    """Seconds on the audio clock."""
    confidence: float = 1.0
    """0 to 1, as far as the engine can say."""
    channel: int = 0
    """Channel index within its source (file or device)."""
    player: str | None = None
    """The player whose microphone this channel is, if known."""
    source: str = ""
    """The file or device it came from."""
    heard_elsewhere: tuple[str, ...] = ()
    """Other readings of the same voice: what other mics' recognisers heard of it (its
    leaks), when they heard other words. The table may take one where this reading cannot
    be (a card dealt already)."""
