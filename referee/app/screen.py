"""The live terminal view: top card, who is active, the last call heard from
each player, the scores and the last announcement.

Draws with rich: on a terminal, as one full-screen view redrawn in place (``rich.live`` on
the alternate screen, so lines typed or printed meanwhile never push it down and leave old
copies behind); on any other file object, as a fresh block per change, so tests can read it
back.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from referee.core.games import goop
from referee.core.games import gops
from referee.core.cards import RANK_LETTERS

from referee.core.games import stroop
from referee.core.games import swoop
from referee.core.games.swoop import rank_words
from referee.core.games import soccer


def soccer_head(game: soccer.SoccerGame) -> Text:
    """The soccer lines: round, draw pile, the forward, the last block and its method."""
    head = Text.assemble(("Soccer  ", "bold"), f"round {game.round}  draw pile {game.pile}  ")
    if game.forward is not None:
        head.append(f"{game.attacker} attacks: ")
        head.append(game.forward.symbol, "red" if game.forward.colour.value == "red" else "bold")
        head.append(f"  waiting for {game.expects}")
    elif game.phase != "over":
        head.append(f"{game.attacker} to flip a forward")
    last = game.last
    if isinstance(last, soccer.Blocked):
        head.append(f"\nlast: {last.forward.symbol} blocked by "
                    f"{' '.join(c.symbol for c in last.cards)}: {last.reason}")
    elif isinstance(last, soccer.Goal):
        head.append(f"\nlast: goal with {last.forward.symbol} ({last.how})")
    elif isinstance(last, soccer.BlockFailed):
        head.append(f"\nlast: {' '.join(c.symbol for c in last.cards)} fails: {last.reason}")
    elif isinstance(last, soccer.Fizzled):
        head.append(f"\nlast: {last.forward.symbol} discarded, no penalty")
    return head


class Screen:
    def __init__(self, file: TextIO | None = None, live: bool | None = None, width: int = 72) -> None:
        self.file = file if file is not None else sys.stdout
        self.console = Console(file=self.file, width=width, highlight=False,
                               force_terminal=live if live is not None else None)
        self.live = self.console.is_terminal if live is None else live
        self._live: Live | None = None
        self._last: str | None = None

    def render(self, table: Any) -> Panel:
        game = table.game
        rows = RichTable(show_header=True, header_style="bold", expand=True, box=None)
        rows.add_column("player")
        rows.add_column("status")
        rows.add_column("last heard")
        rows.add_column("score", justify="right")
        scores = dict(getattr(game, "scores", None) or getattr(game, "totals", {}))
        for p in table.start.players:
            status = ""
            if isinstance(game, stroop.StroopGame):
                status = "out" if p in game.inactive else "active"
            elif isinstance(game, goop.GoopGame) and p in getattr(game, "goopers", ()):
                status = "gooped"
            elif isinstance(game, swoop.SwoopGame):
                status = f"{game.held[p]} cards" + ("  <- turn" if game.phase == "playing"
                                                    and p == game.turn else "")
            elif isinstance(game, gops.GopsGame):
                # the cards left in the hand; "*" marks the bid of this turn, once it is in
                status = " ".join(RANK_LETTERS[v] for v in game.hand_of(p))
                status += " *" if p in game.bids else ""
            rows.add_row(p, status, table.last_heard.get(p, ""), str(scores.get(p, 0)))
        if isinstance(game, stroop.StroopGame):
            top = game.top.symbol if game.top else "-"
            colour = "red" if game.top and game.top.colour.value == "red" else "bold"
            head = Text.assemble(("Stroop  ", "bold"), f"round {game.round}  top card ",
                                 (top, colour), f"  pile {game.pile}")
            if game.top is None and getattr(table, "deck", None) is None:
                head.append("\nwaiting for the dealer: name the card, or type it (QH, 10d)",
                            style="italic")
        elif isinstance(game, swoop.SwoopGame):
            run = game.run
            pile = f"pile {game.pile}" + (f", top {rank_words(*run)}" if run else ", empty")
            head = Text.assemble(("Swoop  ", "bold"), f"round {game.round}  {pile}  ",
                                 (f"{game.turn}'s turn" if game.phase == "playing" else game.phase, "bold"))
            asking = table.dialogue.asking if table.dialogue else None
            if asking:
                head.append(f"  asking {asking[0]}")
        elif isinstance(game, gops.GopsGame):
            prize = " + ".join(game.up) or "-"
            head = Text.assemble(("GOPS  ", "bold"), f"prize {prize}  pile {len(game.pile)}  "
                                 f"prize discard {len(game.discard)}")
            if game.waiting_for:
                head.append(f"  waiting for {', '.join(game.waiting_for)}")
        elif isinstance(game, soccer.SoccerGame):
            head = soccer_head(game)
        else:
            head = Text.assemble(("Goop  ", "bold"), f"hand {game.hand}  {game.phase}")
            asking = table.dialogue.asking if table.dialogue else None
            if asking:       # the question stays on screen once the referee stops asking it aloud
                head.append(f"\n{table.dialogue.question()}", style="bold")
        if getattr(table, "paused", False) and not table.over:
            head.append("\npaused — say 'referee resume'", style="bold yellow")
        said = Text(f"referee: {table.last_said}" if table.last_said else "", style="italic")
        state = "  [game over]" if table.over else ""
        return Panel(Group(head, rows, said), title=f"referee{state}", title_align="left")

    def update(self, table: Any) -> None:
        panel = self.render(table)
        if self.live:
            if self._live is None:
                self._live = Live(panel, console=self.console, auto_refresh=False, screen=True,
                                  redirect_stdout=False, redirect_stderr=False)
                self._live.start()
            self._live.update(panel, refresh=True)
            return
        with self.console.capture() as cap:
            self.console.print(panel)
        text = cap.get()
        if text != self._last:       # print a block only when something changed
            self._last = text
            self.file.write(text)
            self.file.flush()

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
