"""The grammar of a GOPS game: grammars/gops.json with the players' names and the set-up's
ranks and prizes, plus the commands, fillers and pronunciations of grammars/table.json."""

from __future__ import annotations

import json

from referee.core.cards import RANK_WORDS
from referee.core.games.gops import SETUPS, Setup
from referee.hearing.grammar import GRAMMAR_DIR, Grammar, GrammarError


def _read(name: str) -> dict:
    path = GRAMMAR_DIR / f"{name}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise GrammarError(f"{path}: cannot read ({e})") from None


def gops_grammar(players, setup: str | Setup) -> Grammar:
    """The phrases of a GOPS game with these players (in seat order) and set-up (a name of
    :data:`~referee.core.games.gops.SETUPS`, or the players' own)."""
    deal = setup if isinstance(setup, Setup) else SETUPS[setup]
    data, table = _read("gops"), _read("table")
    data["lists"]["player"] = {p: [p.lower()] for p in players}
    data["lists"]["prize"] = {name: [name] for name in deal.prizes}
    ranks = {RANK_WORDS[v] for v in deal.hand}
    data["lists"]["rank"] = {k: v for k, v in data["lists"]["rank"].items() if k in ranks}
    data["phrases"] += [p for p in table["phrases"] if p["kind"] == "command"]
    data["fillers"] = [w for w in table["fillers"] if w not in {"i"}]
    data["pronunciations"] = table.get("pronunciations", {})
    return Grammar.from_data(data, name="gops", where=str(GRAMMAR_DIR / "gops.json"))
