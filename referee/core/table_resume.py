"""A table resumed from its journal: the game rebuilt silently from the journaled
happenings, and the verdicts the journal lacks written after it. A part of
:class:`~referee.core.table.Table`, kept apart as :mod:`.table_typed` is."""

from __future__ import annotations

from referee.core.clock import seconds
from referee.core.events import Deal
from referee.core.journal import SUMMARY_TYPES, dumps, encode_verdict
from referee.core.table_typed import KEYBOARD


class Resumed:
    """What :class:`~referee.core.table.Table` does after a crash (it supplies the game,
    the judge and the journal)."""

    def _replay(self, history: list) -> None:
        """Rebuild the game from a journal's happenings, silently: their
        verdicts were journaled and announced before."""
        last = max((seconds(self.game.time_key(h)[0]) for h in history), default=self.now)
        # The resumed clock starts at ``offset``: nothing can be heard between the last
        # happening and it, so what was open up to there is settled now, as it was (or
        # would have been) before the crash, not once more when the mics start (heard again
        # from ``rehear`` on: up to there, the rest as it is heard).
        upto = max(last, self.options.offset) if self.reheard is None else self.options.rehear
        for h in history:
            self.verdicts += self.judge.push(KEYBOARD, h)
            if isinstance(h, Deal):
                self.dealt.add(h.card)
                if self.unclear is not None:
                    self.unclear.dealt(h.at)
        for s in self.judge.streams:
            self.verdicts += self.judge.heard(s, upto)
        for v in self.verdicts if self.unclear is not None else ():
            self.unclear.verdict(v, upto)
        self.over = any(encode_verdict(v)["type"] == "final" for v in self.verdicts)
        self.now = max(self.now, upto)

    def journal_missing(self, journaled: list[dict]) -> list:
        """After a resume: the verdicts of the history that the journal lacks (the crash
        came between a happening and its verdict). They are journaled and printed now,
        and returned."""
        left = [dumps(o) for o in journaled]
        missing = []
        for v in self.verdicts:
            obj = encode_verdict(v)
            if dumps(obj) in left:
                left.remove(dumps(obj))
                continue
            missing.append(v)
            if self.journal is not None:
                self.journal.append(obj)
            if self.json_out is not None and obj["type"] in SUMMARY_TYPES:
                print(dumps(obj), file=self.json_out, flush=True)
        if self.reheard is not None:
            self.reheard.journaled(left)     # what the game gives again as the mics go on
        return missing
