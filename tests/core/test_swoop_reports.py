"""Swoop's report dialogue (core/games/swoop_talk.py): a question nobody answers is asked
again at most twice, as Goop's count; then the referee waits, and a report is still taken."""

from referee.core.events import Tally
from referee.core.games.swoop_events import Report
from referee.core.games.swoop_talk import ReportDialogue, Say


def test_a_report_question_is_asked_again_at_most_twice_then_the_referee_waits():
    d = ReportDialogue(["bob", "cai"], start=0.0, confirm=1.0, reask=5.0)
    assert d.opening == [Say("bob, what is left in your hand?", 0.0)]
    asked = [t for t in range(1, 60) if d.tick(float(t))]
    assert asked == [5, 10]
    assert d.asking == ("bob", "hand")                            # still waiting for bob
    assert d.heard("bob", "forty two", 60.0) == [Report("bob", 60.0, (), 42)]
    said = {t: d.tick(float(t)) for t in range(61, 120)}
    assert [t for t, out in said.items() if out] == [61, 66, 71]    # cai's question, then twice again
    assert said[61] == [Say("cai, what is left in your hand?", 61.0)]
    d.heard("cai", "seven", 120.0)
    assert d.tick(121.0) == [Tally(121.0)]
