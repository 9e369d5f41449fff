"""Grammars are data: loading, matching text back, engine forms, broken files."""

import json

import pytest

from referee.core.cards import Card, full_deck
from referee.core.events import COMMANDS
from referee.hearing.grammar import Grammar, GrammarError, Match, normalise
from referee.core.numbers import parse_number


@pytest.fixture(scope="module")
def g():
    return Grammar.load("table")


def test_every_card_is_a_call_that_reads_back_as_that_card(g):
    for card in full_deck():
        m = g.match(card.spoken)
        assert m == Match("call", card.spoken, card.spoken)
        assert Card.parse(m.said) == card


@pytest.mark.parametrize("text,said", [
    ("Queen of Heart", "queen of hearts"),
    ("ten of diamond", "ten of diamonds"),
    ("  ACE   of spades. ", "ace of spades"),
    ("<sil> king of clubs(2) [noise]", "king of clubs"),
])
def test_aliases_and_engine_markers(g, text, said):
    assert g.match(text).said == said


@pytest.mark.parametrize("text", [
    "I have four hearts", "four hearts", "of", "", "king me", "of hearts",
    "queen of hearts please", "the queen of hearts", "group", "what time is it",
])
def test_near_misses_and_chatter_are_no_match(g, text):
    assert g.match(text) is None


@pytest.mark.parametrize("text,said", [
    ("queen", "queen"), ("king", "king"), ("heart", "hearts"), ("spades", "spades"),
    ("jack of", "jack of"),
])
def test_bare_ranks_and_suits_and_calls_cut_short_are_partial_calls(g, text, said):
    assert g.match(text) == Match("partial", said, text)
    # Where partial calls are not listened for they are decoys: no match.
    assert g.subset(("call", "shout")).match(text) is None


def test_listening_for_partial_calls_leaves_the_engine_search_as_it_was(g):
    # With decoys they are read in the decoys' branch, as where they are not listened for.
    kinds = ("call", "shout", "command")
    assert g.subset((*kinds, "partial")).jsgf(decoys=True) == g.subset(kinds).jsgf(decoys=True)
    # Without, they are phrases of the engine grammar.
    assert "<slot_rank> of |" in g.subset(("call", "partial")).jsgf().split("<phrase> =")[1]


def test_where_numbers_are_listened_for_a_bare_number_is_a_number(g):
    assert g.subset(("number", "partial")).match("four").kind == "number"


def test_goop_and_its_stand_in(g):
    assert g.match("goop") == Match("shout", "goop", "goop")
    assert g.match("goo").said == "goop"  # a Vosk model without "goop" says "goo"
    assert g.arpabet()["goop"][0] == "G UW P"


def test_commands_are_ones_the_table_knows(g):
    cmds = {p.said for p in g.phrases if p.kind == "command"}
    assert cmds and all(c.replace(" ", "-") in COMMANDS for c in cmds)
    assert g.match("referee score").said == "score"
    assert g.match("referee what's the score").said == "score"
    assert g.match("referee say that again").said == "repeat"
    assert g.match("referee new game").said == "new game"
    # Every command needs the prefix: table talk has the everyday wordings (issue 25).
    assert all(p.words[0] == "referee" for p in g.phrases if p.kind == "command")
    for everyday in ("undo that", "start a new game", "end the game", "what's the score",
                     "say that again", "pause the game", "resume the game"):
        assert g.match(everyday) is None
    # the engine's place for the wordings that sound like a command that undoes or ends;
    # the others are no rivals (they took bare card words: docs/partial-calls.md)
    for everyday in ("undo that", "start a new game", "end the game", "resume the game"):
        assert tuple(everyday.split()) in g.decoys, everyday
    for everyday in ("what's the score", "say that again", "pause the game"):
        assert tuple(everyday.split()) not in g.decoys, everyday
    assert g.match("referee undo").said == "undo"
    assert g.match("referee end game").said == "end"
    assert g.match("score") is None  # one short word is too easy to say in passing
    # seats at an array, voices at one mic: one command that learns who is who again
    for said in ("referee seats", "referee learn the seats", "referee learn our voices"):
        assert g.match(said) == Match("command", "seats", said), said
    assert g.match("learn our voices") is None and g.match("our voices") is None


def test_numbers_and_corrections_parse_as_counts(g):
    for n in range(53):
        m = [p for p in g.phrases if p.kind == "number" and p.said == str(n)]
        assert m, n
        assert parse_number(g.match(" ".join(m[0].words)).said).value == n
    assert g.match("none").said == "0"
    assert parse_number(g.match("no twelve").said).correction is True


