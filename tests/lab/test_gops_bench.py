"""The GOPS phrases' benchmark plan: what it says, and that it measures what the game hears."""

from referee.hearing.gops_grammar import gops_grammar
from referee.lab.bench import gops_bench


def test_the_plan_is_fixed_by_its_seed_and_keeps_the_splits_apart():
    a, b = gops_bench.plan(1), gops_bench.plan(1)
    assert a == b and a != gops_bench.plan(2)
    negatives = {s: {i.text for i in a if i.category == "negative" and i.split == s}
                 for s in ("tuning", "held-out")}
    assert negatives["tuning"] and not negatives["tuning"] & negatives["held-out"]
    voices = {s: {i.voice for i in a if i.split == s and i.voice} for s in ("tuning", "held-out")}
    assert not voices["tuning"] & voices["held-out"]


def test_every_phrase_is_the_games_and_no_negative_is():
    grammars = {s: gops_grammar(gops_bench.PLAYERS, s) for s in ("purple", "standard")}
    items = gops_bench.plan(1)
    assert {i.category for i in items} == {"bid", "prize", "negative", "noise"}
    for i in items:
        if i.category == "noise":
            continue
        m = grammars[i.extra["setup"]].match(i.text)
        if i.expect is None:
            assert m is None or m.kind not in ("bid", "prize"), i.text
        else:
            assert m is not None and m.said == i.expect and m.kind == i.category, i.text


def test_outcomes():
    bid = {"expect": "ann nine", "heard": [{"kind": "bid", "said": "ann nine"}]}
    assert gops_bench.outcome(bid) == "correct"
    assert gops_bench.outcome({**bid, "heard": []}) == "missed"
    assert gops_bench.outcome({**bid, "heard": [{"kind": "bid", "said": "ann five"}]}) == "wrong"
    neg = {"expect": None, "heard": [{"kind": "unknown", "said": "a bronze medal"}]}
    assert gops_bench.outcome(neg) == "rejected"
    assert gops_bench.outcome({**neg, "heard": [{"kind": "prize", "said": "bronze ace"}]}) == "false-accept"


def test_each_item_is_heard_as_the_game_listens_in_its_phase():
    from referee.core.games.gops import BID_KINDS, PRIZE_KINDS
    items = gops_bench.plan(1)
    for item in items:
        kinds = gops_bench.phase_kinds(item)
        if item.category in ("bid", "prize"):
            assert kinds == (BID_KINDS if item.category == "bid" else PRIZE_KINDS)
            grammar = gops_grammar(gops_bench.PLAYERS, item.extra["setup"]).subset(kinds)
            assert grammar.match(item.text) is not None, item.text
    talk = [gops_bench.phase_kinds(i) for i in items if i.category == "negative"]
    assert talk.count(BID_KINDS) == talk.count(PRIZE_KINDS) == len(talk) // 2


def test_a_bid_on_its_own_mic_counts_by_its_rank_alone():
    bid = {"expect": "ann six", "heard": [{"kind": "bid", "said": "bob six"}]}
    assert gops_bench.outcome(bid) == "wrong"
    assert gops_bench.own_mic_outcome(bid) == "correct"
    bare = {"expect": "six", "heard": [{"kind": "bid", "said": "cai six"}]}
    assert gops_bench.own_mic_outcome(bare) == "correct"
    assert gops_bench.own_mic_outcome({**bid, "heard": [{"kind": "bid", "said": "ann two"}]}) == "wrong"
    assert gops_bench.own_mic_outcome({**bid, "heard": [{"kind": "unknown", "said": "six"}]}) == "missed"
    two = [{"kind": "bid", "said": "ann six"}, {"kind": "command", "said": "score"}]
    assert gops_bench.own_mic_outcome({**bid, "heard": two}) == "extra"
