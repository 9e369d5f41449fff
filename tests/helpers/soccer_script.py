"""Two rounds of the soccer card game as spoken at the table, for the end-to-end tests:
a block by each of the four methods, a failed block retried, a penalty kick, a goalie
forward without a second goalie, and a goal without a block."""

from __future__ import annotations

#: (who speaks, what they say), in order. ann attacks first.
PLAYS = [
    # round 1
    ("ann", "five of spades"), ("bob", "block with five of diamonds"),        # same number
    ("ann", "king of clubs"), ("ann", "penalty queen of hearts"),            # penalty kick: ann 1
    ("bob", "seven of hearts"), ("ann", "jack of spades"),                   # fails: black on red
    ("ann", "nine of hearts and two of hearts"),                             # difference and suit
    ("bob", "eight of clubs"), ("ann", "jack of clubs"),                     # a goalie, same colour
    # round 2
    ("ann", "six of diamonds"), ("bob", "four of clubs and two of spades"),  # sum
    ("ann", "three of spades"), ("bob", "ten of spades and king of spades"),  # suit
    ("bob", "four of hearts"), ("ann", "no block"),                          # goal: bob 1
    ("bob", "queen of diamonds"), ("bob", "no penalty"),                     # discarded
]

#: The methods of the blocks that hold, in order.
METHODS = [["number"], ["difference", "suit"], ["goalie"], ["sum"], ["suit"]]

#: The decisions, as `referee play --json` prints them (type, and the goals after a goal).
DECISIONS = ["blocked", "goal", "blocked", "blocked", "round-over",
             "blocked", "blocked", "goal", "fizzled", "round-over"]


def check_decisions(objs: list[dict], why) -> None:
    """The referee's --json objects of the two rounds (and a final) are the script's."""
    kinds = [o["type"] for o in objs if o["type"] != "final"]
    assert kinds == DECISIONS, why
    assert [o["methods"] for o in objs if o["type"] == "blocked"] == METHODS, why
    goals = [o for o in objs if o["type"] == "goal"]
    assert [(g["attacker"], g["how"], g["goals"]) for g in goals] == [
        ("ann", "penalty kick", {"ann": 1, "bob": 0}), ("bob", "no block", {"ann": 1, "bob": 1})], why
    rounds = [o for o in objs if o["type"] == "round-over"]
    assert [(r["drawn"], r["pile"]) for r in rounds] == [(4, 32), (4, 24)], why