def test_subset_and_kinds(g):
    cards = g.subset({"call", "shout"})
    assert cards.kinds == {"call", "shout"}
    assert cards.match("referee score") is None and cards.match("goop")
    assert g.subset(None) is g
    with pytest.raises(GrammarError, match="unknown phrase kinds: spells"):
        g.subset({"spells"})


def test_jsgf_holds_each_phrase_once(g):
    text = g.subset({"call", "shout"}).jsgf()
    assert text.startswith("#JSGF V1.0;")
    assert "<phrase> = <slot_rank> of <slot_suit> | goop;" in text  # 52 cards, compactly
    assert "<slot_suit> = club | clubs | diamond | diamonds" in text
    assert "public <utterance> = <phrase>;" in text
    rivals = g.jsgf(fillers=2, decoys=True, weight=0.5)
    assert "<chatter> = <decoy> | <filler> [<filler>];" in rivals
    assert "/0.5/ <chatter>" in rivals and "i have <slot_rank> <slot_suit>" in rivals


def test_decoys_never_match(g):
    assert ("four", "hearts") in g.decoys and ("group",) in g.decoys
    assert all(g.match(" ".join(d)) is None for d in g.decoys)


def test_phrase_list_uses_stand_ins_for_missing_words(g):
    vocab = set(g.words) - {"goop"} | {"goo", "um"}
    phrases = g.subset({"shout", "call"}).phrase_list(vocab)
    assert "goo" in phrases and "goop" not in phrases
    assert "queen of hearts" in phrases and phrases[-1] == "[unk]"
    assert "um" in phrases  # fillers the model knows
    assert "goop" in g.subset({"shout"}).phrase_list(None)  # vocabulary unknown: as is


def test_non_latin_words(tmp_path):
    p = tmp_path / "ko.json"
    p.write_text(json.dumps({"phrases": [{"kind": "call", "said": "학교", "say": ["학교"]}]},
                            ensure_ascii=False), encoding="utf-8")
    g = Grammar.load(p)
    assert g.match("학교").said == "학교"
    assert normalise("안녕, 학교!") == ("안녕", "학교")


def test_templates_expand_options_and_alternatives():
    g = Grammar.from_data({"lists": {"n": {"1": ["one"], "2": ["two", "a pair"]}},
                           "phrases": [{"kind": "number", "said": "{n}",
                                        "say": ["[just] {n} (card|cards)"]}]})
    assert {" ".join(p.words) for p in g.phrases} >= {"one card", "just a pair cards"}
    assert g.match("just two cards").said == "2"


@pytest.mark.parametrize("content,why", [
    ("{not json", "not valid JSON"),
    ("[]", "needs an object with a 'phrases' list"),
    ('{"phrases": [{"kind": "spell", "said": "x", "say": ["x"]}]}', "kind must be one of"),
    ('{"phrases": [{"kind": "call", "said": "{r}", "say": ["{r}"]}]}', "unknown list 'r'"),
    ('{"phrases": [{"kind": "call", "said": "", "say": ["x"]}]}', "'said' must be"),
    ('{"phrases": [{"kind": "call", "said": "x", "say": []}]}', "'say' must be"),
    ('{"phrases": [{"kind": "call", "said": "{q}", "say": ["x"]}]}', "needs slot"),
    ('{"phrases": []}', "no phrases"),
    ('{"lists": {"r": ["a"]}, "phrases": [{"kind": "call", "said": "x", "say": ["x"]}]}',
     "'lists' must map"),
])
def test_broken_grammar_files_raise_grammar_error_naming_the_file(tmp_path, content, why):
    p = tmp_path / "broken.json"
    p.write_text(content)
    with pytest.raises(GrammarError, match=why) as e:
        Grammar.load(p)
    assert "broken.json" in str(e.value)
    assert isinstance(e.value, ValueError)


def test_missing_grammar_names_the_file():
    with pytest.raises(GrammarError, match="nosuch.json: no such grammar file"):
        Grammar.load("nosuch")


@pytest.mark.parametrize("name", ["swoop", "gops"])
def test_every_game_hears_commands_only_when_said_to_the_referee(name):
    if name == "gops":
        from referee.hearing.gops_grammar import gops_grammar
        g = gops_grammar(["ann", "bob"], "purple")
    else:
        g = Grammar.load(name)
    table = Grammar.load("table")
    commands = {p.words: p.said for p in g.phrases if p.kind == "command"}
    assert commands == {p.words: p.said for p in table.phrases if p.kind == "command"}
    for everyday in ("what's the score", "say that again", "pause the game", "resume the game"):
        assert g.match(everyday) is None, (name, everyday)
        assert tuple(everyday.split()) in g.decoys, (name, everyday)
