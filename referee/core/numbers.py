"""Spoken numbers for counts: "twelve", "forty two", "none", "no, twelve".

>>> parse_number("forty two")
Number(value=42, correction=False)
>>> parse_number("no, twelve")
Number(value=12, correction=True)
>>> parse_number("seven of hearts") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNITS = {
    "zero": 0, "none": 0, "nothing": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4,
    "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
    "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
CORRECTION_WORDS = ("no", "nope", "correction", "sorry")

_WORD = re.compile(r"[a-z]+|\d+")


@dataclass(frozen=True)
class Number:
    value: int
    correction: bool = False
    """Said as a correction ("no, twelve")."""


def parse_number(text: str) -> Number | None:
    """The number ``text`` says, from 0 to 59; None when it says something else."""
    words = _WORD.findall(text.lower())
    correction = False
    while words and words[0] in CORRECTION_WORDS:
        correction = True
        words = words[1:]
    if words and words[-1] in ("cards", "card", "left"):
        words = words[:-1]
    if len(words) == 1 and words[0].isdigit():
        value = int(words[0])
        return Number(value, correction) if value < 60 else None
    if len(words) == 1 and words[0] in UNITS:
        return Number(UNITS[words[0]], correction)
    if len(words) == 1 and words[0] in TENS:
        return Number(TENS[words[0]], correction)
    if len(words) == 2 and words[0] in TENS and words[1] in UNITS and 1 <= UNITS[words[1]] <= 9:
        return Number(TENS[words[0]] + UNITS[words[1]], correction)
    return None


def number_words(value: int) -> str:
    """``42`` -> ``'forty two'``: the form the grammar and the read-back use."""
    if value < 20:
        return next(w for w, n in UNITS.items() if n == value and w not in ("none", "nothing", "oh"))
    tens, unit = divmod(value, 10)
    word = next(w for w, n in TENS.items() if n == tens * 10)
    return word if unit == 0 else f"{word} {number_words(unit)}"


#: Tens past fifty: totals of points go higher than any count.
MORE_TENS = {**TENS, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_TENS_WORD = {n: w for w, n in MORE_TENS.items()}


def parse_total(text: str) -> int | None:
    """A total of points from 0 to 999: ``"forty two"``, ``"a hundred and five"``,
    ``"two hundred"``, ``"105 points"``; None when ``text`` says something else."""
    words = [w for w in _WORD.findall(text.lower()) if w != "and"]
    if words and words[-1] in ("points", "point"):
        words = words[:-1]
    if len(words) == 1 and words[0].isdigit():
        return int(words[0]) if int(words[0]) < 1000 else None
    value = 0
    if "hundred" in words:
        i = words.index("hundred")
        head = words[:i]
        if head in ([], ["a"], ["one"]):
            value = 100
        elif len(head) == 1 and head[0] in UNITS and 1 <= UNITS[head[0]] <= 9:
            value = 100 * UNITS[head[0]]
        else:
            return None
        words = words[i + 1:]
        if not words:
            return value
    if len(words) == 1 and words[0] in UNITS and words[0] not in ("none", "nothing", "oh"):
        return value + UNITS[words[0]]
    if len(words) == 1 and words[0] in MORE_TENS:
        return value + MORE_TENS[words[0]]
    if len(words) == 2 and words[0] in MORE_TENS and words[1] in UNITS and 1 <= UNITS[words[1]] <= 9:
        return value + MORE_TENS[words[0]] + UNITS[words[1]]
    if not value and len(words) == 1 and words[0] in ("none", "nothing"):
        return 0
    return None


def total_words(value: int) -> str:
    """``105`` -> ``'one hundred five'``: the form the Swoop grammar and read-back use."""
    hundreds, rest = divmod(value, 100)
    tens, unit = divmod(rest, 10)
    low = next(w for w, n in UNITS.items() if n == rest and w not in ("none", "nothing", "oh")) \
        if rest < 20 else (next(w for w, n in MORE_TENS.items() if n == tens * 10)
                           + ("" if unit == 0 else " " + number_words(unit)))
    if not hundreds:
        return low
    return f"{number_words(hundreds)} hundred" + ("" if rest == 0 else f" {low}")


def spoken_number(value: int) -> str:
    """A number as the referee says it, in words where espeak-ng would
    misread digits: ``-2`` -> ``'minus two'``, ``104`` -> ``'one hundred and four'``;
    from a thousand on, digits."""
    if value < 0:
        return "minus " + spoken_number(-value)
    if value < 60:
        return number_words(value)
    if value < 100:
        tens, unit = divmod(value, 10)
        return _TENS_WORD[tens * 10] + (f" {number_words(unit)}" if unit else "")
    if value < 1000:
        hundreds, rest = divmod(value, 100)
        return f"{number_words(hundreds)} hundred" + (f" and {spoken_number(rest)}" if rest else "")
    return str(value)
