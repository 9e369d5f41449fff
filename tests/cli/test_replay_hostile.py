"""`referee replay` on hostile logs: whatever the bytes, one clear line and exit 2, or the
verdicts and exit 0; never a traceback."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cli.main import main
from stroop_logs import call, deal, game, lines

GOOD = lines([game(), deal("3S", 12.5), call("ann", "four of hearts", 13.1, 13.6),
              call("bob", "five of diamonds", 13.2, 13.9), deal("QH", 20.0)])


def replay(tmp_path, capsys, text, name="log.jsonl"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    code = main(["replay", str(p)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_type_that_is_a_list_is_named(tmp_path, capsys):
    bad = GOOD[:2] + [json.dumps({"type": ["call"], "player": "ann"})] + GOOD[2:]
    code, out, err = replay(tmp_path, capsys, "\n".join(bad) + "\n")
    assert code == 2 and 'line 3' in err and '"type" must be a string' in err


def test_a_byte_order_mark_is_read_past(tmp_path, capsys):
    code, out, err = replay(tmp_path, capsys, "\ufeff" + "\n".join(GOOD) + "\n")
    assert code == 0, err
    assert "ann" in out


def test_a_torn_last_line_is_dropped_and_said(tmp_path, capsys):
    torn = "\n".join(GOOD) + "\n" + GOOD[2][:17]        # the write cut short by a crash
    code, out, err = replay(tmp_path, capsys, torn)
    assert code == 0
    assert "line 6 was cut short" in err
    whole = replay(tmp_path, capsys, "\n".join(GOOD) + "\n", "whole.jsonl")
    assert out == whole[1]


def test_a_bad_line_in_the_middle_is_still_an_error(tmp_path, capsys):
    bad = GOOD[:2] + [GOOD[2][:17]] + GOOD[3:]
    code, out, err = replay(tmp_path, capsys, "\n".join(bad) + "\n")
    assert code == 2 and "line 3" in err and "not valid JSON" in err


def test_a_time_too_large_for_the_clock_is_an_error_naming_it(tmp_path, capsys):
    # found by the fuzz test below: 1.8e302 s is finite, but not in microseconds
    objs = [json.loads(x) for x in GOOD]
    objs[1]["at"] = 1.797693134862316e+302
    code, out, err = replay(tmp_path, capsys, "\n".join(json.dumps(o) for o in objs) + "\n")
    assert code == 2 and "line 2" in err and "'at'" in err and "1.797693134862316e+302" in err


_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.integers(0, len(GOOD) - 1), key=st.sampled_from(
    ["type", "player", "said", "start", "end", "card", "at", "players", "game", "options"]),
    value=_values)
def test_a_mutated_log_never_crashes(tmp_path, capsys, line, key, value):
    objs = [json.loads(x) for x in GOOD]
    objs[line][key] = value
    code, out, err = replay(tmp_path, capsys, "\n".join(json.dumps(o) for o in objs) + "\n")
    assert code in (0, 2), err
    assert "Traceback" not in err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("referee replay: ")
