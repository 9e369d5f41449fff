"""The closed vocabularies are str enums: each member says what it means, and
the JSON holds the same words as before."""

import ast
import enum
import inspect
import json
import textwrap

import pytest

from referee.core.cards import Card
from referee.core.events import CALLS_AND_SHOUTS, Call, UtteranceKind
from referee.core.games import stroop
from referee.core.journal import encode_verdict

VOCABULARIES = (UtteranceKind, stroop.CallOutcome, stroop.RoundOutcome, stroop.DecidedBy)


@pytest.mark.parametrize("vocabulary", VOCABULARIES, ids=lambda v: v.__name__)
def test_each_member_is_its_word_and_has_a_docstring(vocabulary):
    assert issubclass(vocabulary, enum.StrEnum)
    for member in vocabulary:
        assert member == member.value and f"{member}" == member.value
    # each member's assignment is followed by its docstring (read from the source)
    body = ast.parse(textwrap.dedent(inspect.getsource(vocabulary))).body[0].body
    documented = {a.targets[0].id for a, d in zip(body, body[1:])
                  if isinstance(a, ast.Assign) and isinstance(d, ast.Expr)
                  and isinstance(d.value, ast.Constant) and isinstance(d.value.value, str)}
    assert documented == {m.name for m in vocabulary}


def test_calls_and_shouts():
    assert CALLS_AND_SHOUTS == {"call", "shout"}
    assert "partial" not in CALLS_AND_SHOUTS


def test_the_json_holds_the_words():
    call = Call("ann", "seven of hearts", 1.0, 1.5)
    judged = stroop.CallJudged(1, call, stroop.CallOutcome.LATE, "too late")
    over = stroop.RoundOver(1, Card.parse("7H"), stroop.RoundOutcome.WON, "ann", 3,
                            decided_by=stroop.DecidedBy.ALONE, winning_call=call)
    assert json.loads(json.dumps(encode_verdict(judged)))["outcome"] == "late"
    line = json.loads(json.dumps(encode_verdict(over)))
    assert (line["outcome"], line["decided_by"]) == ("won", "alone")
