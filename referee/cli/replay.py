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

Then, in any order (times are seconds on one clock; every comparison is on
whole microseconds, so calls exactly the tie window apart are together):

  {"type":"deal","card":"3S","at":12.5}
      the dealer turned a card face up; a round starts
  {"type":"call","player":"ann","said":"four of hearts","start":13.1,"end":13.6}
      the words heard from a player, whatever they are; a call belongs to the
      round of the last deal before its end, and takes effect at its end.
      "the four of hearts", "4 of hearts" and "four hearts" name a card; a bare
      rank or suit ("queen", "a heart") or a call cut short ("jack of") is a
      miscall. Calls completed at one instant are taken miscalls first, then
      by start. A player's own calls never tie with or beat each other.
      One deck: a card dealt twice is an error naming its line.
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
and print "gooped" (goopers, decided_by, margin_us), "hand" (points, totals,
false_goop, pick_order, says_go, game_over, tied_at_top: once someone has
reached the target, hands go on until the top is not tied) and "final"
(scores, winner) objects; --all adds "counted",
"ignored" and "note".

Swoop logs ({"type":"game","game":"swoop",...}; options: decks (default one
per two players), rounds (default 5)) take plays, pick-ups and reports:

  {"type":"play","player":"ann","rank":"7","count":2,"at":12.5}
      a play of count cards of one rank (A, 2 .. 10, J, Q, K); "blind":true
      for a face-down card played blind (one card)
  {"type":"pick-up","player":"bob","at":14.0}
      the player takes the whole pile
  {"type":"going-out","player":"ann","at":20.0}
      "I'm out" (a player whose count reaches 0 is out anyway)
  {"type":"report","player":"bob","cards":["K","2","7"],"at":25.0}
  {"type":"report","player":"cai","total":42,"at":27.0}
      what is left in a hand once someone is out, as ranks or as points; a
      later report replaces the earlier one
  {"type":"tally","at":30}
      the reports are done: score the round
and print "swoop-round" (points, totals, missing, game_over, next) and
"final" (scores, winners: lowest total) objects; --all adds "played" (pile,
run, swoop, held, next), "refused" (what, reason), "picked-up", "went-out",
"reported", "taken-back", "paused" and "note".

GOPS logs ({"type":"game","game":"gops",...}; options: setup "purple"
(default), "standard" or the players' own {"name":..,"prizes":{"red ace":1,..},
"hand":[1,2,..],"players":[2,4]}, and virtual_prizes) take:

  {"type":"prize","card":"green five","at":3.2}
      a prize turned face up, by its name in the set-up ("green five",
      "queen of diamonds"); refused when it is not in the prize pile
  {"type":"bid","player":"ann","value":9,"at":7.4}
      a revealed bid, by rank (ace 1 ... king 13); once every player's bid of
      the turn is in, the highest wins; a tie brings the two-card tie break
and print "won" (winner, prizes, points, bids, totals), "tied" (then: "tie
break" or "again"), "tie-stands" and "final" (scores, winners, complete);
--all adds "prize-up", "reshuffle", "bid-taken", "bid-refused" (reason:
discard, in place, not held, no prize, paused), "prize-refused",
"hands-back" and "gops-undone".

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
      forfeit/draw), carried, call (null for a forfeit), rivals, tied, scores,
      margin_us (a race won against another player: microseconds by which the
      winner finished, or for "beginning" began, sooner) and, for a forfeit,
      miscall
  {"type":"final","scores":{"ann":5,"bob":3},"unclaimed":K,"rounds":N}
With --json --all, also "judged" (one per call; a qualifying call too late
carries late_by, seconds after the winning call, and late_to, its player),
"out", "all-active",
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
    if log.torn is not None:
        print(f"referee replay: {args.log}: line {log.torn} was cut short (a crash while it was "
              f"written?) and is left out", file=err)
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
