"""Grammars as data: what the referee listens for, and reading results back.

A grammar file (``grammars/<name>.json``) holds

* ``lists``: slots, each a map from canonical value to the ways it is said
  (``"diamonds": ["diamonds", "diamond"]``);
* ``phrases``: ``{"kind", "said", "say"}`` where ``say`` templates use slots
  (``{rank}``), optional words (``[of]``) and alternatives (``(a|b)``), and
  ``said`` is the canonical form (``"{rank} of {suit}"``);
* ``fillers``: words chatter may decode to; they never make a phrase;
* ``pronunciations``: words an engine may lack, or more ways to say words
  it has: ARPAbet for PocketSphinx, ``stand_in`` words for Vosk models
  without them.

``Grammar.load("table").match("queen of heart")`` gives
``Match(kind='call', said='queen of hearts', ...)``; text that is no phrase
gives None. A broken file raises :class:`GrammarError` naming it.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from referee.core.errors import RefereeError

KINDS = ("call", "shout", "command", "number", "partial", "bid", "prize", "play")

#: Where grammar files live: $REFEREE_GRAMMARS, else the repository's grammars/.
GRAMMAR_DIR = Path(os.environ.get("REFEREE_GRAMMARS")
                   or Path(__file__).resolve().parents[2] / "grammars")

_TOKEN = re.compile(r"[\w']+")


class GrammarError(RefereeError, ValueError):
    """A grammar file that cannot be used; the message names the file and the fault."""


@dataclass(frozen=True)
class Phrase:
    """One way of saying one thing."""

    kind: str
    said: str
    """Canonical form, e.g. ``'queen of hearts'``."""
    words: tuple[str, ...]
    """The spoken words, e.g. ``('queen', 'of', 'heart')``."""


@dataclass(frozen=True)
class Match:
    """What a text means in the grammar."""

    kind: str
    """``'call'``, ``'shout'``, ``'command'``, ``'number'`` or ``'partial'`` (a bare rank
    or suit, or a call cut short: ``'queen'``, ``'hearts'``, ``'jack of'``)."""
    said: str
    """Canonical phrase: ``'queen of hearts'``, ``'goop'``, ``'score'``, ``'17'``."""
    text: str
    """The words as heard, normalised."""


def normalise(text: str) -> tuple[str, ...]:
    """Lower-case word tokens; engine noise markers (``<sil>``, ``[unk]``, ``++x++``)
    and alternative-pronunciation suffixes (``word(2)``) are removed."""
    t = re.sub(r"\(\d+\)", "", text.lower())
    t = re.sub(r"<[^>]*>|\[[^\]]*\]|\+\+[^+]*\+\+", " ", t)
    return tuple(_TOKEN.findall(t))


def _list_of(name: str, lists: dict) -> dict | None:
    """The list a slot names; ``{rank2}`` is a second slot of the list ``rank``
    (two cards in one phrase), when no list of its own is named so."""
    return lists.get(name, lists.get(name.rstrip("0123456789")))


def _expand(template: str, lists: dict, where: str) -> list[tuple[tuple[str, ...], dict]]:
    """Every word sequence a template can produce, with the slot values used."""
    # Tokenise: '(a|b c)', '[x y]', '{slot}', or a word.
    parts = re.findall(r"\([^)]*\)|\[[^\]]*\]|\{[^}]*\}|[^\s()\[\]{}]+", template)
    if "".join(parts).replace(" ", "") != re.sub(r"\s", "", template):
        raise GrammarError(f"{where}: cannot read template {template!r}")
    choices: list[list[tuple[tuple[str, ...], dict]]] = []
    for p in parts:
        if p.startswith("{"):
            name = p[1:-1]
            if _list_of(name, lists) is None:
                raise GrammarError(f"{where}: template {template!r} uses unknown list {name!r}")
            opts = []
            for value, says in _list_of(name, lists).items():
                for s in says:
                    opts.append((normalise(s), {name: value}))
            choices.append(opts)
        elif p.startswith("["):
            choices.append([((), {}), (normalise(p[1:-1]), {})])
        elif p.startswith("("):
            choices.append([(normalise(a), {}) for a in p[1:-1].split("|")])
        else:
            choices.append([(normalise(p), {})])
    out = []
    for combo in itertools.product(*choices):
        words = tuple(w for ws, _ in combo for w in ws)
        slots: dict = {}
        for _, s in combo:
            slots.update(s)
        if words:
            out.append((words, slots))
    return out


@dataclass(frozen=True)
class Grammar:
    """A set of phrases (and their fillers and pronunciations), loaded from data."""

    name: str
    phrases: tuple[Phrase, ...]
    fillers: tuple[str, ...] = ()
    pronunciations: dict = field(default_factory=dict)
    decoys: tuple[tuple[str, ...], ...] = ()
    """Word sequences that sound like phrases but are not (never matched)."""
    templates: tuple[tuple[str, str], ...] = ()
    """(kind, template) of every phrase, and ('decoy', template): for compact
    engine grammars."""
    lists: dict = field(default_factory=dict)
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self._index:
            for p in self.phrases:
                self._index.setdefault(p.words, p)

    # Loading ---------------------------------------------------------------
    @classmethod
    def load(cls, name: str | os.PathLike = "table") -> Grammar:
        """Load ``grammars/<name>.json``, or a path to a JSON grammar file."""
        path = Path(name)
        if not (path.suffix == ".json" or path.exists()):
            path = GRAMMAR_DIR / f"{name}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise GrammarError(f"{path}: no such grammar file") from None
        except (OSError, UnicodeDecodeError) as e:
            raise GrammarError(f"{path}: cannot read ({e})") from None
        except json.JSONDecodeError as e:
            raise GrammarError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from None
        return cls.from_data(data, name=path.stem, where=str(path))

    @classmethod
    def from_data(cls, data: dict, name: str = "grammar", where: str = "grammar") -> Grammar:
        if not isinstance(data, dict) or not isinstance(data.get("phrases"), list):
            raise GrammarError(f"{where}: needs an object with a 'phrases' list")
        lists = data.get("lists", {})
        if not isinstance(lists, dict) or not all(
                isinstance(v, dict) and all(isinstance(s, list) and s and
                                            all(isinstance(w, str) for w in s)
                                            for s in v.values())
                for v in lists.values()):
            raise GrammarError(f"{where}: 'lists' must map names to {{value: [spoken, ...]}}")
        phrases = []
        for i, entry in enumerate(data["phrases"]):
            at = f"{where}: phrase {i + 1}"
            if not isinstance(entry, dict):
                raise GrammarError(f"{at}: not an object")
            kind, said, say = entry.get("kind"), entry.get("said"), entry.get("say")
            if kind not in KINDS:
                raise GrammarError(f"{at}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
            if not isinstance(said, str) or not said:
                raise GrammarError(f"{at}: 'said' must be a non-empty string")
            if isinstance(say, str):
                say = [say]
            if not isinstance(say, list) or not say or not all(isinstance(s, str) for s in say):
                raise GrammarError(f"{at}: 'say' must be a list of templates")
            for template in say:
                for words, slots in _expand(template, lists, at):
                    try:
                        canon = said.format(**slots)
                    except (KeyError, IndexError, ValueError) as e:
                        raise GrammarError(f"{at}: 'said' {said!r} needs slot {e}") from None
                    phrases.append(Phrase(kind, canon, words))
        if not phrases:
            raise GrammarError(f"{where}: no phrases")
        fillers = data.get("fillers", [])
        prons = data.get("pronunciations", {})
        if not isinstance(fillers, list) or not all(isinstance(w, str) for w in fillers):
            raise GrammarError(f"{where}: 'fillers' must be a list of words")
        if not isinstance(prons, dict) or not all(isinstance(v, dict) for v in prons.values()):
            raise GrammarError(f"{where}: 'pronunciations' must map words to objects")
        fill = tuple(dict.fromkeys(w for f in fillers for w in normalise(f)))
        decoys = data.get("decoys", [])
        if not isinstance(decoys, list) or not all(isinstance(d, str) for d in decoys):
            raise GrammarError(f"{where}: 'decoys' must be a list of templates")
        real = {p.words for p in phrases}
        dec = tuple(dict.fromkeys(w for t in decoys for w, _ in _expand(t, lists, where)
                                  if w not in real))
        templates = tuple((e["kind"], t) for e in data["phrases"]
                          for t in ([e["say"]] if isinstance(e["say"], str) else e["say"]))
        templates += tuple(("decoy", t) for t in decoys)
        return cls(name, tuple(phrases), fill, prons, dec, templates, lists)

    # Views ----------------------------------------------------------------
    def subset(self, kinds: Iterable[str] | None = None) -> Grammar:
        """The same grammar with only phrases of the given kinds active."""
        if kinds is None:
            return self
        ks = set(kinds)
        bad = ks - set(KINDS)
        if bad:
            raise GrammarError(f"unknown phrase kinds: {', '.join(sorted(bad))}")
        return Grammar(self.name, tuple(p for p in self.phrases if p.kind in ks),
                       self.fillers, self.pronunciations, self.decoys,
                       tuple(t for t in self.templates if t[0] in ks or t[0] == "decoy"),
                       self.lists)

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(p.kind for p in self.phrases)

    @property
    def words(self) -> tuple[str, ...]:
        """Every word of every phrase, sorted (fillers not included)."""
        return tuple(sorted({w for p in self.phrases for w in p.words}))

    def match(self, text: str) -> Match | None:
        """The phrase ``text`` says exactly (after normalising), or None.

        Stand-in words (a Vosk model's replacement for a word it lacks) read
        back as the word they stand in for."""
        words = normalise(text)
        if not words:
            return None
        p = self._index.get(words)
        if p is None:
            back = self._stand_ins_back()
            p = self._index.get(tuple(back.get(w, w) for w in words))
        if p is None:
            return None
        return Match(p.kind, p.said, " ".join(words))

    def _stand_ins_back(self) -> dict[str, str]:
        return {s: w for w, pr in self.pronunciations.items()
                for s in pr.get("stand_in", []) if s != w}

    # Engine forms -------------------------------------------------------
    def arpabet(self) -> dict[str, list[str]]:
        """Extra PocketSphinx dictionary entries: word -> pronunciations."""
        return {w: list(p["arpabet"]) for w, p in self.pronunciations.items() if "arpabet" in p}

    def jsgf(self, fillers: int = 0, decoys: bool = False, weight: float = 1.0) -> str:
        """A JSGF grammar: one phrase; or a rival branch (weight ``weight``
        against 1) of a decoy, or of 1 to ``fillers`` filler words, which
        stands for chatter and is thrown away. Slots stay rules, so the
        grammar stays small (52 cards are ``<rank> of <suit>``)."""
        used: set[str] = set()

        def rule(template: str) -> str:
            parts = re.findall(r"\([^)]*\)|\[[^\]]*\]|\{[^}]*\}|[^\s()\[\]{}]+", template)
            out = []
            for p in parts:
                if p.startswith("{"):
                    used.add(p[1:-1])
                    out.append(f"<slot_{p[1:-1]}>")
                elif p.startswith("["):
                    out.append("[" + " ".join(normalise(p[1:-1])) + "]")
                elif p.startswith("("):
                    out.append("(" + " | ".join(" ".join(normalise(x))
                                                 for x in p[1:-1].split("|")) + ")")
                else:
                    out.append(" ".join(normalise(p)))
            return " ".join(o for o in out if o)

        # With decoys, partial calls ("queen", "jack of") are read in the decoys'
        # branch, as where they are not listened for: the search for every other
        # phrase stays the same (match() tells them apart by their words).
        rival = ("decoy", "partial") if decoys else ("decoy",)
        if self.templates:
            alts = sorted({rule(t) for k, t in self.templates if k not in rival})
        else:
            alts = sorted({" ".join(p.words) for p in self.phrases})
        lines = ["#JSGF V1.0;", f"grammar {re.sub(r'[^A-Za-z0-9_]', '_', self.name)};",
                 "<phrase> = " + " | ".join(alts) + ";"]
        rivals = []
        if decoys:
            ds = sorted({rule(t) for k, t in self.templates if k in rival} - set(alts))
            if ds:
                lines.append("<decoy> = " + " | ".join(ds) + ";")
                rivals.append("<decoy>")
        if fillers and self.fillers:
            lines.append("<filler> = " + " | ".join(self.fillers) + ";")
            rivals.append("<filler>" + " [<filler>]" * (int(fillers) - 1))
        for name in sorted(used):
            says = sorted({" ".join(normalise(x)) for v in _list_of(name, self.lists).values() for x in v})
            lines.append(f"<slot_{name}> = " + " | ".join(says) + ";")
        if rivals:
            lines.append(f"<chatter> = {' | '.join(rivals)};")
            lines.append(f"public <utterance> = /1/ <phrase> | /{float(weight):g}/ <chatter>;")
        else:
            lines.append("public <utterance> = <phrase>;")
        return "\n".join(lines) + "\n"

    @property
    def decoy_words(self) -> tuple[str, ...]:
        return tuple(sorted({w for d in self.decoys for w in d}))

    def phrase_list(self, vocabulary: Iterable[str] | None = None,
                    fillers: bool = True) -> list[str]:
        """Phrases for a Vosk grammar, with stand-ins replacing words the model's
        ``vocabulary`` lacks (when it is known), fillers, and ``[unk]``."""
        vocab = set(vocabulary) if vocabulary is not None else None

        def say(word: str) -> str | None:
            if vocab is None or word in vocab:
                return word
            for s in self.pronunciations.get(word, {}).get("stand_in", []):
                if s in vocab:
                    return s
            return None

        out = []
        for p in self.phrases:
            ws = [say(w) for w in p.words]
            if all(ws):
                out.append(" ".join(ws))
        if fillers:
            out += [f for f in self.fillers if say(f)]
        out.append("[unk]")
        return list(dict.fromkeys(out))
