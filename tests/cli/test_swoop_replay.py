"""`referee replay` and the journal format for Swoop: every verdict back, with its reason."""

import json

import pytest

from referee.cli.main import main
from referee.core.games.swoop import PickUp, Play, Report
from referee.core.journal import LogError, encode, encode_verdict, parse_lines
from referee.core.replay import replay_lines

GAME = {"type": "game", "game": "swoop", "players": ["ann", "bob"], "options": {"rounds": 1}}


def play(player, rank, at, count=1, **kw):
    return {"type": "play", "player": player, "rank": rank, "count": count, "at": at, **kw}


# A short round, two players, one deck. The referee's counts are 19 each at the deal.
ROUND = [GAME,
         play("ann", "K", 1, count=3),            # 16 left
         play("bob", "Q", 2),                     # 18
         play("ann", "5", 3),                     # refused by nothing: 5 <= Q; 15
         play("bob", "7", 4),                     # refused: a seven does not go on a five
         {"type": "pick-up", "player": "bob", "at": 5},      # bob takes 5 cards: 23
         play("ann", "10", 6, count=2),           # swoop, ann again: 13
         play("ann", "9", 7, blind=True),         # blind leads: 12
         play("bob", "J", 8, blind=True),         # fails: bob picks up 2: 24
         {"type": "command", "command": "undo", "at": 9},
         play("bob", "2", 10),                    # 22? no: the undo gave the jack back: 22
         ]


def lines(objs):
    return [json.dumps(o) for o in objs]


def test_every_happening_round_trips():
    for event in (Play("ann", 12, 2, 1.5), Play("bob", 1, 1, 2.0, True), PickUp("cai", 3.0),
                  Report("ann", 4.0, (13, 2)), Report("bob", 5.0, total=42)):
        log = parse_lines(lines([{**GAME, "players": ["ann", "bob", "cai"]}, encode(event)]))
        assert log.events == (event,)


def test_replay_gives_every_verdict_with_reasons():
    verdicts = [encode_verdict(v) for v in replay_lines(lines(ROUND))]
    kinds = [v["type"] for v in verdicts]
    assert kinds == ["played", "played", "played", "refused", "picked-up", "played", "played",
                     "picked-up", "taken-back", "played", "final"]
    refused = verdicts[3]
    assert refused["reason"] == "a seven does not go on a five" and refused["next"] == "bob"
    assert verdicts[4]["cards"] == 5 and verdicts[4]["held"] == 23 and verdicts[4]["next"] == "ann"
    assert verdicts[5]["swoop"] == "ten" and verdicts[5]["next"] == "ann"
    assert verdicts[7]["blind"] == "J" and verdicts[7]["held"] == 19 + 4 + 1
    assert verdicts[8]["what"] == "bob: blind a jack"
    assert verdicts[9]["held"] == 22 and verdicts[9]["next"] == "ann"


def test_going_out_reports_and_the_final():
    objs = [GAME, play("ann", "K", 1, count=19),     # impossible with one deck: refused
            {"type": "going-out", "player": "ann", "at": 2},
            play("ann", "K", 3, count=4), play("ann", "Q", 4, count=4),    # swoops: ann again
            play("ann", "J", 5, count=4), play("ann", "9", 6, count=4),
            play("ann", "8", 7, count=3),                                  # her last three
            {"type": "report", "player": "bob", "cards": ["2", "10", "K"], "at": 8},
            {"type": "report", "player": "bob", "total": 30, "at": 9},    # a correction
            {"type": "tally", "at": 10}]
    out = [encode_verdict(v) for v in replay_lines(lines(objs))]
    assert out[0]["reason"] == "one deck holds only 4 kings, and 0 are out already"
    assert out[1]["reason"] == "ann still holds 19 cards"
    assert [o["swoop"] for o in out[2:7]] == ["four"] * 4 + [""]
    assert out[7] == {"type": "went-out", "round": 1, "player": "ann", "to_report": ["bob"]}
    assert (out[8]["points"], out[8]["doubt"]) == (85, "I counted 19 cards")
    assert (out[9]["points"], out[9]["corrected"]) == (30, 85)
    assert out[10]["type"] == "swoop-round" and out[10]["points"] == {"ann": 0, "bob": 30}
    assert out[10]["game_over"] and out[11] == {"type": "final", "scores": {"ann": 0, "bob": 30},
                                                "winners": ["ann"], "rounds": 1}


def test_cli_prose_and_json(tmp_path, capsys):
    path = tmp_path / "swoop.jsonl"
    path.write_text("\n".join(lines(ROUND)) + "\n", encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "round 1: bob's 'a seven' is refused: a seven does not go on a five" in out
    assert "round 1: ann plays two tens at 6.00 s: a ten swoops the pile; ann plays again" in out
    assert "the blind jack does not go, so bob picks up 2 cards (holds 24); ann leads" in out
    assert main(["replay", str(path), "--json"]) == 0
    objs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [o["type"] for o in objs] == ["final"]


def test_help_documents_the_swoop_lines(capsys):
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    text = capsys.readouterr().out
    for needle in ('"type":"play"', '"type":"pick-up"', '"type":"going-out"', '"type":"report"', "swoop-round"):
        assert needle in text


@pytest.mark.parametrize("bad, message", [
    (play("ann", "Z", 1), "unknown rank 'Z'"),
    (play("zoe", "5", 1), "unknown player 'zoe'"),
    (play("ann", "5", 1, count=0), "count must be a whole number"),
    ({"type": "report", "player": "bob", "at": 1}, "a report needs 'cards'"),
    ({"type": "pick-up", "player": "bob"}, "missing the field 'at'"),
])
def test_bad_lines_name_the_fault(bad, message):
    with pytest.raises(LogError) as e:
        parse_lines(lines([GAME, bad]))
    assert e.value.line == 2 and message in str(e.value)


def test_a_shared_mic_play_is_whoever_s_turn():
    objs = [GAME, {"type": "play", "rank": "9", "at": 1}, {"type": "play", "rank": "4", "at": 2},
            {"type": "pick-up", "at": 3}]
    log = parse_lines(lines(objs))
    assert log.events[0] == Play("", 9, 1, 1.0) and encode(log.events[2]) == objs[3]
    out = [encode_verdict(v) for v in replay_lines(lines(objs))]
    assert [(o["type"], o["player"]) for o in out[:3]] == [
        ("played", "ann"), ("played", "bob"), ("picked-up", "ann")]
