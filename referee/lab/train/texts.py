"""What training says: the 52 card calls, and talk that is no call: chatter made of everyday
words, near-misses built from card words ("four hearts", "the queen is mine"), a rank
followed by words that are not a suit ("jack of all trades"), decoys ("group", "soup"),
our commands and numbers; never a sentence of the benchmark's held-out set or of its
near-miss development set.
"""

from __future__ import annotations

import random
import re

from referee.core.cards import RANK_WORDS, Suit, full_deck
from referee.hearing.grammar import Grammar
from referee.lab import sentences

RANKS = tuple(RANK_WORDS[n] for n in sorted(RANK_WORDS))
SUITS = tuple(s.word for s in Suit)

EVERYDAY = """the a and to of in it is you that he was for on are with as i his they be at one
have this from or had by hot word but what some we can out other were all there when up use
your how said an each she which do their time if will way about many then them write would like
so these her long make thing see him two has look more day could go come did number sound no
most people my over know water than call first who may down side been now find any new work
part take get place made live where after back little only round man year came show every good
me give our under name very through just form sentence great think say help low line differ turn
cause much mean before move right boy old too same tell does set three want air well also play
small end put home read hand port large spell add even land here must big high such follow act
why ask men change went light kind off need house picture try us again animal point mother world
near build self earth father head stand own page should country found answer school grow study
still learn plant cover food sun four between state keep eye never last let thought city tree
cross farm hard start might story saw far sea draw left late run while press close night real
life few north open seem together next white children begin got walk example ease paper group
always music those both mark often letter until mile river car feet care second book carry took
science eat room friend began idea fish mountain stop once base hear horse cut sure watch colour
face wood main enough plain girl usual young ready above ever red list though feel talk bird soon
body dog family direct pose leave song measure door product black short numeral class wind
question happen complete ship area half rock order fire south problem piece told knew pass since
top whole king space heard best hour better true during hundred five remember step early hold
west ground interest reach fast verb sing listen six table travel less morning ten simple several
vowel toward war lay against pattern slow centre love person money serve appear road map rain
rule govern pull cold notice voice unit power town fine certain fly fall lead cry dark machine
note wait plan figure star box noun field rest correct able pound done beauty drive stood contain
front teach week final gave green oh quick develop ocean warm free minute strong special mind
behind clear tail produce fact street inch multiply nothing course stay wheel full force blue
object decide surface deep moon island foot system busy test record boat common gold possible
plane stead dry wonder laugh thousand ago ran check game shape equate hot miss brought heat snow
tyre bring yes distant fill east paint language among""".split()

NEAR_TEMPLATES = (
    "{rank} {suit}", "{rank}", "{suit}", "i have {rank} {suit}", "{rank} of", "of {suit}",
    "the {rank} is mine", "{suit} are trumps", "that {rank} was close", "{rank} {rank}",
    "my {rank}", "no more {suit}", "the {rank} of the {word}", "{rank} and {rank}",
    "{word} {rank} {suit}", "{suit} and {suit}", "who has the {rank}", "{rank} points",
    "{rank} of {word}", "{word} of {suit}", "is it {suit}", "{rank} or {rank}",
    "it was the {rank}", "i love {suit}", "{suit} again", "pass the {rank}",
)
DECOYS = ("group", "goose", "oops", "loop", "soup", "hoop", "gulp", "google", "good", "go",
          "look", "cook", "goo", "scoop", "troop", "grip", "gap", "whoops", "book", "cube",
          "two", "coop", "gold", "good one", "oops sorry")
COMMANDS = tuple(" ".join(p.words) for p in Grammar.load().subset(["command"]).phrases)
"""Every wording of our commands, as the grammar has them."""
LINKS = ("in the", "on the", "at the", "of the", "of a", "of my", "of your", "of our", "of them",
         "of us", "of those", "of all", "up my", "up the", "for the", "with the", "off the",
         "to the", "by the", "from the", "out of", "in a", "on a", "is my", "was the", "and the",
         "in my", "under the", "for a")
"""Words that follow a rank in talk that is no call: "jack of all ...", "ace up my ..."."""
NEAR_PHRASES = ("{rank} {link} {word}", "the {rank} {link} {word}", "a {rank} {link} {word}",
                "{rank} {link} {word} {word}", "{rank} of {word}", "{rank} of the {word}s",
                "my {rank} {link} {word}")
"""A rank, then words that are not a suit: the near-misses a call is most easily mistaken
for, as the rest of a sentence can sound like "of hearts" in noise."""
NUMBERS = ("one", "three", "seven", "eleven", "twelve", "seventeen", "twenty", "thirty one",
           "forty two", "no five", "correction nine", "eight cards", "thirteen left", "zero")


def card_texts() -> list[tuple[str, str]]:
    """(text, label) for every card: ``('queen of hearts', 'queen of hearts')``."""
    return [(c.spoken, c.spoken) for c in full_deck()]


def other_text(rng: random.Random) -> str:
    """One piece of talk that is not a call or a shout."""
    r = rng.random()
    if r < 0.35:
        return " ".join(rng.choice(EVERYDAY) for _ in range(rng.randint(2, 7)))
    if r < 0.7:
        t = rng.choice(NEAR_TEMPLATES)
        return re.sub(r"\{(\w+)\}", lambda m: rng.choice(
            {"rank": RANKS, "suit": SUITS, "word": EVERYDAY}[m.group(1)]), t)
    if r < 0.82:
        return rng.choice(DECOYS)
    if r < 0.92:
        return rng.choice(COMMANDS)
    return rng.choice(NUMBERS)


def near_text(rng: random.Random) -> str:
    """A rank followed by words that are not a suit (see :data:`NEAR_PHRASES`)."""
    t = rng.choice(NEAR_PHRASES)
    return re.sub(r"\{(\w+)\}", lambda m: rng.choice(
        {"rank": RANKS, "word": EVERYDAY, "link": LINKS}[m.group(1)]), t)


def held_out_texts() -> set[str]:
    """Sentences of the benchmark's held-out set, never to be trained on."""
    out = set()
    for table in (sentences.CHATTER, sentences.NEAR_MISSES, sentences.BABBLE,
                  sentences.ADDRESSED, sentences.UNADDRESSED, sentences.PARTIAL_CHATTER,
                  sentences.NUMBER_TALK):
        out |= {t.lower() for t in table["held-out"]}
    out |= {t.lower() for t, _ in sentences.COMMANDS["held-out"]}
    return out


def banned_texts() -> set[str]:
    """What training never says: the held-out sentences, and those of the near-miss
    development set (``referee bench --dev near-miss``), so that it stays a fair check."""
    return held_out_texts() | {t.lower() for t in sentences.PROBE_NEAR_MISSES}
