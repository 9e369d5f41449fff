"""Helpers for writing Stroop logs in tests: real log lines, replayed for real."""

import json

from referee.core.journal import encode_verdict
from referee.core.replay import replay_lines


def game(players=("ann", "bob"), **extra):
    return {"type": "game", "game": "stroop", "players": list(players), **extra}


def deal(card, at):
    return {"type": "deal", "card": card, "at": at}


def call(player, said, start, end):
    return {"type": "call", "player": player, "said": said, "start": start, "end": end}


def lines(objs):
    return [json.dumps(o, ensure_ascii=False) for o in objs]


def verdicts(objs):
    """Every verdict, as the JSON objects `referee replay --json --all` prints."""
    return [encode_verdict(v) for v in replay_lines(lines(objs))]


def rounds(objs):
    return [v for v in verdicts(objs) if v["type"] == "round"]


def final(objs):
    return [v for v in verdicts(objs) if v["type"] == "final"][-1]
