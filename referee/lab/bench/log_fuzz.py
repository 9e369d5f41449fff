"""Fuzzing the readers of game logs and journals with hypothesis: good logs of Stroop and
Goop, mutated (a field, or one of the journal's set-up, set to any JSON value or removed, lines dropped, doubled or swapped,
the file cut short or bytes put in, a byte-order mark), then read by the two readers a user
meets: ``referee replay`` (the whole command, in this process) and what ``referee resume``
does before it listens (the journal read, its lines parsed, the game rebuilt from them).

Each case ends one of three ways: read (exit 0), refused (one line naming what is wrong,
exit 2, or a :class:`~referee.core.errors.RefereeError`), or a crash (a traceback, another
exit status, or more than one line of complaint): crashes are kept, with the file that made
them. hypothesis is the test extra's; it is imported when a fuzz runs.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from referee.core.errors import RefereeError

#: Good logs to mutate: game name -> JSON objects.
GOOD = {
    "stroop": [
        {"type": "game", "game": "stroop", "players": ["ann", "bob"],
         "options": {"tie_window_ms": 40, "two_player_miscall": "inactive"},
         "setup": {"channels": ["dealer", "ann", "bob"], "virtual_deck": False, "seed": 7}},
        {"type": "deal", "card": "3S", "at": 12.5},
        {"type": "call", "player": "ann", "said": "four of hearts", "start": 13.1, "end": 13.6},
        {"type": "call", "player": "bob", "said": "five of diamonds", "start": 13.2, "end": 13.9},
        {"type": "judged", "round": 1, "player": "ann", "outcome": "won"},
        {"type": "deal", "card": "QH", "at": 20.0},
        {"type": "command", "command": "undo", "at": 21.0, "player": "bob"},
        {"type": "call", "player": "bob", "said": "king of spades", "start": 22.0, "end": 22.5},
    ],
    "goop": [
        {"type": "game", "game": "goop", "players": ["ann", "bob", "cai"],
         "options": {"tie_window_ms": 40, "target": 100}},
        {"type": "shout", "player": "cai", "said": "goop", "start": 100.0, "end": 100.4},
        {"type": "shout", "player": "ann", "said": "goop", "start": 100.1, "end": 100.5},
        {"type": "count", "player": "ann", "field": "centre", "value": 7, "at": 105},
        {"type": "count", "player": "ann", "field": "left", "value": 3, "at": 106},
        {"type": "count", "player": "bob", "field": "centre", "value": 4, "at": 107},
        {"type": "tally", "at": 112},
    ],
}
KEYS = ("type", "game", "players", "options", "setup", "player", "said", "start", "end",
        "card", "at", "command", "field", "value", "round", "outcome")
SETUP_KEYS = ("channels", "devices", "virtual_deck", "seed", "audio")


@dataclass
class FuzzResult:
    cases: int = 0
    outcomes: Counter = field(default_factory=Counter)
    """(reader, 'read' | 'refused' | 'crash') -> cases."""
    crashes: list[tuple[str, str, bytes]] = field(default_factory=list)
    """(reader, what went wrong, the file) for each crash (the first 20 kept)."""
    crash_count: int = 0


def _strategies():
    from hypothesis import strategies as st

    values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=6)
    op = st.one_of(
        st.tuples(st.just("set"), st.integers(0, 20), st.sampled_from(KEYS), values),
        st.tuples(st.just("drop-key"), st.integers(0, 20), st.sampled_from(KEYS)),
        st.tuples(st.just("set-setup"), st.sampled_from(SETUP_KEYS), values),
        st.tuples(st.just("drop-line"), st.integers(0, 20)),
        st.tuples(st.just("double-line"), st.integers(0, 20)),
        st.tuples(st.just("swap"), st.integers(0, 20), st.integers(0, 20)),
    )
    raw = st.one_of(
        st.tuples(st.just("cut"), st.floats(0, 1)),
        st.tuples(st.just("insert"), st.floats(0, 1), st.binary(min_size=1, max_size=8)),
        st.tuples(st.just("bom")),
        st.tuples(st.just("none")),
    )
    return st.sampled_from(sorted(GOOD)), st.lists(op, max_size=3), raw


def mutate(game: str, ops: list, raw: tuple) -> bytes:
    """A good log of ``game`` with ``ops`` applied to its objects and ``raw`` to its bytes."""
    objs = [dict(o) for o in GOOD[game]]
    for o in ops:
        if not objs:
            break
        k = o[1] % len(objs) if isinstance(o[1], int) else 0
        if o[0] == "set":
            objs[k][o[2]] = o[3]
        elif o[0] == "set-setup":
            setup = objs[0].get("setup")
            objs[0]["setup"] = {**(setup if isinstance(setup, dict) else {}), o[1]: o[2]}
        elif o[0] == "drop-key":
            objs[k].pop(o[2], None)
        elif o[0] == "drop-line":
            objs.pop(k)
        elif o[0] == "double-line":
            objs.insert(k, dict(objs[k]))
        elif o[0] == "swap":
            j = o[2] % len(objs)
            objs[k], objs[j] = objs[j], objs[k]
    data = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs).encode("utf-8")
    if raw[0] == "cut":
        data = data[:int(raw[1] * len(data))]
    elif raw[0] == "insert":
        i = int(raw[1] * len(data))
        data = data[:i] + raw[2] + data[i:]
    elif raw[0] == "bom":
        data = "\ufeff".encode("utf-8") + data
    return data


def replay_reader(path: Path) -> str:
    """``referee replay PATH --all``: 'read', 'refused' or a crash (raises AssertionError)."""
    from referee.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["replay", str(path), "--all"])
    text = err.getvalue()
    if "Traceback" in text:
        raise AssertionError(f"a traceback: {text[-300:]}")
    if code == 0:
        return "read"
    lines = [x for x in text.splitlines() if not x.startswith("referee replay: note:")]
    if code == 2 and len(lines) <= 2 and all(x.startswith("referee replay: ") for x in lines):
        return "refused"
    raise AssertionError(f"exit {code}: {text[-300:]}")


def resume_reader(path: Path) -> str:
    """What ``referee resume`` does before it listens: the journal read (a torn last line
    dropped), its lines parsed, its set-up checked and used (channels, devices, the deck's
    seed), the game rebuilt from its lines on a table with no devices."""
    from referee.app.inputs import device_list
    from referee.app.journal_file import read_journal
    from referee.app.journal_setup import check_channels, checked_setup
    from referee.core.deck import VirtualDeck
    from referee.core.journal import parse_lines
    from referee.core.table import Table

    try:
        contents = read_journal(path)
        log = parse_lines([json.dumps(o, ensure_ascii=False) for o in contents.objects])
        setup = checked_setup(path, contents.objects, log.game)
        channels = check_channels(setup.get("channels") or list(log.game.players), log.game)
        device_list(setup.get("devices"), len(channels))
        if setup.get("virtual_deck"):
            VirtualDeck(setup.get("seed"))
        Table(log.game, channels, history=list(log.events))
    except RefereeError:
        return "refused"
    return "read"


READERS = {"replay": replay_reader, "resume": resume_reader}


def fuzz(cases: int, seed: int = 0, readers=tuple(READERS)) -> FuzzResult:
    """``cases`` mutated logs, each read by every reader of ``readers``."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as with_seed

    result = FuzzResult()
    folder = Path(tempfile.mkdtemp(prefix="referee-fuzz-"))
    path = folder / "log.jsonl"
    game, ops, raw = _strategies()

    @with_seed(seed)
    @settings(max_examples=cases, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(game=game, ops=ops, raw=raw)
    def one(game, ops, raw):
        data = mutate(game, ops, raw)
        path.write_bytes(data)
        result.cases += 1
        for name in readers:
            try:
                outcome = READERS[name](path)
            except Exception as e:  # noqa: BLE001 - a crash found: kept, not raised
                outcome = "crash"
                result.crash_count += 1
                if len(result.crashes) < 20:
                    result.crashes.append((name, f"{type(e).__name__}: {e}"[:300], data))
            result.outcomes[(name, outcome)] += 1

    try:
        one()
    finally:
        path.unlink(missing_ok=True)
        folder.rmdir()
    return result
