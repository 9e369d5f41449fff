"""Replay a game log and print every verdict, with the reason for each.

The audit tool for disputes: the same log always gives the same verdicts.
"""

from __future__ import annotations

import argparse
import sys

from referee.core.account import describe
from referee.core.journal import SUMMARY_TYPES, LogError, dumps, encode_verdict, parse_lines
from referee.core.replay import replay

DESCRIPTION = """\
Replay a game log and print every verdict, with the reason for each.

LOG.jsonl is JSON Lines, one object per line (a journal written by
`referee play` is such a log too). The first line names the game:

  {"type":"game","game":"stroop","players":["ann","bob"],
   "options":{"tie_window_ms":40,"two_player_miscall":"inactive"},
   "match_cards":{"ann":"9S"}}

  options (optional): tie_window_ms (default 40): calls whose ends, or then
  whose starts, are this close count as simultaneous; two_player_miscall:
  "inactive" (default: a miscall puts the caller out for the round) or
  "forfeit" (in a two-player game a miscall gives the round to the other).
  match_cards (optional): the match-card variant, player -> card.

Then, in any order (times are seconds on one clock):

  {"type":"deal","card":"3S","at":12.5}
      the dealer turned a card face up; a round starts
  {"type":"call","player":"ann","said":"four of hearts","start":13.1,"end":13.6}
      the words heard from a player, whatever they are; a call belongs to the
      round of the last deal before its end, and takes effect at its end
  {"type":"command","command":"undo","at":15.2,"player":"bob"}
      a command given at the table (player optional): undo reverts the latest
      win or draw (the cards go back onto the stake pile; the round reopens
      if it is still current); pause and resume; end ends the game; score,
      repeat and new-game change nothing in the log

Goop logs ({"type":"game","game":"goop",...}; options: tie_window_ms,
target (default 100)) take instead of deals and calls:

  {"type":"shout","player":"cai","said":"goop","start":100.0,"end":100.4}
      a "Goop!" shout; the first completed ends the hand (same tie rule)
  {"type":"count","player":"ann","field":"centre","value":7,"at":105}
      an end-of-hand number: field "centre" (0-52, +1 each) or "left" (cards
      left in the Goop pile, 0-13, -2 each); a later one corrects it
  {"type":"tally","at":112}
      the count is done: score the hand (also done by the next hand's first
      shout, or the end, once every number is in)
and print "gooped", "hand" (points, totals, false_goop, pick_order, says_go,
game_over) and "final" (scores, winner) objects; --all adds "counted",
"ignored" and "note".

Soccer logs ({"type":"game","game":"soccer","players":["ann","bob"]}, the
first player attacks first; option failed_block: "retry" (default: the
defender may block again or concede) or "goal") take:

  {"type":"forward","player":"ann","card":"5S","at":12.5}
      the attacker flipped a forward and named it
  {"type":"block","player":"bob","cards":["9D","4D"],"at":14.0}
      the defender's block: one card or two; [] is "no block" (a goal)
  {"type":"penalty","player":"ann","card":"QH","at":20.1}
      after a goalie forward: the second goalie discarded (a penalty kick,
      an unblockable goal), or null for "no penalty" (the forward is discarded)
and print "goal" (how: no block/penalty kick/failed block, reason, goals),
"blocked" (cards, methods: goalie/number/sum/difference/suit, reason),
"fizzled", "round-over" (goals, drawn, pile, last_round_next, overtime),
"overtime" (reshuffled, drawn, pile) and "final" (scores, winner, rounds);
--all adds "attack", "failed-block" (reason), "rejected" (reason, question:
a play out of turn, a card out of play), "undone", "paused" and "asked".

Cards are written QH, 10h, Q♥, Q♡ or "queen of hearts". Lines of the output
types (round, final, judged, out, all-active, undone, paused, asked, note,
gooped, ignored, counted, hand, attack, blocked, goal, failed-block, fizzled,
rejected, round-over, overtime) are skipped on input.

Output with --json, one object per line:
  {"type":"round","round":N,"top":"3S","winner":"ann"|null,"pile":K, ...}
      one per deal, in order (a round reopened by undo gets a second one
      when it is decided again); pile = cards the winner collected (0 if none);
      also outcome (won/draw/unwon), decided_by (alone/beginning/completion/
      forfeit/draw), carried, call, rivals, tied, scores
  {"type":"final","scores":{"ann":5,"bob":3},"unclaimed":K,"rounds":N}
With --json --all, also "judged" (one per call), "out", "all-active",
"undone", "paused" and "asked" objects. Without --json: a readable line per decision, saying why.

Exit status: 0, or 2 for a log that cannot be read (the message names the line).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("log", metavar="LOG.jsonl", help="the log or journal to replay ('-' for stdin)")
    p.add_argument("--json", action="store_true", help="print JSON Lines instead of prose")
    p.add_argument("--all", action="store_true", help="with --json: also print a verdict for every call")


def run(args: argparse.Namespace, out=None, err=None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        if args.log == "-":
            log = parse_lines(sys.stdin)
        else:
            with open(args.log, encoding="utf-8") as f:
                log = parse_lines(f)
        verdicts = replay(log)
    except OSError as e:
        print(f"referee replay: cannot read {args.log}: {e.strerror}", file=err)
        return 2
    except UnicodeDecodeError as e:
        print(f"referee replay: {args.log} is not UTF-8 text ({e.reason})", file=err)
        return 2
    except LogError as e:
        print(f"referee replay: {args.log}: {e}", file=err)
        return 2
    window = float(log.game.options.get("tie_window_ms", 40))
    for v in verdicts:
        if args.json:
            obj = encode_verdict(v)
            if args.all or obj["type"] in SUMMARY_TYPES:
                print(dumps(obj), file=out)
        else:
            line = describe(v, window)
            if line:
                print(line, file=out)
    return 0
