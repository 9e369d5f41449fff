"""`referee replay`: the audit tool and the contract of the held-out tests."""

import json
import subprocess
import sys

import pytest

from referee.cli.main import main
from stroop_logs import call, deal, game, lines


def write(tmp_path, objs, name="game.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(lines(objs) if objs and isinstance(objs[0], dict) else objs) + "\n", encoding="utf-8")
    return path


GAME = [
    game(options={"tie_window_ms": 40, "two_player_miscall": "inactive"}, match_cards={"ann": "9D"}),
    deal("3S", 12.5),
    call("ann", "four of hearts", 13.1, 13.6),
    call("bob", "five of diamonds", 13.2, 13.9),
    deal("QH", 20.0),
    call("bob", "king of spades", 21.0, 21.50),
    call("ann", "jack of clubs", 20.9, 21.52),
    deal("7C", 30.0),
]


def run_cli(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output_is_the_contract(tmp_path, capsys):
    code, out, err = run_cli(["replay", str(write(tmp_path, GAME)), "--json"], capsys)
    assert code == 0 and err == ""
    objs = [json.loads(line) for line in out.splitlines()]
    assert [o["type"] for o in objs] == ["round", "round", "round", "final"]
    assert [(o["round"], o["top"], o["winner"], o["pile"]) for o in objs[:3]] == [
        (1, "3S", "ann", 1), (2, "QH", "ann", 1), (3, "7C", None, 0)]
    assert objs[1]["decided_by"] == "beginning"
    assert objs[3]["scores"] == {"ann": 2, "bob": 0}


def test_json_all_adds_a_verdict_per_call(tmp_path, capsys):
    code, out, _ = run_cli(["replay", str(write(tmp_path, GAME)), "--json", "--all"], capsys)
    objs = [json.loads(line) for line in out.splitlines()]
    judged = [o for o in objs if o["type"] == "judged"]
    assert len(judged) == 4
    assert judged[1]["outcome"] == "late" and judged[1]["player"] == "bob"


def test_prose_says_why(tmp_path, capsys):
    code, out, _ = run_cli(["replay", str(write(tmp_path, GAME))], capsys)
    assert code == 0
    assert 'round 2 (Q♥): ann wins 1 card: finished within 40 ms of bob, but began "jack of clubs" 100 ms earlier' in out
    assert "round 3 (7♣): no one won; 1 card stays for the next round" in out
    assert out.splitlines()[-1] == "final: ann 2, bob 0 (1 card left unclaimed); ann wins"


def test_a_journal_with_verdict_lines_replays_like_its_log(tmp_path, capsys):
    _, verdicts, _ = run_cli(["replay", str(write(tmp_path, GAME)), "--json", "--all"], capsys)
    journal = lines(GAME) + verdicts.splitlines()
    _, again, _ = run_cli(["replay", str(write(tmp_path, journal, "j.jsonl")), "--json", "--all"], capsys)
    assert again == verdicts


@pytest.mark.parametrize(
    "bad_line, message",
    [
        ('{"type":"deal","card":"3S","at":1', "line 2: not valid JSON"),
        ('{"type":"deal","card":"ZZ","at":1}', "line 2: unknown card 'ZZ' in deal"),
        ('{"type":"call","player":"cai","said":"x","start":1,"end":2}', "line 2: unknown player 'cai'"),
        ('{"type":"call","player":"ann","said":"x","start":1}', "line 2: call line is missing the field 'end'"),
        ('{"type":"deal","card":"3S"}', "line 2: deal line is missing the field 'at'"),
        ('{"type":"deal","card":"3S","at":"soon"}', "line 2: field 'at' must be a number of seconds"),
        ('{"type":"shuffle"}', "line 2: unknown event type 'shuffle'"),
        ('[1, 2]', "line 2: each line must be a JSON object"),
        ('{"type":"call","player":"ann","said":"x","start":2,"end":1}', "line 2: call ends (1.0) before it starts (2.0)"),
    ],
)
def test_bad_input_names_the_line_and_exits_2(tmp_path, capsys, bad_line, message):
    path = write(tmp_path, [json.dumps(game()), bad_line, json.dumps(deal("4D", 3.0))])
    code, out, err = run_cli(["replay", str(path)], capsys)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "first, message",
    [
        ({"type": "deal", "card": "3S", "at": 0}, "line 1: the first line must be the game line"),
        (game(options={"tie_window_ms": "fast"}), "tie_window_ms must be a number"),
        (game(options={"colour_blind": True}), "unknown Stroop option 'colour_blind'"),
        ({"type": "game", "game": "snap", "players": ["a", "b"]}, "unknown game 'snap'"),
        (game(match_cards={"ann": "XX"}), "unknown card 'XX' in ann's match card"),
        (game(players=["ann"]), "Stroop needs at least two players"),
    ],
)
def test_bad_game_lines(tmp_path, capsys, first, message):
    code, _, err = run_cli(["replay", str(write(tmp_path, [first, deal("3S", 1.0)]))], capsys)
    assert code == 2 and message in err


def test_missing_file(tmp_path, capsys):
    code, _, err = run_cli(["replay", str(tmp_path / "nope.jsonl")], capsys)
    assert code == 2 and "cannot read" in err


def test_console_script_help_documents_the_format():
    done = subprocess.run([sys.executable, "-m", "referee", "replay", "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    for needle in ['"type":"game"', '"type":"deal"', '"type":"call"', "tie_window_ms",
                   "two_player_miscall", "match_cards", '"type":"round"', '"type":"final"']:
        assert needle in done.stdout, needle


def test_console_script_reports_bad_input_without_traceback(tmp_path):
    path = write(tmp_path, ['{"type":"game","game":"stroop","players":["ann","bob"]}', "{oops"])
    done = subprocess.run([sys.executable, "-m", "referee", "replay", str(path)], capture_output=True, text=True)
    assert done.returncode == 2
    assert "line 2: not valid JSON" in done.stderr and "Traceback" not in done.stderr
